import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * 10,000 seeded fuzzed lines (malformed JSON, CRs, BOMs, NBSPs, bytes that are not UTF-8, NULs,
 * wrong shapes, huge and deeply nested input) through the real `toolroom batch` and `toolroom mcp`:
 * every line gets exactly one answer (batch: in order; MCP: by id, none for a notification or a
 * response, as JSON-RPC says) and the process neither crashes nor prints a stack.
 */

const BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");
const LINES = 10_000;
const SEED = 0x5eed_2026;

/** mulberry32: a small seeded generator, so a failure comes back on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Dialect = "batch" | "mcp";

interface Fuzzed {
  bytes: Buffer;
  /** Built past JSON's nesting limit (the CLI refuses it before reading any field). */
  deep?: boolean;
}

function generator(dialect: Dialect, seed: number) {
  const next = random(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  let hugeLeft = 6;

  /** A well-formed line of the dialect, with its own id. */
  const request = (id: string): string => {
    if (dialect === "batch") {
      return JSON.stringify(
        pick([
          { tool: "read_file", params: { path: "a.txt" }, request_id: id },
          { tool: "list_files", params: {}, request_id: id },
          { tool: "read_file", params: { path: "../etc/passwd" }, request_id: id },
          { tool: "no_such_tool", params: {}, request_id: id },
          { tool: "read_file", params: { path: 5, extra: [1, { a: null }] }, request_id: id },
          { tool: "search", params: { pattern: "h(", path: "." }, request_id: id },
        ]),
      );
    }
    const call = (name: string, args: unknown) => ({ name, arguments: args });
    return JSON.stringify(
      pick([
        { jsonrpc: "2.0", id, method: "ping" },
        { jsonrpc: "2.0", id, method: "tools/list" },
        { jsonrpc: "2.0", id, method: "tools/list", params: { cursor: "x" } },
        { jsonrpc: "2.0", id, method: "tools/call", params: call("read_file", { path: "a.txt" }) },
        { jsonrpc: "2.0", id, method: "tools/call", params: call("read_file", { path: 7 }) },
        { jsonrpc: "2.0", id, method: "tools/call", params: call("nope", {}) },
        { jsonrpc: "2.0", id, method: "tools/call", params: call("list_files", "not an object") },
        { jsonrpc: "2.0", id, method: "resources/list" },
        { jsonrpc: "2.0", id, method: "tools/call" },
      ]),
    );
  };

  const mutate = (text: string): Buffer => {
    let bytes = Buffer.from(text);
    for (let n = 1 + int(3); n > 0; n--) {
      const at = int(bytes.length + 1);
      const insert = (piece: Buffer) =>
        (bytes = Buffer.concat([bytes.subarray(0, at), piece, bytes.subarray(at)]));
      switch (int(9)) {
        case 0:
          insert(Buffer.from("\r"));
          break;
        case 1:
          insert(Buffer.from("\ufeff"));
          break;
        case 2:
          insert(Buffer.from("\u00a0"));
          break;
        case 3:
          insert(Buffer.from([0x80 + int(0x80)]));
          break;
        case 4:
          insert(Buffer.from([0]));
          break;
        case 5:
          bytes = bytes.subarray(0, at);
          break;
        case 6:
          bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(Math.min(bytes.length, at + 1))]);
          break;
        case 7:
          insert(Buffer.from(pick(['"', "{", "}", "[", "]", ",", ":", "\\", "\t", " "])));
          break;
        default:
          insert(bytes.subarray(int(bytes.length), int(bytes.length) + 8));
      }
    }
    return bytes;
  };

  const garbage = (): Buffer => {
    const bytes = Buffer.alloc(int(200));
    for (let i = 0; i < bytes.length; i++) {
      let byte = int(256);
      if (byte === 0x0a) byte = 0x0d;
      bytes[i] = byte;
    }
    return bytes;
  };

  const shapes: readonly string[] = [
    "0",
    "-1.5e9",
    '"a string"',
    "null",
    "true",
    "[]",
    "[1,2]",
    "{}",
    '{"id":null}',
    '{"id":{"a":1},"method":"ping","jsonrpc":"2.0"}',
    '{"foo":"bar"}',
    '{"jsonrpc":"2.0","method":1,"params":"bar"}',
    '{"jsonrpc":"2.0","method":"x","params":5}',
    '{"jsonrpc":"1.0","method":"ping"}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
    '{"jsonrpc":"2.0","id":"r","result":{}}',
    '{"jsonrpc":"2.0","id":"e","error":{"code":1,"message":"m"}}',
    '{"tool":"read_file"}',
    '{"params":{"path":"a.txt"}}',
    '{"__proto__":{"polluted":true},"tool":"read_file","params":{"path":"a.txt"}}',
  ];

  const deep = (): Fuzzed => {
    const depth = 600 + int(30_000);
    const open = pick(["[", '{"a":']);
    const close = open === "[" ? "]" : "}";
    const balanced = next() < 0.5;
    const body = `${open.repeat(depth)}1${balanced ? close.repeat(depth) : ""}`;
    const text = dialect === "mcp" ? `{"jsonrpc":"2.0","id":"deep","params":${body}}` : body;
    return { bytes: Buffer.from(text), deep: true };
  };

  const huge = (id: string): Buffer => {
    const size = (1 + int(6)) * 1024 * 1024;
    const filler = "x".repeat(size);
    if (next() < 0.5) return Buffer.from(filler);
    return Buffer.from(
      dialect === "batch"
        ? JSON.stringify({ tool: "read_file", params: { path: filler }, request_id: id })
        : JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "read_file", arguments: { path: filler } },
          }),
    );
  };

  /** A JSON-RPC batch: a few requests, notifications, responses and wrong shapes in one array. */
  const batch = (id: string): Buffer => {
    const items = Array.from({ length: int(5) }, (_, k) =>
      next() < 0.6 ? request(`${id}-b${k}`) : pick(shapes),
    );
    const text = `[${items.join(",")}]`;
    return next() < 0.8 ? Buffer.from(text) : mutate(text);
  };

  return (line: number): Fuzzed => {
    const id = `f${line}`;
    if (line % 100 === 0) return { bytes: Buffer.from(request(`sentinel-${line}`)) };
    const roll = next();
    if (dialect === "mcp" && roll > 0.85 && roll < 0.9) return { bytes: batch(id) };
    if (roll < 0.1) return { bytes: Buffer.from(request(id)) };
    if (roll < 0.5) return { bytes: mutate(request(id)) };
    if (roll < 0.65) return { bytes: garbage() };
    if (roll < 0.7) return { bytes: Buffer.from(pick(["", " ", "\t", "\u00a0", "\ufeff", "\r", " \r"])) };
    if (roll < 0.85) return { bytes: mutate(pick(shapes)) };
    if (roll < 0.97) return { bytes: Buffer.from(pick(shapes)) };
    if (roll < 0.99 || hugeLeft === 0) return deep();
    hugeLeft--;
    return { bytes: huge(id) };
  };
}

