import { lstat, mkdir, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { join, sep } from "node:path";
import type { FileChange } from "../core/checkpoints.ts";
import { gitSetupReason, isGitFolderName } from "../core/git-setup.ts";

/** Whether a symlink's target, read from its own folder, stays inside the workspace. */
function targetStaysInside(path: string, target: string): boolean {
  if (target.startsWith("/")) return false;
  const parts = path.split("/").slice(0, -1);
  for (const segment of target.split("/")) {
    if (segment === "..") {
      if (parts.length === 0) return false;
      parts.pop();
    } else if (segment !== "." && segment !== "") parts.push(segment);
  }
  return true;
}

/**
 * Applies the workspace's changes to the folder on disk: deletions deepest first, then folders,
 * files and symlinks shallowest first. Never writes through a symlink on disk, never creates a
 * symlink that points outside the folder. Returns warnings for what it skipped.
 */
export async function writeBackChanges(folder: string, all: FileChange[]): Promise<string[]> {
  const warnings: string[] = [];
  // Git's setup runs commands on this machine; inside .git only new data is written, nothing deleted.
  const changes = all.filter((change) => {
    const insideGit = change.path.split("/").some(isGitFolderName);
    const reason =
      gitSetupReason(change.path, change.after) ??
      (insideGit && change.after === null
        ? `${change.path} is inside a .git folder, where write-back deletes nothing`
        : null);
    if (reason) warnings.push(`kept out: ${reason}`);
    return reason === null;
  });
  const depth = (path: string) => path.split("/").length;
  const hostPath = (path: string) => join(folder, ...path.split("/"));
  const ensureRealParents = async (path: string): Promise<boolean> => {
    let current = folder;
    for (const segment of path.split("/").slice(0, -1)) {
      current = `${current}${sep}${segment}`;
      const stat = await lstat(current).catch(() => null);
      if (!stat) await mkdir(current);
      else if (!stat.isDirectory() || stat.isSymbolicLink()) {
        warnings.push(`skipped ${path}: ${segment} on disk is not a real folder`);
        return false;
      }
    }
    return true;
  };

  for (const change of [...changes].sort((a, b) => depth(b.path) - depth(a.path))) {
    const replaced =
      change.before !== null && change.after !== null && change.before.type !== change.after.type;
    if (change.after === null || replaced) {
      if (await ensureRealParents(change.path))
        await rm(hostPath(change.path), { recursive: true, force: true });
    }
  }
  for (const change of [...changes].sort((a, b) => depth(a.path) - depth(b.path))) {
    const entry = change.after;
    if (!entry || !(await ensureRealParents(change.path))) continue;
    const full = hostPath(change.path);
    if (entry.type === "directory") {
      await mkdir(full, { recursive: true });
    } else if (entry.type === "symlink") {
      if (!targetStaysInside(change.path, entry.target)) {
        warnings.push(`skipped symlink ${change.path} -> ${entry.target}: it points outside the workspace`);
        continue;
      }
      await unlink(full).catch(() => undefined);
      await symlink(entry.target, full);
    } else {
      const existing = await lstat(full).catch(() => null);
      if (existing?.isSymbolicLink()) await unlink(full);
      await writeFile(full, entry.data);
    }
  }
  return warnings;
}
