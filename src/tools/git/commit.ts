import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import type { Sandbox } from "../../sandbox/types.ts";
import { sha1Hex } from "../sha1.ts";
import { entryFor, type IndexEntry, isIntentToAdd, readIndex, writeIndex } from "./index-file.ts";
import {
  flatTree,
  serializeTree,
  storeObjects,
  type TreeEntry,
  type TreeItem,
  wrapObject,
  writeObjects,
} from "./objects.ts";
import {
  gitFailure,
  headCommit,
  objectCache,
  openRepo,
  type Repo,
  type RepoFiles,
  repoFilesAt,
} from "./repo.ts";
import { type FileChange, gitStatus, stagedBetween } from "./status.ts";
import { hashWorktreeFiles, scanWorktree } from "./worktree.ts";

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
  const head = await headCommit(repo);
  const headFiles = head ? await flatTree(repo, objectCache(repo), head) : new Map<string, TreeItem>();
  return stagedBetween(headFiles, await readIndex(repo));
}

/** Who commits when the repository's config does not say. */
export const DEFAULT_IDENTITY = { name: "Toolroom Agent", email: "agent@toolroom.local" };

type Clocked = Pick<ToolContext, "sandbox" | "services" | "clock" | "resolve" | "signal"> &
  Partial<Pick<ToolContext, "settings">>;

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
    const identity = await identityOf(repo, context.settings?.gitIdentity);
    if (identity.defaulted)
      warnings.push(
        `No user.name/user.email in the repository's git config or yours; committed as ${identity.name} <${identity.email}>.`,
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
    const oid = await commitIndex(repo, message, person);
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
 * One scan of the working tree against the index (git's stat cache: unchanged files are not read)
 * finds what differs; the new blobs are stored and the index written once.
 */
export async function stagePaths(
  context: Pick<ToolContext, "resolve" | "signal" | "sandbox">,
  repo: RepoFiles,
  paths: string[],
): Promise<void> {
  const prefixes: string[] = [];
  for (const input of paths) {
    const path = await context.resolve(input, { param: "paths" });
    prefixes.push(path.relative);
  }
  const wanted = (path: string) =>
    prefixes.some((prefix) => prefix === "" || path === prefix || path.startsWith(`${prefix}/`));
  const onTheWay = (path: string) =>
    prefixes.some((prefix) => prefix === "" || prefix.startsWith(`${path}/`) || wanted(path));
  const scan = await scanWorktree(repo, {
    untracked: true,
    within: (path, folder) => (folder ? onTheWay(path) : wanted(path)),
  });
  for (const prefix of prefixes) {
    if (prefix === "") continue;
    const deletedHere = scan.deleted.some((path) => path === prefix || path.startsWith(`${prefix}/`));
    if (!deletedHere && !(await context.sandbox.lstat(`${repo.dir}/${prefix}`).catch(() => null))) {
      throw new ToolFailure("file_not_found", `pathspec "${prefix}" did not match any files.`, {
        path: prefix,
      });
    }
  }
  // A nested repository ("folder/") is left out rather than added as a submodule.
  const fresh = await hashWorktreeFiles(
    repo,
    scan.untracked.filter((path) => !path.endsWith("/")).map((path) => ({ path })),
  );
  const files = [...scan.changed, ...fresh];
  if (files.length === 0 && scan.deleted.length === 0) return;
  await writeObjects(
    repo,
    files.map((file) => ({ oid: file.oid, wrapped: wrapObject("blob", file.content) })),
  );
  const replaced = new Map(files.map((file) => [file.path, file]));
  const removed = new Set(scan.deleted);
  const entries: IndexEntry[] = [];
  for (const entry of scan.index.entries) {
    // Adding a path resolves its conflict: its stages give way to the one entry.
    if (removed.has(entry.path) || replaced.has(entry.path)) continue;
    entries.push(entry);
  }
  for (const file of files)
    entries.push(entryFor(file.path, file.oid, file.stat, scan.index.byPath.get(file.path)));
  await writeIndex(repo, entries);
}

/** Writes the index's trees and a commit of them on HEAD's branch (or HEAD itself when detached). */
async function commitIndex(repo: Repo, message: string, person: Person): Promise<string> {
  return commitTree(repo, await headCommit(repo), message, person);
}

/** Writes the index's trees and a commit of them on `parent`, and moves HEAD's branch (or HEAD) to it. */
async function commitTree(
  repo: RepoFiles,
  parent: string | null,
  message: string,
  person: Person,
): Promise<string> {
  const index = await readIndex(repo);
  if (index.unmerged.size > 0) {
    throw new ToolFailure(
      "git_error",
      `Cannot commit with unmerged paths (${[...index.unmerged].slice(0, 5).join(", ")}): resolve the conflicts and stage the files first.`,
    );
  }
  const tree = await writeIndexTrees(repo, index.entries);
  const [oid] = await storeObjects(repo, "commit", [
    new TextEncoder().encode(renderCommit({ tree, parents: parent ? [parent] : [], person, message })),
  ]);
  const { sandbox, gitdir } = repo;
  const headFile = new TextDecoder().decode(await sandbox.readFile(`${gitdir}/HEAD`)).trim();
  const ref = headFile.startsWith("ref: ") ? headFile.slice(5).trim() : "HEAD";
  const refPath = `${gitdir}/${ref}`;
  await sandbox.mkdir(refPath.slice(0, refPath.lastIndexOf("/")), { recursive: true });
  await sandbox.writeFile(refPath, `${oid}\n`);
  return oid!;
}

/** Who made a commit, and when (seconds since the epoch; offset in minutes as Date gives it). */
export interface Person {
  name: string;
  email: string;
  timestamp: number;
  timezoneOffset: number;
}

/** "+0100" for an offset of -60 minutes (Date's sign is the other way round); -0 is "-0000", as in isomorphic-git. */
function timezone(offset: number): string {
  const east = offset === 0 ? !Object.is(offset, -0) : offset < 0;
  const minutes = Math.abs(offset);
  return `${east ? "+" : "-"}${String(Math.floor(minutes / 60)).padStart(2, "0")}${String(minutes % 60).padStart(2, "0")}`;
}

/** A commit object's text, as git (and isomorphic-git) lay it out. */
export function renderCommit(commit: {
  tree: string;
  parents: string[];
  person: Person;
  message: string;
}): string {
  const who = `${commit.person.name} <${commit.person.email}> ${commit.person.timestamp} ${timezone(commit.person.timezoneOffset)}`;
  const parents = commit.parents.map((parent) => `parent ${parent}\n`).join("");
  const message = `${commit.message.replace(/\r/gu, "").replace(/^\n+/u, "").replace(/\n+$/u, "")}\n`;
  return `tree ${commit.tree}\n${parents}author ${who}\ncommitter ${who}\n\n${message}`;
}

/**
 * The index's folders as tree objects, deepest first; returns the root tree's id. Each tree is
 * hashed, and only those not already stored are written (an unchanged folder keeps its id).
 */
export async function writeIndexTrees(repo: RepoFiles, entries: IndexEntry[]): Promise<string> {
  const folders = new Map<string, TreeEntry[]>([["", []]]);
  const folderOf = (path: string): TreeEntry[] => {
    let list = folders.get(path);
    if (list) return list;
    list = [];
    folders.set(path, list);
    const slash = path.lastIndexOf("/");
    folderOf(slash === -1 ? "" : path.slice(0, slash)).push({
      name: path.slice(slash + 1),
      mode: 0o040000,
      oid: "",
    });
    return list;
  };
  for (const entry of entries) {
    // Entries added with --intent-to-add are not part of the tree.
    if (entry.stage !== 0 || isIntentToAdd(entry)) continue;
    const slash = entry.path.lastIndexOf("/");
    folderOf(slash === -1 ? "" : entry.path.slice(0, slash)).push({
      name: entry.path.slice(slash + 1),
      mode: entry.mode,
      oid: entry.oid,
    });
  }
  // Deepest folders first, so each tree's sub-tree ids are known when it is hashed; the root last.
  const depth = (path: string) => (path === "" ? 0 : path.split("/").length);
  const order = [...folders.keys()].sort((a, b) => depth(b) - depth(a));
  const ids = new Map<string, string>();
  const written: { oid: string; wrapped: Uint8Array }[] = [];
  for (const path of order) {
    const list = folders.get(path)!;
    for (const item of list)
      if (item.mode === 0o040000) item.oid = ids.get(path === "" ? item.name : `${path}/${item.name}`)!;
    const wrapped = wrapObject("tree", serializeTree(list));
    const oid = sha1Hex(wrapped);
    ids.set(path, oid);
    written.push({ oid, wrapped });
  }
  await writeObjects(repo, written);
  return ids.get("")!;
}

/** As git: the repository's config, then the user's own (the host hands it over), then our fallback. */
async function identityOf(
  repo: Repo,
  user: { name?: string; email?: string } | undefined,
): Promise<{ name: string; email: string; defaulted: boolean }> {
  const get = async (path: string) =>
    (await repo.git.getConfig({ fs: repo.fs, dir: repo.dir, path }).catch(() => undefined)) as
      | string
      | undefined;
  const name = (await get("user.name")) || user?.name || undefined;
  const email = (await get("user.email")) || user?.email || undefined;
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
  /** Minutes west of UTC, as Date's getTimezoneOffset(); the machine's own when left out. */
  timezoneOffset?: number;
}

/** What native git's `git init` writes into .git/config on Linux (modes and symlinks count). */
const INITIAL_CONFIG =
  "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

/** `git init`: an empty repository on branch main; false when .git already exists. */
export async function initGitDir(sandbox: Sandbox): Promise<boolean> {
  const gitdir = `${sandbox.workspaceRoot}/.git`;
  if (await sandbox.lstat(gitdir).catch(() => null)) return false;
  for (const folder of ["hooks", "info", "objects/info", "objects/pack", "refs/heads", "refs/tags"])
    await sandbox.mkdir(`${gitdir}/${folder}`, { recursive: true });
  await sandbox.writeFile(`${gitdir}/config`, INITIAL_CONFIG);
  await sandbox.writeFile(`${gitdir}/HEAD`, "ref: refs/heads/main\n");
  return true;
}

/**
 * Makes the workspace a git repository (branch main) with everything not ignored in an initial
 * commit. Does nothing where .git already exists. Returns the commit, or null when nothing was done.
 * Written here end to end (index, objects, refs), so a new workspace never loads isomorphic-git.
 */
export async function initRepository(
  context: Pick<ToolContext, "sandbox" | "services" | "resolve" | "signal">,
  options: InitOptions = {},
): Promise<string | null> {
  const sandbox = context.sandbox;
  if (!(await initGitDir(sandbox))) return null;
  const repo = (await repoFilesAt(sandbox))!;
  if ((await sandbox.readdir(repo.dir)).some((entry) => entry.name !== ".git"))
    await stagePaths(context, repo, ["."]);
  const author = options.author ?? DEFAULT_IDENTITY;
  const now = options.now ?? new Date();
  const person = {
    ...author,
    timestamp: Math.floor(now.getTime() / 1000),
    timezoneOffset: options.timezoneOffset ?? now.getTimezoneOffset(),
  };
  return commitTree(repo, null, options.message ?? "Initial commit\n", person);
}
