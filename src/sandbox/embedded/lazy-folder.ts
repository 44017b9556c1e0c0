import { sameEntry } from "../snapshot.ts";
import type { EntryType, SnapshotEntry, WorkspaceChange } from "../types.ts";

/**
 * A folder read on demand into the embedded filesystem: copy-on-write over a source (a real folder
 * on disk in the CLI), as just-bash's OverlayFs is, but inside the same in-memory filesystem the
 * sandbox records, snapshots and hands to python and git. A folder's names are listed the first
 * time something looks inside it; a file's bytes are read the first time they are read. Start-up
 * costs nothing whatever the folder's size, and memory follows what was touched.
 *
 * The entries it puts in the filesystem remember where they came from, so the net changes against
 * the source (what write-back writes) are found by walking only the folders that were listed and
 * reading only files that were written.
 */

/** One entry of a source folder. */
export interface FolderEntry {
  name: string;
  type: EntryType;
  /** Permission bits (0o644, 0o755…). */
  mode: number;
  size: number;
  mtimeMs: number;
  /** A symlink's target. */
  target?: string;
  /** The entry's inode number on its disk, when it has one (write-back checks it is still the same). */
  ino?: number;
}

/** Where a lazy folder's contents come from. Synchronous: the filesystem's lookups are. */
export interface FolderSource {
  /** The entries of a folder ("" is the root); an entry the source cannot represent is left out. */
  list(relative: string): FolderEntry[];
  /** A file's bytes. */
  read(relative: string): Uint8Array;
}

/** just-bash's in-memory entries (InMemoryFs keeps them in a Map by absolute path). */
export type MemoryEntry =
  | { type: "file"; content: Uint8Array | string; mode: number; mtime: Date }
  | { type: "file"; lazy: () => Uint8Array; mode: number; mtime: Date }
  | { type: "directory"; mode: number; mtime: Date }
  | { type: "symlink"; target: string; mode: number; mtime: Date };

/** The few operations of the filesystem's path map the folder needs. */
export interface EntryMap {
  /** The entry at an absolute path, without loading anything. */
  peek(path: string): MemoryEntry | undefined;
  /** Adds an entry (and indexes it under its folder). */
  put(path: string, entry: MemoryEntry): void;
  /** The names in a folder now. */
  names(path: string): Iterable<string>;
}

interface Origin {
  /** Path relative to the folder's root. */
  path: string;
  entry: FolderEntry;
}

export class LazyFolder {
  /** Folders whose names are not listed yet. */
  private readonly unlisted = new WeakSet<object>();
  /** Entries as they came from the source, and where. */
  private readonly origins = new WeakMap<object, Origin>();
  /** File bodies read from the source and not replaced since. */
  private readonly bodies = new WeakMap<object, Origin>();
  /** Each listed folder's source listing, by relative path. */
  private readonly listings = new Map<string, FolderEntry[]>();

  constructor(
    /** Absolute path of the folder inside the sandbox ("/workspace"). */
    readonly root: string,
    readonly source: FolderSource,
  ) {}

  /** The entry for the folder's root: listed on first use. */
  rootEntry(mode = 0o755, mtimeMs = Date.now()): MemoryEntry {
    return this.stub({ name: "", type: "directory", mode, size: 0, mtimeMs }, "");
  }

  /**
   * Called when `path` is not in the map: lists the folder it would be in if that folder came from
   * the source and is not listed yet. True when something was listed (look again).
   */
  load(map: EntryMap, get: (path: string) => MemoryEntry | undefined, path: string): boolean {
    if (!path.startsWith(`${this.root}/`)) return false;
    const parent = path.slice(0, path.lastIndexOf("/"));
    // Looking the folder up lists the folders above it first.
    const folder = parent === this.root ? map.peek(parent) : get(parent);
    if (!folder || !this.unlisted.has(folder)) return false;
    this.list(map, parent, folder);
    return true;
  }

  /** Lists `path` if it is a folder from the source that is not listed yet. */
  ensureListed(map: EntryMap, path: string): void {
    const folder = map.peek(path);
    if (folder && this.unlisted.has(folder)) this.list(map, path, folder);
  }

  /** Whether `path` holds a folder whose names were never listed (nothing below it was touched). */
  isUnlisted(entry: MemoryEntry | undefined): boolean {
    return entry !== undefined && this.unlisted.has(entry);
  }

  /** The size of a file not read yet (just-bash would read it to know). */
  sizeOf(entry: MemoryEntry): number | undefined {
    return "lazy" in entry ? this.origins.get(entry)?.entry.size : undefined;
  }

  /** Lists every folder below `path` (names only, no file is read). */
  listAll(map: EntryMap, path: string): void {
    this.ensureListed(map, path);
    for (const name of [...map.names(path)]) {
      const child = `${path}/${name}`;
      if (map.peek(child)?.type === "directory") this.listAll(map, child);
    }
  }

