import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import { isSandboxError } from "../sandbox/types.ts";
import { createParents } from "./write-text.ts";

export interface MovedEntry {
  from: string;
  to: string;
  /** Folders created above the destination, workspace-relative, outermost first. */
  dirsCreated: string[];
  wasDirectory: boolean;
}

/**
 * Moves or renames a file or folder inside the workspace. The destination's parents are created;
 * an existing destination is refused (already_exists) unless `overwrite`, which replaces it.
 */
export async function moveEntry(
  context: ToolContext,
  source: unknown,
  destination: unknown,
  options: { overwrite: boolean; srcParam?: string; dstParam?: string },
): Promise<MovedEntry> {
  // A symlink is moved (or replaced) as the link it is, never what it points to.
  const from = await context.resolve(source, { param: options.srcParam ?? "src", finalSymlink: "keep" });
  const to = await context.resolve(destination, { param: options.dstParam ?? "dst", finalSymlink: "keep" });
  if (from.relative === "" || to.relative === "") {
    throw new ToolFailure("invalid_params", "The workspace root itself cannot be moved or replaced.", {
      src: source,
      dst: destination,
    });
  }
  const stat = await context.sandbox.lstat(from.absolute).catch(() => null);
  if (!stat) {
    throw new ToolFailure("file_not_found", `Nothing to move: ${String(source)} does not exist.`, {
      path: source,
    });
  }
  if (from.relative === to.relative) {
    return { from: from.relative, to: to.relative, dirsCreated: [], wasDirectory: stat.type === "directory" };
  }
  if (stat.type === "directory" && to.relative.startsWith(`${from.relative}/`)) {
    throw new ToolFailure("invalid_params", `Cannot move the folder ${from.relative} into itself.`, {
      src: source,
      dst: destination,
    });
  }
  const existing = await context.sandbox.lstat(to.absolute).catch(() => null);
  if (existing && !options.overwrite) {
    throw new ToolFailure(
      "already_exists",
      `${to.relative} already exists. Pass overwrite=true to replace it, or choose another destination.`,
      { path: to.relative },
    );
  }
  const dirsCreated = await createParents(context, to);
  if (existing) await context.sandbox.rm(to.absolute, { recursive: true, force: true });
  await context.sandbox.rename(from.absolute, to.absolute);
  return { from: from.relative, to: to.relative, dirsCreated, wasDirectory: stat.type === "directory" };
}

export interface DeletedEntry {
  path: string;
  wasDirectory: boolean;
}

/** Deletes a file or folder; a folder needs `recursive` (recursive_required), even an empty one. */
export async function deleteEntry(
  context: ToolContext,
  input: unknown,
  options: { recursive: boolean; param?: string },
): Promise<DeletedEntry> {
  // A symlink is deleted as the link it is; what it points to stays.
  const path = await context.resolve(input, { param: options.param ?? "path", finalSymlink: "keep" });
  if (path.relative === "") {
    throw new ToolFailure("invalid_params", "The workspace root itself cannot be deleted.", { path: input });
  }
  const stat = await context.sandbox.lstat(path.absolute).catch((error: unknown) => {
    if (isSandboxError(error, "ENOENT") || isSandboxError(error, "ENOTDIR")) return null;
    throw error;
  });
  if (!stat) {
    throw new ToolFailure("file_not_found", `Nothing to delete: ${String(input)} does not exist.`, {
      path: input,
    });
  }
  const wasDirectory = stat.type === "directory";
  if (wasDirectory && !options.recursive) {
    throw new ToolFailure(
      "recursive_required",
      `${path.relative} is a folder; pass recursive=true to delete it and everything in it.`,
      { path: path.relative },
    );
  }
  await context.sandbox.rm(path.absolute, { recursive: wasDirectory });
  return { path: path.relative, wasDirectory };
}
