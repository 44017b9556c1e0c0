import type { ToolContext } from "../../core/profile.ts";
import { headCommit, openRepo, type Repo } from "./repo.ts";
import { detectRenames } from "./similarity.ts";

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
  const { git, fs, dir, cache } = repo;
  const head = await headCommit(repo);
  const branch = (await git.currentBranch({ fs, dir, fullname: false })) ?? null;
  const detached = branch === null;
  const matrix = await git.statusMatrix({ fs, dir, cache });

  const staged: FileChange[] = [];
  const unstaged: FileChange[] = [];
  const untracked: string[] = [];
  for (const [path, headState, workdirState, stageState] of matrix as [string, number, number, number][]) {
    if (headState === 0 && stageState === 0) {
      if (workdirState !== 0) untracked.push(path);
      continue;
    }
    if (headState === 0) staged.push({ path, status: "added" });
    else if (stageState === 0) staged.push({ path, status: "deleted" });
    else if (stageState !== 1) staged.push({ path, status: "modified" });
    if (stageState === 0) {
      // Removed from the index but still on disk: git shows it both deleted (staged) and untracked.
      if (workdirState !== 0) untracked.push(path);
      continue;
    }
    if (workdirState === 0) unstaged.push({ path, status: "deleted" });
    else if (stageState === 1 ? workdirState === 2 : stageState === 3)
      unstaged.push({ path, status: "modified" });
  }
  const stagedWithRenames = await withRenames(repo, head, staged);
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

/** Staged deletions and additions that git would pair as renames become one "renamed" entry. */
async function withRenames(repo: Repo, head: string | null, staged: FileChange[]): Promise<FileChange[]> {
  const deleted = staged.filter((change) => change.status === "deleted");
  const added = staged.filter((change) => change.status === "added");
  if (!head || deleted.length === 0 || added.length === 0) return staged;
  const { git, fs, dir, cache } = repo;
  const headOids = new Map<string, string>();
  for (const change of deleted) {
    const { oid } = await git.readBlob({ fs, dir, cache, oid: head, filepath: change.path });
    headOids.set(change.path, oid);
  }
  const stageOids = await indexOids(repo, new Set(added.map((change) => change.path)));
  const pairs = await detectRenames(
    deleted.map((change) => ({ path: change.path, oid: headOids.get(change.path)! })),
    added.map((change) => ({ path: change.path, oid: stageOids.get(change.path)! })),
    async (oid) => (await git.readBlob({ fs, dir, cache, oid })).blob,
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

/** Blob ids of some paths in the index. */
export async function indexOids(repo: Repo, paths: Set<string>): Promise<Map<string, string>> {
  const { git, fs, dir, cache } = repo;
  const oids = new Map<string, string>();
  await git.walk({
    fs,
    dir,
    cache,
    trees: [git.STAGE()],
    map: async (path, [entry]) => {
      if (!entry) return null;
      if (paths.has(path) && (await entry.type()) === "blob") oids.set(path, (await entry.oid()) as string);
      return true;
    },
  });
  return oids;
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
