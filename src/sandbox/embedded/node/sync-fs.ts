import type { IFileSystem } from "just-bash";

/** One node of the mirror. */
export type SyncEntry =
  /** `data` is null until the file's content is loaded (see SyncFs.load). */
  | { kind: "file"; data: Uint8Array | null; size: number; mode: number; mtimeMs: number }
  | { kind: "directory"; mode: number; mtimeMs: number; children: Set<string> }
  | { kind: "symlink"; target: string; mode: number; mtimeMs: number };

/** A Node-style filesystem error: `code`, `errno`, `syscall` and `path`, message `CODE: text, syscall 'path'`. */
export class FsError extends Error {
  constructor(
    readonly code: string,
    readonly syscall: string,
    readonly path: string,
    readonly dest?: string,
  ) {
    super(
      `${code}: ${ERROR_TEXT[code] ?? "error"}, ${syscall} '${path}'${dest !== undefined ? ` -> '${dest}'` : ""}`,
    );
  }

  get errno(): number {
    return -(ERRNO[this.code] ?? 1);
  }
}

const ERROR_TEXT: Record<string, string> = {
  ENOENT: "no such file or directory",
  EEXIST: "file already exists",
  ENOTDIR: "not a directory",
  EISDIR: "illegal operation on a directory",
  ENOTEMPTY: "directory not empty",
  ELOOP: "too many symbolic links encountered",
  EINVAL: "invalid argument",
};
/** A file whose content the mirror did not load: the program is re-run with it loaded. */
export class ContentMissing extends Error {
  constructor(readonly path: string) {
    super(`embedded node: ${path} was not loaded`);
  }
}

const ERRNO: Record<string, number> = {
  ENOENT: 2,
  EEXIST: 17,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  ENOTEMPTY: 39,
  ELOOP: 40,
};

