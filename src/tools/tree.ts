import type { ToolContext } from "../core/profile.ts";
import type { EntryType } from "../sandbox/types.ts";
import { GitignoreRules, resolveFolder } from "./walk.ts";

export interface TreeNode {
  name: string;
  type: EntryType;
  /** Workspace-relative ("." for the root). */
  path: string;
  children?: TreeNode[];
  size?: number;
}

export interface TreeOptions {
  path: unknown;
  /** Levels below the root that are listed; a folder at the last level has no `children`. */
  depth: number;
  includeHidden: boolean;
  includeFiles: boolean;
  /** Without folders, the files under them are listed directly under the nearest shown folder. */
  includeDirs: boolean;
  /** At most this many nodes below the root; the rest are counted in `omitted`. */
  maxNodes: number;
  gitignore?: boolean;
}

export interface Tree {
  tree: TreeNode;
  nodes: number;
  omitted: number;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A folder as nested JSON, folders and files in name order, .git and ignored entries left out. */
export async function buildTree(context: ToolContext, options: TreeOptions): Promise<Tree> {
  const start = await resolveFolder(context, options.path);
  const sandbox = context.sandbox;
  const rules = options.gitignore === false ? null : await GitignoreRules.load(sandbox, start);
  const root: TreeNode = {
    name: start === "" ? "." : start.slice(start.lastIndexOf("/") + 1),
    type: "directory",
    path: start === "" ? "." : start,
    children: [],
  };
  let nodes = 0;
  let omitted = 0;
  const add = (parent: TreeNode, node: TreeNode) => {
    if (nodes >= options.maxNodes) {
      omitted++;
      return false;
    }
    nodes++;
    parent.children!.push(node);
    return true;
  };
  const visit = async (folder: string, depth: number, parent: TreeNode): Promise<void> => {
    if (context.signal.aborted) return;
    if (rules && folder !== start) await rules.enter(folder);
    const absolute = folder === "" ? sandbox.workspaceRoot : `${sandbox.workspaceRoot}/${folder}`;
    const children = (await sandbox.readdir(absolute)).sort(byName);
    for (const child of children) {
      if (!options.includeHidden && child.name.startsWith(".")) continue;
      if (child.type === "directory" && child.name === ".git") continue;
      const path = folder === "" ? child.name : `${folder}/${child.name}`;
      if (rules?.ignores(path, child.type === "directory")) continue;
      if (child.type === "directory") {
        const deeper = depth + 1 < options.depth;
        if (options.includeDirs) {
          const node: TreeNode = { name: child.name, type: "directory", path };
          if (deeper) node.children = [];
          if (add(parent, node) && deeper) await visit(path, depth + 1, node);
        } else if (deeper) {
          await visit(path, depth + 1, parent);
        }
      } else if (options.includeFiles) {
        const node: TreeNode = { name: child.name, type: child.type, path };
        if (child.type === "file") node.size = (await sandbox.lstat(`${absolute}/${child.name}`)).size;
        add(parent, node);
      }
    }
  };
  if (options.depth > 0) await visit(start, 0, root);
  return { tree: root, nodes, omitted };
}
