import type { DirEntry, FileStat } from "../../sandbox/types.ts";
import { GitignoreRules } from "../walk.ts";
import {
  entryFor,
  type GitIndex,
  gitMode,
  type IndexEntry,
  type IndexStat,
  indexStat,
  racilyClean,
  readIndex,
  statMatches,
  writeIndex,
} from "./index-file.ts";
import { blobIds } from "./objects.ts";
import type { RepoFiles } from "./repo.ts";

/** A working-tree file read and hashed: what it would be as a blob. */
export interface WorktreeFile {
  path: string;
  oid: string;
  mode: number;
  content: Uint8Array;
  stat: IndexStat;
}

export interface WorktreeScan {
  index: GitIndex;
  /** Tracked files whose content or mode differs from their index entry. */
  changed: WorktreeFile[];
  /** Tracked paths with no file (or a folder) in the working tree. */
  deleted: string[];
  /** Files in no index entry and not ignored (with `untracked`); a nested repository as "folder/". */
  untracked: string[];
}

export interface ScanOptions {
  /** Also list untracked files, applying the .gitignore rules (status, add). */
  untracked?: boolean;
  /** Only paths this accepts (a folder when `folder`): the pathspec. */
  within?: (path: string, folder: boolean) => boolean;
}

const SUBMODULE = 0o160000;

/**
 * Compares the working tree with the index, git's way: a tracked file whose stat still matches its
 * entry is unchanged without being read; the others are hashed, and those found unchanged after
 * all get their entry's stat refreshed (written back once), so the next scan trusts them.
 */
export async function scanWorktree(repo: RepoFiles, options: ScanOptions = {}): Promise<WorktreeScan> {
  const { sandbox, dir } = repo;
  const index = await readIndex(repo);
  const folders = trackedFolders(index);
  const rules = options.untracked ? await GitignoreRules.load(sandbox) : null;
  const within = options.within ?? (() => true);
  const seen = new Set<string>();
  const suspects: { entry: IndexEntry; stat: FileStat }[] = [];
  const untracked: string[] = [];

  const visit = async (folder: string, tracked: boolean, listing: DirEntry[]): Promise<void> => {
    if (rules && listing.some((entry) => entry.name === ".gitignore")) await rules.enter(folder);
    for (const child of listing) {
      if (folder === "" && child.name === ".git") continue;
      const path = folder === "" ? child.name : `${folder}/${child.name}`;
      if (child.type === "directory") {
        if (!within(path, true)) continue;
        const submodule = index.byPath.get(path);
        if (submodule?.mode === SUBMODULE) {
          seen.add(path);
          continue;
        }
        if (folders.has(path)) {
          await visit(path, true, await sandbox.readdir(`${dir}/${path}`));
          continue;
        }
        // An untracked folder: entered only to list untracked files, unless ignored as a whole.
        if (!rules || rules.ignores(path, true)) continue;
        const inner = await sandbox.readdir(`${dir}/${path}`);
        // A repository of its own: git lists the folder, not its files.
        if (inner.some((entry) => entry.name === ".git")) untracked.push(`${path}/`);
        else await visit(path, false, inner);
        continue;
      }
      if (!within(path, false)) continue;
      const entry = tracked ? index.byPath.get(path) : undefined;
      if (entry) {
        seen.add(path);
        if (entry.mode === SUBMODULE) continue;
        if (entry.assumeValid || entry.extendedFlags & (1 << 14)) continue;
        const stat = await sandbox.lstat(`${dir}/${path}`);
        if (!statMatches(entry, indexStat(stat)) || racilyClean(entry, index)) suspects.push({ entry, stat });
      } else if (index.unmerged.has(path)) {
        seen.add(path);
      } else if (rules && !rules.ignores(path, false)) {
        untracked.push(path);
      }
    }
  };
  await visit("", true, await sandbox.readdir(dir));

  const deleted: string[] = [];
  for (const entry of index.entries) {
    if (entry.stage !== 0 || seen.has(entry.path) || !within(entry.path, false)) continue;
    if (entry.extendedFlags & (1 << 14)) continue;
    deleted.push(entry.path);
  }

  const hashed = await hashWorktreeFiles(
    repo,
    suspects.map(({ entry, stat }) => ({ path: entry.path, stat })),
  );
  const changed: WorktreeFile[] = [];
  const refreshed = new Map<string, IndexEntry>();
  let verified = false;
  hashed.forEach((file, n) => {
    const entry = suspects[n]!.entry;
    if (file.oid !== entry.oid || file.mode !== entry.mode) changed.push(file);
    else if (!statMatches(entry, file.stat))
      refreshed.set(entry.path, entryFor(entry.path, entry.oid, file.stat, entry));
    else verified = true;
  });
  // Rewritten after its stat or racily clean entries were verified, the index vouches for them next time.
  if (refreshed.size > 0 || verified) {
    await writeIndex(
      repo,
      index.entries.map((entry) => (entry.stage === 0 ? (refreshed.get(entry.path) ?? entry) : entry)),
    );
  }
  return { index, changed, deleted, untracked };
}

/** Reads and hashes working-tree files (a symlink's blob is its target). */
export async function hashWorktreeFiles(
  repo: RepoFiles,
  files: { path: string; stat?: FileStat }[],
): Promise<WorktreeFile[]> {
  const { sandbox, dir } = repo;
  const encoder = new TextEncoder();
  const read = await Promise.all(
    files.map(async ({ path, stat }) => {
      const absolute = `${dir}/${path}`;
      const current = stat ?? (await sandbox.lstat(absolute));
      const content =
        current.type === "symlink"
          ? encoder.encode(await sandbox.readlink(absolute))
          : await sandbox.readFile(absolute);
      return { path, stat: current, content };
    }),
  );
  const oids = await blobIds(read.map((file) => file.content));
  return read.map((file, n) => ({
    path: file.path,
    oid: oids[n]!,
    mode: gitMode(file.stat),
    content: file.content,
    stat: indexStat(file.stat),
  }));
}

const foldersOf = new WeakMap<IndexEntry[], Set<string>>();

/** Every folder holding a tracked path, kept per parsed index. */
function trackedFolders(index: GitIndex): Set<string> {
  const known = foldersOf.get(index.entries);
  if (known) return known;
  const folders = new Set<string>();
  for (const entry of index.entries) {
    for (let slash = entry.path.lastIndexOf("/"); slash > 0; slash = entry.path.lastIndexOf("/", slash - 1)) {
      const folder = entry.path.slice(0, slash);
      if (folders.has(folder)) break;
      folders.add(folder);
    }
  }
  foldersOf.set(index.entries, folders);
  return folders;
}
