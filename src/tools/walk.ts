import ignore, { type Ignore } from "ignore";
import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import type { EntryType, Sandbox } from "../sandbox/types.ts";

export interface WalkEntry {
  /** Relative to the workspace root, "/"-separated. */
  path: string;
  /** Relative to the folder the walk started from. */
  relative: string;
  type: EntryType;
  depth: number;
}

export interface WalkOptions {
  /** Skip names starting with "." (ripgrep's default). */
  skipHidden?: boolean;
  /** Honour .gitignore files (and .git/info/exclude) from the workspace root down. */
  gitignore?: boolean;
  /** Folder names never entered; default [".git"]. */
  skipFolders?: readonly string[];
  /** Folder names yielded but never entered (a listing shows ".git/" without its insides). */
  opaqueFolders?: readonly string[];
  /** Deepest level yielded, 1 = direct children. Default unlimited. */
  maxDepth?: number;
  /** Breadth-first instead of depth-first, name-sorted within a folder either way. */
  breadthFirst?: boolean;
  signal?: AbortSignal;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Every entry under a workspace folder, folder by folder in name order, never following symlinks
 * (they are yielded as entries of type "symlink", for the caller to show or skip).
 */
export async function* walkWorkspace(
  sandbox: Sandbox,
  start: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry> {
  for await (const entries of walkFolders(sandbox, start, options)) yield* entries;
}

/** walkWorkspace a folder at a time: one step per folder, not per entry (a search lists thousands). */
export async function* walkFolders(
  sandbox: Sandbox,
  start: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry[]> {
  const root = sandbox.workspaceRoot;
  const skipFolders = new Set(options.skipFolders ?? [".git"]);
  const opaqueFolders = new Set(options.opaqueFolders ?? []);
  const rules = options.gitignore ? await GitignoreRules.load(sandbox, start) : null;
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const pending: { path: string; depth: number }[] = [{ path: start, depth: 0 }];
  while (pending.length > 0) {
    const folder = options.breadthFirst ? pending.shift()! : pending.pop()!;
    if (options.signal?.aborted) return;
    const children = (await sandbox.readdir(folder.path === "" ? root : `${root}/${folder.path}`)).sort(
      byName,
    );
    // Only a folder that lists a .gitignore has one: no failed read (and its thrown error) per folder.
    if (rules && folder.path !== start && children.some((child) => child.name === ".gitignore"))
      await rules.enter(folder.path);
    const subfolders: { path: string; depth: number }[] = [];
    const entries: WalkEntry[] = [];
    for (const child of children) {
      if (options.skipHidden && child.name.startsWith(".")) continue;
      const path = folder.path === "" ? child.name : `${folder.path}/${child.name}`;
      if (child.type === "directory" && skipFolders.has(child.name)) continue;
      if (rules?.ignores(path, child.type === "directory")) continue;
      const depth = folder.depth + 1;
      const relative = start === "" ? path : path.slice(start.length + 1);
      if (depth <= maxDepth) entries.push({ path, relative, type: child.type, depth });
      if (child.type === "directory" && depth < maxDepth && !opaqueFolders.has(child.name))
        subfolders.push({ path, depth });
    }
    if (entries.length > 0) yield entries;
    // Depth-first pops from the end, so push in reverse to keep name order.
    if (options.breadthFirst) pending.push(...subfolders);
    else pending.push(...subfolders.reverse());
  }
}

/** .gitignore rules as git applies them: each file's patterns are relative to its own folder. */
export class GitignoreRules {
  private readonly sandbox: Sandbox;
  private readonly scopes: { base: string; rules: Ignore }[] = [];

  private constructor(sandbox: Sandbox) {
    this.sandbox = sandbox;
  }

  /** Loads .git/info/exclude and every .gitignore from the root down to `start`. */
  static async load(sandbox: Sandbox, start = ""): Promise<GitignoreRules> {
    const rules = new GitignoreRules(sandbox);
    if (await listed(sandbox, ".git/info/exclude")) {
      const exclude = await readText(sandbox, `${sandbox.workspaceRoot}/.git/info/exclude`);
      if (exclude) rules.scopes.push({ base: "", rules: ignore().add(exclude) });
    }
    let prefix = "";
    for (const segment of ["", ...start.split("/").filter(Boolean)]) {
      prefix = prefix === "" ? segment : `${prefix}/${segment}`;
      if (await listed(sandbox, prefix === "" ? ".gitignore" : `${prefix}/.gitignore`))
        await rules.enter(prefix);
    }
    return rules;
  }

  /** Adds the .gitignore of a folder the walk is entering, if there is one. */
  async enter(folder: string): Promise<void> {
    const file = folder === "" ? ".gitignore" : `${folder}/.gitignore`;
    const text = await readText(this.sandbox, `${this.sandbox.workspaceRoot}/${file}`);
    if (text) this.scopes.push({ base: folder, rules: ignore().add(text) });
  }

  ignores(path: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const scope of this.scopes) {
      if (scope.base !== "" && !path.startsWith(`${scope.base}/`)) continue;
      const relative = scope.base === "" ? path : path.slice(scope.base.length + 1);
      const result = scope.rules.test(isDirectory ? `${relative}/` : relative);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }
}

/**
 * Whether each folder on the way lists the next name: a missing file is found out by listings, not
 * by a failed read (whose thrown error costs more than the listing).
 */
async function listed(sandbox: Sandbox, path: string): Promise<boolean> {
  let folder = sandbox.workspaceRoot;
  for (const name of path.split("/")) {
    const entries = await sandbox.readdir(folder).catch(() => []);
    if (!entries.some((entry) => entry.name === name)) return false;
    folder = `${folder}/${name}`;
  }
  return true;
}

async function readText(sandbox: Sandbox, path: string): Promise<string | null> {
  try {
    return new TextDecoder().decode(await sandbox.readFile(path));
  } catch {
    return null;
  }
}

/** Resolves a folder param and checks it is one; the shared start of every listing and search. */
export async function resolveFolder(context: ToolContext, input: unknown, param = "path"): Promise<string> {
  const folder = await context.resolve(input, { param });
  const stat = await context.sandbox.stat(folder.absolute).catch(() => null);
  if (!stat)
    throw new ToolFailure("file_not_found", `${param} "${String(input)}" does not exist.`, { path: input });
  if (stat.type !== "directory") {
    throw new ToolFailure("not_a_directory", `${param} "${String(input)}" is a file, not a folder.`, {
      path: input,
    });
  }
  return folder.relative;
}
