import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import type { WorkspacePath } from "../core/workspace-path.ts";
import { isSandboxError } from "../sandbox/types.ts";
import { requireText, textLines } from "./text.ts";
import { formatBytes } from "./write-text.ts";

/** A text file read whole: its lines (without line endings) and how it ends lines. */
export interface TextFile {
  path: WorkspacePath;
  text: string;
  lines: string[];
  bytes: number;
}

export interface ReadTextOptions {
  /** Name of the parameter, for messages (default "path"). */
  param?: string;
  /** Refuse a larger file (limit_exceeded naming `limitName`) before reading it. */
  maxBytes?: number;
  limitName?: string;
}

/**
 * Reads a workspace file as UTF-8 text: file_not_found when it is missing, not_a_file for a
 * folder, binary_file when it is not text, limit_exceeded past `maxBytes`. The shared first step
 * of every reader. A string for `options` is the parameter name.
 */
export async function readTextFile(
  context: ToolContext,
  input: unknown,
  options: ReadTextOptions | string = {},
): Promise<TextFile> {
  const {
    param = "path",
    maxBytes,
    limitName = "max_file_size",
  } = typeof options === "string" ? { param: options } : options;
  const path = await context.resolve(input, { param });
  if (maxBytes !== undefined) {
    const stat = await context.sandbox.stat(path.absolute).catch(() => null);
    if (stat?.type === "file" && stat.size > maxBytes)
      throw fileTooLarge(path.relative, stat.size, maxBytes, limitName);
  }
  const bytes = await readWorkspaceBytes(context, path, input);
  if (maxBytes !== undefined && bytes.length > maxBytes) {
    throw fileTooLarge(path.relative, bytes.length, maxBytes, limitName);
  }
  const text = requireText(bytes, path.relative);
  return { path, text, lines: textLines(text), bytes: bytes.length };
}

function fileTooLarge(path: string, size: number, maxBytes: number, limitName: string): ToolFailure {
  return new ToolFailure(
    "limit_exceeded",
    `${path} is ${size} bytes, over the ${formatBytes(maxBytes)} file size limit (${limitName}).`,
    { path, limit: limitName, limit_bytes: maxBytes, size_bytes: size },
  );
}

/** The bytes of a workspace file, with the same errors as readTextFile. */
export async function readWorkspaceBytes(
  context: ToolContext,
  path: WorkspacePath,
  input: unknown,
): Promise<Uint8Array> {
  try {
    return await context.sandbox.readFile(path.absolute);
  } catch (error) {
    if (isSandboxError(error, "ENOENT") || isSandboxError(error, "ENOTDIR")) {
      throw new ToolFailure(
        "file_not_found",
        `File not found: ${String(input)}. List the folder to see what exists.`,
        {
          path: input,
        },
      );
    }
    if (isSandboxError(error, "EISDIR")) {
      throw new ToolFailure("not_a_file", `${String(input)} is a folder, not a file. List it instead.`, {
        path: input,
      });
    }
    throw error;
  }
}

export interface LineRange {
  /** 1-based, inclusive. */
  start: number;
  end: number;
}

/**
 * Clamps a requested 1-based inclusive range to the file; a start past the end or an end before
 * the start is invalid_params with the file's length in the message.
 */
export function lineRange(
  total: number,
  start: number | null | undefined,
  end: number | null | undefined,
): LineRange {
  const first = start ?? 1;
  // An empty file has no lines: from line 1 it reads as nothing (end 0), past it is past the end.
  if (total === 0 && first === 1) return { start: 1, end: 0 };
  if (first < 1)
    throw new ToolFailure("invalid_params", "start_line must be 1 or more (lines are 1-indexed).", {
      start_line: first,
    });
  if (first > total) {
    throw new ToolFailure(
      "invalid_params",
      `start_line ${first} is past the end of the file, which has ${total} lines.`,
      {
        start_line: first,
        total_lines: total,
      },
    );
  }
  const last = end ?? total;
  if (last < first) {
    throw new ToolFailure("invalid_params", `end_line (${last}) is before start_line (${first}).`, {
      start_line: first,
      end_line: last,
    });
  }
  return { start: first, end: Math.min(last, total) };
}

/**
 * Lines [offset, offset + limit) of a file (0-based) as text, each ending in "\n" as a text-mode
 * read gives them (CRLF and CR normalised); the file's last line keeps a missing final newline.
 * An offset past the end is invalid_params with the file's length in the message.
 */
export function lineSlice(
  file: TextFile,
  offset: number,
  limit: number,
): { text: string; truncated: boolean } {
  const total = file.lines.length;
  checkLineOffset(file, offset);
  const end = Math.min(total, offset + limit);
  const endsWithNewline = /[\r\n]$/u.test(file.text);
  let text = "";
  for (let index = offset; index < end; index++) {
    text += file.lines[index]!;
    if (index < total - 1 || endsWithNewline) text += "\n";
  }
  return { text, truncated: end < total };
}

/** A 0-based line offset must name a line of the file (0 is fine for an empty file). */
export function checkLineOffset(file: TextFile, offset: number): void {
  const total = file.lines.length;
  if (offset > 0 && offset >= total) {
    throw new ToolFailure(
      "invalid_params",
      `offset ${offset} is past the end of ${file.path.relative}, which has ${total} lines (offsets count from 0).`,
      { offset, total_lines: total },
    );
  }
}
