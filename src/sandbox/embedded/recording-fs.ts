import { type CpOptions, InMemoryFs, type MkdirOptions, type RmOptions } from "just-bash";
import { collapsePath, parentOf } from "../paths.ts";
import { sameEntry } from "../snapshot.ts";
import type { SnapshotEntry, WorkspaceChange } from "../types.ts";
import {
  type EntryMap,
  type FolderEntry,
  type FolderSource,
  LazyFolder,
  lazyFile,
  type MemoryEntry,
} from "./lazy-folder.ts";

type FileContent = Parameters<InMemoryFs["writeFile"]>[1];
type WriteOptions = Parameters<InMemoryFs["writeFile"]>[2];
type Dirent = Awaited<ReturnType<InMemoryFs["readdirWithFileTypes"]>>[number];
type Entry = { type: "file" | "directory" | "symlink" };

/**
 * just-bash keeps every path of its filesystem in one Map and lists a folder by scanning all of
 * it; this Map also keeps each folder's children, so a listing costs the folder's size.
 */
class PathMap extends Map<string, Entry> {
  readonly children = new Map<string, Set<string>>();
  /** Bumped by every entry set (a write replaces the entry) or removed in the workspace folder. */
  changes = 0;
  /** The workspace folder, "/workspace/": each command's fresh shell rewrites /bin, /dev and the rest. */
  root = "/workspace/";

  private count(key: string): void {
    if (key.startsWith(this.root) || this.root.startsWith(`${key}/`)) this.changes++;
  }
  /** A folder read on demand: a path it has not listed yet is looked for there first. */
  lazy: LazyFolder | undefined;

  override get(key: string): Entry | undefined {
    const found = super.get(key);
    if (found !== undefined || this.lazy === undefined) return found;
    return this.lazy.load(this.view, (path) => this.get(path) as MemoryEntry | undefined, key)
      ? super.get(key)
      : undefined;
  }

  override has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The map as the lazy folder sees it: no loading on lookups. */
  readonly view: EntryMap = {
    peek: (path) => Map.prototype.get.call(this, path) as MemoryEntry | undefined,
    put: (path, entry) => {
      this.set(path, entry as Entry);
    },
    names: (path) => this.children.get(path) ?? [],
  };

  override set(key: string, value: Entry): this {
    this.count(key);
    if (!Map.prototype.has.call(this, key) && key !== "/") {
      const slash = key.lastIndexOf("/");
      const parent = slash <= 0 ? "/" : key.slice(0, slash);
      const names = this.children.get(parent) ?? new Set<string>();
      names.add(key.slice(slash + 1));
      this.children.set(parent, names);
    }
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    if (!super.delete(key)) return false;
    this.count(key);
    const slash = key.lastIndexOf("/");
    const parent = slash <= 0 ? "/" : key.slice(0, slash);
    const names = this.children.get(parent);
    names?.delete(key.slice(slash + 1));
    if (names?.size === 0) this.children.delete(parent);
    return true;
  }

  override clear(): void {
    this.changes++;
    super.clear();
    this.children.clear();
  }
}

/** An absolute path just-bash would not rewrite: no ".", "..", empty segment, trailing slash or NUL. */
function isNormalized(path: string): boolean {
  if (path === "/") return true;
  return (
    path.startsWith("/") &&
    !path.endsWith("/") &&
    !path.includes("//") &&
    !path.includes("/./") &&
    !path.includes("/../") &&
    !path.endsWith("/.") &&
    !path.endsWith("/..") &&
    !path.includes("\0")
  );
}

const textEncoder = new TextEncoder();

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * just-bash's in-memory filesystem, able to record what changes under one folder: before the
 * first change to a path, the path's subtree is saved; when the recording finishes, the saved
 * subtrees are compared with what is there now. A call that touches three files of a 10,000-file
 * workspace costs three reads, not two snapshots of everything.
 */
/** Where writes to a device path go: the content as just-bash hands it, with its encoding. */
export type DeviceSink = (content: FileContent, encoding: string | undefined) => void;

