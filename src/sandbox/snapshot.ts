import type { Sandbox, SnapshotEntry, WorkspaceChange, WorkspaceSnapshot } from "./types.ts";

/**
 * Walks the workspace through the generic fs API. Backends with a faster path (the embedded
 * one reads its memory directly) may use their own, with the same result.
 */
export async function snapshotWorkspace(sandbox: Sandbox): Promise<WorkspaceSnapshot> {
  const root = sandbox.workspaceRoot;
  const entries: SnapshotEntry[] = [];
  const walk = async (relative: string): Promise<void> => {
    const absolute = relative === "" ? root : `${root}/${relative}`;
    const children = (await sandbox.readdir(absolute)).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const child of children) {
      const path = relative === "" ? child.name : `${relative}/${child.name}`;
      const full = `${root}/${path}`;
      if (child.type === "directory") {
        entries.push({ path, type: "directory" });
        await walk(path);
      } else if (child.type === "symlink") {
        entries.push({ path, type: "symlink", target: await sandbox.readlink(full) });
      } else {
        const stat = await sandbox.lstat(full);
        entries.push({ path, type: "file", data: await sandbox.readFile(full), mode: stat.mode });
      }
    }
  };
  await walk("");
  return { entries };
}

/** Empties the workspace folder, then recreates the snapshot's entries (parents before children). */
export async function restoreWorkspace(sandbox: Sandbox, snapshot: WorkspaceSnapshot): Promise<void> {
  const root = sandbox.workspaceRoot;
  await sandbox.mkdir(root, { recursive: true });
  for (const child of await sandbox.readdir(root)) {
    await sandbox.rm(`${root}/${child.name}`, { recursive: true, force: true });
  }
  for (const entry of sortParentsFirst(snapshot.entries)) {
    const full = `${root}/${entry.path}`;
    const parent = full.slice(0, full.lastIndexOf("/"));
    if (parent.length > root.length) await sandbox.mkdir(parent, { recursive: true });
    if (entry.type === "directory") await sandbox.mkdir(full, { recursive: true });
    else if (entry.type === "symlink") await sandbox.symlink(entry.target, full);
    else {
      await sandbox.writeFile(full, entry.data);
      if (entry.mode !== undefined) await sandbox.chmod?.(full, entry.mode);
    }
  }
}

function sortParentsFirst(entries: SnapshotEntry[]): SnapshotEntry[] {
  return [...entries].sort((a, b) => a.path.split("/").length - b.path.split("/").length);
}

/** Whether two entries hold the same thing (type, bytes, mode, symlink target). */
export function sameEntry(a: SnapshotEntry, b: SnapshotEntry): boolean {
  if (a.type !== b.type) return false;
  if (a.type === "symlink" && b.type === "symlink") return a.target === b.target;
  if (a.type === "file" && b.type === "file") {
    if (a.data.length !== b.data.length || (a.mode ?? 0o644) !== (b.mode ?? 0o644)) return false;
    for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) return false;
  }
  return true;
}

/** The paths whose entry differs between two snapshots, sorted. */
export function diffSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): WorkspaceChange[] {
  const old = new Map(before.entries.map((entry) => [entry.path, entry]));
  const changes: WorkspaceChange[] = [];
  const seen = new Set<string>();
  for (const entry of after.entries) {
    seen.add(entry.path);
    const previous = old.get(entry.path);
    if (!previous) changes.push({ path: entry.path, before: null, after: entry });
    else if (!sameEntry(previous, entry)) changes.push({ path: entry.path, before: previous, after: entry });
  }
  for (const entry of before.entries) {
    if (!seen.has(entry.path)) changes.push({ path: entry.path, before: entry, after: null });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Records changes for a backend without a cheaper way: a snapshot now, another at the end.
 * Backends that can do better implement Sandbox.recordChanges.
 */
export async function recordBySnapshots(sandbox: Sandbox): Promise<() => Promise<WorkspaceChange[]>> {
  const before = await sandbox.snapshot();
  return async () => diffSnapshots(before, await sandbox.snapshot());
}

/** JSON form of a snapshot, as session files and persisted workspaces store it. */
export interface SerializedWorkspace {
  /** Path → UTF-8 text, or base64 for bytes that are not valid UTF-8, or a symlink target. */
  files: Record<string, string | { base64: string } | { symlink: string }>;
  /** Directories, including empty ones. */
  directories?: string[];
  /** Files' modification times (ms since the epoch), where known. */
  mtimes?: Record<string, number>;
  /** Files' permission bits where they are not 0644 (an executable script keeps its x). */
  modes?: Record<string, number>;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export function serializeWorkspace(snapshot: WorkspaceSnapshot): SerializedWorkspace {
  const files: SerializedWorkspace["files"] = {};
  const directories: string[] = [];
  const mtimes: Record<string, number> = {};
  const modes: Record<string, number> = {};
  for (const entry of snapshot.entries) {
    if (entry.type === "directory") directories.push(entry.path);
    else if (entry.type === "symlink") files[entry.path] = { symlink: entry.target };
    else {
      if (entry.mtimeMs !== undefined) mtimes[entry.path] = entry.mtimeMs;
      if (entry.mode !== undefined && (entry.mode & 0o7777) !== 0o644)
        modes[entry.path] = entry.mode & 0o7777;
      try {
        files[entry.path] = strictUtf8.decode(entry.data);
      } catch {
        files[entry.path] = { base64: bytesToBase64(entry.data) };
      }
    }
  }
  return {
    files,
    directories,
    ...(Object.keys(mtimes).length > 0 ? { mtimes } : {}),
    ...(Object.keys(modes).length > 0 ? { modes } : {}),
  };
}

export function deserializeWorkspace(serialized: SerializedWorkspace): WorkspaceSnapshot {
  const entries: SnapshotEntry[] = [];
  const seen = new Set<string>();
  const addDirectory = (path: string): void => {
    if (path === "" || seen.has(path)) return;
    addDirectory(path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
    seen.add(path);
    entries.push({ path, type: "directory" });
  };
  for (const directory of serialized.directories ?? []) addDirectory(directory);
  const encoder = new TextEncoder();
  for (const [path, value] of Object.entries(serialized.files)) {
    if (path.includes("/")) addDirectory(path.slice(0, path.lastIndexOf("/")));
    const mtime = serialized.mtimes?.[path];
    const mode = serialized.modes?.[path];
    const when = {
      ...(typeof mtime === "number" ? { mtimeMs: mtime } : {}),
      ...(typeof mode === "number" ? { mode: mode & 0o7777 } : {}),
    };
    if (typeof value === "string") entries.push({ path, type: "file", data: encoder.encode(value), ...when });
    else if ("symlink" in value) entries.push({ path, type: "symlink", target: value.symlink });
    else entries.push({ path, type: "file", data: base64ToBytes(value.base64), ...when });
  }
  return { entries };
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
