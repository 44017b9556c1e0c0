/**
 * The truncation rules of the dialects, written once. Each profile picks its rule; the
 * runtime never cuts an output the dialect would have passed whole.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface Truncated {
  text: string;
  truncated: boolean;
  /** Size of the original in the unit the rule counts (bytes, tokens or lines). */
  original: number;
}

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** Cuts bytes without splitting a UTF-8 sequence: backs off to the previous character start. */
function cutBytes(bytes: Uint8Array, end: number): string {
  let cut = Math.max(0, Math.min(end, bytes.length));
  while (cut > 0 && cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return decoder.decode(bytes.subarray(0, cut));
}

function cutBytesFromEnd(bytes: Uint8Array, start: number): string {
  let cut = Math.max(0, Math.min(start, bytes.length));
  while (cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80) cut++;
  return decoder.decode(bytes.subarray(cut));
}

/**
 * Keeps at most `maxBytes` of UTF-8: the head and the tail (where errors and summaries are),
 * with a marker line between them that says how much was dropped.
 */
export function truncateHeadTailBytes(text: string, maxBytes: number): Truncated {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false, original: bytes.length };
  const marker = (dropped: number) => `\n[... ${dropped} bytes truncated ...]\n`;
  const budget = maxBytes - utf8Length(marker(bytes.length));
  const head = cutBytes(bytes, Math.floor(budget / 2));
  const tail = cutBytesFromEnd(bytes, bytes.length - Math.ceil(budget / 2));
  const dropped = bytes.length - utf8Length(head) - utf8Length(tail);
  return { text: head + marker(dropped) + tail, truncated: true, original: bytes.length };
}

/** Keeps the first `maxBytes` of UTF-8. */
export function truncateHeadBytes(text: string, maxBytes: number): Truncated {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false, original: bytes.length };
  return { text: cutBytes(bytes, maxBytes), truncated: true, original: bytes.length };
}

/** The token estimate BaseAgent-style budgets use: about four characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export const MIDDLE_OUT_MARKER = "[...truncated...]";

/**
 * Middle-out: keep the first and last half of the token budget, drop the middle, mark the cut.
 * Cuts on line boundaries when one is near, so a line is not split in two.
 */
export function truncateMiddleOut(text: string, maxTokens: number): Truncated {
  const tokens = estimateTokens(text);
  if (tokens <= maxTokens) return { text, truncated: false, original: tokens };
  const halfChars = Math.floor((maxTokens * 4) / 2) - MIDDLE_OUT_MARKER.length;
  let headEnd = halfChars;
  const headLine = text.lastIndexOf("\n", headEnd);
  if (headLine > halfChars * 0.8) headEnd = headLine + 1;
  let tailStart = text.length - halfChars;
  const tailLine = text.indexOf("\n", tailStart);
  if (tailLine !== -1 && tailLine < tailStart + halfChars * 0.2) tailStart = tailLine + 1;
  const head = text.slice(0, headEnd);
  const tail = text.slice(tailStart);
  const joiner = head.endsWith("\n") ? `${MIDDLE_OUT_MARKER}\n` : `\n${MIDDLE_OUT_MARKER}\n`;
  return { text: head + joiner + tail, truncated: true, original: tokens };
}

/** Splits text into lines the way editors count them: a final newline does not start a new line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
