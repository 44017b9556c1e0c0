import { failedWhenFalse } from "../core/envelope-failed.ts";
import { ToolFailure } from "../core/errors.ts";
import type { Profile, ToolSpec } from "../core/profile.ts";
import { isSandboxError } from "../sandbox/types.ts";
import { createParents, writeTextFile } from "../tools/write-text.ts";

/**
 * The person's own edits (Monaco saves, file-tree actions) as runtime calls of an internal
 * profile: validated, checkpointed, persisted and logged like any agent call. Not a published
 * dialect, so the tool console does not offer it.
 */
export const EDITOR_PROFILE = "editor";

const writeFile: ToolSpec<{ path: string; content: string }> = {
  name: "write_file",
  description: "Save a file from the editor (creates missing folders).",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path relative to the workspace" },
      content: { type: "string", description: "The whole new content" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params, context) {
    const written = await writeTextFile(context, params.path, params.content);
    return { path: written.path.relative, bytes: written.size, created: written.created };
  },
};

const createFolder: ToolSpec<{ path: string }> = {
  name: "create_folder",
  description: "Create a folder and any missing parents.",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string", description: "Folder path relative to the workspace" } },
    required: ["path"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params, context) {
    const path = await context.resolve(params.path);
    const existing = await context.sandbox.lstat(path.absolute).catch(() => null);
    if (existing) throw new ToolFailure("already_exists", `${path.relative} already exists.`);
    await createParents(context, path);
    await context.sandbox.mkdir(path.absolute);
    return { path: path.relative };
  },
};

const deletePath: ToolSpec<{ path: string }> = {
  name: "delete_path",
  description: "Delete a file or a folder with everything in it.",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string", description: "Path relative to the workspace" } },
    required: ["path"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 30_000,
  pathParams: ["path"],
  async run(params, context) {
    const path = await context.resolve(params.path);
    if (path.relative === "")
      throw new ToolFailure("invalid_params", "The workspace root cannot be deleted.");
    try {
      await context.sandbox.rm(path.absolute, { recursive: true });
    } catch (error) {
      if (isSandboxError(error, "ENOENT"))
        throw new ToolFailure("file_not_found", `${path.relative} does not exist.`);
      throw error;
    }
    return { path: path.relative };
  },
};

const renamePath: ToolSpec<{ from: string; to: string }> = {
  name: "rename_path",
  description: "Rename or move a file or folder.",
  inputSchema: {
    type: "object",
    properties: {
      from: { type: "string", description: "Current path relative to the workspace" },
      to: { type: "string", description: "New path relative to the workspace" },
    },
    required: ["from", "to"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 30_000,
  pathParams: ["from", "to"],
  async run(params, context) {
    const from = await context.resolve(params.from, { param: "from" });
    const to = await context.resolve(params.to, { param: "to" });
    if (!(await context.sandbox.lstat(from.absolute).catch(() => null)))
      throw new ToolFailure("file_not_found", `${from.relative} does not exist.`);
    if (await context.sandbox.lstat(to.absolute).catch(() => null))
      throw new ToolFailure("already_exists", `${to.relative} already exists.`);
    await createParents(context, to);
    await context.sandbox.rename(from.absolute, to.absolute);
    return { from: from.relative, to: to.relative };
  },
};

export const editorProfile: Profile = {
  name: EDITOR_PROFILE,
  title: "Editor",
  spec: "internal",
  description: "The person's own edits from the editor and the file tree.",
  tools: [writeFile, createFolder, deletePath, renamePath],
  symlinks: "block",
  // The person made the edit themselves: asking them to approve it would be noise.
  approval: { write: "auto", command: "auto" },
  envelope: {
    failed: failedWhenFalse("ok"),
    success: (call, data) => ({ ok: true, request_id: call.requestId, tool: call.tool, data }),
    failure: (call, failure) => ({
      ok: false,
      request_id: call.requestId,
      tool: call.tool,
      error: { code: failure.code, message: failure.message, details: failure.details ?? null },
    }),
  },
};
