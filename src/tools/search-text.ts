import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import type { GlobTest } from "./glob.ts";
import { compileLineMatcher } from "./rust-regex.ts";
import { decodeText, textLines } from "./text.ts";
import { walkWorkspace } from "./walk.ts";

export interface SearchOptions {
  /** Workspace-relative folder or file to search ("" for the root). */
  root: string;
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
  /** Filters files by their path relative to `root`. */
  include?: GlobTest;
  contextLines?: number;
  /** Matching lines returned at most; further ones are still counted, up to `countLimit`. */
  maxMatches: number;
  countLimit?: number;
  /** ripgrep's defaults: skip hidden files and what .gitignore ignores. */
  skipHidden?: boolean;
  gitignore?: boolean;
}

export interface SearchMatch {
  /** Relative to the workspace root. */
  path: string;
  /** 1-based. */
  line: number;
  text: string;
  before: string[];
  after: string[];
}

export interface SearchResult {
  matches: SearchMatch[];
  totalMatches: number;
  truncated: boolean;
  filesSearched: number;
  filesWithMatches: string[];
}

/**
 * Searches text files under a folder line by line with ripgrep's regex engine (rust-regex.ts),
 * ordered by path then line, binaries skipped.
 */
export async function searchText(context: ToolContext, options: SearchOptions): Promise<SearchResult> {
  const matcher = await compileLineMatcher(options.pattern, options);
  const contextLines = options.contextLines ?? 0;
  const countLimit = options.countLimit ?? 100_000;
  const include = options.include ?? (() => true);
  const result: SearchResult = {
    matches: [],
    totalMatches: 0,
    truncated: false,
    filesSearched: 0,
    filesWithMatches: [],
  };

  const files = await searchableFiles(context, options);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of files) {
    if (context.signal.aborted) break;
    if (!include(file.relative)) continue;
    const bytes = await context.sandbox.readFile(`${context.sandbox.workspaceRoot}/${file.path}`);
    const text = decodeText(bytes);
    if (text === null) continue;
    result.filesSearched++;
    if (!matcher.mayMatch(text)) continue;
    const lines = textLines(text);
    let found = false;
    for (let index = 0; index < lines.length; index++) {
      if (!matcher.test(lines[index]!)) continue;
      found = true;
      result.totalMatches++;
      if (result.matches.length < options.maxMatches) {
        result.matches.push({
          path: file.path,
          line: index + 1,
          text: lines[index]!,
          before: lines.slice(Math.max(0, index - contextLines), index),
          after: lines.slice(index + 1, index + 1 + contextLines),
        });
      } else {
        result.truncated = true;
      }
      if (result.totalMatches >= countLimit) break;
    }
    if (found) result.filesWithMatches.push(file.path);
    if (result.totalMatches >= countLimit) {
      result.truncated = true;
      break;
    }
  }
  return result;
}

async function searchableFiles(
  context: ToolContext,
  options: SearchOptions,
): Promise<{ path: string; relative: string }[]> {
  const root = context.sandbox.workspaceRoot;
  const stat = await context.sandbox
    .lstat(options.root === "" ? root : `${root}/${options.root}`)
    .catch(() => null);
  if (!stat)
    throw new ToolFailure("file_not_found", `Nothing to search at "${options.root}": it does not exist.`, {
      path: options.root,
    });
  if (stat.type === "file")
    return [{ path: options.root, relative: options.root.slice(options.root.lastIndexOf("/") + 1) }];
  const files: { path: string; relative: string }[] = [];
  for await (const entry of walkWorkspace(context.sandbox, options.root, {
    skipHidden: options.skipHidden ?? true,
    gitignore: options.gitignore ?? true,
    signal: context.signal,
  })) {
    if (entry.type === "file") files.push({ path: entry.path, relative: entry.relative });
  }
  return files;
}
