import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import { readTextFile } from "./read-text.ts";
import { formatBytes } from "./write-text.ts";

export interface ReplaceTextOptions {
  /** "exactly_one": the match must be unique (file_edit); "all": replace every hit (text_replace). */
  mode: "exactly_one" | "all";
  /** Refuse more hits than this (limit_exceeded); nothing is written. */
  maxReplacements?: number;
  /** Refuse files larger than this, before or after (limit_exceeded). */
  maxBytes?: number;
  /** No occurrence is a result (hits 0, nothing written) rather than match_not_found. */
  allowNoMatch?: boolean;
  param?: string;
}

export interface ReplacedText {
  path: string;
  hits: number;
  before: string;
  after: string;
}

/** Counts non-overlapping occurrences, left to right, as str.replace would find them. */
export function countOccurrences(text: string, search: string): number {
  if (search === "") return 0;
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length))
    count++;
  return count;
}

/**
 * Replaces exact text in a workspace file: the one editor behind file_edit and text_replace.
 * Every check (found, unique, limits) happens before the file is written.
 */
export async function replaceText(
  context: ToolContext,
  input: unknown,
  search: string,
  replacement: string,
  options: ReplaceTextOptions,
): Promise<ReplacedText> {
  if (search === "")
    throw new ToolFailure(
      "invalid_params",
      "The text to search for is empty; give the exact text to replace.",
    );
  const file = await readTextFile(context, input, options.param);
  if (options.maxBytes !== undefined && file.bytes > options.maxBytes) {
    throw new ToolFailure(
      "limit_exceeded",
      `${file.path.relative} is ${file.bytes} bytes, over the ${formatBytes(options.maxBytes)} file size limit (max_file_size).`,
      {
        path: file.path.relative,
        limit: "max_file_size",
        limit_bytes: options.maxBytes,
        size_bytes: file.bytes,
      },
    );
  }
  const hits = countOccurrences(file.text, search);
  if (hits === 0 && options.allowNoMatch)
    return { path: file.path.relative, hits: 0, before: file.text, after: file.text };
  if (hits === 0) {
    throw new ToolFailure(
      "match_not_found",
      `The text to replace was not found in ${file.path.relative}. Read the file and copy the exact text, whitespace included.`,
      {
        path: file.path.relative,
      },
    );
  }
  if (options.mode === "exactly_one" && hits > 1) {
    throw new ToolFailure(
      "ambiguous_match",
      `The text to replace occurs ${hits} times in ${file.path.relative}; include more surrounding lines so it occurs once.`,
      {
        path: file.path.relative,
        occurrences: hits,
      },
    );
  }
  if (options.maxReplacements !== undefined && hits > options.maxReplacements) {
    throw new ToolFailure(
      "limit_exceeded",
      `${hits} replacements in ${file.path.relative} is over the limit of ${options.maxReplacements} (max_replacements); nothing was replaced.`,
      {
        path: file.path.relative,
        limit: "max_replacements",
        max_replacements: options.maxReplacements,
        hits,
      },
    );
  }
  const after = file.text.split(search).join(replacement);
  const size = new TextEncoder().encode(after).length;
  if (options.maxBytes !== undefined && size > options.maxBytes) {
    throw new ToolFailure(
      "limit_exceeded",
      `After the replacement ${file.path.relative} would be ${size} bytes, over the ${formatBytes(options.maxBytes)} file size limit (max_file_size); nothing was written.`,
      {
        path: file.path.relative,
        limit: "max_file_size",
        limit_bytes: options.maxBytes,
        size_bytes: size,
      },
    );
  }
  await context.sandbox.writeFile(file.path.absolute, after);
  return { path: file.path.relative, hits, before: file.text, after };
}
