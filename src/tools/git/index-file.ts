import { ToolFailure } from "../../core/errors.ts";
import { type FileStat, isSandboxError } from "../../sandbox/types.ts";
import { sha1Hex, toHex } from "../sha1.ts";
import { compareNames, fromHex } from "./objects.ts";
import type { RepoFiles } from "./repo.ts";

/**
 * .git/index, read and written as git lays it out (versions 2 and 3). Each entry keeps the stat
 * git's own cache compares: when a file's size, mode, mtime, ctime and inode still match its entry
 * (and the entry is not "racily clean": written in the same instant as the index), the file is
 * the blob the entry names, without reading it.
 */

export interface IndexEntry {
  path: string;
  oid: string;
  mode: number;
  size: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  /** 0 normally; 1–3 for the sides of a merge conflict. */
  stage: number;
  assumeValid: boolean;
  /** Version 3's extended flags (skip-worktree, intent-to-add), kept as read. */
  extendedFlags: number;
}

export interface GitIndex {
  version: number;
  /** In git's order: by path (byte order), then stage. */
  entries: IndexEntry[];
  /** Stage-0 entries by path. */
  byPath: Map<string, IndexEntry>;
  /** Paths with conflict stages. */
  unmerged: Set<string>;
  /** The file's trailing checksum; "" when there is no index yet. */
  checksum: string;
  /** When the index file was last written (ms); entries modified at or after it are racily clean. */
  mtimeMs: number;
}

/** What a stat of a working-tree file says, in the index's own fields. */
export type IndexStat = Pick<
  IndexEntry,
  | "mode"
  | "size"
  | "mtimeSeconds"
  | "mtimeNanoseconds"
  | "ctimeSeconds"
  | "ctimeNanoseconds"
  | "dev"
  | "ino"
  | "uid"
  | "gid"
>;

const SKIP_WORKTREE = 1 << 14;
const INTENT_TO_ADD = 1 << 13;
const UINT32 = 2 ** 32;

/** A file's mode as git records it: 100755 when any execute bit is set, else 100644; links 120000. */
export function gitMode(stat: Pick<FileStat, "type" | "mode">): number {
  if (stat.type === "symlink") return 0o120000;
  if (stat.type === "directory") return 0o040000;
  return stat.mode & 0o111 ? 0o100755 : 0o100644;
}

function secondsAndNanos(ms: number): [number, number] {
  const seconds = Math.floor(ms / 1000);
  // As isomorphic-git stores milliseconds, so both read each other's entries as unchanged.
  return [seconds % UINT32, Math.floor((ms - seconds * 1000) * 1_000_000) % UINT32];
}

/** The index fields of a sandbox stat: mtime for ctime too (the sandbox has none), its inode when it has one. */
export function indexStat(stat: FileStat): IndexStat {
  const [seconds, nanos] = secondsAndNanos(stat.mtimeMs);
  return {
    mode: gitMode(stat),
    size: stat.size % UINT32,
    mtimeSeconds: seconds,
    mtimeNanoseconds: nanos,
    ctimeSeconds: seconds,
    ctimeNanoseconds: nanos,
    dev: 0,
    ino: (stat.ino ?? 0) % UINT32,
    uid: 0,
    gid: 0,
  };
}

/** Whether an entry's recorded stat still describes the file (git's ie_match_stat, without content). */
export function statMatches(entry: IndexEntry, stat: IndexStat): boolean {
  return (
    entry.size === stat.size &&
    entry.mode === stat.mode &&
    entry.mtimeSeconds === stat.mtimeSeconds &&
    entry.mtimeNanoseconds === stat.mtimeNanoseconds &&
    entry.ctimeSeconds === stat.ctimeSeconds &&
    entry.ctimeNanoseconds === stat.ctimeNanoseconds &&
    entry.ino === stat.ino &&
    entry.dev === stat.dev &&
    entry.uid === stat.uid &&
    entry.gid === stat.gid
  );
}

