import type { SyncFs } from "./sync-fs.ts";

const JS = String.raw`\.(?:c|m)?js$`;
/** Node 20's default `--test` patterns, as regular expressions over paths relative to the search root. */
const DEFAULT_PATTERNS = [
  new RegExp(String.raw`(?:^|/)[^/]*\.test${JS}`, "u"),
  new RegExp(`(?:^|/)[^/]*-test${JS}`, "u"),
  new RegExp(`(?:^|/)[^/]*_test${JS}`, "u"),
  new RegExp(`(?:^|/)test-[^/]*${JS}`, "u"),
  new RegExp(`(?:^|/)test${JS}`, "u"),
  new RegExp(`(?:^|/)test/(?:.*/)?[^/]*${JS}`, "u"),
];

/** Whether a path (relative to the search root) is a test file by Node 20's default patterns. */
export function isDefaultTestFile(relative: string): boolean {
  return DEFAULT_PATTERNS.some((pattern) => pattern.test(relative));
}

function walk(fs: SyncFs, dir: string, prefix: string, out: string[]): void {
  let entries: ReturnType<SyncFs["readdir"]>;
  try {
    entries = fs.readdir(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = `${dir === "/" ? "" : dir}/${entry.name}`;
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    const kind = entry.kind === "symlink" ? fs.lookup(path)?.kind : entry.kind;
    if (kind === "directory") walk(fs, path, relative, out);
    else if (kind === "file") out.push(relative);
  }
}

/**
 * The files `node --test [args]` runs, as absolute paths in Node 20's order (sorted): with no
 * arguments, files under `cwd` matching the default patterns (node_modules skipped); a file
 * argument as is; a folder argument searched with the same patterns, matched against paths
 * relative to `cwd` (so `node --test test` runs everything under test/). Node 20 takes no globs:
 * arguments that name nothing are returned in `missing`.
 */
export function findTestFiles(
  fs: SyncFs,
  cwd: string,
  args: string[],
): { files: string[]; missing: string[] } {
  const base = cwd === "/" ? "" : cwd;
  const absolute = (path: string) => (path.startsWith("/") ? path : `${base}/${path}`);
  const found = new Set<string>();
  const missing: string[] = [];
  const searchDir = (dir: string) => {
    const relatives: string[] = [];
    walk(fs, dir, "", relatives);
    for (const relative of relatives) {
      const path = `${dir === "/" ? "" : dir}/${relative}`;
      const shown = path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
      if (isDefaultTestFile(shown)) found.add(path);
    }
  };
  if (args.length === 0) searchDir(cwd);
  for (const arg of args) {
    const path = absolute(arg).replace(/\/+$/u, "") || "/";
    const entry = fs.lookup(path);
    if (entry?.kind === "directory") searchDir(path);
    else if (entry) found.add(path);
    else missing.push(arg);
  }
  return { files: [...found].sort(), missing };
}
