import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import { type ResolveOptions, resolveWorkspacePath, type WorkspacePath } from "../../core/workspace-path.ts";
import { isSandboxError, type Sandbox } from "../../sandbox/types.ts";
import type { PatchSource } from "./types.ts";

/**
 * The PatchSource of a sandbox's workspace: paths go through the one workspace resolver
 * (path_escape, symlink_blocked, per `options`), and a missing file reads as null. A folder
 * where the patch names a file is refused with not_a_file.
 */
export function sourceFromSandbox(sandbox: Sandbox, options: ResolveOptions = {}): PatchSource {
  return {
    resolve: (path) => resolveWorkspacePath(sandbox, path, options),
    read: (path) => readFromSandbox(sandbox, path),
  };
}

/**
 * The PatchSource of a tool call: the same as sourceFromSandbox, but resolving through the call's
 * own resolver, so the profile's symlink policy applies without the tool restating it.
 */
export function sourceFromContext(context: Pick<ToolContext, "sandbox" | "resolve">): PatchSource {
  return {
    resolve: (path) => context.resolve(path),
    read: (path) => readFromSandbox(context.sandbox, path),
  };
}

async function readFromSandbox(sandbox: Sandbox, path: WorkspacePath): Promise<Uint8Array | null> {
  try {
    const stat = await sandbox.stat(path.absolute);
    if (stat.type === "directory") {
      throw new ToolFailure(
        "not_a_file",
        `${path.relative} is a folder, not a file; a patch can only change files.`,
        {
          path: path.relative,
        },
      );
    }
    return await sandbox.readFile(path.absolute);
  } catch (error) {
    if (isSandboxError(error, "ENOENT") || isSandboxError(error, "ENOTDIR")) return null;
    throw error;
  }
}