/** Modified at or after the index was written: the stat cannot vouch for the content. */
export function racilyClean(entry: IndexEntry, index: GitIndex): boolean {
  return entry.mtimeSeconds * 1000 + entry.mtimeNanoseconds / 1_000_000 >= Math.floor(index.mtimeMs);
}

function unsupported(what: string): ToolFailure {
  return new ToolFailure(
    "git_error",
    `.git/index uses ${what}, which Toolroom's git cannot read. Rewrite it with native git (\`git update-index --index-version 2\`, or \`git update-index --no-split-index\`), then load the folder again.`,
  );
}

export function parseIndex(bytes: Uint8Array, mtimeMs: number): GitIndex {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  if (bytes.length < 32 || decoder.decode(bytes.subarray(0, 4)) !== "DIRC")
    throw new ToolFailure("git_error", ".git/index is not a git index (no DIRC header).");
  const checksum = toHex(bytes.subarray(bytes.length - 20));
  if (sha1Hex(bytes.subarray(0, bytes.length - 20)) !== checksum)
    throw new ToolFailure("git_error", ".git/index is corrupt: its checksum does not match.");
  const version = view.getUint32(4);
  if (version === 4) throw unsupported("version 4 (path compression)");
  if (version !== 2 && version !== 3) throw unsupported(`version ${version}`);
  const count = view.getUint32(8);
  const entries: IndexEntry[] = [];
  const byPath = new Map<string, IndexEntry>();
  const unmerged = new Set<string>();
  let at = 12;
  for (let n = 0; n < count; n++) {
    const start = at;
    const flags = view.getUint16(at + 60);
    let pathStart = at + 62;
    let extendedFlags = 0;
    if (flags & 0x4000) {
      extendedFlags = view.getUint16(at + 62);
      pathStart += 2;
    }
    const nul = bytes.indexOf(0, pathStart);
    const path = decoder.decode(bytes.subarray(pathStart, nul));
    const entry: IndexEntry = {
      ctimeSeconds: view.getUint32(at),
      ctimeNanoseconds: view.getUint32(at + 4),
      mtimeSeconds: view.getUint32(at + 8),
      mtimeNanoseconds: view.getUint32(at + 12),
      dev: view.getUint32(at + 16),
      ino: view.getUint32(at + 20),
      mode: view.getUint32(at + 24),
      uid: view.getUint32(at + 28),
      gid: view.getUint32(at + 32),
      size: view.getUint32(at + 36),
      oid: toHex(bytes.subarray(at + 40, at + 60)),
      stage: (flags >> 12) & 3,
      assumeValid: Boolean(flags & 0x8000),
      extendedFlags,
      path,
    };
    entries.push(entry);
    if (entry.stage === 0) byPath.set(path, entry);
    else unmerged.add(path);
    // Entries are padded with 1–8 NULs to a multiple of 8 bytes.
    at = start + Math.ceil((nul + 1 - start) / 8) * 8;
  }
  // Extensions: an upper-case signature is optional (dropped on write); lower-case ones change the meaning.
  while (at < bytes.length - 20) {
    const signature = decoder.decode(bytes.subarray(at, at + 4));
    if (signature[0]! < "A" || signature[0]! > "Z")
      throw unsupported(signature === "link" ? "a split index" : `the "${signature}" extension`);
    at += 8 + view.getUint32(at + 4);
  }
  return { version, entries, byPath, unmerged, checksum, mtimeMs };
}

