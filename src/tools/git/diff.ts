import picomatch from "picomatch/posix";
import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import { readIndex } from "./index-file.ts";
import { flatTree, readBlob } from "./objects.ts";
import { gitFailure, headCommit, objectCache, openRepo, type Repo } from "./repo.ts";
import { detectRenames, similarityPercent } from "./similarity.ts";
import { isBinary, unifiedHunks } from "./unified.ts";
import { scanWorktree } from "./worktree.ts";

const SUBMODULE = "160000";

export interface DiffOptions {
  /** Index against HEAD (or against base_ref) instead of the working tree against the index. */
  staged?: boolean;
  /** Paths, folders or globs the diff is limited to. */
  pathspec?: string[];
  baseRef?: string;
  targetRef?: string;
}

export interface FileDiff {
  path: string;
  old_path?: string;
  /** For a rename: git's similarity index, 0–100. */
  similarity?: number;
  status: "added" | "modified" | "deleted" | "renamed";
  additions: number;
  deletions: number;
  binary: boolean;
  /** This file's part of diff_text. */
  diff: string;
}

export interface GitDiff {
  diff_text: string;
  files_changed: FileDiff[];
  /** What was compared, in git's words ("index → working tree", "HEAD → index", "v1 → v2"). */
  compared: string;
}

type Side = { kind: "tree"; ref: string; oid: string | null } | { kind: "stage" } | { kind: "workdir" };

interface Version {
  oid: string;
  mode: string;
  content?: Uint8Array;
}

const ZERO = "0000000";

/** git's empty tree: diffing from it shows a root commit's whole content as added. */
export const EMPTY_TREE_ID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const abbrev = (oid: string) => oid.slice(0, 7);

/**
 * `git diff` as data: the same raw text native git prints (diff --git headers, index lines,
 * renames, binary notices, hunks with function names) and per-file counts.
 *   default: index → working tree;  staged: HEAD → index;
 *   base_ref: base → working tree (→ index with staged);  base_ref + target_ref: base → target;
 *   target_ref alone: HEAD → target.
 */
export async function gitDiff(
  context: Pick<ToolContext, "sandbox" | "services">,
  options: DiffOptions,
): Promise<GitDiff> {
  const repo = await openRepo(context);
  const head = await headCommit(repo);
  const tree = async (ref: string): Promise<Side> => {
    if ((ref === "HEAD" && head === null) || ref === EMPTY_TREE_ID) return { kind: "tree", ref, oid: null };
    return { kind: "tree", ref, oid: await resolveRevision(repo, ref) };
  };
  let before: Side;
  let after: Side;
  if (options.baseRef && options.targetRef) {
    before = await tree(options.baseRef);
    after = await tree(options.targetRef);
  } else if (options.targetRef) {
    before = await tree("HEAD");
    after = await tree(options.targetRef);
  } else if (options.baseRef) {
    before = await tree(options.baseRef);
    after = options.staged ? { kind: "stage" } : { kind: "workdir" };
  } else if (options.staged) {
    before = await tree("HEAD");
    after = { kind: "stage" };
  } else {
    before = { kind: "stage" };
    after = { kind: "workdir" };
  }
  const selected = pathFilter(options.pathspec ?? []);
  let changes: Change[];
  try {
    changes = await collectChanges(repo, before, after, selected);
  } catch (error) {
    throw gitFailure(error, "git diff failed");
  }
  const files: FileDiff[] = [];
  for (const change of changes) files.push(await renderChange(repo, change));
  return {
    diff_text: files.map((file) => file.diff).join(""),
    files_changed: files,
    compared: `${describe(before)} → ${describe(after)}`,
  };
}

function describe(side: Side): string {
  return side.kind === "tree" ? side.ref : side.kind === "stage" ? "index" : "working tree";
}

