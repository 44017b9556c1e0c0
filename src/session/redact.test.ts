import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../sandbox/snapshot.ts";
import { exportSession, redactSecrets } from "./export.ts";
import type { SessionFile } from "./format.ts";
import { parseSession } from "./format.ts";
import { buildSession } from "./record.ts";
import { REDACTED, Redactor } from "./redact.ts";
import { decodeFragmentText, shareSession } from "./share.ts";

const KEY = "tr-live-Qx7.Zp+Lm/w9_Ke~Rt3Vb2Nc8==";
const ANTHROPIC = "sk-ant-api03-Zm9vYmFyYmF6cXV4cXV1eA";

describe("redaction over decoded text", () => {
  it("finds a key right after an escaped newline or tab, in strings that hold JSON", () => {
    const envelope = JSON.stringify({ stdout: `line one\n${ANTHROPIC}\tnext`, note: `\t${ANTHROPIC}` });
    expect(envelope).toContain(`\\n${ANTHROPIC}`);
    const { text, redactions } = redactSecrets(envelope);
    expect(text).not.toContain("sk-ant-");
    expect(redactions).toEqual([{ what: "Anthropic key", count: 2 }]);
    expect(JSON.parse(text)).toEqual({ stdout: `line one\n${REDACTED}\tnext`, note: `\t${REDACTED}` });
  });

  it("redacts bearer tokens in any case and spacing, and API key headers", () => {
    const token = "abcDEF0123456789ghijKLMN";
    for (const header of [
      `Authorization: Bearer ${token}`,
      `authorization: bearer ${token}`,
      `Bearer   ${token}`,
      `BEARER\t${token}`,
      `Authorization%3A%20Bearer%20${token}`,
      `x-api-key: ${token}`,
      `X-Goog-Api-Key:${token}`,
      `Proxy-Authorization: Basic ${token}`,
    ]) {
      expect(redactSecrets(header).text, header).not.toContain(token);
    }
    // Ordinary prose and code are left alone.
    for (const text of [
      "the bearer of bad news",
      "const apiKey = process.env.OPENAI_API_KEY_FOR_TESTS;",
      "task-list-with-many-words and basic-configuration-options",
    ]) {
      expect(redactSecrets(text).text).toBe(text);
    }
  });

  it("finds the key in use in every encoding: escapes, percent, HTML, base64 at any offset, hex, UTF-16", () => {
    const bytes = new TextEncoder().encode(KEY);
    const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    const forms = [
      KEY,
      encodeURIComponent(KEY),
      [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""),
      [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
      [...KEY].map((c) => `&#${c.charCodeAt(0)};`).join(""),
      JSON.stringify(KEY).replace(/\//gu, "\\/"),
      btoa(`user:${KEY}`),
      btoa(`u:${KEY}`),
      btoa(`:${KEY}`),
      btoa(`x${KEY}`).replace(/\+/gu, "-").replace(/\//gu, "_"),
      hex,
      hex.toUpperCase(),
    ];
    for (const form of forms) {
      const { text, redactions } = redactSecrets(`before ${form} after`, [KEY]);
      expect(text, form).toContain(REDACTED);
      expect(redactions[0]?.what, form).toBe("the API key in use");
      expect(text).not.toContain(KEY);
    }
    const utf16 = new Uint8Array(KEY.length * 2);
    for (let i = 0; i < KEY.length; i++) utf16[i * 2] = KEY.charCodeAt(i);
    const redacted = new Redactor([KEY]).bytes(utf16);
    expect(String.fromCharCode(...redacted).replace(/\0/gu, "")).not.toContain(KEY);
  });

  it("decodes base64 and percent-encoded runs inside text and keeps them valid", () => {
    const data = btoa(`payload\n${ANTHROPIC}\n`);
    const redacted = redactSecrets(`data:text/plain;base64,${data}`).text;
    const [, inner] = /base64,(.*)$/u.exec(redacted)!;
    expect(atob(inner!)).toBe(`payload\n${REDACTED}\n`);
    const query = `https://x.test/?q=${encodeURIComponent(`token ${ANTHROPIC}`)}`;
    expect(decodeURIComponent(redactSecrets(query).text)).toBe(`https://x.test/?q=token ${REDACTED}`);
  });

  it("searches non-UTF-8 files' bytes and image data, and keeps the session readable", () => {
    const binary = new Uint8Array([0xff, 0xfe, 0x00, ...new TextEncoder().encode(`\n${ANTHROPIC}`), 0x80]);
    const session = buildSession({
      profile: "agentbench",
      workspace: { files: { "blob.bin": { base64: bytesToBase64(binary) } } },
      events: [],
      transcript: [
        { role: "user", text: "see", images: [{ mediaType: "image/png", data: btoa(`\x89PNG${KEY}`) }] },
      ],
      meta: { title: "Binary" },
    });
    const { text, redactions } = exportSession(session, { secrets: [KEY] });
    const opened = parseSession(text);
    const blob = opened.workspace.files["blob.bin"] as { base64: string };
    expect(atob(blob.base64)).toBe(`\xff\xfe\0\n${REDACTED}\x80`);
    const image = (opened.transcript[0] as { images: { data: string }[] }).images[0]!;
    expect(atob(image.data)).toBe(`\x89PNG${REDACTED}`);
    expect(redactions).toEqual([
      { what: "the API key in use", count: 1 },
      { what: "Anthropic key", count: 1 },
    ]);
  });

  it("redacts object keys (a file named after a key) without losing a file", () => {
    const value = new Redactor().value({ [`${ANTHROPIC}.txt`]: "a", [`${ANTHROPIC}x.txt`]: "b" }) as object;
    expect(Object.keys(value).sort()).toEqual([`${REDACTED}.txt`, `${REDACTED}.txt (2)`]);
  });

  it("handles values nested as deep as JSON.stringify can write", () => {
    let deep: unknown = ANTHROPIC;
    for (let i = 0; i < 4000; i++) deep = i % 2 ? { a: deep } : [deep];
    const text = JSON.stringify(new Redactor().value(deep));
    expect(text).toContain(REDACTED);
    expect(text).not.toContain("sk-ant");
  });
});

/** A small seeded random generator, so a failure can be replayed from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const word = (n: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") =>
    Array.from({ length: n }, () => alphabet[int(alphabet.length)]).join("");
  return { next, int, pick, word };
}

type Rng = ReturnType<typeof random>;

/** Generic key shapes with a random body: what a model may echo or a person may paste. */
function genericKey(rng: Rng): string {
  return rng.pick([
    () => `sk-ant-api03-${rng.word(40)}`,
    () => `sk-proj-${rng.word(32)}`,
    () => `sk-${rng.word(24)}`,
    () => `AIza${rng.word(35)}`,
    () => `gsk_${rng.word(30)}`,
    () => `hf_${rng.word(34)}`,
    () => `xai-${rng.word(30)}`,
  ])();
}

/** A header that carries a token: the token is what must not survive. */
function header(rng: Rng, token: string): string {
  const bearer = [..."bearer"].map((c) => (rng.next() < 0.5 ? c.toUpperCase() : c)).join("");
  const gap = rng.pick([" ", "  ", "\t", "   "]);
  return rng.pick([
    `Authorization: ${bearer}${gap}${token}`,
    `${bearer}${gap}${token}`,
    `x-api-key: ${token}`,
    `X-API-KEY:${gap}${token}`,
  ]);
}

const BEFORE = ["", "\n", "\t", "\r\n", " ", '"', "=", ":", "\\", "(", "'", "\u00a0", "\ufeff"];
const AFTER = ["", "\n", " ", '"', ".", ",", "\t", ")"];

/** The key in use, written as a tool, a person or a program might write it. */
function encodeInUse(rng: Rng, key: string): string {
  const bytes = new TextEncoder().encode(key);
  return rng.pick([
    () => key,
    () => encodeURIComponent(key),
    () => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join(""),
    () => [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    () => [...key].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(""),
    () => JSON.stringify(`${rng.pick(BEFORE)}${key}`),
    () => btoa(`${rng.word(rng.int(7))}:${key}`),
    () =>
      btoa(`${rng.word(rng.int(5))}${key}${rng.word(rng.int(5))}`)
        .replace(/\+/gu, "-")
        .replace(/\//gu, "_"),
    () => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(""),
    () => `Authorization: Basic ${btoa(`user:${key}`)}`,
    () => header(rng, key),
  ])();
}

function encodeGeneric(rng: Rng, key: string): string {
  return rng.pick([
    () => key,
    () => JSON.stringify({ out: `${rng.pick(BEFORE)}${key}${rng.pick(AFTER)}` }),
    () => base64Of(`${rng.word(rng.int(9))}\n${key}\n`),
    () => encodeURIComponent(`${rng.pick(["token ", "k=", "\n"])}${key}`),
    () => header(rng, key),
  ])();
}

/** Base64 of text's UTF-8 bytes (btoa takes only latin1). */
const base64Of = (text: string) => bytesToBase64(new TextEncoder().encode(text));

/** Every place a session holds text, as a setter the fuzzer plants a string in. */
function places(session: SessionFile, rng: Rng): ((text: string, binary: boolean) => void)[] {
  const files = session.workspace.files;
  const event = () => session.events[rng.int(session.events.length)]!;
  const nested = (text: string): unknown => {
    let value: unknown = text;
    for (let depth = rng.int(4); depth > 0; depth--)
      value = rng.next() < 0.5 ? [value] : { [rng.word(3)]: value };
    return value;
  };
  return [
    (text) => {
      files[`src/${rng.word(5)}.txt`] = `${rng.word(20)}${text}${rng.word(5)}`;
    },
    (text, binary) => {
      const bytes = new TextEncoder().encode(text);
      const data = new Uint8Array([0xff, 0x80, ...bytes, 0xc3]);
      if (binary) {
        // UTF-16LE, as an editor on Windows may save it.
        const wide = new Uint8Array(text.length * 2 + 2);
        wide.set([0xff, 0xfe]);
        for (let i = 0; i < text.length; i++) wide[2 + i * 2] = text.charCodeAt(i) & 0xff;
        files[`bin/${rng.word(4)}.dat`] = { base64: bytesToBase64(wide) };
      } else files[`bin/${rng.word(4)}.dat`] = { base64: bytesToBase64(data) };
    },
    (text) => {
      files[`notes ${text}.md`] = "x";
    },
    (text) => {
      files[`link-${rng.word(4)}`] = { symlink: `../${text}` };
    },
    (text) => {
      session.workspace.directories = [...(session.workspace.directories ?? []), `dir${text}`];
    },
    (text) => {
      event().params = { command: nested(`echo ${text}`), [text]: 1 };
    },
    (text) => {
      event().data = { stdout: nested(`${rng.word(8)}${text}`), envelope: JSON.stringify({ output: text }) };
    },
    (text) => {
      event().request_id = text;
    },
    (text) => {
      session.transcript.push({ role: rng.pick(["user", "system"] as const), text });
    },
    (text) => {
      session.transcript.push({
        role: "assistant",
        text: `Here: ${text}`,
        toolCalls: [
          { id: rng.word(6), name: "shell", arguments: JSON.stringify({ command: `curl ${text}` }) },
        ],
      });
    },
    (text) => {
      session.transcript.push({
        role: "tool",
        callId: rng.word(6),
        tool: "shell",
        content: JSON.stringify({ ok: true, stdout: `\n${text}\n` }),
        isError: false,
        images: [{ mediaType: "image/png", data: base64Of(`\x89PNG\r\n${text}`) }],
      });
    },
    (text) => {
      session.transcript.push({
        role: "user",
        text: "look",
        images: [{ mediaType: "image/png", data: base64Of(text) }],
      });
    },
    (text) => {
      session.meta.title = `Run ${text}`;
    },
    (text) => {
      session.meta.description = text;
      session.meta.task = `Fix\t${text}`;
    },
    (text) => {
      session.meta.agent = {
        provider: "openai",
        model: text,
        baseUrl: `https://proxy.test/${text}`,
        stopReason: text,
      };
    },
  ];
}

/**
 * Every way a reader could get a key back from a string: the string itself, its JSON, percent,
 * HTML and \x escapes undone, base64 runs decoded at every offset, UTF-16 zero bytes dropped.
 */
function views(text: string): string[] {
  const out = [text];
  const unescaped = text
    .replace(/\\u\{([0-9a-fA-F]+)\}/gu, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/\\u([0-9a-fA-F]{4})/gu, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/\\x([0-9a-fA-F]{2})/gu, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/&#x([0-9a-fA-F]+);/gu, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/gu, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/\\(["\\/])/gu, "$1");
  out.push(
    unescaped,
    unescaped.replace(/%([0-9a-fA-F]{2})/gu, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
  );
  for (const run of text.match(/[A-Za-z0-9+/_=-]{12,}/gu) ?? []) {
    const clean = run.replace(/-/gu, "+").replace(/_/gu, "/").replace(/=/gu, "");
    for (let offset = 0; offset < 4; offset++) {
      let part = clean.slice(offset);
      part = part.slice(0, part.length - (part.length % 4 === 1 ? 1 : 0));
      try {
        out.push(atob(part + "=".repeat((4 - (part.length % 4)) % 4)));
      } catch {
        // not base64 at this offset
      }
    }
  }
  return [...out, ...out.map((view) => view.replace(/\0/gu, ""))];
}

function allStrings(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) allStrings(item, into);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      allStrings(item, into);
    }
  }
  return into;
}

function leaks(exported: string, secrets: string[]): string[] {
  const found: string[] = [];
  const forms = secrets.map((secret) => ({
    secret,
    hex: [...new TextEncoder().encode(secret)].map((b) => b.toString(16).padStart(2, "0")).join(""),
  }));
  for (const { secret } of forms) if (exported.includes(secret)) found.push(`${secret} in the exported text`);
  for (const text of allStrings(JSON.parse(exported))) {
    for (const view of views(text)) {
      const lower = view.toLowerCase();
      for (const { secret, hex } of forms) {
        if (view.includes(secret) || lower.includes(hex))
          found.push(`${secret} in ${JSON.stringify(text.slice(0, 200))}`);
      }
    }
  }
  return found;
}

describe("redaction fuzz", () => {
  it("finds no planted key in any export, file or link, over every place a session holds text", () => {
    const rng = random(20261124);
    let planted = 0;
    for (let round = 0; round < 150; round++) {
      const key = `${rng.pick(["tr-", "key_", "", "pk."])}${rng.word(28, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=-")}`;
      const session = buildSession({
        profile: "agentbench",
        workspace: { files: { "README.md": "# demo\n" } },
        events: [
          {
            seq: 1,
            ts: "2026-01-01T00:00:00Z",
            session: "s",
            type: "tool_call_started",
            tool: "run",
            params: {},
          },
          {
            seq: 2,
            ts: "2026-01-01T00:00:01Z",
            session: "s",
            type: "tool_call_finished",
            tool: "run",
            status: "success",
          },
        ],
        transcript: [],
        meta: { title: "Fuzz" },
      });
      const setters = places(session, rng);
      const secrets = [key];
      for (let n = 0; n < 12; n++) {
        const inUse = rng.next() < 0.5;
        const secret = inUse ? key : genericKey(rng);
        if (!inUse) secrets.push(secret);
        const encoded = inUse ? encodeInUse(rng, secret) : encodeGeneric(rng, secret);
        // A key shape glued to a word ("task-…") is a word: generic keys get a separator before.
        const before = inUse ? rng.pick(BEFORE) : rng.pick(BEFORE.filter((b) => b !== ""));
        const text = `${rng.word(rng.int(6))}${before}${encoded}${rng.pick(AFTER)}${rng.word(rng.int(6))}`;
        rng.pick(setters)(text, rng.next() < 0.3);
        planted++;
      }
      const outputs = [
        exportSession(session, { secrets: [key] }).text,
        exportSession(session, { secrets: [key], pretty: true }).text,
      ];
      const link = shareSession(session, "https://toolroom.test/", { secrets: [key], limit: 1_000_000 });
      if (link.kind !== "link") throw new Error("expected a link");
      const fragment = new URL(link.url).hash.slice(3);
      outputs.push(decodeFragmentText(fragment));
      const file = shareSession(session, "https://toolroom.test/", { secrets: [key], limit: 10 });
      if (file.kind !== "file") throw new Error("expected a file");
      outputs.push(file.text);
      for (const output of outputs) {
        expect(leaks(output, secrets), `round ${round}`).toEqual([]);
        expect(() => parseSession(output)).not.toThrow();
      }
      expect(link.url).not.toContain(key);
    }
    expect(planted).toBe(1800);
  });
});