/** Normalizes an absolute path: no `.`/`..` segments, no doubled or trailing slashes. */
export function normalizePath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}`;
}

function parentOf(path: string): string {
  const index = path.lastIndexOf("/");
  return index <= 0 ? "/" : path.slice(0, index);
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

type Pending = (fs: IFileSystem) => Promise<void>;

/** Which files are read up front: the ones a program loads as code or configuration. */
export function isCodeFile(path: string): boolean {
  return /\.(?:[cm]?js|json|node)$/u.test(path);
}

/**
 * A synchronous mirror of part of a just-bash filesystem. Code inside QuickJS calls `fs.readFileSync`
 * and `require`, which cannot await the shell's asynchronous filesystem, so the tree under the
 * folders a command may use is read up front: every folder and name, and the content of the files
 * `eager` picks (code and JSON by default). Reading any other file's content throws ContentMissing;
 * the host then loads it and runs the program again. Writes change the mirror at once and are
 * queued, in order, for `flush()`, which the host runs when the program ends.
 */
export class SyncFs {
  private readonly entries = new Map<string, SyncEntry>();
  private queue: Pending[] = [];

  private constructor(private readonly now: () => number) {}

  /** Reads the tree under `roots` (absolute folders; missing ones are skipped). */
  static async load(
    fs: IFileSystem,
    roots: string[],
    eager: (path: string) => boolean = isCodeFile,
    now: () => number = Date.now,
  ): Promise<SyncFs> {
    const mirror = new SyncFs(now);
    mirror.entries.set("/", { kind: "directory", mode: 0o755, mtimeMs: now(), children: new Set() });
    const unique = [...new Set(roots.map(normalizePath))].sort();
    const kept = unique.filter(
      (root) => !unique.some((other) => other !== root && root.startsWith(`${other}/`)),
    );
    await Promise.all(kept.map((root) => mirror.loadTree(fs, root, eager)));
    return mirror;
  }

  private async loadTree(fs: IFileSystem, root: string, eager: (path: string) => boolean): Promise<void> {
    let stat: Awaited<ReturnType<IFileSystem["lstat"]>>;
    try {
      stat = await fs.lstat(root);
    } catch {
      return;
    }
    // Ancestors exist in the mirror so that lookups below them resolve.
    let prefix = "";
    for (const segment of parentOf(root).split("/").filter(Boolean)) {
      const parent = prefix || "/";
      prefix += `/${segment}`;
      if (!this.entries.has(prefix)) {
        this.entries.set(prefix, {
          kind: "directory",
          mode: 0o755,
          mtimeMs: this.now(),
          children: new Set(),
        });
        this.dir(parent)?.children.add(segment);
      }
    }
    if (root !== "/") this.dir(parentOf(root))?.children.add(baseOf(root));
    const kind = stat.isSymbolicLink ? "symlink" : stat.isDirectory ? "directory" : "file";
    // getAllPaths is one cheap synchronous call; listing folder by folder scans the whole store each time.
    const below =
      kind === "directory"
        ? fs.getAllPaths().filter((path) => path.startsWith(`${root === "/" ? "" : root}/`))
        : [];
    if (kind === "directory" && below.length === 0 && (await fs.readdir(root)).length > 0) {
      await this.loadEntry(fs, root, kind, eager);
      return;
    }
    await this.addEntry(fs, root, stat, eager);
    for (const path of below.sort()) {
      let entry: Awaited<ReturnType<IFileSystem["lstat"]>>;
      try {
        entry = await fs.lstat(path);
      } catch {
        continue;
      }
      const parent = this.dir(parentOf(path));
      if (!parent) continue;
      await this.addEntry(fs, path, entry, eager);
      parent.children.add(baseOf(path));
    }
  }

  private async addEntry(
    fs: IFileSystem,
    path: string,
    stat: Awaited<ReturnType<IFileSystem["lstat"]>>,
    eager: (path: string) => boolean,
  ): Promise<void> {
    const mtimeMs = stat.mtime.getTime();
    if (stat.isSymbolicLink) {
      this.entries.set(path, { kind: "symlink", target: await fs.readlink(path), mode: stat.mode, mtimeMs });
    } else if (stat.isDirectory) {
      const existing = this.dir(path);
      this.entries.set(path, {
        kind: "directory",
        mode: stat.mode,
        mtimeMs,
        children: existing?.children ?? new Set(),
      });
    } else {
      const data = eager(path) ? await fs.readFileBuffer(path) : null;
      this.entries.set(path, {
        kind: "file",
        data,
        size: data?.byteLength ?? stat.size,
        mode: stat.mode,
        mtimeMs,
      });
    }
  }

  private async loadEntry(
    fs: IFileSystem,
    path: string,
    kind: SyncEntry["kind"],
    eager: (path: string) => boolean,
  ): Promise<void> {
    if (kind === "symlink") {
      this.entries.set(path, {
        kind: "symlink",
        target: await fs.readlink(path),
        mode: 0o777,
        mtimeMs: this.now(),
      });
    } else if (kind === "directory") {
      const children = new Set<string>();
      this.entries.set(path, { kind: "directory", mode: 0o755, mtimeMs: this.now(), children });
      const list = fs.readdirWithFileTypes
        ? await fs.readdirWithFileTypes(path)
        : await Promise.all(
            (await fs.readdir(path)).map(async (name) => {
              const stat = await fs.lstat(`${path === "/" ? "" : path}/${name}`);
              return {
                name,
                isFile: stat.isFile,
                isDirectory: stat.isDirectory,
                isSymbolicLink: stat.isSymbolicLink,
              };
            }),
          );
      await Promise.all(
        list.map(async (child) => {
          const childPath = path === "/" ? `/${child.name}` : `${path}/${child.name}`;
          const childKind = child.isSymbolicLink ? "symlink" : child.isDirectory ? "directory" : "file";
          try {
            await this.loadEntry(fs, childPath, childKind, eager);
            children.add(child.name);
          } catch {
            // Gone while we looked: leave it out.
          }
        }),
      );
    } else {
      const stat = await fs.lstat(path);
      await this.addEntry(fs, path, stat, eager);
    }
  }

  private async loadContent(fs: IFileSystem, path: string): Promise<void> {
    const [data, stat] = await Promise.all([fs.readFileBuffer(path), fs.lstat(path)]);
    this.entries.set(path, {
      kind: "file",
      data,
      size: data.byteLength,
      mode: stat.mode,
      mtimeMs: stat.mtime.getTime(),
    });
  }

  /** Loads the content of `paths` (real paths of files in the mirror) and of the files beside them. */
  async loadContents(fs: IFileSystem, paths: Iterable<string>): Promise<void> {
    const wanted = new Set<string>();
    for (const path of paths) {
      const dir = this.dir(parentOf(path));
      for (const name of dir?.children ?? [])
        wanted.add(`${parentOf(path) === "/" ? "" : parentOf(path)}/${name}`);
      wanted.add(path);
    }
    await Promise.all(
      [...wanted].map(async (path) => {
        const entry = this.entries.get(path);
        if (entry?.kind === "file" && entry.data === null) await this.loadContent(fs, path);
      }),
    );
  }

  /** The loaded content of a file entry, or ContentMissing. */
  private contentOf(real: string, entry: Extract<SyncEntry, { kind: "file" }>): Uint8Array {
    if (entry.data === null) throw new ContentMissing(real);
    return entry.data;
  }

  private dir(path: string): Extract<SyncEntry, { kind: "directory" }> | undefined {
    const entry = this.entries.get(path);
    return entry?.kind === "directory" ? entry : undefined;
  }

  /** Resolves symlinks on the way (and at the end when `followLast`); returns the real path. */
  resolve(path: string, followLast: boolean, syscall = "stat"): string {
    let pending = normalizePath(path).split("/").filter(Boolean);
    let current = "/";
    for (let hops = 0; pending.length > 0; ) {
      const segment = pending.shift()!;
      const next = current === "/" ? `/${segment}` : `${current}/${segment}`;
      const entry = this.entries.get(next);
      if (entry?.kind === "symlink" && (pending.length > 0 || followLast)) {
        if (++hops > 40) throw new FsError("ELOOP", syscall, path);
        const target = entry.target.startsWith("/") ? entry.target : `${current}/${entry.target}`;
        pending = [...normalizePath(target).split("/").filter(Boolean), ...pending];
        current = "/";
        continue;
      }
      if (pending.length > 0 && entry && entry.kind !== "directory")
        throw new FsError("ENOTDIR", syscall, path);
      current = next;
    }
    return current;
  }

  /** The entry at `path`, or null. */
  lookup(path: string, followLast = true): SyncEntry | null {
    try {
      return this.entries.get(this.resolve(path, followLast)) ?? null;
    } catch {
      return null;
    }
  }

  /** The entry at `path` with its real path and size (a file's content must be loaded for its size). */
  stat(path: string, followLast = true): SyncEntry & { path: string; size: number } {
    const syscall = followLast ? "stat" : "lstat";
    const real = this.resolve(path, followLast, syscall);
    const entry = this.entries.get(real);
    if (!entry) throw new FsError("ENOENT", syscall, path);
    const size = entry.kind === "file" ? entry.size : entry.kind === "symlink" ? entry.target.length : 4096;
    return { ...entry, path: real, size };
  }

  exists(path: string): boolean {
    return this.lookup(path) !== null;
  }

  readFile(path: string): Uint8Array {
    const real = this.resolve(path, true, "open");
    const entry = this.entries.get(real);
    if (!entry) throw new FsError("ENOENT", "open", path);
    if (entry.kind === "directory") throw new FsError("EISDIR", "read", path);
    if (entry.kind !== "file") throw new FsError("EINVAL", "read", path);
    return this.contentOf(real, entry);
  }

  /** Reads a file as UTF-8 text, or returns null when it is missing or not a file. */
  readText(path: string): string | null {
    const entry = this.lookup(path);
    return entry?.kind === "file" ? new TextDecoder().decode(this.readFile(path)) : null;
  }

  writeFile(path: string, data: Uint8Array, append = false): void {
    const real = this.resolve(path, true, "open");
    const parent = this.entries.get(parentOf(real));
    if (!parent) throw new FsError("ENOENT", "open", path);
    if (parent.kind !== "directory") throw new FsError("ENOTDIR", "open", path);
    const existing = this.entries.get(real);
    if (existing?.kind === "directory") throw new FsError("EISDIR", "open", path);
    let content = data;
    if (append && existing?.kind === "file") {
      const before = this.contentOf(real, existing);
      content = new Uint8Array(before.length + data.length);
      content.set(before);
      content.set(data, before.length);
    }
    const mode = existing?.kind === "file" ? existing.mode : 0o644;
    this.entries.set(real, {
      kind: "file",
      data: content,
      size: content.byteLength,
      mode,
      mtimeMs: this.now(),
    });
    parent.children.add(baseOf(real));
    const bytes = content;
    this.queue.push((fs) =>
      fs.writeFile(real, bytes).catch((error: unknown) => {
        throw new Error(`${real}: ${error instanceof Error ? error.message : String(error)}`);
      }),
    );
  }

  readdir(path: string): Array<{ name: string; kind: SyncEntry["kind"] }> {
    const real = this.resolve(path, true, "scandir");
    const entry = this.entries.get(real);
    if (!entry) throw new FsError("ENOENT", "scandir", path);
    if (entry.kind !== "directory") throw new FsError("ENOTDIR", "scandir", path);
    return [...entry.children].sort().flatMap((name) => {
      const child = this.entries.get(real === "/" ? `/${name}` : `${real}/${name}`);
      return child ? [{ name, kind: child.kind }] : [];
    });
  }

  /** Creates a folder; returns the first folder created when `recursive` (like Node), else undefined. */
  mkdir(path: string, recursive: boolean, mode = 0o755): string | undefined {
    const target = normalizePath(path);
    if (!recursive) {
      const real = this.resolve(target, false, "mkdir");
      if (this.entries.has(real)) throw new FsError("EEXIST", "mkdir", path);
      const parent = this.entries.get(this.resolve(parentOf(real), true, "mkdir"));
      if (!parent) throw new FsError("ENOENT", "mkdir", path);
      if (parent.kind !== "directory") throw new FsError("ENOTDIR", "mkdir", path);
      this.addDirectory(real, mode);
      return undefined;
    }
    let first: string | undefined;
    let prefix = "";
    for (const segment of target.split("/").filter(Boolean)) {
      prefix = this.resolve(`${prefix}/${segment}`, true, "mkdir");
      const entry = this.entries.get(prefix);
      if (entry && entry.kind !== "directory") throw new FsError(entry ? "EEXIST" : "ENOTDIR", "mkdir", path);
      if (!entry) {
        this.addDirectory(prefix, mode);
        first ??= prefix;
      }
    }
    return first;
  }

  private addDirectory(real: string, mode: number): void {
    this.entries.set(real, { kind: "directory", mode, mtimeMs: this.now(), children: new Set() });
    this.dir(parentOf(real))?.children.add(baseOf(real));
    this.queue.push((fs) => fs.mkdir(real, { recursive: true }));
  }

  rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): void {
    let real: string;
    try {
      real = this.resolve(path, false, "rm");
    } catch (error) {
      if (options.force) return;
      throw error;
    }
    const entry = this.entries.get(real);
    if (!entry) {
      if (options.force) return;
      throw new FsError("ENOENT", "rm", path);
    }
    if (entry.kind === "directory" && !options.recursive) {
      throw new FsError(entry.children.size > 0 ? "ENOTEMPTY" : "EISDIR", "rm", path);
    }
    this.removeTree(real);
    this.queue.push((fs) => fs.rm(real, { recursive: true, force: true }));
  }

  rmdir(path: string, recursive = false): void {
    const real = this.resolve(path, false, "rmdir");
    const entry = this.entries.get(real);
    if (!entry) throw new FsError("ENOENT", "rmdir", path);
    if (entry.kind !== "directory") throw new FsError("ENOTDIR", "rmdir", path);
    if (entry.children.size > 0 && !recursive) throw new FsError("ENOTEMPTY", "rmdir", path);
    this.removeTree(real);
    this.queue.push((fs) => fs.rm(real, { recursive: true, force: true }));
  }

  unlink(path: string): void {
    const real = this.resolve(path, false, "unlink");
    const entry = this.entries.get(real);
    if (!entry) throw new FsError("ENOENT", "unlink", path);
    if (entry.kind === "directory") throw new FsError("EISDIR", "unlink", path);
    this.removeTree(real);
    this.queue.push((fs) => fs.rm(real, { force: true }));
  }

  private removeTree(real: string): void {
    const entry = this.entries.get(real);
    if (entry?.kind === "directory") {
      for (const name of entry.children) this.removeTree(`${real === "/" ? "" : real}/${name}`);
    }
    this.entries.delete(real);
    this.dir(parentOf(real))?.children.delete(baseOf(real));
  }

  rename(from: string, to: string): void {
    const source = this.resolve(from, false, "rename");
    const entry = this.entries.get(source);
    if (!entry) throw new FsError("ENOENT", "rename", from, to);
    const target = this.resolve(to, false, "rename");
    const parent = this.entries.get(parentOf(target));
    if (parent?.kind !== "directory") throw new FsError("ENOENT", "rename", from, to);
    if (source === target) return;
    if (entry.kind === "directory" && target.startsWith(`${source}/`))
      throw new FsError("EINVAL", "rename", from, to);
    const existing = this.entries.get(target);
    if (existing?.kind === "directory") {
      if (entry.kind !== "directory") throw new FsError("EISDIR", "rename", from, to);
      if (existing.children.size > 0) throw new FsError("ENOTEMPTY", "rename", from, to);
    } else if (existing && entry.kind === "directory") {
      throw new FsError("ENOTDIR", "rename", from, to);
    }
    if (existing) this.removeTree(target);
    const moved: Array<[string, SyncEntry]> = [];
    for (const [path, value] of this.entries) {
      if (path === source || path.startsWith(`${source}/`)) moved.push([path, value]);
    }
    for (const [path] of moved) this.entries.delete(path);
    for (const [path, value] of moved) this.entries.set(target + path.slice(source.length), value);
    this.dir(parentOf(source))?.children.delete(baseOf(source));
    parent.children.add(baseOf(target));
    const replaced = existing !== undefined;
    this.queue.push(async (fs) => {
      if (replaced) await fs.rm(target, { recursive: true, force: true });
      await fs.mv(source, target);
    });
  }

  copyFile(from: string, to: string): void {
    this.writeFile(to, this.readFile(from).slice());
  }

  symlink(target: string, path: string): void {
    const real = normalizePath(path);
    const parent = this.dir(this.resolve(parentOf(real), true, "symlink"));
    if (!parent) throw new FsError("ENOENT", "symlink", target, path);
    if (this.entries.has(real)) throw new FsError("EEXIST", "symlink", target, path);
    this.entries.set(real, { kind: "symlink", target, mode: 0o777, mtimeMs: this.now() });
    parent.children.add(baseOf(real));
    this.queue.push((fs) => fs.symlink(target, real));
  }

  readlink(path: string): string {
    const entry = this.entries.get(this.resolve(path, false, "readlink"));
    if (!entry) throw new FsError("ENOENT", "readlink", path);
    if (entry.kind !== "symlink") throw new FsError("EINVAL", "readlink", path);
    return entry.target;
  }

  realpath(path: string): string {
    const real = this.resolve(path, true, "realpath");
    if (!this.entries.has(real)) throw new FsError("ENOENT", "realpath", path);
    return real;
  }

  chmod(path: string, mode: number): void {
    const real = this.resolve(path, true, "chmod");
    const entry = this.entries.get(real);
    if (!entry) throw new FsError("ENOENT", "chmod", path);
    entry.mode = (entry.mode & ~0o7777) | (mode & 0o7777);
    this.queue.push((fs) => fs.chmod(real, mode & 0o7777));
  }

  utimes(path: string, mtimeMs: number): void {
    const real = this.resolve(path, true, "utime");
    const entry = this.entries.get(real);
    if (!entry) throw new FsError("ENOENT", "utime", path);
    entry.mtimeMs = mtimeMs;
    this.queue.push((fs) => fs.utimes(real, new Date(mtimeMs), new Date(mtimeMs)));
  }

  /** Whether writes are waiting for `flush()`. */
  get dirty(): boolean {
    return this.queue.length > 0;
  }

  /** Applies the queued writes to the real filesystem, in the order they happened. */
  async flush(fs: IFileSystem): Promise<string[]> {
    const failures: string[] = [];
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      for (const apply of batch) {
        try {
          await apply(fs);
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
      }
    }
    return failures;
  }
}
