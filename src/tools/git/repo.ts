import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import type { Sandbox } from "../../sandbox/types.ts";
import { type GitFs, gitFs } from "./fs.ts";
import { type Git, loadGit } from "./load.ts";

/** One git repository at the workspace root, with the per-runtime cache isomorphic-git reuses between calls. */
export interface Repo {
  git: Git;
  fs: GitFs;
  dir: string;
  gitdir: string;
  cache: object;
  sandbox: Sandbox;
}

/** The repository of the workspace root; not_a_git_repo when there is none. */
export async function openRepo(context: Pick<ToolContext, "sandbox" | "services">): Promise<Repo> {
  const repo = await repoAt(
    context.sandbox,
    context.services.get("git.cache", () => ({})),
  );
  if (!repo) {
    throw new ToolFailure(
      "not_a_git_repo",
      "The workspace is not a git repository (no .git folder at its root). Run `git init` with a shell tool (the embedded shell has Toolroom's built-in git), then stage and commit with git_commit.",
    );
  }
  return repo;
}

export async function repoAt(sandbox: Sandbox, cache: object = {}): Promise<Repo | null> {
  const dir = sandbox.workspaceRoot;
  const gitdir = `${dir}/.git`;
  const stat = await sandbox.stat(gitdir).catch(() => null);
  if (stat?.type !== "directory") return null;
  return { git: await loadGit(), fs: gitFs(sandbox), dir, gitdir, cache, sandbox };
}

/** The commit HEAD points at, or null on an unborn branch (a repository with no commits yet). */
export async function headCommit(repo: Repo): Promise<string | null> {
  try {
    return await repo.git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: "HEAD" });
  } catch {
    return null;
  }
}

/** Turns isomorphic-git's errors into git_error with its message; ToolFailures pass through. */
export function gitFailure(error: unknown, doing: string): ToolFailure {
  if (error instanceof ToolFailure) return error;
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "NotFoundError") {
    return new ToolFailure(
      "git_error",
      `${doing}: ${message}. Check the ref or path names (git_status lists them).`,
      {
        git_code: code,
      },
    );
  }
  return new ToolFailure("git_error", `${doing}: ${message}`, { git_code: code ?? null });
}

export type WalkerEntry = NonNullable<Parameters<Parameters<Repo["git"]["walk"]>[0]["map"] & {}>[1][number]>;

/**
 * Whether a working-tree file differs from its index entry: equal size, mode and mtime mean
 * unchanged (git's own shortcut); otherwise the content's hash decides. Comparing stats here skips
 * the index lock isomorphic-git takes for every oid() call.
 */
export async function changedSince(workdir: WalkerEntry, stage: WalkerEntry): Promise<boolean> {
  const [current, indexed] = (await Promise.all([workdir.stat(), stage.stat()])) as unknown as GitStat[];
  if (
    current &&
    indexed &&
    current.size === indexed.size &&
    current.mode === indexed.mode &&
    current.mtimeSeconds === indexed.mtimeSeconds &&
    current.mtimeNanoseconds === indexed.mtimeNanoseconds
  ) {
    return false;
  }
  if ((await workdir.mode()) !== (await stage.mode())) return true;
  return (await workdir.oid()) !== (await stage.oid());
}

interface GitStat {
  size: number;
  mode: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
}