/** A revision as git reads it: a ref or (short) hash, followed by any number of ~N and ^ steps. */
export async function resolveRevision(repo: Repo, revision: string): Promise<string> {
  const { git, fs, dir, cache } = repo;
  const match = /^(.*?)((?:[~^]\d*)*)$/u.exec(revision.trim())!;
  const base = match[1] === "" ? "HEAD" : match[1]!;
  let oid: string;
  try {
    oid = await git.resolveRef({ fs, dir, ref: base });
  } catch {
    try {
      if (!/^[0-9a-f]{4,40}$/iu.test(base)) throw new Error("not a hash");
      oid = await git.expandOid({ fs, dir, cache, oid: base.toLowerCase() });
    } catch {
      throw new ToolFailure(
        "git_error",
        `Unknown revision "${revision}": no such branch, tag or commit. git_status shows the current branch; use a branch, tag or commit hash.`,
        {
          ref: revision,
        },
      );
    }
  }
  for (const step of match[2]!.match(/[~^]\d*/gu) ?? []) {
    const count = step.length > 1 ? Number(step.slice(1)) : 1;
    if (step[0] === "^") {
      oid = await parentOf(repo, oid, count, revision);
    } else {
      for (let i = 0; i < count; i++) oid = await parentOf(repo, oid, 1, revision);
    }
  }
  return oid;
}

async function parentOf(repo: Repo, oid: string, nth: number, revision: string): Promise<string> {
  if (nth === 0) return oid;
  const { commit } = await repo.git.readCommit({ fs: repo.fs, dir: repo.dir, cache: repo.cache, oid });
  const parent = commit.parent[nth - 1];
  if (!parent)
    throw new ToolFailure("git_error", `Unknown revision "${revision}": the history is not that deep.`, {
      ref: revision,
    });
  return parent;
}

interface Change {
  path: string;
  oldPath: string;
  before: Version | null;
  after: Version | null;
  score?: number;
}