  /** A source entry as a lazy file, a symlink, or a folder to list later. */
  private stub(entry: FolderEntry, relative: string): MemoryEntry {
    const mtime = new Date(entry.mtimeMs);
    let memory: MemoryEntry;
    if (entry.type === "directory") {
      memory = { type: "directory", mode: entry.mode, mtime };
      this.unlisted.add(memory);
    } else if (entry.type === "symlink") {
      memory = { type: "symlink", target: entry.target ?? "", mode: 0o777, mtime };
    } else {
      const origin = { path: relative, entry };
      memory = {
        type: "file",
        lazy: () => {
          const bytes = this.source.read(relative);
          this.bodies.set(bytes, origin);
          return bytes;
        },
        mode: entry.mode,
        mtime,
      };
    }
    this.origins.set(memory, { path: relative, entry });
    return memory;
  }

  private list(map: EntryMap, path: string, folder: MemoryEntry): void {
    this.unlisted.delete(folder);
    const relative = this.relative(path);
    let entries: FolderEntry[];
    try {
      entries = this.source.list(relative);
    } catch {
      entries = [];
    }
    this.listings.set(relative, entries);
    for (const entry of entries) {
      const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      map.put(`${path}/${entry.name}`, this.stub(entry, childRelative));
    }
  }

  private relative(path: string): string {
    return path === this.root ? "" : path.slice(this.root.length + 1);
  }

  /** Where an entry (or a file body read from the source) came from, if it is as loaded. */
  private originOf(entry: MemoryEntry): Origin | undefined {
    const origin = this.origins.get(entry);
    if (origin) return origin;
    return "content" in entry && typeof entry.content === "object"
      ? this.bodies.get(entry.content)
      : undefined;
  }

  /** Whether the entry at `relative` is still what the source had there. */
  private pristine(relative: string, entry: MemoryEntry): boolean {
    const origin = this.originOf(entry);
    if (!origin || origin.path !== relative) return false;
    if (entry.type === "symlink")
      return origin.entry.type === "symlink" && entry.target === origin.entry.target;
    return (entry.mode & 0o7777) === (origin.entry.mode & 0o7777) && entry.type === origin.entry.type;
  }

  /** The source's listing of a folder, from the listing made when it was loaded if there was one. */
  private sourceListing(relative: string): FolderEntry[] {
    const known = this.listings.get(relative);
    if (known) return known;
    try {
      return this.source.list(relative);
    } catch {
      return [];
    }
  }

  /** The source's entry as a snapshot entry; a file's bytes are read only if asked for. */
  private sourceSnapshot(relative: string, entry: FolderEntry): SnapshotEntry {
    if (entry.type === "directory") return { path: relative, type: "directory", mode: entry.mode };
    if (entry.type === "symlink") return { path: relative, type: "symlink", target: entry.target ?? "" };
    return lazyFile(relative, entry.mode, entry.mtimeMs, () => this.source.read(relative));
  }

  private memorySnapshot(relative: string, entry: MemoryEntry): SnapshotEntry {
    if (entry.type === "directory") return { path: relative, type: "directory", mode: entry.mode & 0o7777 };
    if (entry.type === "symlink") return { path: relative, type: "symlink", target: entry.target };
    const mode = entry.mode & 0o7777;
    const mtimeMs = entry.mtime.getTime();
    if ("lazy" in entry) return lazyFile(relative, mode, mtimeMs, entry.lazy);
    const data =
      typeof entry.content === "string" ? new TextEncoder().encode(entry.content) : entry.content.slice();
    return { path: relative, type: "file", data, mode, mtimeMs };
  }

