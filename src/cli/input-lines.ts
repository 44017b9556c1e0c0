import type { Readable } from "node:stream";

/**
 * The command line's input, one request per line. A line ends at "\n" only (a "\r" before it is
 * dropped; one anywhere else stays in the line, so it can never split a request into two answers),
 * and every line is handed on, blank ones included, so each gets exactly one answer. A line longer
 * than the limit is skipped to its end without being kept in memory, and reported as such.
 */

/** The longest request line read: far above any call, far below V8's longest string (512 MB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** The deepest nesting a request may have: JSON.stringify and validators recurse per level. */
export const MAX_NESTING = 512;

export interface InputLine {
  /** 1-based line number. */
  number: number;
  /** The line's text, or null when it was longer than the limit (then only `bytes` is known). */
  text: string | null;
  bytes: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Reads `input` as lines; the last line needs no final newline. */
export async function* inputLines(
  input: Readable | AsyncIterable<Buffer | string>,
  maxBytes = MAX_LINE_BYTES,
): AsyncGenerator<InputLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let number = 0;
  const finish = (): InputLine => {
    number++;
    if (tooLong) {
      const line = { number, text: null, bytes: size };
      parts = [];
      size = 0;
      tooLong = false;
      return line;
    }
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, -1);
    parts = [];
    size = 0;
    return { number, text: bytes.toString("utf8"), bytes: bytes.length };
  };
  const add = (piece: Buffer) => {
    size += piece.length;
    if (tooLong) return;
    if (size > maxBytes) {
      tooLong = true;
      parts = [];
      return;
    }
    parts.push(piece);
  };
  for await (const chunk of input) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (;;) {
      const end = buffer.indexOf(NEWLINE, start);
      if (end === -1) break;
      add(buffer.subarray(start, end));
      yield finish();
      start = end + 1;
    }
    // Copy what is kept past this chunk: a subarray would pin the whole chunk in memory.
    if (start < buffer.length) add(Buffer.from(buffer.subarray(start)));
  }
  if (size > 0 || tooLong) yield finish();
}

export type ParsedLine = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * A line's JSON value, or why it is not a request: too long, too deeply nested, not JSON. A UTF-8
 * byte order mark at the very start of the input is an encoding mark, not content, and is skipped.
 */
export function parseRequestLine(line: InputLine): ParsedLine {
  if (line.text === null) {
    return {
      ok: false,
      message: `Line ${line.number} is ${megabytes(line.bytes)} long; a request line may be at most ${megabytes(MAX_LINE_BYTES)}. Put large content in a file in the workspace and name it instead.`,
    };
  }
  const text = line.number === 1 && line.text.startsWith("\uFEFF") ? line.text.slice(1) : line.text;
  if (text.trim() === "" && !/[^\t\n\r ]/u.test(text)) {
    return {
      ok: false,
      message: `Line ${line.number} is ${text === "" ? "empty" : "blank"}; each line must be one JSON request (every line gets one answer, so answers stay in step with requests).`,
    };
  }
  const depth = nestingDepth(text);
  if (depth > MAX_NESTING) {
    return {
      ok: false,
      message: `Line ${line.number} nests ${depth} levels deep; a request may nest at most ${MAX_NESTING} levels.`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `Line ${line.number} is not valid JSON: ${describeJsonError(text, error)}` };
  }
}

/** How deep arrays and objects nest in JSON text (brackets inside strings do not count). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return deepest;
}

/** JSON.parse's message, with the characters it cannot show named (a raw CR, an NBSP, a BOM). */
function describeJsonError(text: string, error: unknown): string {
  const message = (error as Error).message;
  const invisible: [RegExp, string][] = [
    [/\r/u, "a carriage return (\\r) inside the line"],
    [/\u00a0/u, "a no-break space (U+00A0)"],
    [/\uFEFF/u, "a byte order mark (U+FEFF)"],
    [/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/u, "a control character"],
  ];
  const named = invisible.filter(([pattern]) => pattern.test(text)).map(([, name]) => name);
  return named.length > 0 ? `${message} (the line holds ${named.join(" and ")})` : message;
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}