export class RecordingFs extends InMemoryFs {
  private root = "/workspace";
  /** Paths whose writes go to a listener instead of a file (a command's live output). */
  private readonly devices = new Map<string, DeviceSink>();
  private recording: Map<string, Map<string, SnapshotEntry>> | null = null;
  private readonly paths: PathMap;

  constructor(...options: ConstructorParameters<typeof InMemoryFs>) {
    super(...options);
    const self = this as unknown as { data: Map<string, Entry> };
    const paths = new PathMap();
    for (const [path, entry] of self.data) paths.set(path, entry);
    self.data = paths;
    this.paths = paths;
  }

  /** A folder's entries in name order, from the children index (just-bash's own scans every path). */
  override async readdirWithFileTypes(path: string): Promise<Dirent[]> {
    this.listLazily(path);
    const folder = isNormalized(path) ? this.paths.get(path) : undefined;
    if (folder?.type !== "directory") return super.readdirWithFileTypes(path);
    const prefix = path === "/" ? "/" : `${path}/`;
    return [...(this.paths.children.get(path) ?? [])].sort(byName).map((name) => {
      const type = this.paths.get(`${prefix}${name}`)!.type;
      return {
        name,
        isFile: type === "file",
        isDirectory: type === "directory",
        isSymbolicLink: type === "symlink",
      };
    });
  }

  /**
   * lstat (or stat, following a final symlink), or null when nothing is there. just-bash reports a
   * missing path by throwing, and building that Error costs more than the lookup: ask its own path
   * resolution first (the same one lstat and stat use) and look the result up.
   */
  async statIfExists(
    path: string,
    follow: boolean,
  ): Promise<Awaited<ReturnType<InMemoryFs["lstat"]>> | null> {
    const self = this as unknown as {
      resolveIntermediateSymlinks?(path: string): string;
      resolvePathWithSymlinks?(path: string): string;
    };
    const resolve = follow ? self.resolvePathWithSymlinks : self.resolveIntermediateSymlinks;
    if (typeof resolve === "function" && !path.includes("\0")) {
      let real: string;
      try {
        real = resolve.call(this, path);
      } catch {
        return null;
      }
      if (!this.paths.has(real)) return null;
    }
    try {
      return await (follow ? this.stat(path) : this.lstat(path));
    } catch {
      return null;
    }
  }

  /**
   * stat and readFileBuffer of many files (symlinks followed), null where either would fail; the
   * bytes are a copy. A stored file is answered from its entry: no call, check and thrown error per
   * path (a search's first pass over 2,000 files spent most of its time there).
   */
  async readFilesWithStats(
    paths: readonly string[],
  ): Promise<({ stat: Awaited<ReturnType<InMemoryFs["stat"]>>; data: Uint8Array } | null)[]> {
    const self = this as unknown as {
      resolvePathWithSymlinks(path: string): string;
      identityFor(entry: object): string;
    };
    const out: ({ stat: Awaited<ReturnType<InMemoryFs["stat"]>>; data: Uint8Array } | null)[] = [];
    // Each folder's symlinks are resolved once, not once per file in it.
    const folders = new Map<string, string | null>();
    const stored = (path: string) => Map.prototype.get.call(this.paths, path) as MemoryEntry | undefined;
    for (const path of paths) {
      let entry: MemoryEntry | undefined;
      const slash = path.lastIndexOf("/");
      const name = path.slice(slash + 1);
      if (slash >= 0 && name !== "" && name !== "." && name !== ".." && !name.includes("\0")) {
        const folder = slash === 0 ? "/" : path.slice(0, slash);
        let real = folders.get(folder);
        if (real === undefined) {
          real = null; // an odd path or a symlink loop: the slow path below answers as one call would
          if (isNormalized(folder)) {
            try {
              real = self.resolvePathWithSymlinks(folder);
            } catch {}
          }
          folders.set(folder, real);
        }
        // Not loaded yet from a mounted folder, or a symlink: the slow path below.
        if (real !== null) entry = stored(real === "/" ? `/${name}` : `${real}/${name}`);
      }
      if (entry?.type === "file" && "content" in entry) {
        const data =
          entry.content instanceof Uint8Array ? entry.content.slice() : textEncoder.encode(entry.content);
        const stat = {
          isFile: true,
          isDirectory: false,
          isSymbolicLink: false,
          mode: entry.mode,
          size: data.length,
          // As just-bash's stat: an entry without a time is "now".
          mtime: entry.mtime || new Date(),
          identity: self.identityFor(entry),
        };
        out.push({ stat, data });
        continue;
      }
      // Missing, not a file, read on demand from a mounted folder, or an odd path: as one call would.
      try {
        const stat = await this.stat(path);
        out.push({ stat, data: (await this.readFileBuffer(path)).slice() });
      } catch {
        out.push(null);
      }
    }
    return out;
  }

