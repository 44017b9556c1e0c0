import type { ToolContext } from "../../core/profile.ts";
import { GitignoreRules } from "../walk.ts";
import { changedSince, headCommit, openRepo, type Repo } from "./repo.ts";
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
  const { git, fs, dir } = repo;
  const head = await headCommit(repo);
  const branch = (await git.currentBranch({ fs, dir, fullname: false })) ?? null;
  const detached = branch === null;
  const { staged, unstaged, untracked, stageOids } = await compareTrees(repo, head);
  const stagedWithRenames = await withRenames(repo, head, staged, stageOids);
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
 * One walk of HEAD's tree, the working tree and the index together. A working-tree file counts as
 * unchanged when its stats match the index (git's shortcut), else its content hash decides;
 * untracked paths go through the .gitignore rules, and an ignored untracked folder is not entered.
 */
async function compareTrees(
  repo: Repo,
  head: string | null,
): Promise<{
  staged: FileChange[];
  unstaged: FileChange[];
  untracked: string[];
  stageOids: Map<string, string>;
}> {
  const { git, fs, dir, cache, sandbox } = repo;
  const rules = await GitignoreRules.load(sandbox);
  const staged: FileChange[] = [];
  const unstaged: FileChange[] = [];
  const untracked: string[] = [];
  const stageOids = new Map<string, string>();
  const trees = head ? [git.WORKDIR(), git.STAGE(), git.TREE({ ref: head })] : [git.WORKDIR(), git.STAGE()];
  await git.walk({
    fs,
    dir,
    cache,
    trees,
    map: async (path, [workdir, stage, tree]) => {
      if (path === ".") return true;
      if (path === ".git") return null;
      const [workdirType, stageType, treeType] = await Promise.all([
        workdir?.type(),
        stage?.type(),
        tree?.type(),
      ]);
      const tracked = Boolean(stage) || Boolean(tree);
      if (workdirType === "tree" || stageType === "tree" || treeType === "tree") {
        if (!tracked && rules.ignores(path, true)) return null;
        if (workdirType === "tree") await rules.enter(path);
        // A path that is a folder on one side and a file on another: only the folder side is walked.
        if (!(workdirType === "blob" || stageType === "blob" || treeType === "blob")) return true;
      }
      if (workdirType === "commit" || stageType === "commit" || treeType === "commit") return null;
      const inWorkdir = workdirType === "blob" || workdirType === "special";
      const inStage = stageType === "blob";
      const inTree = treeType === "blob";
      if (!inStage && !inTree) {
        if (inWorkdir && !rules.ignores(path, false)) untracked.push(path);
        return workdirType === "tree" ? true : null;
      }
      if (inStage) stageOids.set(path, (await stage!.oid()) as string);
      if (inTree && inStage) {
        const [treeOid, treeMode, stageMode] = await Promise.all([tree!.oid(), tree!.mode(), stage!.mode()]);
        if (treeOid !== stageOids.get(path) || treeMode !== stageMode)
          staged.push({ path, status: "modified" });
      } else if (inStage) staged.push({ path, status: "added" });
      else staged.push({ path, status: "deleted" });
      if (!inStage) {
        // Removed from the index but still on disk: git shows it both deleted (staged) and untracked.
        if (inWorkdir) untracked.push(path);
      } else if (!inWorkdir) unstaged.push({ path, status: "deleted" });
      else if (await changedSince(workdir!, stage!)) unstaged.push({ path, status: "modified" });
      return workdirType === "tree" || stageType === "tree" || treeType === "tree" ? true : null;
    },
  });
  return { staged, unstaged, untracked, stageOids };
}

/** Staged deletions and additions that git would pair as renames become one "renamed" entry. */
async function withRenames(
  repo: Repo,
  head: string | null,
  staged: FileChange[],
  stageOids: Map<string, string>,
): Promise<FileChange[]> {
  const deleted = staged.filter((change) => change.status === "deleted");
  const added = staged.filter((change) => change.status === "added");
  if (!head || deleted.length === 0 || added.length === 0) return staged;
  const { git, fs, dir, cache } = repo;
  const headOids = new Map<string, string>();
  for (const change of deleted) {
    const { oid } = await git.readBlob({ fs, dir, cache, oid: head, filepath: change.path });
    headOids.set(change.path, oid);
  }
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
