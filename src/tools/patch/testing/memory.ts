/**
 * Test doubles for the patch engine: a PatchSource over a Map of file texts, and a small in-memory
 * Sandbox (files, folders, symlinks) that can be told to fail a write, so commitPatch's rollback
 * can be exercised.
 */
import { normalizeWorkspacePath, type WorkspacePath } from "../../../core/workspace-path.ts";
import {
  type DirEntry,
  type EntryType,
  type ExecResult,
  type FileStat,
  type PtySession,
  type Sandbox,
  SandboxError,
  type WorkspaceSnapshot,
} from "../../../sandbox/types.ts";
import type { PatchSource, PlannedFile } from "../types.ts";

export const ROOT = "/workspace";

/** A PatchSource over workspace-relative paths → text (or raw bytes); paths are checked lexically. */
export function mapSource(files: ReadonlyMap<string, string | Uint8Array>): PatchSource {
  return {
    async resolve(path) {
      const relative = normalizeWorkspacePath(path, ROOT);
      return { relative, absolute: relative === "" ? ROOT : `${ROOT}/${relative}` };
    },
    async read(path: WorkspacePath) {
      const content = files.get(path.relative);
      if (content === undefined) return null;
      return typeof content === "string" ? new TextEncoder().encode(content) : content;
    },
  };
}