  /** Every path of the source below `relative` (a folder now gone from the sandbox), deepest last. */
  private sourceSubtree(relative: string, into: SnapshotEntry[]): void {
    for (const entry of this.sourceListing(relative)) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      into.push(this.sourceSnapshot(path, entry));
      if (entry.type === "directory") this.sourceSubtree(path, into);
    }
  }

  /**
   * The sandbox's folder against the source, path by path, as write-back wants it: created,
   * modified (bytes, mode, type, link target) and deleted entries. Only listed folders are walked
   * and only files that were written are compared; a `before` file's bytes are read from the
   * source when asked for.
   */
  changes(map: EntryMap): WorkspaceChange[] {
    const changes: WorkspaceChange[] = [];
    const walk = (path: string, relative: string, sourceIsFolder: boolean): void => {
      const folder = map.peek(path);
      if (folder?.type !== "directory" || this.unlisted.has(folder)) return;
      const fromSource = new Map(
        (sourceIsFolder ? this.sourceListing(relative) : []).map((entry) => [entry.name, entry]),
      );
      const names = [...map.names(path)];
      for (const name of names) {
        const childPath = `${path}/${name}`;
        const childRelative = relative === "" ? name : `${relative}/${name}`;
        const child = map.peek(childPath);
        if (!child) continue;
        const original = fromSource.get(name);
        if (!(original && this.pristine(childRelative, child))) {
          const before = original ? this.sourceSnapshot(childRelative, original) : null;
          // A file never read, at its own path, holds the source's bytes: only its mode can differ.
          if (before?.type === "file" && "lazy" in child && this.origins.get(child)?.path === childRelative) {
            const mode = child.mode & 0o7777;
            if (mode !== before.mode) {
              const after = lazyFile(childRelative, mode, child.mtime.getTime(), () => before.data);
              changes.push({ path: childRelative, before, after });
            }
          } else {
            const after = this.memorySnapshot(childRelative, child);
            if (!before || !sameEntry(before, after)) changes.push({ path: childRelative, before, after });
          }
          // A folder replaced by a file or a link: everything the source had below it is gone.
          if (original?.type === "directory" && child.type !== "directory") {
            const below: SnapshotEntry[] = [];
            this.sourceSubtree(childRelative, below);
            for (const entry of below) changes.push({ path: entry.path, before: entry, after: null });
          }
        }
        if (child.type === "directory") walk(childPath, childRelative, original?.type === "directory");
      }
      const present = new Set(names);
      for (const [name, original] of fromSource) {
        if (present.has(name)) continue;
        const childRelative = relative === "" ? name : `${relative}/${name}`;
        changes.push({
          path: childRelative,
          before: this.sourceSnapshot(childRelative, original),
          after: null,
        });
        if (original.type === "directory") {
          const below: SnapshotEntry[] = [];
          this.sourceSubtree(childRelative, below);
          for (const entry of below) changes.push({ path: entry.path, before: entry, after: null });
        }
      }
    };
    const root = map.peek(this.root);
    if (root?.type === "directory") walk(this.root, "", true);
    else {
      // The folder itself is gone: everything in it is.
      const below: SnapshotEntry[] = [];
      this.sourceSubtree("", below);
      for (const entry of below) changes.push({ path: entry.path, before: entry, after: null });
    }
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * The net change at each of these paths against the source as last seen (listed, or as
   * write-back left it: see rebase), for a write-back after each call. Only these paths are
   * looked at. A file read through from another path (moved or copied, never read) takes its
   * bytes now, so the source's file can change under it.
   */
  changesAt(map: EntryMap, relatives: Iterable<string>): WorkspaceChange[] {
    const changes: WorkspaceChange[] = [];
    for (const relative of new Set(relatives)) {
      if (relative === "") continue;
      const absolute = `${this.root}/${relative}`;
      let child = map.peek(absolute);
      const original = this.loadedEntry(relative);
      if (!original && !child) continue;
      const before = original ? this.sourceSnapshot(relative, original) : null;
      if (child && "lazy" in child && this.origins.get(child)?.path !== relative) {
        child = { type: "file", content: child.lazy(), mode: child.mode, mtime: child.mtime };
        map.put(absolute, child);
      }
      if (!child) {
        changes.push({ path: relative, before, after: null });
        continue;
      }
      if (original && this.pristine(relative, child)) continue;
      // A file never read, at its own path, holds the source's bytes: only its mode can differ.
      if (before?.type === "file" && "lazy" in child) {
        const mode = child.mode & 0o7777;
        if (mode !== before.mode)
          changes.push({
            path: relative,
            before,
            after: lazyFile(relative, mode, child.mtime.getTime(), () => before.data),
          });
        continue;
      }
      const after = this.memorySnapshot(relative, child);
      // Another size is another file: the disk's bytes are read only when the sizes agree.
      const resized =
        after.type === "file" && original?.type === "file" && after.data.length !== original.size;
      if (!before || resized || !sameEntry(before, after)) changes.push({ path: relative, before, after });
    }
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Write-back put `entry` at `relative` on disk (null: removed it): from now on that is what the
   * source holds there, so the next changes are against it and the disk check compares with it.
   */
  rebase(map: EntryMap, relative: string, entry: FolderEntry | null): void {
    const slash = relative.lastIndexOf("/");
    const folder = slash === -1 ? "" : relative.slice(0, slash);
    const name = relative.slice(slash + 1);
    const listing = (this.listings.get(folder) ?? []).filter((known) => known.name !== name);
    if (entry) listing.push({ ...entry, name });
    this.listings.set(folder, listing);
    if (entry?.type === "directory" && !this.listings.has(relative)) this.listings.set(relative, []);
    const child = map.peek(`${this.root}/${relative}`);
    // The sandbox's entry is what is on disk now: unchanged until the sandbox replaces it.
    if (child && entry) this.origins.set(child, { path: relative, entry: { ...entry, name } });
  }

  /** How each source entry looked when it was listed (for write-back's check that the disk kept it). */
  loadedEntry(relative: string): FolderEntry | undefined {
    const slash = relative.lastIndexOf("/");
    const folder = slash === -1 ? "" : relative.slice(0, slash);
    const name = relative.slice(slash + 1);
    return this.listings.get(folder)?.find((entry) => entry.name === name);
  }
}

/** A file snapshot entry whose bytes are read on first use, once. */
export function lazyFile(path: string, mode: number, mtimeMs: number, read: () => Uint8Array): SnapshotEntry {
  let data: Uint8Array | undefined;
  const entry = { path, type: "file" as const, mode, mtimeMs } as SnapshotEntry & { data: Uint8Array };
  Object.defineProperty(entry, "data", {
    enumerable: true,
    get: () => {
      data ??= read().slice();
      return data;
    },
  });
  return entry;
}