  override async readdir(path: string): Promise<string[]> {
    this.listLazily(path);
    const folder = isNormalized(path) ? this.paths.get(path) : undefined;
    if (folder?.type !== "directory") return super.readdir(path);
    return [...(this.paths.children.get(path) ?? [])].sort(byName);
  }

  /**
   * Changes whenever a path in the workspace folder (or the folder itself) is added, replaced or
   * removed, or an entry's mode or time is set in place (chmod, utimes): see Sandbox.changeCount.
   */
  changeCount(): number {
    return this.paths.changes;
  }

  setRoot(root: string): void {
    this.root = root;
    this.paths.root = `${root}/`;
  }

  /**
   * Serves the workspace folder from `source`, read on demand (see LazyFolder). The folder must be
   * empty; what is written to it stays in memory, and folderChanges() says what differs.
   */
  mountFolder(source: FolderSource, root: { mode: number; mtimeMs: number }): void {
    const folder = new LazyFolder(this.root, source);
    this.paths.lazy = folder;
    this.paths.set(this.root, folder.rootEntry(root.mode, root.mtimeMs) as Entry);
  }

  /** The workspace against the mounted folder's source: what write-back writes. */
  folderChanges(): WorkspaceChange[] {
    return this.paths.lazy?.changes(this.paths.view) ?? [];
  }

  /** The workspace against the mounted folder's source at these paths only (relative). */
  folderChangesAt(paths: Iterable<string>): WorkspaceChange[] {
    return this.paths.lazy?.changesAt(this.paths.view, paths) ?? [];
  }

  /** Write-back put `entry` at `relative` on disk (null: removed): the source holds that now. */
  rebaseFolder(relative: string, entry: FolderEntry | null): void {
    this.paths.lazy?.rebase(this.paths.view, relative, entry);
  }

  /** How a path looked in the mounted folder's source when it was listed. */
  loadedEntry(relative: string) {
    return this.paths.lazy?.loadedEntry(relative);
  }

  /** Every path, the mounted folder's unlisted ones too (names only: no file is read). */
  override getAllPaths(): string[] {
    this.paths.lazy?.listAll(this.paths.view, this.root);
    return super.getAllPaths();
  }

  /**
   * A file of the mounted folder that was never written is read from its source each time, not
   * kept: reading a 400 MB node_modules through costs no memory after the read.
   */
  override async readFileBuffer(path: string): Promise<Uint8Array> {
    if (this.paths.lazy && !path.includes("\0")) {
      const self = this as unknown as { resolvePathWithSymlinks(path: string): string };
      let entry: MemoryEntry | undefined;
      try {
        entry = this.paths.get(self.resolvePathWithSymlinks(path)) as MemoryEntry | undefined;
      } catch {
        entry = undefined;
      }
      if (entry && "lazy" in entry) return entry.lazy();
    }
    return super.readFileBuffer(path);
  }

  /** A file of the mounted folder not read yet is stat'ed from its listing, not read for its size. */
  override async stat(path: string): Promise<Awaited<ReturnType<InMemoryFs["stat"]>>> {
    return this.unreadStat(path, true) ?? super.stat(path);
  }

  override async lstat(path: string): Promise<Awaited<ReturnType<InMemoryFs["lstat"]>>> {
    return this.unreadStat(path, false) ?? super.lstat(path);
  }

