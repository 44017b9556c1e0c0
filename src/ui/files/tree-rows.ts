import type { EntryType } from "../../sandbox/types.ts";

export interface TreeRow {
  path: string;
  name: string;
  depth: number;
  type: EntryType;
  expanded: boolean;
}

/** Each folder's children, folders first then by name; missing parent folders are implied. */
export type TreeIndex = Map<string, { path: string; type: EntryType }[]>;

export function indexTree(files: ReadonlyMap<string, EntryType>): TreeIndex {
  const types = new Map<string, EntryType>(files);
  for (const path of files.keys()) {
    for (let slash = path.lastIndexOf("/"); slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
      const parent = path.slice(0, slash);
      if (types.get(parent) === "directory") break;
      types.set(parent, "directory");
    }
  }
  const index: TreeIndex = new Map();
  for (const [path, type] of types) {
    const slash = path.lastIndexOf("/");
    const parent = slash < 0 ? "" : path.slice(0, slash);
    const children = index.get(parent);
    if (children) children.push({ path, type });
    else index.set(parent, [{ path, type }]);
  }
  for (const children of index.values()) {
    children.sort((a, b) => {
      if ((a.type === "directory") !== (b.type === "directory")) return a.type === "directory" ? -1 : 1;
      return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
    });
  }
  return index;
}

/** The rows a person sees: every entry whose folders are all expanded, in tree order. */
export function visibleRows(index: TreeIndex, expanded: ReadonlySet<string>): TreeRow[] {
  const rows: TreeRow[] = [];
  const visit = (parent: string, depth: number): void => {
    for (const child of index.get(parent) ?? []) {
      const open = child.type === "directory" && expanded.has(child.path);
      rows.push({
        path: child.path,
        name: child.path.slice(child.path.lastIndexOf("/") + 1),
        depth,
        type: child.type,
        expanded: open,
      });
      if (open) visit(child.path, depth + 1);
    }
  };
  visit("", 0);
  return rows;
}

/** The folders to open so that `path` is visible. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let slash = path.indexOf("/"); slash > 0; slash = path.indexOf("/", slash + 1))
    out.push(path.slice(0, slash));
  return out;
}
