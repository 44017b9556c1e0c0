import type { ToolContext } from "../../core/profile.ts";
import { type GitIndex, isIntentToAdd } from "./index-file.ts";
import { flatTree, readBlob, type TreeItem } from "./objects.ts";
import { headCommit, objectCache, openRepo, type Repo } from "./repo.ts";
import { detectRenames } from "./similarity.ts";
import { scanWorktree } from "./worktree.ts";

const SUBMODULE = 0o160000;

export type ChangeStatus = "added" | "modified" | "deleted" | "renamed";

export interface FileChange {
  path: string;
  status: ChangeStatus;
  /** The path before a rename. */
  old_path?: string;
}

export interface GitStatus {
  branch: string | null;
  /** The commit HEAD points at; null before the first commit. */
  head: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  staged: FileChange[];
  unstaged: FileChange[];
  untracked: string[];
  repo_root: string;
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * `git status` as data: staged (HEAD → index, renames detected as git does), unstaged (index →
 * working tree), untracked files one by one (like -uall), ignored files left out, and the branch
 * with its upstream and how far ahead and behind it is.
 */
export async function gitStatus(context: Pick<ToolContext, "sandbox" | "services">): Promise<GitStatus> {
  const repo = await openRepo(context);
  const { git, fs, dir } = repo;
  const head = await headCommit(repo);
  const branch = (await git.currentBranch({ fs, dir, fullname: false })) ?? null;
  const detached = branch === null;
  const { staged, unstaged, untracked, stageOids, headFiles } = await compareTrees(repo, head);
  const stagedWithRenames = await withRenames(repo, staged, stageOids, headFiles);
  const tracking = await upstreamOf(repo, detached ? null : branch, head);
  return {
    branch: detached ? null : branch,
    head,
    ...tracking,
    staged: stagedWithRenames.sort(byPath),
    unstaged: unstaged.sort(byPath),
    untracked: untracked.sort(),
    repo_root: ".",
  };
}

/**
 * HEAD's tree (flattened once per tree id) against the index gives the staged changes; the index
 * against the working tree (git's stat cache, see scanWorktree) the unstaged ones and the
 * untracked files, .gitignore applied and ignored folders not entered.
 */
async function compareTrees(
  repo: Repo,
  head: string | null,
): Promise<{
  staged: FileChange[];
  unstaged: FileChange[];
  untracked: string[];
  stageOids: Map<string, string>;
  headFiles: Map<string, TreeItem>;
}> {
  const scan = await scanWorktree(repo, { untracked: true });
  const headFiles = head ? await flatTree(repo, objectCache(repo), head) : new Map<string, TreeItem>();
  const staged = stagedBetween(headFiles, scan.index);
  const stageOids = new Map<string, string>();
  for (const [path, entry] of scan.index.byPath) stageOids.set(path, entry.oid);
  const unstaged: FileChange[] = [
    ...scan.changed.map((file): FileChange => ({ path: file.path, status: "modified" })),
    ...scan.deleted.map((path): FileChange => ({ path, status: "deleted" })),
  ];
  return { staged, unstaged, untracked: scan.untracked, stageOids, headFiles };
}

/** What a commit of the index would record: its entries against HEAD's files (submodules left out). */
export function stagedBetween(headFiles: Map<string, TreeItem>, index: GitIndex): FileChange[] {
  const staged: FileChange[] = [];
  for (const [path, entry] of index.byPath) {
    if (entry.mode === SUBMODULE || isIntentToAdd(entry)) continue;
    const before = headFiles.get(path);
    if (!before || before.mode === SUBMODULE) staged.push({ path, status: "added" });
    else if (before.oid !== entry.oid || before.mode !== entry.mode)
      staged.push({ path, status: "modified" });
  }
  for (const [path, item] of headFiles) {
    if (item.mode === SUBMODULE || index.unmerged.has(path)) continue;
    const now = index.byPath.get(path);
    if (!now || now.mode === SUBMODULE || isIntentToAdd(now)) staged.push({ path, status: "deleted" });
  }
  return staged.sort(byPath);
}

/** Staged deletions and additions that git would pair as renames become one "renamed" entry. */
async function withRenames(
  repo: Repo,
  staged: FileChange[],
  stageOids: Map<string, string>,
  headFiles: Map<string, TreeItem>,
): Promise<FileChange[]> {
  const deleted = staged.filter((change) => change.status === "deleted");
  const added = staged.filter((change) => change.status === "added");
  if (deleted.length === 0 || added.length === 0) return staged;
  const pairs = await detectRenames(
    deleted.map((change) => ({ path: change.path, oid: headFiles.get(change.path)!.oid })),
    added.map((change) => ({ path: change.path, oid: stageOids.get(change.path)! })),
    (oid) => readBlob(repo, oid),
  );
  if (pairs.length === 0) return staged;
  const from = new Set(pairs.map((pair) => pair.from));
  const to = new Map(pairs.map((pair) => [pair.to, pair.from]));
  return staged.flatMap((change): FileChange[] => {
    if (change.status === "deleted" && from.has(change.path)) return [];
    const oldPath = change.status === "added" ? to.get(change.path) : undefined;
    return oldPath ? [{ path: change.path, status: "renamed", old_path: oldPath }] : [change];
  });
}

/** The branch's upstream (branch.<name>.remote/merge) and the commits on either side only. */
async function upstreamOf(
  repo: Repo,
  branch: string | null,
  head: string | null,
): Promise<{ upstream: string | null; ahead: number; behind: number }> {
  const none = { upstream: null, ahead: 0, behind: 0 };
  if (!branch) return none;
  const { git, fs, dir, cache } = repo;
  const remote = (await git.getConfig({ fs, dir, path: `branch.${branch}.remote` })) as string | undefined;
  const merge = (await git.getConfig({ fs, dir, path: `branch.${branch}.merge` })) as string | undefined;
  if (!remote || !merge) return none;
  const short = merge.replace(/^refs\/heads\//u, "");
  const upstream = remote === "." ? short : `${remote}/${short}`;
  const ref = remote === "." ? merge : `refs/remotes/${remote}/${short}`;
  const upstreamOid = await git.resolveRef({ fs, dir, ref }).catch(() => null);
  if (!upstreamOid || !head) return { upstream, ahead: 0, behind: 0 };
  if (upstreamOid === head) return { upstream, ahead: 0, behind: 0 };
  const ancestors = async (oid: string) => {
    const seen = new Set<string>();
    const pending = [oid];
    while (pending.length > 0) {
      const next = pending.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      const { commit } = await git.readCommit({ fs, dir, cache, oid: next });
      pending.push(...commit.parent);
    }
    return seen;
  };
  const mine = await ancestors(head);
  const theirs = await ancestors(upstreamOid);
  let ahead = 0;
  let behind = 0;
  for (const oid of mine) if (!theirs.has(oid)) ahead++;
  for (const oid of theirs) if (!mine.has(oid)) behind++;
  return { upstream, ahead, behind };
}
