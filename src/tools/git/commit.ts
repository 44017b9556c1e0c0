import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import { GitignoreRules } from "../walk.ts";
import { gitFs } from "./fs.ts";
import { loadGit } from "./load.ts";
import { changedSince, gitFailure, headCommit, openRepo, type Repo, repoAt } from "./repo.ts";
import { type FileChange, gitStatus } from "./status.ts";

export interface CommitOptions {
  message: string;
  /** Staged first (added, or removed when deleted on disk); without them the index is committed as it is. */
  paths?: string[];
  /** Adds a Signed-off-by trailer with the committer's name and email. */
  signoff?: boolean;
}

export interface CommitResult {
  commit_hash: string;
  files_committed: string[];
  changes: FileChange[];
  message: string;
  warnings: string[];
}

/** Files whose index entry differs from HEAD's (what a commit would record); no working-tree walk. */
export async function stagedChanges(repo: Repo): Promise<FileChange[]> {
  const { git, fs, dir, cache } = repo;
  const head = await headCommit(repo);
  const changes: FileChange[] = [];
  const trees = head ? [git.TREE({ ref: head }), git.STAGE()] : [git.STAGE()];
  await git.walk({
    fs,
    dir,
    cache,
    trees,
    map: async (path, entries) => {
      const [before, after] = head ? entries : [null, entries[0]];
      if (path === ".") return true;
      const [beforeType, afterType] = await Promise.all([before?.type(), after?.type()]);
      if (beforeType === "tree" || afterType === "tree") return true;
      const beforeId = before ? `${await before.oid()} ${await before.mode()}` : null;
      const afterId = after ? `${await after.oid()} ${await after.mode()}` : null;
      if (beforeId === afterId) return null;
      changes.push({ path, status: !before ? "added" : !after ? "deleted" : "modified" });
      return null;
    },
  });
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Who commits when the repository's config does not say. */
export const DEFAULT_IDENTITY = { name: "Toolroom Agent", email: "agent@toolroom.local" };

type Clocked = Pick<ToolContext, "sandbox" | "services" | "clock" | "resolve" | "signal">;

/** Stages `paths` (if any), then commits the index: nothing_to_commit when it equals HEAD. */
export async function gitCommit(context: Clocked, options: CommitOptions): Promise<CommitResult> {
  if (options.message.trim() === "") {
    throw new ToolFailure("invalid_params", "The commit message is empty; say what the change does and why.");
  }
  const repo = await openRepo(context);
  const warnings: string[] = [];
  try {
    if (options.paths && options.paths.length > 0) await stagePaths(context, repo, options.paths);
    const staged = await stagedChanges(repo);
    if (staged.length === 0) {
      const status = await gitStatus(context);
      const pending = status.unstaged.length + status.untracked.length;
      throw new ToolFailure(
        "nothing_to_commit",
        pending > 0
          ? `Nothing staged to commit (${pending} changed or untracked file${pending === 1 ? "" : "s"} not staged). Pass them in paths, e.g. paths=["."].`
          : "Nothing to commit: the working tree matches HEAD.",
        { unstaged: status.unstaged.length, untracked: status.untracked.length },
      );
    }
    const identity = await identityOf(repo);
    if (identity.defaulted)
      warnings.push(
        `No user.name/user.email in .git/config; committed as ${identity.name} <${identity.email}>.`,
      );
    let message = cleanMessage(options.message);
    if (options.signoff) message = withSignoff(message, `${identity.name} <${identity.email}>`);
    const now = context.clock.now();
    const person = {
      name: identity.name,
      email: identity.email,
      timestamp: Math.floor(now.getTime() / 1000),
      timezoneOffset: now.getTimezoneOffset(),
    };
    const oid = await repo.git.commit({
      fs: repo.fs,
      dir: repo.dir,
      cache: repo.cache,
      message,
      author: person,
      committer: person,
    });
    return {
      commit_hash: oid,
      files_committed: staged.map((change) => change.path),
      changes: staged,
      message,
      warnings,
    };
  } catch (error) {
    throw gitFailure(error, "git commit failed");
  }
}

/**
 * `git add -A -- paths`: new and changed files added (ignored ones skipped), deleted ones removed.
 * One walk of the working tree against the index finds what differs; ignore rules come from
 * GitignoreRules (loaded once per folder) rather than a per-file lookup, which keeps the first
 * commit of a big tree fast.
 */
export async function stagePaths(
  context: Pick<ToolContext, "resolve" | "signal" | "sandbox">,
  repo: Repo,
  paths: string[],
): Promise<void> {
  const { git, fs, dir, cache } = repo;
  const prefixes: string[] = [];
  for (const input of paths) {
    const path = await context.resolve(input, { param: "paths" });
    prefixes.push(path.relative);
  }
  const wanted = (path: string) =>
    prefixes.some((prefix) => prefix === "" || path === prefix || path.startsWith(`${prefix}/`));
  const onTheWay = (path: string) =>
    prefixes.some((prefix) => prefix === "" || prefix.startsWith(`${path}/`) || wanted(path));
  const rules = await GitignoreRules.load(context.sandbox);
  const add: string[] = [];
  const remove: string[] = [];
  const matched = new Set<string>();
  await git.walk({
    fs,
    dir,
    cache,
    trees: [git.WORKDIR(), git.STAGE()],
    map: async (path, [workdir, stage]) => {
      if (path === ".") return true;
      if (path === ".git" || path.startsWith(".git/")) return null;
      if (!onTheWay(path)) return null;
      const [workdirType, stageType] = await Promise.all([workdir?.type(), stage?.type()]);
      if (workdirType === "tree" || stageType === "tree") {
        if (!stage && rules.ignores(path, true)) return null;
        if (workdirType === "tree") await rules.enter(path);
        return true;
      }
      if (!wanted(path)) return null;
      if (!stage && workdir && rules.ignores(path, false)) return null;
      for (const prefix of prefixes)
        if (prefix === "" || path === prefix || path.startsWith(`${prefix}/`)) matched.add(prefix);
      if (workdir && !stage) add.push(path);
      else if (!workdir && stage) remove.push(path);
      else if (workdir && stage && (await changedSince(workdir, stage))) add.push(path);
      return null;
    },
  });
  for (const prefix of prefixes) {
    if (
      prefix !== "" &&
      !matched.has(prefix) &&
      !(await context.sandbox.lstat(`${dir}/${prefix}`).catch(() => null))
    ) {
      throw new ToolFailure("file_not_found", `pathspec "${prefix}" did not match any files.`, {
        path: prefix,
      });
    }
  }
  // Ignore rules were applied above; tracked files are staged even when a rule matches them.
  if (add.length > 0) await git.add({ fs, dir, cache, filepath: add.sort(), force: true });
  for (const file of remove) await git.remove({ fs, dir, cache, filepath: file });
}

async function identityOf(repo: Repo): Promise<{ name: string; email: string; defaulted: boolean }> {
  const get = async (path: string) =>
    (await repo.git.getConfig({ fs: repo.fs, dir: repo.dir, path }).catch(() => undefined)) as
      | string
      | undefined;
  const name = await get("user.name");
  const email = await get("user.email");
  return {
    name: name ?? DEFAULT_IDENTITY.name,
    email: email ?? DEFAULT_IDENTITY.email,
    defaulted: !name || !email,
  };
}

/** As `git commit` stores a message: trailing whitespace off each line, no blank lines at the ends, one final newline. */
export function cleanMessage(message: string): string {
  const lines = message.split(/\r?\n/u).map((line) => line.replace(/\s+$/u, ""));
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const collapsed = lines.filter((line, index) => !(line === "" && lines[index - 1] === ""));
  return `${collapsed.join("\n")}\n`;
}

/** Appends Signed-off-by like `git commit -s`: in the trailer block if the message ends with one, once. */
export function withSignoff(message: string, who: string): string {
  const trailer = `Signed-off-by: ${who}`;
  const body = message.replace(/\n+$/u, "");
  const lines = body.split("\n");
  if (lines[lines.length - 1] === trailer) return `${body}\n`;
  const lastParagraph = body.slice(body.lastIndexOf("\n\n") + 2).split("\n");
  const endsWithTrailers =
    body.includes("\n\n") && lastParagraph.every((line) => /^[A-Za-z0-9-]+: /u.test(line));
  return `${body}${endsWithTrailers ? "\n" : "\n\n"}${trailer}\n`;
}

export interface InitOptions {
  message?: string;
  author?: { name: string; email: string };
  now?: Date;
}

/**
 * Makes the workspace a git repository (branch main) with everything not ignored in an initial
 * commit. Does nothing where .git already exists. Returns the commit, or null when nothing was done.
 */
export async function initRepository(
  context: Pick<ToolContext, "sandbox" | "services" | "resolve" | "signal">,
  options: InitOptions = {},
): Promise<string | null> {
  if (await repoAt(context.sandbox)) return null;
  const git = await loadGit();
  const fs = gitFs(context.sandbox);
  const dir = context.sandbox.workspaceRoot;
  await git.init({ fs, dir, defaultBranch: "main" });
  const repo = await openRepo(context);
  if ((await context.sandbox.readdir(dir)).some((entry) => entry.name !== ".git"))
    await stagePaths(context, repo, ["."]);
  const author = options.author ?? DEFAULT_IDENTITY;
  const now = options.now ?? new Date();
  const person = {
    ...author,
    timestamp: Math.floor(now.getTime() / 1000),
    timezoneOffset: now.getTimezoneOffset(),
  };
  const oid = await git.commit({
    fs,
    dir,
    cache: repo.cache,
    message: options.message ?? "Initial commit\n",
    author: person,
    committer: person,
  });
  if ((await headCommit(repo)) !== oid)
    throw new ToolFailure("git_error", "The initial commit did not move HEAD.");
  return oid;
}
