/**
 * Redaction: the last line of defence that keeps keys out of exported sessions and share links.
 *
 * It works on decoded text, field by field, not on the exported JSON: a key right after a "\n" in
 * a string is written `\nsk-…` in JSON, where a word boundary before `sk-` is not seen. Each string
 * (and each object key) is searched as text; a non-UTF-8 file's base64 and an image's data are
 * decoded and searched as bytes; base64 and percent-encoded runs inside text are decoded and
 * searched too. The key in use is found in every encoding a tool or a person is likely to write it
 * in: as is, JSON / JavaScript / HTML / percent escapes of any of its characters, base64 and
 * base64url at any alignment, hex, UTF-16.
 */

export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not searched for: "ollama" or "none" would blank out ordinary words. */
export const MIN_SECRET_LENGTH = 8;

export interface Redaction {
  /** What was found: "the API key in use" or a key shape's name. */
  what: string;
  count: number;
}

export const SECRET_IN_USE = "the API key in use";

/**
 * Where a key may start: not inside a word, but right after an escape sequence that ends in a
 * letter or digit (`\n`, `\t`, `\u000a`, `%0A`, `\x0a`), which is a separator once decoded.
 */
const START = String.raw`(?:(?<![A-Za-z0-9])|(?<=\\[nrtbfv0])|(?<=\\u[0-9A-Fa-f]{4})|(?<=\\x[0-9A-Fa-f]{2})|(?<=%[0-9A-Fa-f]{2}))`;
/** Spacing inside a header line: spaces and tabs, raw or escaped, or a URL's %20 and +. */
const GAP = String.raw`(?:[ \t]|\\t|%20|%09|\+)+`;
const OPTIONAL_GAP = String.raw`(?:[ \t]|\\t|%20|%09)*`;

/**
 * Key shapes providers hand out. A session never holds a key by construction; these catch the
 * one a model echoed, a person pasted into a file, or a bug let through.
 */
export const KEY_PATTERNS: readonly { name: string; pattern: RegExp; hint: string }[] = [
  { name: "Anthropic key", hint: "sk-", pattern: new RegExp(`${START}sk-ant-[A-Za-z0-9_-]{16,}`, "gu") },
  {
    name: "OpenAI-style key (sk-…)",
    hint: "sk-",
    pattern: new RegExp(`${START}sk-[A-Za-z0-9_-]{16,}`, "gu"),
  },
  { name: "Google API key", hint: "aiza", pattern: new RegExp(`${START}AIza[0-9A-Za-z_-]{35}`, "gu") },
  { name: "Groq key", hint: "gsk_", pattern: new RegExp(`${START}gsk_[A-Za-z0-9]{20,}`, "gu") },
  { name: "Hugging Face token", hint: "hf_", pattern: new RegExp(`${START}hf_[A-Za-z0-9]{30,}`, "gu") },
  { name: "xAI key", hint: "xai-", pattern: new RegExp(`${START}xai-[A-Za-z0-9]{20,}`, "gu") },
  {
    // Any case, any spacing: "Bearer x", "bearer   x", "BEARER\tx", "Bearer%20x".
    name: "bearer token",
    hint: "bearer",
    pattern: new RegExp(`(?<=(?<![A-Za-z0-9])bearer${GAP})[A-Za-z0-9._~+/-]{16,}=*`, "giu"),
  },
  {
    name: "authorization header",
    hint: "authorization",
    pattern: new RegExp(
      `(?<=(?<![A-Za-z0-9-])(?:proxy-)?authorization["']?${OPTIONAL_GAP}:${OPTIONAL_GAP}(?:[A-Za-z]+${GAP})?)[A-Za-z0-9._~+/-]{16,}=*`,
      "giu",
    ),
  },
  {
    name: "API key header",
    hint: "api-key",
    pattern: new RegExp(
      `(?<=(?<![A-Za-z0-9-])(?:x-goog-api-key|x-api-key|api-key)["']?${OPTIONAL_GAP}:${OPTIONAL_GAP}["']?)[A-Za-z0-9._~+/-]{16,}=*`,
      "giu",
    ),
  },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
}