  private unreadStat(path: string, follow: boolean) {
    const lazy = this.paths.lazy;
    if (!lazy || path.includes("\0")) return undefined;
    const self = this as unknown as {
      resolveIntermediateSymlinks(path: string): string;
      resolvePathWithSymlinks(path: string): string;
      identityFor(entry: object): string;
    };
    let real: string;
    try {
      real = follow ? self.resolvePathWithSymlinks(path) : self.resolveIntermediateSymlinks(path);
    } catch {
      return undefined;
    }
    const entry = this.paths.get(real) as MemoryEntry | undefined;
    const size = entry ? lazy.sizeOf(entry) : undefined;
    if (!entry || size === undefined) return undefined;
    return {
      isFile: true,
      isDirectory: false,
      isSymbolicLink: false,
      mode: entry.mode,
      size,
      mtime: entry.mtime,
      identity: self.identityFor(entry),
    };
  }

  /** Lists a folder of the mounted source before its names are read. */
  private listLazily(path: string): void {
    const lazy = this.paths.lazy;
    if (!lazy || path.includes("\0")) return;
    const self = this as unknown as { resolvePathWithSymlinks(path: string): string };
    try {
      lazy.ensureListed(this.paths.view, self.resolvePathWithSymlinks(path));
    } catch {
      // a loop or a missing folder: the listing reports it
    }
  }

  /** Starts recording; returns a function that stops and reports the changes. */
  record(): () => Promise<WorkspaceChange[]> {
    const recording = new Map<string, Map<string, SnapshotEntry>>();
    this.recording = recording;
    return async () => {
      if (this.recording === recording) this.recording = null;
      return this.compare(recording);
    };
  }

  /** Sends writes and appends to `path` to `sink` until the returned function is called. */
  attachDevice(path: string, sink: DeviceSink): () => void {
    this.devices.set(path, sink);
    return () => {
      if (this.devices.get(path) === sink) this.devices.delete(path);
    };
  }

  /**
   * As a real open(2) for writing: the write goes through symlinks to their target (just-bash would
   * replace the link with a file), and an existing file keeps its mode (just-bash resets it to 0644).
   */
  override async writeFile(path: string, content: FileContent, options?: WriteOptions): Promise<void> {
    const device = this.devices.get(path);
    if (device) return device(content, encodingOf(options));
    const target = this.followed(path);
    await this.before(target);
    const existing = target.includes("\0") ? undefined : this.paths.get(target);
    await super.writeFile(target, content, options);
    const written = this.paths.get(target) as MemoryEntry | undefined;
    if (existing?.type === "file" && written?.type === "file") written.mode = (existing as MemoryEntry).mode;
  }

  override async appendFile(path: string, content: FileContent, options?: WriteOptions): Promise<void> {
    const device = this.devices.get(path);
    if (device) return device(content, encodingOf(options));
    const target = this.followed(path);
    await this.before(target);
    return super.appendFile(target, content, options);
  }

  /** `path` with every symlink on it followed, the last one too; itself if it cannot be resolved. */
  private followed(path: string): string {
    if (path.includes("\0")) return path;
    const self = this as unknown as { resolvePathWithSymlinks(path: string): string };
    try {
      return self.resolvePathWithSymlinks(path);
    } catch {
      return path; // a loop: the write reports it
    }
  }

