import { ToolFailure } from "../core/errors.ts";

const strict = new TextDecoder("utf-8", { fatal: true });

/** How much of a file's start is inspected for NUL bytes, as ripgrep and git do. */
const BINARY_SNIFF_BYTES = 8192;

export function looksBinary(bytes: Uint8Array): boolean {
  return (
    (bytes.length <= BINARY_SNIFF_BYTES ? bytes : bytes.subarray(0, BINARY_SNIFF_BYTES)).indexOf(0) !== -1
  );
}

/** UTF-8 text of a file, or null when it is binary (a NUL early on, or not valid UTF-8). */
export function decodeText(bytes: Uint8Array): string | null {
  if (looksBinary(bytes)) return null;
  try {
    const text = strict.decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return null;
  }
}

/** Like decodeText, but a binary file is a binary_file failure that names the file. */
export function requireText(bytes: Uint8Array, path: string): string {
  const text = decodeText(bytes);
  if (text === null) {
    throw new ToolFailure(
      "binary_file",
      `${path} is not UTF-8 text (it looks binary), so it cannot be read as text.`,
      { path, size: bytes.length },
    );
  }
  return text;
}

/**
 * Lines as Python's str.splitlines() gives them for source files: "\n", "\r\n" and "\r" all end
 * a line, and a final line ending does not start an empty line.
 */
export function textLines(text: string): string[] {
  if (text === "") return [];
  // Splitting on one character is several times faster than on the alternation, and most text has no \r.
  const lines = text.includes("\r") ? text.split(/\r\n|\n|\r/u) : text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
