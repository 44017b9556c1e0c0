import { type Zippable, zipSync } from "fflate";
import type { SnapshotEntry } from "../sandbox/types.ts";

/**
 * The workspace as a zip: files with their bytes, empty folders kept, symlinks stored as small
 * text files naming their target (zip has no portable symlink entry).
 */
export function zipWorkspace(entries: readonly SnapshotEntry[]): Uint8Array {
  const zippable: Zippable = {};
  const parents = new Set<string>();
  for (const entry of entries) {
    const slash = entry.path.lastIndexOf("/");
    if (slash > 0) parents.add(entry.path.slice(0, slash));
  }
  for (const entry of entries) {
    if (entry.type === "file") zippable[entry.path] = entry.data;
    else if (entry.type === "symlink") zippable[entry.path] = new TextEncoder().encode(entry.target);
    else if (!parents.has(entry.path)) zippable[`${entry.path}/`] = new Uint8Array(0);
  }
  return zipSync(zippable, { level: 6 });
}