/** What a line is as JSON (a "\r" ending it is not part of it), or undefined when it is not JSON. */
function parsed(line: Fuzzed): { value: unknown } | undefined {
  if (line.deep) return undefined;
  let text = line.bytes.toString("utf8");
  if (text.endsWith("\r")) text = text.slice(0, -1);
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The id JSON-RPC 2.0 answers a message with: its own for a request, null for anything that is not
 * a message, and none (undefined) for a notification or a response.
 */
function answerIdOf(value: unknown): string | number | null | undefined {
  if (!isObject(value)) return null;
  const message = value;
  if (message.method === undefined && ("result" in message || "error" in message)) return undefined;
  if ("id" in message) {
    const id = message.id;
    return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
  }
  const notification =
    message.jsonrpc === "2.0" &&
    typeof message.method === "string" &&
    (message.params === undefined || isObject(message.params));
  return notification ? undefined : null;
}

type Expected = { single: string | number | null } | { batch: (string | number | null)[] } | null;

/**
 * What a line gets back: one message with an id, one array answering a batch (where the session's
 * revision has batches; an array of notifications only gets nothing), or nothing.
 */
function expectedAnswer(line: Fuzzed, batches: boolean): Expected {
  const json = parsed(line);
  if (!json) return { single: null };
  if (!Array.isArray(json.value)) {
    const id = answerIdOf(json.value);
    return id === undefined ? null : { single: id };
  }
  if (!batches || json.value.length === 0) return { single: null };
  const ids = json.value.map((item) => (Array.isArray(item) ? null : answerIdOf(item)));
  const answered = ids.filter((id) => id !== undefined);
  return answered.length === 0 ? null : { batch: answered };
}

const key = (answer: Exclude<Expected, null>) =>
  "single" in answer
    ? `single ${JSON.stringify(answer.single)}`
    : `batch ${answer.batch
        .map((id) => JSON.stringify(id))
        .sort()
        .join(" ")}`;

/** Runs the CLI with `lines` on stdin (written with backpressure), collecting stdout's lines. */
function run(args: string[], lines: Buffer[]): Promise<{ code: number; out: string[]; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "toolroom-fuzz-"));
  writeFileSync(join(dir, "a.txt"), "hello\n");
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, [...args, "--workspace", dir], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.on("error", () => undefined);
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({ code: code ?? -1, out: stdout.split("\n").filter((line) => line !== ""), stderr }),
    );
    void (async () => {
      for (const line of lines) {
        if (!child.stdin.write(Buffer.concat([line, Buffer.from("\n")])))
          await new Promise((done) => child.stdin.once("drain", done));
      }
      child.stdin.end();
    })();
  });
}

