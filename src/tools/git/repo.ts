import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import type { Sandbox } from "../../sandbox/types.ts";
import { type GitFs, gitFs } from "./fs.ts";
import { type Git, loadGit } from "./load.ts";
import type { ObjectCache } from "./objects.ts";

/**
 * A repository's files: what the index, object and working-tree code works on, without
 * isomorphic-git (which a new workspace's first commit never needs to load).
 */
export interface RepoFiles {
  fs: GitFs;
  dir: string;
  gitdir: string;
  /** isomorphic-git's per-runtime cache (packfile indexes, its parse of the index). */
  cache: object;
  sandbox: Sandbox;
}

/** One git repository at the workspace root, with isomorphic-git loaded for refs, config and packs. */
export interface Repo extends RepoFiles {
  git: Git;
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

const objectCaches = new WeakMap<Sandbox, ObjectCache>();

/** Parsed and flattened trees of this sandbox's repository, kept across calls (an id's content never changes). */
export function objectCache(repo: RepoFiles): ObjectCache {
  let cache = objectCaches.get(repo.sandbox);
  if (!cache) {
    cache = { trees: new Map(), flat: new Map() };
    objectCaches.set(repo.sandbox, cache);
  }
  return cache;
}

export async function repoAt(sandbox: Sandbox, cache: object = {}): Promise<Repo | null> {
  const files = await repoFilesAt(sandbox, cache);
  return files ? { ...files, git: await loadGit() } : null;
}

/** The workspace root's repository files, or null when it has no .git folder. */
export async function repoFilesAt(sandbox: Sandbox, cache: object = {}): Promise<RepoFiles | null> {
  const dir = sandbox.workspaceRoot;
  const gitdir = `${dir}/.git`;
  const stat = await sandbox.stat(gitdir).catch(() => null);
  if (stat?.type !== "directory") return null;
  return { fs: gitFs(sandbox), dir, gitdir, cache, sandbox };
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