const hex2 = (n: number) => n.toString(16).padStart(2, "0");
/** A hex number matched in either case. */
const anyCaseHex = (hex: string) =>
  [...hex].map((digit) => (/[a-f]/u.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join("");

const JSON_SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/**
 * One character of a secret in any way text escapes it: as is, percent-encoded (its UTF-8 bytes),
 * `\uXXXX`, `\xXX`, `\u{…}`, an HTML entity (decimal or hex), JSON's short escape.
 */
function characterForms(char: string): string {
  const code = char.codePointAt(0)!;
  const forms = [escapeRegExp(char)];
  const utf8 = new TextEncoder().encode(char);
  forms.push([...utf8].map((byte) => `%${anyCaseHex(hex2(byte))}`).join(""));
  const units = char.length === 1 ? [code] : [char.charCodeAt(0), char.charCodeAt(1)];
  forms.push(units.map((unit) => `\\\\u${anyCaseHex(unit.toString(16).padStart(4, "0"))}`).join(""));
  if (code < 0x100) forms.push(`\\\\x${anyCaseHex(hex2(code))}`);
  forms.push(`\\\\u\\{0*${anyCaseHex(code.toString(16))}\\}`);
  forms.push(`&#0*${code};`, `&#[xX]0*${anyCaseHex(code.toString(16))};`);
  const short = JSON_SHORT_ESCAPES[char];
  if (short) forms.push(escapeRegExp(short));
  return `(?:${forms.join("|")})`;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The part of base64 that depends only on the secret, at each of the three byte alignments it can
 * have inside longer data: base64 of "user:KEY" contains one of these three.
 */
function base64Forms(bytes: Uint8Array): string[] {
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = toBase64(padded);
    const stable = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    forms.push(stable, stable.replace(/\+/gu, "-").replace(/\//gu, "_"));
  }
  return forms;
}

/** A key in use: the expression that finds it in any encoding, and the plain forms it may take. */
interface SecretSearch {
  pattern: RegExp;
  /** Forms searched for with includes() first: the expression runs only when one is there. */
  literals: string[];
}

/** What finds `secret` in any of the encodings above. */
function secretSearch(secret: string): SecretSearch {
  const bytes = new TextEncoder().encode(secret);
  const literal = [...secret].map(characterForms).join("");
  const hex = [...bytes].map(hex2).join("");
  const utf16 = [...secret].join("\0");
  const literals = [secret, ...new Set(base64Forms(bytes)), hex, hex.toUpperCase(), utf16];
  const alternatives = [literal, ...literals.slice(1).map(escapeRegExp)];
  return { pattern: new RegExp(alternatives.map((form) => `(?:${form})`).join("|"), "gu"), literals };
}

/** Whether text may hold an escaped character (percent, backslash or HTML escapes). */
const MAY_ESCAPE = /[%\\&]/u;

/** Base64 (or base64url) runs long enough to hold a key, possibly wrapped into lines. */
const BASE64_RUN =
  /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}(?:(?:\r?\n|\\r\\n|\\n)[A-Za-z0-9+/_-]{4,})*={0,2}/gu;
/** Runs of URL-encoded text with at least one %XX in them. */
const PERCENT_RUN =
  /(?:[A-Za-z0-9._~!*'()+-]|%[0-9A-Fa-f]{2})*%[0-9A-Fa-f]{2}(?:[A-Za-z0-9._~!*'()+-]|%[0-9A-Fa-f]{2})*/gu;
/** How many times decoded content is decoded again (base64 of percent-encoded text, …). */
const MAX_DECODE_DEPTH = 2;

/** Bytes of base64 or base64url text as a latin1 string (one char per byte), or null when it is not. */
function decodeBase64Run(run: string): string | null {
  let clean = run
    .replace(/\\r\\n|\\n|\r?\n|=+$/gu, "")
    .replace(/-/gu, "+")
    .replace(/_/gu, "/");
  if (clean.length % 4 === 1) clean = clean.slice(0, -1);
  try {
    return atob(clean + "=".repeat((4 - (clean.length % 4)) % 4));
  } catch {
    return null;
  }
}

function latin1ToBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** A run of URL-encoded text (ASCII only) as the byte string it stands for. */
function percentDecodeToLatin1(run: string): string {
  let out = "";
  for (let i = 0; i < run.length; i++) {
    if (run[i] === "%" && /^[0-9A-Fa-f]{2}$/u.test(run.slice(i + 1, i + 3))) {
      out += String.fromCharCode(Number.parseInt(run.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (run[i] === "+") out += " ";
    else out += run[i];
  }
  return out;
}

function percentEncodeLatin1(text: string): string {
  let out = "";
  for (const char of text) {
    out += /[A-Za-z0-9._~-]/u.test(char) ? char : `%${hex2(char.charCodeAt(0) & 0xff).toUpperCase()}`;
  }
  return out;
}

/**
 * Replaces the secrets it is given and every key-shaped string with [REDACTED], in text, in bytes,
 * and in any JSON value, and counts what it replaced.
 */
export class Redactor {
  private readonly found: Redaction[] = [];
  private readonly secrets: SecretSearch[];

  constructor(secrets: readonly (string | undefined)[] = []) {
    const usable = [...new Set(secrets)].filter(
      (secret): secret is string => typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH,
    );
    // Longest first: a key that contains another is replaced whole.
    this.secrets = usable.sort((a, b) => b.length - a.length).map(secretSearch);
  }

  /** What was replaced so far: the key in use first, then key shapes in KEY_PATTERNS' order. */
  get redactions(): Redaction[] {
    const rank = (what: string) =>
      what === SECRET_IN_USE ? -1 : KEY_PATTERNS.findIndex((shape) => shape.name === what);
    return [...this.found].sort((a, b) => rank(a.what) - rank(b.what)).map((found) => ({ ...found }));
  }

  /** Text with every secret and key shape replaced, in it and in the encoded runs it contains. */
  text(text: string): string {
    return this.redactText(text, 0);
  }

  /** Bytes (a file that is not UTF-8, an image) searched as a byte string; the same bytes if clean. */
  bytes(bytes: Uint8Array): Uint8Array {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000)
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    const redacted = this.redactText(binary, 0);
    let out = redacted === binary ? bytes : latin1ToBytes(redacted);
    // UTF-16 text (little- or big-endian: one byte off), which a byte string shows as "s\0k\0-\0…".
    if (out.includes(0)) for (const offset of [0, 1]) out = this.utf16(out, offset);
    return out;
  }

  /** Bytes from `offset` read as UTF-16LE code units, redacted, and written back the same way. */
  private utf16(bytes: Uint8Array, offset: number): Uint8Array {
    let units = "";
    for (let i = offset; i + 1 < bytes.length; i += 2)
      units += String.fromCharCode(bytes[i]! | (bytes[i + 1]! << 8));
    const redacted = this.redactText(units, 0);
    if (redacted === units) return bytes;
    const tail = (bytes.length - offset) % 2;
    const out = new Uint8Array(offset + redacted.length * 2 + tail);
    out.set(bytes.subarray(0, offset));
    for (let i = 0; i < redacted.length; i++) {
      const unit = redacted.charCodeAt(i);
      out[offset + i * 2] = unit & 0xff;
      out[offset + i * 2 + 1] = unit >> 8;
    }
    if (tail) out[out.length - 1] = bytes[bytes.length - 1]!;
    return out;
  }

  /** Base64 whose decoded bytes are redacted (re-encoded only when something was found). */
  base64(text: string): string {
    const binary = decodeBase64Run(text);
    if (binary === null) return this.text(text);
    const bytes = latin1ToBytes(binary);
    const redacted = this.bytes(bytes);
    // The base64 text itself may hold the key (a file of base64 that is not valid base64).
    return redacted === bytes ? this.text(text) : toBase64(redacted);
  }

  /**
   * A JSON value with every string and object key redacted. `{base64}` objects (files that are not
   * UTF-8) and images' `data` are decoded and searched as bytes.
   */
  value(value: unknown): unknown {
    // A loop, not recursion: recorded params may nest as deep as JSON.stringify can write.
    interface Frame {
      source: Record<string, unknown> | unknown[];
      keys: string[] | null;
      index: number;
      out: Record<string, unknown> | unknown[];
      isImage: boolean;
    }
    const isContainer = (item: unknown): item is Record<string, unknown> | unknown[] =>
      typeof item === "object" && item !== null;
    const frameOf = (source: Record<string, unknown> | unknown[]): Frame => {
      const array = Array.isArray(source);
      const record = source as Record<string, unknown>;
      return {
        source,
        keys: array ? null : Object.keys(source),
        index: 0,
        out: array ? [] : {},
        isImage: !array && typeof record.mediaType === "string" && typeof record.data === "string",
      };
    };
    const put = (frame: Frame, item: unknown): void => {
      if (frame.keys === null) (frame.out as unknown[]).push(item);
      else {
        const out = frame.out as Record<string, unknown>;
        const key = frame.keys[frame.index]!;
        const redacted = this.text(key);
        let name = redacted;
        // Two keys that redact to one name (two files named after keys) both stay.
        for (let n = 2; name !== key && Object.hasOwn(out, name); n++) name = `${redacted} (${n})`;
        out[name] = item;
      }
      frame.index++;
    };
    const leaf = (frame: Frame, item: unknown): unknown => {
      if (typeof item !== "string") return item;
      const key = frame.keys?.[frame.index];
      return key === "base64" || (frame.isImage && key === "data") ? this.base64(item) : this.text(item);
    };
    if (typeof value === "string") return this.text(value);
    if (!isContainer(value)) return value;
    const stack = [frameOf(value)];
    for (;;) {
      const frame = stack[stack.length - 1]!;
      const size = frame.keys === null ? (frame.source as unknown[]).length : frame.keys.length;
      if (frame.index >= size) {
        stack.pop();
        if (stack.length === 0) return frame.out;
        put(stack[stack.length - 1]!, frame.out);
        continue;
      }
      const item =
        frame.keys === null
          ? (frame.source as unknown[])[frame.index]
          : (frame.source as Record<string, unknown>)[frame.keys[frame.index]!];
      if (isContainer(item)) stack.push(frameOf(item));
      else put(frame, leaf(frame, item));
    }
  }

  private redactText(text: string, depth: number): string {
    let out = text;
    // Cheap checks first: most text holds no key, and the expressions are costly to run.
    for (const { pattern, literals } of this.secrets) {
      if (MAY_ESCAPE.test(out) || literals.some((form) => out.includes(form)))
        out = this.replace(out, SECRET_IN_USE, pattern);
    }
    const lower = out.toLowerCase();
    for (const { name, pattern, hint } of KEY_PATTERNS) {
      if (lower.includes(hint)) out = this.replace(out, name, pattern);
    }
    if (depth >= MAX_DECODE_DEPTH) return out;
    // Keys inside encoded runs: decode each run, redact it, and encode it back when it changed.
    out = out.replace(BASE64_RUN, (run) => {
      const decoded = decodeBase64Run(run);
      if (decoded === null) return run;
      const redacted = this.redactText(decoded, depth + 1);
      if (redacted !== decoded) {
        const encoded = toBase64(latin1ToBytes(redacted));
        return /[-_]/u.test(run)
          ? encoded.replace(/\+/gu, "-").replace(/\//gu, "_").replace(/=+$/u, "")
          : encoded;
      }
      // The run may begin with a character that is not part of the data ("\nQUJD…", "xQUJD…").
      for (let offset = 1; offset < 4; offset++) {
        const shifted = decodeBase64Run(run.slice(offset));
        if (shifted !== null && this.redactText(shifted, depth + 1) !== shifted) return REDACTED;
      }
      return run;
    });
    out = out.replace(PERCENT_RUN, (run) => {
      const decoded = percentDecodeToLatin1(run);
      const redacted = this.redactText(decoded, depth + 1);
      return redacted === decoded ? run : percentEncodeLatin1(redacted);
    });
    return out;
  }

  private replace(text: string, what: string, pattern: RegExp): string {
    let count = 0;
    pattern.lastIndex = 0;
    const out = text.replace(pattern, () => {
      count++;
      return REDACTED;
    });
    if (count > 0) {
      const known = this.found.find((redaction) => redaction.what === what);
      if (known) known.count += count;
      else this.found.push({ what, count });
    }
    return out;
  }
}
