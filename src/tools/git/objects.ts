import { unzlibSync, zlibSync } from "fflate";
import { isSandboxError } from "../../sandbox/types.ts";
import { sha1All, sha1Hex, toHex } from "../sha1.ts";
import { loadGit } from "./load.ts";
import type { RepoFiles } from "./repo.ts";

/**
 * git's object store, read and written directly where isomorphic-git's generic paths cost most:
 * loose objects are inflated and deflated here, trees parsed and flattened once per tree id (an
 * object id names its content forever, so the flattening is kept), and hashing runs in batches.
 * Packed objects are read through isomorphic-git (loaded then), which knows packfiles.
 */

export type ObjectType = "blob" | "tree" | "commit" | "tag";

/** A path's version in a tree or the index: its blob (or link, or submodule commit) and mode. */
export interface TreeItem {
  oid: string;
  /** 0o100644, 0o100755, 0o120000 (symlink), 0o160000 (submodule). */
  mode: number;
}

export interface TreeEntry extends TreeItem {
  name: string;
}

const encoder = new TextEncoder();
/** The value of a hex digit's char code (0–9, a–f, A–F). */
function nibble(code: number): number {
  return code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57;
}

export function fromHex(hex: string, into: Uint8Array = new Uint8Array(hex.length / 2), at = 0): Uint8Array {
  for (let index = 0; index < hex.length; index += 2)
    into[at + (index >> 1)] = (nibble(hex.charCodeAt(index)) << 4) | nibble(hex.charCodeAt(index + 1));
  return into;
}

/** The bytes git hashes and stores for an object: "<type> <size>\0" then the content. */
export function wrapObject(type: ObjectType, content: Uint8Array): Uint8Array {
  const header = encoder.encode(`${type} ${content.length}\0`);
  const wrapped = new Uint8Array(header.length + content.length);
  wrapped.set(header);
  wrapped.set(content, header.length);
  return wrapped;
}

/** The blob ids of file contents, as `git hash-object` computes them. */
export async function blobIds(contents: Uint8Array[]): Promise<string[]> {
  return sha1All(contents.map((content) => wrapObject("blob", content)));
}

