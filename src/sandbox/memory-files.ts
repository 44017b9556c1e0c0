import {
  type DirEntry,
  type ExecResult,
  type FileStat,
  type PtySession,
  type Sandbox,
  SandboxError,
  type SnapshotEntry,
  type WorkspaceSnapshot,
} from "./types.ts";

/** What the files say about a path: an entry, nothing there, or "not for these files to judge". */
type Lookup = { entry: SnapshotEntry | "root" } | "missing" | "unknown";

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * A workspace's files in plain memory, answering as the embedded sandbox (just-bash's filesystem)
 * answers, for what they answer: plain, normalized paths inside the workspace with no symlink on
 * the way (a final one is answered by lstat and readlink, not followed). Anything else (a symlink to follow, a path outside the workspace, a path just-bash would
 * rewrite) gets `undefined`: the caller asks the real backend.
 */
export class MemoryFiles {
  private readonly entries = new Map<string, SnapshotEntry>();
  private readonly children = new Map<string, Set<string>>([["", new Set()]]);
  /** Folders get the time they were made, as the backend's mkdir gives them. */
  private readonly madeAt = Date.now();

  constructor(
    readonly root: string,
    entries: SnapshotEntry[] = [],
  ) {
    for (const entry of entries) this.put(entry);
  }

  private put(entry: SnapshotEntry): void {
    const slash = entry.path.lastIndexOf("/");
    const parent = slash === -1 ? "" : entry.path.slice(0, slash);
    if (!this.children.has(parent)) this.children.set(parent, new Set());
    this.children.get(parent)!.add(entry.path.slice(slash + 1));
    this.entries.set(entry.path, entry);
    if (entry.type === "directory" && !this.children.has(entry.path))
      this.children.set(entry.path, new Set());
  }

  /** As lookup, but a final symlink is itself the answer (lstat, readlink). */
  lookupLink(path: string): Lookup {
    const found = this.lookup(path);
    if (found !== "unknown" || path === this.root || !path.startsWith(`${this.root}/`) || !isPlain(path))
      return found;
    const relative = path.slice(this.root.length + 1);
    const entry = this.entries.get(relative);
    const slash = relative.lastIndexOf("/");
    const parent =
      slash === -1 ? { entry: "root" as const } : this.lookup(`${this.root}/${relative.slice(0, slash)}`);
    const inFolder =
      typeof parent !== "string" && (parent.entry === "root" || parent.entry.type === "directory");
    return entry?.type === "symlink" && inFolder ? { entry } : "unknown";
  }

  lookup(path: string): Lookup {
    if (path === this.root) return { entry: "root" };
    if (!path.startsWith(`${this.root}/`) || !isPlain(path)) return "unknown";
    const relative = path.slice(this.root.length + 1);
    let at = relative.indexOf("/");
    // Every folder on the way must be a folder here: a symlink or a file on it is the backend's to judge.
    while (at !== -1) {
      const parent = this.entries.get(relative.slice(0, at));
      if (parent === undefined) return "missing";
      if (parent.type !== "directory") return "unknown";
      at = relative.indexOf("/", at + 1);
    }
    const entry = this.entries.get(relative);
    if (entry === undefined) return "missing";
    return entry.type === "symlink" ? "unknown" : { entry };
  }

  stat(path: string): FileStat | undefined {
    const found = this.lookup(path);
    if (found === "unknown") return undefined;
    if (found === "missing") throw new SandboxError("ENOENT", path);
    const { entry } = found;
    if (entry === "root" || entry.type === "directory")
      return { type: "directory", size: 0, mtimeMs: this.madeAt, mode: 0o755 };
    if (entry.type !== "file") return undefined;
    return {
      type: "file",
      size: entry.data.length,
      mtimeMs: entry.mtimeMs ?? this.madeAt,
      mode: (entry.mode ?? 0o644) & 0o7777,
    };
  }

  /** stat without following a final symlink: a link is its own entry (size: its target's length). */
  lstat(path: string): FileStat | undefined {
    const found = this.lookupLink(path);
    if (typeof found !== "string" && found.entry !== "root" && found.entry.type === "symlink")
      return { type: "symlink", size: bytes(found.entry.target), mtimeMs: this.madeAt, mode: 0o777 };
    return this.stat(path);
  }

  readlink(path: string): string | undefined {
    const found = this.lookupLink(path);
    if (typeof found !== "string" && found.entry !== "root" && found.entry.type === "symlink")
      return found.entry.target;
    return undefined;
  }

  readFile(path: string): Uint8Array | undefined {
    const found = this.lookup(path);
    if (found === "unknown") return undefined;
    if (found === "missing") throw new SandboxError("ENOENT", path);
    if (found.entry === "root" || found.entry.type === "directory") throw new SandboxError("EISDIR", path);
    return found.entry.type === "file" ? found.entry.data.slice() : undefined;
  }