function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at /u);
  expect(stderr).not.toContain("internal error");
}

describe("10,000 fuzzed lines", () => {
  it("batch answers each line exactly once, in order", async () => {
    const make = generator("batch", SEED);
    const lines = Array.from({ length: LINES }, (_, index) => make(index + 1));
    const { code, out, stderr } = await run(
      ["batch", "--profile", "agentbench"],
      lines.map((l) => l.bytes),
    );
    expect(code, stderr).toBe(0);
    expectNoStack(stderr);
    expect(out).toHaveLength(LINES);
    const answers = out.map((line) => JSON.parse(line) as { request_id: string; status: string });
    lines.forEach((line, index) => {
      const json = parsed(line);
      const id = json && isObject(json.value) ? json.value.request_id : undefined;
      // Each answer names the request it answers whenever the line could name one.
      if (typeof id === "string") expect(answers[index]!.request_id, `line ${index + 1}`).toBe(id);
      if ((index + 1) % 100 === 0) expect(answers[index]!.request_id).toBe(`sentinel-${index + 1}`);
    });
    expect(answers.filter((answer) => answer.status === "success").length).toBeGreaterThan(100);
  }, 300_000);

  for (const [revision, batches] of [
    ["2025-06-18", false],
    ["2025-03-26", true],
  ] as const) {
    it(`mcp (${revision}) answers each request once and each line that is not a message with an error`, async () => {
      const make = generator("mcp", SEED + (batches ? 2 : 1));
      const initialize = {
        bytes: Buffer.from(
          JSON.stringify({
            jsonrpc: "2.0",
            id: "init",
            method: "initialize",
            params: {
              protocolVersion: revision,
              capabilities: {},
              clientInfo: { name: "fuzz", version: "1" },
            },
          }),
        ),
      };
      const lines = [initialize, ...Array.from({ length: LINES }, (_, index) => make(index + 1))];
      const { code, out, stderr } = await run(
        ["mcp", "--profile", "agentbench"],
        lines.map((l) => l.bytes),
      );
      expect(code, stderr).toBe(0);
      expectNoStack(stderr);
      const got = out
        .map((line) => JSON.parse(line) as { id?: unknown; method?: unknown } | { id?: unknown }[])
        .map((answer) =>
          Array.isArray(answer)
            ? key({ batch: answer.map((item) => item.id as string | number | null) })
            : key({ single: answer.id as string | number | null }),
        )
        .sort();
      const expected = lines
        .map((line) => expectedAnswer(line, batches))
        .filter((answer) => answer !== null)
        .map(key)
        .sort();
      expect(got.length).toBe(expected.length);
      expect(got).toEqual(expected);
      if (batches) expect(got.filter((answer) => answer.startsWith("batch")).length).toBeGreaterThan(100);
      for (let line = 100; line <= LINES; line += 100)
        expect(got).toContain(`single ${JSON.stringify(`sentinel-${line}`)}`);
    }, 300_000);
  }
});