function pathFilter(pathspec: string[]): (path: string) => boolean {
  const specs = pathspec
    .map((spec) => spec.replace(/^\.\//u, "").replace(/\/+$/u, ""))
    .filter((spec) => spec !== "" && spec !== ".");
  if (specs.length === 0) return () => true;
  const tests = specs.map((spec) => {
    if (/[*?[]/u.test(spec)) {
      const glob = picomatch(spec, { dot: true });
      return (path: string) => glob(path) || glob(path.slice(path.lastIndexOf("/") + 1));
    }
    return (path: string) => path === spec || path.startsWith(`${spec}/`);
  });
  return (path) => tests.some((test) => test(path));
}

/**
 * A side's files by path. A tree is flattened once per tree id; the index is read as it is; the
 * working tree is the index with what scanWorktree found changed or deleted laid over it (it
 * counts only where the index tracks something), so only files whose stat changed are read.
 */
async function filesOf(
  repo: Repo,
  side: Side,
  selected: (path: string) => boolean,
): Promise<Map<string, Version>> {
  const files = new Map<string, Version>();
  if (side.kind === "tree") {
    if (!side.oid) return files;
    for (const [path, item] of await flatTree(repo, objectCache(repo), side.oid))
      files.set(path, { oid: item.oid, mode: item.mode.toString(8) });
    return files;
  }
  if (side.kind === "stage") {
    for (const [path, entry] of (await readIndex(repo)).byPath)
      files.set(path, { oid: entry.oid, mode: entry.mode.toString(8) });
    return files;
  }
  const scan = await scanWorktree(repo, { within: (path, folder) => folder || selected(path) });
  for (const [path, entry] of scan.index.byPath)
    files.set(path, { oid: entry.oid, mode: entry.mode.toString(8) });
  for (const path of scan.deleted) files.delete(path);
  for (const file of scan.changed)
    files.set(file.path, { oid: file.oid, mode: file.mode.toString(8), content: file.content });
  return files;
}

/** Files that differ between two sides, renames paired where git would pair them. */
async function collectChanges(
  repo: Repo,
  before: Side,
  after: Side,
  selected: (path: string) => boolean,
): Promise<Change[]> {
  const [oldFiles, newFiles] = await Promise.all([
    filesOf(repo, before, selected),
    filesOf(repo, after, selected),
  ]);
  const blob = (version: Version | undefined) => (version && version.mode !== SUBMODULE ? version : null);
  const found: Change[] = [];
  const consider = (path: string) => {
    if (!selected(path)) return;
    const old = blob(oldFiles.get(path));
    const now = blob(newFiles.get(path));
    if (!old && !now) return;
    if (old && now && old.oid === now.oid && old.mode === now.mode) return;
    found.push({ path, oldPath: path, before: old, after: now });
  };
  for (const path of oldFiles.keys()) consider(path);
  for (const path of newFiles.keys()) if (!oldFiles.has(path)) consider(path);
  const deleted = found.filter((change) => change.after === null);
  const added = found.filter((change) => change.before === null);
  const sorted = (changes: Change[]) =>
    changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  if (deleted.length === 0 || added.length === 0) return sorted(found);
  const pairs = await detectRenames(
    deleted.map((change) => ({ path: change.path, oid: change.before!.oid })),
    added.map((change) => ({ path: change.path, oid: change.after!.oid })),
    async (oid) => {
      const version = added.find((change) => change.after!.oid === oid)?.after;
      return version?.content ?? readBlob(repo, oid);
    },
  );
  const renamedFrom = new Map(pairs.map((pair) => [pair.from, pair]));
  const renamedTo = new Map(pairs.map((pair) => [pair.to, pair]));
  const byPath = new Map(found.map((change) => [change.path, change]));
  const result: Change[] = [];
  for (const change of found) {
    if (change.after === null && renamedFrom.has(change.path)) continue;
    const pair = renamedTo.get(change.path);
    if (change.before === null && pair) {
      result.push({
        path: change.path,
        oldPath: pair.from,
        before: byPath.get(pair.from)!.before,
        after: change.after,
        score: pair.score,
      });
    } else result.push(change);
  }
  // git orders a rename by its new path, like every other entry.
  return sorted(result);
}

async function content(repo: Repo, version: Version): Promise<Uint8Array> {
  return version.content ?? readBlob(repo, version.oid);
}

async function renderChange(repo: Repo, change: Change): Promise<FileDiff> {
  const decoder = new TextDecoder();
  const oldName = `a/${change.oldPath}`;
  const newName = `b/${change.path}`;
  const header: string[] = [`diff --git ${oldName} ${newName}`];
  const before = change.before;
  const after = change.after;
  const status: FileDiff["status"] = !before
    ? "added"
    : !after
      ? "deleted"
      : change.oldPath !== change.path
        ? "renamed"
        : "modified";
  if (!before) header.push(`new file mode ${after!.mode}`);
  else if (!after) header.push(`deleted file mode ${before.mode}`);
  else {
    if (before.mode !== after.mode) header.push(`old mode ${before.mode}`, `new mode ${after.mode}`);
    if (status === "renamed") {
      header.push(
        `similarity index ${similarityPercent(change.score ?? 0)}%`,
        `rename from ${change.oldPath}`,
        `rename to ${change.path}`,
      );
    }
  }
  const contentChanged = !before || !after || before.oid !== after.oid;
  let body = "";
  let additions = 0;
  let deletions = 0;
  let binary = false;
  if (contentChanged) {
    const sameMode = before && after && before.mode === after.mode;
    header.push(
      `index ${before ? abbrev(before.oid) : ZERO}..${after ? abbrev(after.oid) : ZERO}${sameMode ? ` ${after!.mode}` : ""}`,
    );
    const oldBytes = before ? await content(repo, before) : new Uint8Array();
    const newBytes = after ? await content(repo, after) : new Uint8Array();
    binary = isBinary(oldBytes) || isBinary(newBytes);
    if (binary) {
      body = `Binary files ${before ? oldName : "/dev/null"} and ${after ? newName : "/dev/null"} differ\n`;
    } else if (oldBytes.length > 0 || newBytes.length > 0) {
      const hunks = unifiedHunks(decoder.decode(oldBytes), decoder.decode(newBytes));
      body = `--- ${before ? oldName : "/dev/null"}\n+++ ${after ? newName : "/dev/null"}\n${hunks.text}`;
      additions = hunks.additions;
      deletions = hunks.deletions;
    }
  }
  return {
    path: change.path,
    ...(status === "renamed"
      ? { old_path: change.oldPath, similarity: similarityPercent(change.score ?? 0) }
      : {}),
    status,
    additions,
    deletions,
    binary,
    diff: `${header.join("\n")}\n${body}`,
  };
}
