import type { ToolContext } from "../core/profile.ts";
import type { EntryType } from "../sandbox/types.ts";
import { walkWorkspace } from "./walk.ts";

export interface TreeEntry {
  /** Relative to the workspace root. */
  path: string;
  /** Relative to the listed folder. */
  relative: string;
  name: string;
  type: EntryType;
  /** 1 for the listed folder's own entries. */
  depth: number;
}

export interface ListTreeOptions {
  /** Deepest level listed; 1 = the folder's own entries. */
  maxDepth: number;
  /** "breadth": level by level (list_dir BFS); "tree": each folder followed by its contents. */
  order: "breadth" | "tree";
  /** Within a folder, sub-folders before files (each group by name); otherwise all by name. */
  directoriesFirst?: boolean;
  /** Folder names listed but not entered; default [".git"]. */
  opaqueFolders?: readonly string[];
}

/**
 * Everything under a workspace folder down to a depth, hidden entries included and symlinks
 * listed (never followed), in breadth-first or tree order: the one builder behind the dialects'
 * directory listings. `root` is a workspace-relative folder already checked by resolveFolder.
 */
export async function listTree(
  context: ToolContext,
  root: string,
  options: ListTreeOptions,
): Promise<TreeEntry[]> {
  const children = new Map<string, TreeEntry[]>();
  for await (const entry of walkWorkspace(context.sandbox, root, {
    maxDepth: options.maxDepth,
    skipFolders: [],
    opaqueFolders: options.opaqueFolders ?? [".git"],
    breadthFirst: true,
    signal: context.signal,
  })) {
    const parent = entry.relative.includes("/")
      ? entry.relative.slice(0, entry.relative.lastIndexOf("/"))
      : "";
    const name = entry.relative.slice(entry.relative.lastIndexOf("/") + 1);
    const list = children.get(parent) ?? [];
    list.push({ path: entry.path, relative: entry.relative, name, type: entry.type, depth: entry.depth });
    children.set(parent, list);
  }
  const compare = (a: TreeEntry, b: TreeEntry) => {
    if (options.directoriesFirst && (a.type === "directory") !== (b.type === "directory")) {
      return a.type === "directory" ? -1 : 1;
    }
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  };
  for (const list of children.values()) list.sort(compare);

  const out: TreeEntry[] = [];
  if (options.order === "tree") {
    const visit = (folder: string) => {
      for (const entry of children.get(folder) ?? []) {
        out.push(entry);
        if (entry.type === "directory") visit(entry.relative);
      }
    };
    visit("");
  } else {
    const queue = [""];
    while (queue.length > 0) {
      for (const entry of children.get(queue.shift()!) ?? []) {
        out.push(entry);
        if (entry.type === "directory") queue.push(entry.relative);
      }
    }
  }
  return out;
}
