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

  const lowerLiteral = matcher.lowerLiteral;
  for (const { path, relative, file } of await searchableTexts(context, options)) {
    if (context.signal.aborted) break;
    if (!include(relative)) continue;
    const text = file?.text ?? null;
    if (text === null) continue;
    result.filesSearched++;
    if (lowerLiteral !== undefined) {
      file!.lower ??= text.toLowerCase();
      if (!file!.lower.includes(lowerLiteral)) continue;
    }
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
  lower?: string;
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
    const stale: { path: string; size: number; mtimeMs: number; ino: number }[] = [];
    for (const { path } of files) {
      const stat = await sandbox.stat(`${sandbox.workspaceRoot}/${path}`);
      const record = known.get(path);
      if (
        !record ||
        record.size !== stat.size ||
        record.mtimeMs !== stat.mtimeMs ||
        record.ino !== stat.ino
      ) {
        stale.push({ path, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino ?? -1 });
      }
    }
    const seen = new Set(files.map(({ path }) => path));
    const under = options.root === "" ? "" : `${options.root}/`;
    for (const path of known.keys()) {
      if ((path.startsWith(under) || path === options.root) && !seen.has(path)) known.delete(path);
    }
    const contents = await Promise.all(
      stale.map(({ path }) => sandbox.readFile(`${sandbox.workspaceRoot}/${path}`)),
    );
    const read = new Map<string, KnownFile>();
    for (const [index, { path, ...stat }] of stale.entries()) {
      const file = { ...stat, text: decodeText(contents[index]!) };
      read.set(path, file);
      // Past the cap a text is used for this search only, and read again by the next.
      if (known.size < MAX_KNOWN_FILES) known.set(path, file);
    }
    listing = { changes: undefined, files };
    listings.set(key, listing);
    // Counted before the walk; and only a listing whose every text is kept may skip the next walk.
    if (!context.signal.aborted && read.size === stale.filter(({ path }) => known.has(path)).length) {
      listing.changes = changes;
    }
    return files.map((entry) => ({ ...entry, file: known.get(entry.path) ?? read.get(entry.path) }));
  }
  // A text another search let go of (its listing pruned it, or the cap) is read again.
  const out: { path: string; relative: string; file: KnownFile | undefined }[] = [];
  for (const entry of listing!.files) {
    let file = known.get(entry.path);
    if (!file) {
      const absolute = `${sandbox.workspaceRoot}/${entry.path}`;
      const stat = await sandbox.stat(absolute).catch(() => null);
      const bytes = stat ? await sandbox.readFile(absolute).catch(() => null) : null;
      file =
        stat && bytes
          ? { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino ?? -1, text: decodeText(bytes) }
          : undefined;
      if (file && known.size < MAX_KNOWN_FILES) known.set(entry.path, file);
    }
    out.push({ ...entry, file });
  }
  return out;
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
