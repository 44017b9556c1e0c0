import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import { readFilesOf } from "../sandbox/types.ts";
import type { GlobTest } from "./glob.ts";
import { compileLineMatcher } from "./rust-regex.ts";
import { decodeText, textLines } from "./text.ts";
import { walkFolders } from "./walk.ts";

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

  let checked = 0;
  for (const { path, relative, file } of await searchableTexts(context, options)) {
    // Reading the stop signal costs a clock read and shared memory: every 64 files is soon enough.
    if ((checked++ & 63) === 0 && context.signal.aborted) break;
    if (!include(relative)) continue;
    const text = file?.text ?? null;
    if (text === null) continue;
    result.filesSearched++;
    if (!matcher.mayMatch(text)) continue;
    file!.lines ??= textLines(text);
    const lines = file!.lines;
    let found = false;
    for (let index = 0; index < lines.length; index++) {
      if (!matcher.test(lines[index]!)) continue;
      found = true;
      result.totalMatches++;
      if (result.matches.length < options.maxMatches) {
        result.matches.push({
          path,
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
    if (found) result.filesWithMatches.push(path);
    if (result.totalMatches >= countLimit) {
      result.truncated = true;
      break;
    }
  }
  return result;
}

/** Texts kept between searches, at most (a workspace past this is read each time). */
const MAX_KNOWN_FILES = 50_000;

interface KnownFile {
  size: number;
  mtimeMs: number;
  ino: number;
  /** null: binary or not UTF-8. */
  text: string | null;
  /** Made when first needed, and kept with the text. */
  lines?: string[];
}
interface Listing {
  changes: number | undefined;
  files: { path: string; relative: string }[];
}

/**
 * The files to search, in path order, with their decoded text. Texts are kept per file version
 * (size, mtime and inode unchanged: not read again), and while the sandbox's changeCount holds
 * nothing has changed at all, so neither the walk nor a stat is repeated (git's fsmonitor idea).
 */
async function searchableTexts(
  context: ToolContext,
  options: SearchOptions,
): Promise<{ path: string; relative: string; file: KnownFile | undefined }[]> {
  const sandbox = context.sandbox;
  const known = context.services.get("search.files", () => new Map<string, KnownFile>());
  const listings = context.services.get("search.listings", () => new Map<string, Listing>());
  const key = `${options.root}\0${options.skipHidden ?? true}\0${options.gitignore ?? true}`;
  const changes = sandbox.changeCount?.();
  let listing = listings.get(key);
  const fresh = listing !== undefined && changes !== undefined && listing.changes === changes;
  if (!fresh) {
    const files = await searchableFiles(context, options);
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const seen = new Set(files.map(({ path }) => path));
    const under = options.root === "" ? "" : `${options.root}/`;
    for (const path of known.keys()) {
      if ((path.startsWith(under) || path === options.root) && !seen.has(path)) known.delete(path);
    }
    // Nothing kept yet (the first search): stat and read every file in one call, no stat pass first.
    const stale = known.size === 0 ? files.map(({ path }) => path) : await staleFiles(context, files, known);
    const read = await readKnownFiles(context, stale);
    for (const path of stale) if (!read.has(path)) known.delete(path);
    for (const [path, file] of read) {
      // Past the cap a text is used for this search only, and read again by the next.
      if (known.size < MAX_KNOWN_FILES) known.set(path, file);
    }
    listing = { changes: undefined, files };
    listings.set(key, listing);
    // Counted before the walk; and only a listing whose every text is kept may skip the next walk.
    if (!context.signal.aborted && stale.every((path) => known.has(path) || !read.has(path))) {
      listing.changes = changes;
    }
    return files.map(({ path, relative }) => ({ path, relative, file: known.get(path) ?? read.get(path) }));
  }
  // A text another search let go of (its listing pruned it, or the cap) is read again.
  const missing = listing!.files.filter(({ path }) => !known.has(path)).map(({ path }) => path);
  const read = missing.length > 0 ? await readKnownFiles(context, missing) : new Map<string, KnownFile>();
  for (const [path, file] of read) if (known.size < MAX_KNOWN_FILES) known.set(path, file);
  return listing!.files.map(({ path, relative }) => ({
    path,
    relative,
    file: known.get(path) ?? read.get(path),
  }));
}

/** The files whose kept text is of another version than the one there now (or not kept). */
async function staleFiles(
  context: ToolContext,
  files: readonly { path: string }[],
  known: Map<string, KnownFile>,
): Promise<string[]> {
  const sandbox = context.sandbox;
  const stale: string[] = [];
  for (const { path } of files) {
    const record = known.get(path);
    const stat = record ? await sandbox.stat(`${sandbox.workspaceRoot}/${path}`).catch(() => null) : null;
    if (
      !record ||
      !stat ||
      record.size !== stat.size ||
      record.mtimeMs !== stat.mtimeMs ||
      record.ino !== (stat.ino ?? -1)
    ) {
      stale.push(path);
    }
  }
  return stale;
}

/** Stats, reads and decodes files (workspace-relative paths); one that vanished meanwhile is left out. */
async function readKnownFiles(
  context: ToolContext,
  paths: readonly string[],
): Promise<Map<string, KnownFile>> {
  const root = context.sandbox.workspaceRoot;
  const contents = await readFilesOf(
    context.sandbox,
    paths.map((path) => `${root}/${path}`),
  );
  const read = new Map<string, KnownFile>();
  for (let index = 0; index < paths.length; index++) {
    const content = contents[index];
    if (!content) continue;
    const { stat, data } = content;
    read.set(paths[index]!, {
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ino: stat.ino ?? -1,
      text: decodeText(data),
    });
  }
  return read;
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
  for await (const entries of walkFolders(context.sandbox, options.root, {
    skipHidden: options.skipHidden ?? true,
    gitignore: options.gitignore ?? true,
    signal: context.signal,
  })) {
    for (const entry of entries)
      if (entry.type === "file") files.push({ path: entry.path, relative: entry.relative });
  }
  return files;
}