  override async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    await this.before(path);
    return super.mkdir(path, options);
  }

  /** Removes the name itself (a link, not its target), found through the links above it. */
  override async rm(path: string, options?: RmOptions): Promise<void> {
    const self = this as unknown as { resolveIntermediateSymlinks(path: string): string };
    let real = path;
    try {
      if (!path.includes("\0")) real = self.resolveIntermediateSymlinks(path);
    } catch {
      // a loop: removing reports it
    }
    await this.before(real);
    return super.rm(real, options);
  }

  override async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    await this.before(dest);
    await this.before(`${dest}/${src.slice(src.lastIndexOf("/") + 1)}`);
    return super.cp(src, dest, options);
  }

  override async mv(src: string, dest: string): Promise<void> {
    await this.before(src);
    await this.before(dest);
    await this.before(`${dest}/${src.slice(src.lastIndexOf("/") + 1)}`);
    return super.mv(src, dest);
  }

  /** chmod follows symlinks, as chmod(2) does (a link's own mode means nothing). */
  override async chmod(path: string, mode: number): Promise<void> {
    const target = this.followed(path);
    await this.before(target);
    this.paths.changes++;
    return super.chmod(target, mode);
  }

  override async utimes(path: string, atime: Date, mtime: Date): Promise<void> {
    this.paths.changes++;
    return super.utimes(path, atime, mtime);
  }

  override async symlink(target: string, linkPath: string): Promise<void> {
    await this.before(linkPath);
    return super.symlink(target, linkPath);
  }

  override async link(existingPath: string, newPath: string): Promise<void> {
    await this.before(newPath);
    return super.link(existingPath, newPath);
  }

  /** Saves the subtree at `path` (or at its highest missing ancestor) unless already saved. */
  private async before(path: string): Promise<void> {
    const recording = this.recording;
    if (!recording) return;
    const normalized = collapsePath(path);
    if (normalized !== this.root && !normalized.startsWith(`${this.root}/`)) return;
    let top = normalized;
    // A write may create missing parents: record from the highest one that does not exist yet.
    for (let parent = parentOf(top); parent.length > this.root.length; parent = parentOf(parent)) {
      if (await this.exists(parent)) break;
      top = parent;
    }
    for (const saved of recording.keys()) {
      if (top === saved || top.startsWith(`${saved}/`)) return;
    }
    // A wider subtree takes over the narrower ones inside it, keeping their originals.
    const outer = await this.subtree(top);
    for (const saved of [...recording.keys()]) {
      if (!saved.startsWith(`${top}/`)) continue;
      const inner = recording.get(saved)!;
      recording.delete(saved);
      const prefix = this.relative(saved);
      for (const key of [...outer.keys()])
        if (key === prefix || key.startsWith(`${prefix}/`)) outer.delete(key);
      for (const [key, entry] of inner) outer.set(key, entry);
    }
    recording.set(top, outer);
  }

  private relative(absolute: string): string {
    return absolute === this.root ? "" : absolute.slice(this.root.length + 1);
  }
  private async subtree(path: string): Promise<Map<string, SnapshotEntry>> {
    const entries = new Map<string, SnapshotEntry>();
    const visit = async (absolute: string): Promise<void> => {
      let stat: Awaited<ReturnType<InMemoryFs["lstat"]>>;
      try {
        stat = await this.lstat(absolute);
      } catch {
        return;
      }
      const relative = this.relative(absolute);
      if (stat.isSymbolicLink)
        entries.set(relative, { path: relative, type: "symlink", target: await super.readlink(absolute) });
      else if (stat.isDirectory) {
        entries.set(relative, { path: relative, type: "directory" });
        for (const name of await this.readdir(absolute)) await visit(`${absolute}/${name}`);
      } else {
        const memory = this.paths.get(absolute) as MemoryEntry | undefined;
        // A file of the mounted folder never read: its bytes are read only if compared.
        entries.set(
          relative,
          memory && "lazy" in memory
            ? lazyFile(relative, stat.mode & 0o7777, stat.mtime.getTime(), memory.lazy)
            : {
                path: relative,
                type: "file",
                data: (await super.readFileBuffer(absolute)).slice(),
                mode: stat.mode & 0o7777,
                mtimeMs: stat.mtime.getTime(),
              },
        );
      }
    };
    await visit(path);
    return entries;
  }

  private async compare(recording: Map<string, Map<string, SnapshotEntry>>): Promise<WorkspaceChange[]> {
    const changes: WorkspaceChange[] = [];
    for (const [top, before] of recording) {
      const after = await this.subtree(top);
      for (const [path, entry] of after) {
        const previous = before.get(path) ?? null;
        if (!previous || !sameEntry(previous, entry)) changes.push({ path, before: previous, after: entry });
      }
      for (const [path, entry] of before)
        if (!after.has(path)) changes.push({ path, before: entry, after: null });
    }
    return changes
      .filter((change) => change.path !== "")
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

function encodingOf(options: WriteOptions | undefined): string | undefined {
  return typeof options === "string" ? options : (options as { encoding?: string } | undefined)?.encoding;
}