  readdir(path: string): DirEntry[] | undefined {
    const found = this.lookup(path);
    if (found === "unknown") return undefined;
    if (found === "missing") throw new SandboxError("ENOENT", path);
    if (found.entry !== "root" && found.entry.type !== "directory") return undefined;
    const relative = found.entry === "root" ? "" : found.entry.path;
    return [...(this.children.get(relative) ?? [])].sort(byName).map((name) => ({
      name,
      type: this.entries.get(relative === "" ? name : `${relative}/${name}`)!.type,
    }));
  }

  /** Creates or replaces a file whose folder exists; false when that is not a plain case here. */
  writeFile(path: string, data: Uint8Array | string): boolean {
    const found = this.lookup(path);
    if (found === "unknown") return false;
    // A new file gets the backend's 0644; a replaced one keeps its mode.
    let mode = 0o644;
    if (found !== "missing") {
      if (found.entry === "root" || found.entry.type !== "file") return false;
      mode = found.entry.mode ?? mode;
    } else {
      const up = this.lookup(path.slice(0, path.lastIndexOf("/")));
      if (typeof up === "string" || (up.entry !== "root" && up.entry.type !== "directory")) return false;
    }
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data.slice();
    this.put({
      path: path.slice(this.root.length + 1),
      type: "file",
      data: bytes,
      mode,
      mtimeMs: Date.now(),
    });
    return true;
  }

  /** Makes a folder and its missing parents; false when something other than a folder is in the way. */
  mkdirs(path: string): boolean {
    if (path === this.root) return true;
    const found = this.lookup(path);
    if (found === "unknown") return false;
    if (found !== "missing") return found.entry !== "root" && found.entry.type === "directory";
    const relative = path.slice(this.root.length + 1);
    const slash = relative.lastIndexOf("/");
    if (slash !== -1 && !this.mkdirs(`${this.root}/${relative.slice(0, slash)}`)) return false;
    this.put({ path: relative, type: "directory" });
    return true;
  }

  /** Every entry, parents before children, in name order (as a backend's snapshot walks). */
  snapshot(): WorkspaceSnapshot {
    const out: SnapshotEntry[] = [];
    const walk = (folder: string) => {
      for (const name of [...(this.children.get(folder) ?? [])].sort(byName)) {
        const path = folder === "" ? name : `${folder}/${name}`;
        const entry = this.entries.get(path)!;
        // As the backend's snapshot: every file with its mode and time.
        out.push(
          entry.type === "file"
            ? { ...entry, mode: entry.mode ?? 0o644, mtimeMs: entry.mtimeMs ?? this.madeAt }
            : entry,
        );
        if (entry.type === "directory") walk(path);
      }
    };
    walk("");
    return { entries: out };
  }
}

/** An absolute path the backend would not rewrite: no ".", "..", empty segment, trailing slash or NUL. */
function isPlain(path: string): boolean {
  return !/\/\/|\/\.\.?(?:\/|$)|\/$|\0/u.test(path);
}

/**
 * A sandbox over MemoryFiles for work that only reads and writes plain files (making a new
 * workspace a git repository), without loading a shell. What it cannot do the way the embedded
 * sandbox does, it refuses loudly rather than answer differently.
 */
export function memorySandbox(root: string, entries: SnapshotEntry[]): Sandbox & { files: MemoryFiles } {
  const files = new MemoryFiles(root, entries);
  const refuse = (operation: string, path = root): never => {
    throw new SandboxError("EIO", path, `EIO: ${path}: ${operation} is not supported in plain memory`);
  };
  const answered = <T>(value: T | undefined, operation: string, path: string): T =>
    value === undefined ? refuse(operation, path) : value;
  return {
    files,
    kind: "embedded",
    workspaceRoot: root,
    capabilities: { nativeBinaries: false, network: false, commands: [] },
    readFile: async (path) => answered(files.readFile(path), "readFile", path),
    readdir: async (path) => answered(files.readdir(path), "readdir", path),
    stat: async (path) => answered(files.stat(path), "stat", path),
    lstat: async (path) => answered(files.lstat(path), "lstat", path),
    readlink: async (path) => answered(files.readlink(path), "readlink", path),
    writeFile: async (path, data) => {
      if (!files.writeFile(path, data)) refuse("writeFile", path);
    },
    mkdir: async (path, options) => {
      const found = files.lookup(path);
      if (found === "unknown") refuse("mkdir", path);
      if (found !== "missing") {
        if (options?.recursive && files.stat(path)?.type === "directory") return;
        throw new SandboxError("EEXIST", path);
      }
      if (!options?.recursive || !files.mkdirs(path)) refuse("mkdir", path);
    },
    rm: async (path) => refuse("rm", path),
    rename: async (from) => refuse("rename", from),
    symlink: async (_target, path) => refuse("symlink", path),
    exec: async (): Promise<ExecResult> => refuse("exec"),
    pty: async (): Promise<PtySession> => refuse("pty"),
    snapshot: async () => files.snapshot(),
    restore: async () => refuse("restore"),
    dispose: async () => undefined,
  };
}
