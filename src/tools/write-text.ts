import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import type { WorkspacePath } from "../core/workspace-path.ts";
import { isSandboxError } from "../sandbox/types.ts";

export interface WriteTextOptions {
  /** Create missing parent folders (default true). */
  createParents?: boolean;
  /** Refuse when the file exists (already_exists). Default false: replace it. */
  noOverwrite?: boolean;
  /** Append instead of replacing. */
  append?: boolean;
  /** Refuse when the resulting file would be larger (limit_exceeded, naming the limit). */
  maxBytes?: number;
  param?: string;
}

export interface WrittenText {
  path: WorkspacePath;
  bytesWritten: number;
  /** Size of the file after the write. */
  size: number;
  created: boolean;
  /** Folders created on the way, workspace-relative, outermost first. */
  dirsCreated: string[];
}

/**
 * Writes UTF-8 text (or bytes) to a workspace file: the one writer behind every dialect's write,
 * append, create and download. The whole file is checked (size, overwrite) before anything is written.
 */
export async function writeTextFile(
  context: ToolContext,
  input: unknown,
  content: string | Uint8Array,
  options: WriteTextOptions = {},
): Promise<WrittenText> {
  const param = options.param ?? "path";
  const path = await context.resolve(input, { param });
  if (path.relative === "")
    throw new ToolFailure("not_a_file", `${param} is the workspace root, which is a folder.`, {
      path: input,
    });
  const existing = await context.sandbox.lstat(path.absolute).catch((error: unknown) => {
    if (isSandboxError(error, "ENOENT") || isSandboxError(error, "ENOTDIR")) return null;
    throw error;
  });
  if (existing?.type === "directory") {
    throw new ToolFailure("not_a_file", `${String(input)} is a folder; give a file path.`, { path: input });
  }
  if (existing && options.noOverwrite) {
    throw new ToolFailure(
      "already_exists",
      `${String(input)} already exists. Pass overwrite=true to replace it.`,
      { path: input },
    );
  }
  const previous =
    existing && options.append ? await context.sandbox.readFile(path.absolute) : new Uint8Array();
  // Bytes (a download) are written as they are; text is UTF-8.
  const addition = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const size = previous.length + addition.length;
  if (options.maxBytes !== undefined && size > options.maxBytes) {
    throw new ToolFailure(
      "limit_exceeded",
      `${String(input)} would be ${size} bytes, over the ${formatBytes(options.maxBytes)} file size limit (max_file_size); nothing was written.`,
      { path: input, limit: "max_file_size", limit_bytes: options.maxBytes, size_bytes: size },
    );
  }
  const dirsCreated = options.createParents === false ? [] : await createParents(context, path);
  if (options.createParents === false) {
    const parent = path.absolute.slice(0, path.absolute.lastIndexOf("/"));
    const stat = await context.sandbox.stat(parent).catch(() => null);
    if (stat?.type !== "directory") {
      throw new ToolFailure("file_not_found", `The folder for ${String(input)} does not exist.`, {
        path: input,
      });
    }
  }
  const data = new Uint8Array(size);
  data.set(previous, 0);
  data.set(addition, previous.length);
  await context.sandbox.writeFile(path.absolute, data);
  return { path, bytesWritten: addition.length, size, created: existing === null, dirsCreated };
}

/** Creates the missing folders above a path (each checked against symlinks by the resolver). */
export async function createParents(context: ToolContext, path: WorkspacePath): Promise<string[]> {
  const segments = path.relative.split("/").slice(0, -1);
  const created: string[] = [];
  let prefix = "";
  for (const segment of segments) {
    prefix = prefix === "" ? segment : `${prefix}/${segment}`;
    const absolute = `${context.sandbox.workspaceRoot}/${prefix}`;
    const stat = await context.sandbox.lstat(absolute).catch(() => null);
    if (stat?.type === "directory") continue;
    if (stat) {
      throw new ToolFailure(
        "not_a_directory",
        `Cannot create ${path.relative}: ${prefix} is a file, not a folder.`,
        {
          path: path.relative,
          blocking: prefix,
        },
      );
    }
    await context.sandbox.mkdir(absolute);
    created.push(prefix);
  }
  return created;
}

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}