/** The index's bytes (version 2, or 3 when an entry has extended flags), extensions dropped. */
export function serializeIndex(entries: IndexEntry[]): Uint8Array {
  const encoder = new TextEncoder();
  const sorted = [...entries].sort((a, b) => compareNames(a.path, b.path) || a.stage - b.stage);
  const extended = sorted.some((entry) => entry.extendedFlags !== 0);
  const paths = sorted.map((entry) => encoder.encode(entry.path));
  let size = 12 + 20;
  for (const [index, path] of paths.entries())
    size += Math.ceil((62 + (sorted[index]!.extendedFlags ? 2 : 0) + path.length + 1) / 8) * 8;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  bytes.set(encoder.encode("DIRC"));
  view.setUint32(4, extended ? 3 : 2);
  view.setUint32(8, sorted.length);
  let at = 12;
  sorted.forEach((entry, index) => {
    const path = paths[index]!;
    view.setUint32(at, entry.ctimeSeconds);
    view.setUint32(at + 4, entry.ctimeNanoseconds);
    view.setUint32(at + 8, entry.mtimeSeconds);
    view.setUint32(at + 12, entry.mtimeNanoseconds);
    view.setUint32(at + 16, entry.dev);
    view.setUint32(at + 20, entry.ino);
    view.setUint32(at + 24, entry.mode);
    view.setUint32(at + 28, entry.uid);
    view.setUint32(at + 32, entry.gid);
    view.setUint32(at + 36, entry.size);
    fromHex(entry.oid, bytes, at + 40);
    const flags =
      (entry.assumeValid ? 0x8000 : 0) |
      (entry.extendedFlags ? 0x4000 : 0) |
      ((entry.stage & 3) << 12) |
      Math.min(path.length, 0xfff);
    view.setUint16(at + 60, flags);
    let pathStart = at + 62;
    if (entry.extendedFlags) {
      view.setUint16(at + 62, entry.extendedFlags);
      pathStart += 2;
    }
    bytes.set(path, pathStart);
    at += Math.ceil((pathStart - at + path.length + 1) / 8) * 8;
  });
  fromHex(sha1Hex(bytes.subarray(0, at)), bytes, at);
  return bytes;
}

/** Parsed indexes by checksum: the same bytes are parsed once. */
const parsed = new Map<string, GitIndex>();

/** Reads .git/index (an empty index when there is none). */
export async function readIndex(repo: RepoFiles): Promise<GitIndex> {
  const path = `${repo.gitdir}/index`;
  let bytes: Uint8Array;
  let mtimeMs: number;
  try {
    [bytes, mtimeMs] = await Promise.all([
      repo.sandbox.readFile(path),
      repo.sandbox.lstat(path).then((stat) => stat.mtimeMs),
    ]);
  } catch (error) {
    if (!isSandboxError(error, "ENOENT")) throw error;
    return { version: 2, entries: [], byPath: new Map(), unmerged: new Set(), checksum: "", mtimeMs: 0 };
  }
  const checksum = bytes.length >= 20 ? toHex(bytes.subarray(bytes.length - 20)) : "";
  const known = parsed.get(checksum);
  if (known) {
    // Entries are copied on write, so a kept parse is never changed; only the file's time differs.
    return { ...known, mtimeMs };
  }
  const index = parseIndex(bytes, mtimeMs);
  if (parsed.size >= 4) parsed.delete(parsed.keys().next().value!);
  parsed.set(checksum, index);
  return index;
}

/**
 * Writes the index: entries are the full new list (any order). isomorphic-git keeps its own parse
 * of the index, checked against the file's stat, which a rewrite in the same millisecond with the
 * same size would not change: it is dropped so its next read parses what is written here.
 */
export async function writeIndex(repo: RepoFiles, entries: IndexEntry[]): Promise<void> {
  const bytes = serializeIndex(entries);
  await repo.sandbox.writeFile(`${repo.gitdir}/index`, bytes);
  const cache = repo.cache as Record<symbol, unknown>;
  for (const key of Object.getOwnPropertySymbols(cache))
    if (key.description === "IndexCache") delete cache[key];
}

/** The entry a staged file gets: its blob, mode and the stat it was read with. */
export function entryFor(path: string, oid: string, stat: IndexStat, previous?: IndexEntry): IndexEntry {
  return {
    ...stat,
    path,
    oid,
    stage: 0,
    assumeValid: false,
    // skip-worktree survives a re-add, as in git; intent-to-add does not.
    extendedFlags: (previous?.extendedFlags ?? 0) & ~INTENT_TO_ADD & SKIP_WORKTREE,
  };
}

export function isIntentToAdd(entry: IndexEntry): boolean {
  return (entry.extendedFlags & INTENT_TO_ADD) !== 0;
}