function loosePath(repo: RepoFiles, oid: string): string {
  return `${repo.gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;
}

/** An object's type and content: loose objects inflated here, packed ones through isomorphic-git. */
export async function readObject(
  repo: RepoFiles,
  oid: string,
): Promise<{ type: ObjectType; content: Uint8Array }> {
  let stored: Uint8Array | null = null;
  try {
    stored = await repo.sandbox.readFile(loosePath(repo, oid));
  } catch (error) {
    if (!isSandboxError(error, "ENOENT")) throw error;
  }
  if (stored === null) {
    const git = await loadGit();
    const { type, object } = await git.readObject({
      fs: repo.fs,
      dir: repo.dir,
      gitdir: repo.gitdir,
      cache: repo.cache,
      oid,
      format: "content",
    });
    return { type: type as ObjectType, content: object as Uint8Array };
  }
  const raw = unzlibSync(stored);
  const space = raw.indexOf(0x20);
  const nul = raw.indexOf(0, space);
  const type = new TextDecoder().decode(raw.subarray(0, space)) as ObjectType;
  const size = Number(new TextDecoder().decode(raw.subarray(space + 1, nul)));
  const content = raw.subarray(nul + 1);
  if (content.length !== size)
    throw new Error(`git object ${oid} is corrupt: ${content.length} bytes, header says ${size}`);
  return { type, content };
}

export async function readBlob(repo: RepoFiles, oid: string): Promise<Uint8Array> {
  const { type, content } = await readObject(repo, oid);
  if (type !== "blob") throw new Error(`git object ${oid} is a ${type}, not a blob`);
  return content;
}

/**
 * Writes objects (wrapped bytes, with their ids) as loose objects, skipping those already stored
 * loose. Each fan-out folder is listed once rather than each object probed.
 */
export async function writeObjects(
  repo: RepoFiles,
  objects: { oid: string; wrapped: Uint8Array }[],
): Promise<void> {
  const { sandbox } = repo;
  const folders = new Map<string, Set<string> | null>();
  for (const { oid } of objects) {
    const fanout = oid.slice(0, 2);
    if (folders.has(fanout)) continue;
    const listed = await sandbox.readdir(`${repo.gitdir}/objects/${fanout}`).catch(() => null);
    folders.set(fanout, listed ? new Set(listed.map((entry) => entry.name)) : null);
  }
  for (const { oid, wrapped } of objects) {
    const fanout = oid.slice(0, 2);
    let names = folders.get(fanout) ?? null;
    if (names?.has(oid.slice(2))) continue;
    if (!names) {
      await sandbox.mkdir(`${repo.gitdir}/objects/${fanout}`, { recursive: true });
      names = new Set();
      folders.set(fanout, names);
    }
    await sandbox.writeFile(loosePath(repo, oid), zlibSync(wrapped));
    names.add(oid.slice(2));
  }
}

/** Hashes and stores objects of one type; returns their ids in order. */
export async function storeObjects(
  repo: RepoFiles,
  type: ObjectType,
  contents: Uint8Array[],
): Promise<string[]> {
  const wrapped = contents.map((content) => wrapObject(type, content));
  const oids = await sha1All(wrapped);
  await writeObjects(
    repo,
    oids.map((oid, index) => ({ oid, wrapped: wrapped[index]! })),
  );
  return oids;
}

export function parseTree(content: Uint8Array): TreeEntry[] {
  const decoder = new TextDecoder();
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space);
    const mode = Number.parseInt(decoder.decode(content.subarray(at, space)), 8);
    const name = decoder.decode(content.subarray(space + 1, nul));
    entries.push({ name, mode, oid: toHex(content.subarray(nul + 1, nul + 21)) });
    at = nul + 21;
  }
  return entries;
}

/** Compares names by code point, which is UTF-8 byte order: git's order for paths. */
export function compareNames(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    // Surrogates (code points past U+FFFF) sort after every other UTF-16 unit in UTF-8.
    const surrogateX = x >= 0xd800 && x <= 0xdfff;
    const surrogateY = y >= 0xd800 && y <= 0xdfff;
    if (surrogateX !== surrogateY) return surrogateX ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** A tree object's bytes; entries in git's order (a folder sorts as its name followed by "/"). */
export function serializeTree(entries: TreeEntry[]): Uint8Array {
  const key = (entry: TreeEntry) => (entry.mode === 0o040000 ? `${entry.name}/` : entry.name);
  const sorted = [...entries].sort((a, b) => compareNames(key(a), key(b)));
  const parts = sorted.map((entry) => encoder.encode(`${entry.mode.toString(8)} ${entry.name}\0`));
  const size = parts.reduce((sum, part) => sum + part.length + 20, 0);
  const out = new Uint8Array(size);
  let at = 0;
  sorted.forEach((entry, index) => {
    out.set(parts[index]!, at);
    at += parts[index]!.length;
    fromHex(entry.oid, out, at);
    at += 20;
  });
  return out;
}

/** Objects whose content never changes for an id: parsed trees and whole flattened trees. */
export interface ObjectCache {
  trees: Map<string, TreeEntry[]>;
  flat: Map<string, Map<string, TreeItem>>;
}

const MAX_TREES = 50_000;
const MAX_FLAT = 8;

export async function readTree(repo: RepoFiles, cache: ObjectCache, oid: string): Promise<TreeEntry[]> {
  const cached = cache.trees.get(oid);
  if (cached) return cached;
  const { type, content } = await readObject(repo, oid);
  let entries: TreeEntry[];
  if (type === "tree") entries = parseTree(content);
  else if (type === "commit") return readTree(repo, cache, treeOfCommit(content));
  else throw new Error(`git object ${oid} is a ${type}, not a tree`);
  if (cache.trees.size >= MAX_TREES) cache.trees.clear();
  cache.trees.set(oid, entries);
  return entries;
}

/** The tree a commit object records. */
export function treeOfCommit(content: Uint8Array): string {
  const head = new TextDecoder().decode(content.subarray(0, 46));
  if (!head.startsWith("tree ")) throw new Error("commit object without a tree");
  return head.slice(5, 45);
}

/** Every file of a tree (or a commit's tree) by path, sub-trees flattened; kept per tree id. */
export async function flatTree(
  repo: RepoFiles,
  cache: ObjectCache,
  oid: string,
): Promise<Map<string, TreeItem>> {
  const cached = cache.flat.get(oid);
  if (cached) return cached;
  const files = new Map<string, TreeItem>();
  const visit = async (treeOid: string, prefix: string): Promise<void> => {
    for (const entry of await readTree(repo, cache, treeOid)) {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.mode === 0o040000) await visit(entry.oid, path);
      else files.set(path, { oid: entry.oid, mode: entry.mode });
    }
  };
  await visit(oid, "");
  if (cache.flat.size >= MAX_FLAT) cache.flat.delete(cache.flat.keys().next().value!);
  cache.flat.set(oid, files);
  return files;
}

/** Sync SHA-1 for the small things (the index checksum, one tree). */
export function objectId(type: ObjectType, content: Uint8Array): string {
  return sha1Hex(wrapObject(type, content));
}
