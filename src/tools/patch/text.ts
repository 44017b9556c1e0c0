import { ToolFailure } from "../../core/errors.ts";

/**
 * A text file as lines, kept exact enough to write it back byte for byte: each line's own
 * terminator (so mixed and CRLF files stay as they are), whether it starts with a BOM, and the
 * dominant line ending that new lines get.
 */
export interface FileLines {
  /** Line contents without terminators. */
  lines: string[];
  /** Terminator of each line: "\n", "\r\n", or "" for a last line without one. */
  eols: string[];
  /** The ending new lines are written with: CRLF when most lines use it, else LF. */
  eol: "\n" | "\r\n";
  bom: boolean;
}

const BOM = "\uFEFF";
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** Decodes a file's bytes as UTF-8, refusing (binary_file) bytes that are not UTF-8 text. */
export function decodeText(bytes: Uint8Array, path: string): string {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw binaryFile(path, "is not valid UTF-8");
  }
  // A NUL never occurs in a text file an agent means to patch; git calls such files binary too.
  if (text.includes("\0")) throw binaryFile(path, "contains NUL bytes");
  return text;
}

function binaryFile(path: string, why: string): ToolFailure {
  return new ToolFailure(
    "binary_file",
    `${path} ${why}: it looks like a binary file, and patches apply to UTF-8 text only. Leave it out of the patch.`,
    { path },
  );
}

export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Splits text into lines, remembering each terminator. "" is a file with no lines. With
 * `loneCarriageReturn`, a CR not followed by LF ends a line too (as Codex's apply_patch reads files).
 */
export function splitLines(text: string, loneCarriageReturn = false): FileLines {
  if (loneCarriageReturn && /\r(?!\n)/u.test(text)) return splitAtEveryEnding(text);
  const bom = text.startsWith(BOM);
  // The native split is the fastest way through a large file; CR is peeled off each part after.
  const parts = (bom ? text.slice(1) : text).split("\n");
  const lines: string[] = [];
  const eols: string[] = [];
  let crlf = 0;
  const last = parts.length - 1;
  for (let i = 0; i < last; i++) {
    const part = parts[i]!;
    if (part.charCodeAt(part.length - 1) === 13) {
      lines.push(part.slice(0, -1));
      eols.push("\r\n");
      crlf++;
    } else {
      lines.push(part);
      eols.push("\n");
    }
  }
  if (parts[last] !== "") {
    lines.push(parts[last]!);
    eols.push("");
  }
  return { lines, eols, eol: crlf > last - crlf ? "\r\n" : "\n", bom };
}

/** splitLines for text with lone CRs: CRLF, LF and CR each end a line. */
function splitAtEveryEnding(text: string): FileLines {
  const bom = text.startsWith(BOM);
  const lines: string[] = [];
  const eols: string[] = [];
  const counts = new Map<string, number>();
  const pattern = /\r\n|\r|\n/gu;
  const body = bom ? text.slice(1) : text;
  let start = 0;
  for (const match of body.matchAll(pattern)) {
    lines.push(body.slice(start, match.index));
    eols.push(match[0]);
    counts.set(match[0], (counts.get(match[0]) ?? 0) + 1);
    start = match.index + match[0].length;
  }
  if (start < body.length) {
    lines.push(body.slice(start));
    eols.push("");
  }
  // New lines take the ending of the file's first line break (Codex), LF or CRLF.
  const eol = eols[0] === "\r\n" ? "\r\n" : "\n";
  return { lines, eols, eol, bom };
}

/** True when the last line ends with a newline (an empty file counts as ending with one). */
export function endsWithNewline(file: FileLines): boolean {
  return file.eols.length === 0 || file.eols[file.eols.length - 1] !== "";
}

/**
 * Joins lines back into text. Lines other than the last get their own terminator, or the
 * file's dominant one when they had none (a former last line that now has lines after it).
 */
export function joinLines(file: FileLines, finalNewline: boolean): string {
  const { lines, eols, eol } = file;
  // String concatenation (ropes) beats collecting parts and joining them, for large files.
  let text = file.bom ? BOM : "";
  const last = lines.length - 1;
  for (let i = 0; i < last; i++) text += lines[i]! + (eols[i] || eol);
  if (last >= 0) text += lines[last]! + (finalNewline ? eols[last] || eol : "");
  return text;
}

/**
 * Gives every line but the last a terminator (the dominant one where it has none: added lines, or
 * a former last line that now has lines after it) and the last one per `finalNewline`, so that the
 * lines are exactly what splitLines would return for the joined text.
 */
export function sealLines(file: FileLines, finalNewline: boolean): FileLines {
  const { eols, eol } = file;
  const last = eols.length - 1;
  for (let i = 0; i < last; i++) if (eols[i] === "") eols[i] = eol;
  if (last >= 0) eols[last] = finalNewline ? eols[last] || eol : "";
  return file;
}
