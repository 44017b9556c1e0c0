import type { ToolContext } from "../core/profile.ts";
import { type GlobTest, pathGlob } from "./glob.ts";
import { resolveFolder, walkWorkspace } from "./walk.ts";

export interface ListFilesOptions {
  root: unknown;
  glob?: string | null;
  /** At most this many paths are returned; the rest are counted. */
  limit: number;
  gitignore?: boolean;
  /** Leave out names starting with "." at any depth. */
  skipHidden?: boolean;
}

export interface ListedFiles {
  /** Paths relative to `root`, sorted by code point. */
  files: string[];
  truncated: boolean;
  total: number;
}

/**
 * The files (not folders, not symlinks) under a workspace folder, sorted, .git excluded; a glob
 * filters them by their path relative to the root, pathlib-style.
 */
export async function listFiles(context: ToolContext, options: ListFilesOptions): Promise<ListedFiles> {
  const root = await resolveFolder(context, options.root, "root");
  const matches: GlobTest = options.glob ? pathGlob(options.glob) : () => true;
  const files: string[] = [];
  for await (const entry of walkWorkspace(context.sandbox, root, {
    gitignore: options.gitignore ?? false,
    skipHidden: options.skipHidden ?? false,
    signal: context.signal,
  })) {
    if (entry.type === "file" && matches(entry.relative)) files.push(entry.relative);
  }
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    files: files.slice(0, options.limit),
    truncated: files.length > options.limit,
    total: files.length,
  };
}
