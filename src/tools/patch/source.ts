import { ToolFailure } from "../../core/errors.ts";
import { type ResolveOptions, resolveWorkspacePath } from "../../core/workspace-path.ts";
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
    async read(path) {
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
    },
  };
}