/** The files after a plan, as a plain object: what a commit would leave in the workspace. */
export function applyPlanToMap(
  files: ReadonlyMap<string, string | Uint8Array>,
  planned: readonly PlannedFile[],
): Record<string, string> {
  const out = new Map<string, string | Uint8Array>(files);
  for (const file of planned) {
    if (file.after === null) out.delete(file.path);
    else out.set(file.path, file.after);
  }
  const result: Record<string, string> = {};
  for (const [path, content] of [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    result[path] = typeof content === "string" ? content : `<${content.length} bytes>`;
  }
  return result;
}

type Node =
  | { type: "file"; data: Uint8Array; mode: number }
  | { type: "directory"; mode: number }
  | { type: "symlink"; target: string };

/** An in-memory Sandbox with just enough of the fs to test planning and committing patches. */
export class MemorySandbox implements Sandbox {
  readonly kind = "embedded" as const;
  readonly workspaceRoot = ROOT;
  readonly capabilities = { nativeBinaries: false, network: false, commands: [] };
  private readonly nodes = new Map<string, Node>();
  /** Absolute paths whose next write fails with EIO. */
  readonly failWrites = new Set<string>();
  /** Every mutating call, in order, for tests that check what was (not) done. */
  readonly log: string[] = [];

  constructor(files: Record<string, string> = {}) {
    this.nodes.set("/", { type: "directory", mode: 0o755 });
    this.nodes.set(ROOT, { type: "directory", mode: 0o755 });
    for (const [path, text] of Object.entries(files)) this.put(`${ROOT}/${path}`, text);
  }

  /** Writes a file, creating its folders: test setup, not logged. */
  put(path: string, content: string | Uint8Array): void {
    const parts = path.split("/").filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const folder = `/${parts.slice(0, i).join("/")}`;
      if (!this.nodes.has(folder)) this.nodes.set(folder, { type: "directory", mode: 0o755 });
    }
    const data = typeof content === "string" ? new TextEncoder().encode(content) : content;
    this.nodes.set(path, { type: "file", data, mode: 0o644 });
  }

  /** Workspace files as relative path → text, sorted: what tests compare. */
  files(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [path, node] of [...this.nodes.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (node.type === "file" && path.startsWith(`${ROOT}/`)) {
        out[path.slice(ROOT.length + 1)] = new TextDecoder("utf-8", { ignoreBOM: true }).decode(node.data);
      }
    }
    return out;
  }

  /** Workspace folders, relative and sorted. */
  folders(): string[] {
    return [...this.nodes.entries()]
      .filter(([path, node]) => node.type === "directory" && path.startsWith(`${ROOT}/`))
      .map(([path]) => path.slice(ROOT.length + 1))
      .sort();
  }

  private resolve(path: string, followLast: boolean, depth = 0): string {
    if (depth > 16) throw new SandboxError("ELOOP", path);
    const parts = path.split("/").filter(Boolean);
    let current = "";
    for (let i = 0; i < parts.length; i++) {
      current = `${current}/${parts[i]}`;
      const node = this.nodes.get(current);
      const last = i === parts.length - 1;
      if (node?.type === "symlink" && (!last || followLast)) {
        const target = node.target.startsWith("/")
          ? node.target
          : `${current.slice(0, current.lastIndexOf("/"))}/${node.target}`;
        return this.resolve([target, ...parts.slice(i + 1)].join("/"), followLast, depth + 1);
      }
      if (!last && node && node.type !== "directory") throw new SandboxError("ENOTDIR", path);
    }
    return current || "/";
  }

  private parentMustExist(path: string): void {
    const parent = path.slice(0, path.lastIndexOf("/")) || "/";
    const node = this.nodes.get(parent);
    if (!node) throw new SandboxError("ENOENT", path);
    if (node.type !== "directory") throw new SandboxError("ENOTDIR", path);
  }

  async readFile(path: string): Promise<Uint8Array> {
    const node = this.nodes.get(this.resolve(path, true));
    if (!node) throw new SandboxError("ENOENT", path);
    if (node.type !== "file") throw new SandboxError("EISDIR", path);
    return node.data.slice();
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const real = this.resolve(path, true);
    this.log.push(`write ${real}`);
    if (this.failWrites.has(real))
      throw new SandboxError("EIO", real, `EIO: injected failure writing ${real}`);
    this.parentMustExist(real);
    if (this.nodes.get(real)?.type === "directory") throw new SandboxError("EISDIR", real);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data.slice();
    this.nodes.set(real, { type: "file", data: bytes, mode: 0o644 });
  }

  async readdir(path: string): Promise<DirEntry[]> {
    const real = this.resolve(path, true);
    const node = this.nodes.get(real);
    if (!node) throw new SandboxError("ENOENT", path);
    if (node.type !== "directory") throw new SandboxError("ENOTDIR", path);
    const prefix = real === "/" ? "/" : `${real}/`;
    return [...this.nodes.entries()]
      .filter(
        ([child]) => child.startsWith(prefix) && !child.slice(prefix.length).includes("/") && child !== real,
      )
      .map(([child, entry]) => ({ name: child.slice(prefix.length), type: entry.type }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  private statOf(real: string, path: string): FileStat {
    const node = this.nodes.get(real);
    if (!node) throw new SandboxError("ENOENT", path);
    const size = node.type === "file" ? node.data.length : 0;
    const mode = node.type === "symlink" ? 0o777 : node.mode;
    return { type: node.type as EntryType, size, mtimeMs: 0, mode };
  }

  async stat(path: string): Promise<FileStat> {
    return this.statOf(this.resolve(path, true), path);
  }

  async lstat(path: string): Promise<FileStat> {
    return this.statOf(this.resolve(path, false), path);
  }

  async readlink(path: string): Promise<string> {
    const node = this.nodes.get(this.resolve(path, false));
    if (node?.type !== "symlink") throw new SandboxError("EINVAL", path);
    return node.target;
  }

  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    this.log.push(`mkdir ${path}`);
    if (options.recursive) {
      const parts = path.split("/").filter(Boolean);
      for (let i = 1; i <= parts.length; i++) {
        const folder = `/${parts.slice(0, i).join("/")}`;
        const node = this.nodes.get(folder);
        if (node && node.type !== "directory") throw new SandboxError("ENOTDIR", path);
        if (!node) this.nodes.set(folder, { type: "directory", mode: 0o755 });
      }
      return;
    }
    if (this.nodes.has(path)) throw new SandboxError("EEXIST", path);
    this.parentMustExist(path);
    this.nodes.set(path, { type: "directory", mode: 0o755 });
  }

  async rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    this.log.push(`rm ${path}`);
    const real = this.resolve(path, false);
    const node = this.nodes.get(real);
    if (!node) {
      if (options.force) return;
      throw new SandboxError("ENOENT", path);
    }
    if (node.type === "directory") {
      if (!options.recursive) throw new SandboxError("EISDIR", path);
      for (const child of [...this.nodes.keys()]) if (child.startsWith(`${real}/`)) this.nodes.delete(child);
    }
    this.nodes.delete(real);
  }

  async rename(from: string, to: string): Promise<void> {
    this.log.push(`rename ${from} ${to}`);
    const node = this.nodes.get(from);
    if (!node) throw new SandboxError("ENOENT", from);
    this.parentMustExist(to);
    this.nodes.delete(from);
    this.nodes.set(to, node);
  }

  async symlink(target: string, path: string): Promise<void> {
    this.parentMustExist(path);
    this.nodes.set(path, { type: "symlink", target });
  }

  async exec(): Promise<ExecResult> {
    throw new SandboxError("EINVAL", "exec", "MemorySandbox runs no commands");
  }

  async pty(): Promise<PtySession> {
    throw new SandboxError("EINVAL", "pty", "MemorySandbox runs no commands");
  }

  async snapshot(): Promise<WorkspaceSnapshot> {
    return {
      entries: [...this.nodes.entries()]
        .filter(([path]) => path.startsWith(`${ROOT}/`))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([path, node]) => {
          const relative = path.slice(ROOT.length + 1);
          if (node.type === "file") return { path: relative, type: "file" as const, data: node.data.slice() };
          if (node.type === "symlink")
            return { path: relative, type: "symlink" as const, target: node.target };
          return { path: relative, type: "directory" as const };
        }),
    };
  }

  async restore(snapshot: WorkspaceSnapshot): Promise<void> {
    for (const path of [...this.nodes.keys()]) if (path.startsWith(`${ROOT}/`)) this.nodes.delete(path);
    for (const entry of snapshot.entries) {
      const path = `${ROOT}/${entry.path}`;
      if (entry.type === "file")
        this.nodes.set(path, { type: "file", data: entry.data.slice(), mode: 0o644 });
      else if (entry.type === "symlink") this.nodes.set(path, { type: "symlink", target: entry.target });
      else this.nodes.set(path, { type: "directory", mode: 0o755 });
    }
  }

  async dispose(): Promise<void> {}
}
