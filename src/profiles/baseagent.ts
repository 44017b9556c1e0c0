import { failedWhenFalse } from "../core/envelope-failed.ts";
import { ToolFailure } from "../core/errors.ts";
import type { Profile, ToolCall, ToolSpec } from "../core/profile.ts";
import type { JsonSchema } from "../core/schema.ts";
import { truncateMiddleOut } from "../core/truncate.ts";
import { normalizeWorkspacePath } from "../core/workspace-path.ts";
import { ripgrepGlob } from "../tools/glob.ts";
import { loadImage } from "../tools/image.ts";
import { listTree } from "../tools/list-tree.ts";
import { applyPatchInWorkspace } from "../tools/patch/index.ts";
import { type PlanStep, renderPlan, STEP_STATUSES, updatePlan } from "../tools/plan.ts";
import { readTextFile } from "../tools/read-text.ts";
import { searchText } from "../tools/search-text.ts";
import { runShell } from "../tools/shell.ts";
import { resolveFolder } from "../tools/walk.ts";
import { formatBytes, writeTextFile } from "../tools/write-text.ts";

/**
 * BaseAgent (../shared/specs/004_0bd30b74edec11f0.txt): eight tools whose output is text, every
 * output cut middle-out to 2,500 tokens, results as {success, output, inject_content} where
 * inject_content carries view_image's picture for a multimodal model. Calls are {name, arguments}.
 */

export const BASEAGENT_MAX_OUTPUT_TOKENS = 2500;

/** What a tool hands the envelope: its text, and content to add to the model's messages. */
interface BaseAgentOutput {
  output: string;
  success?: boolean;
  inject_content?: unknown;
}

function object(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: "object", properties, required, additionalProperties: false };
}

/** The spec types these as `number`: fractions are accepted (counts and positions are rounded down). */
const number = (description: string, defaultValue: number): JsonSchema => ({
  type: "number",
  description,
  default: defaultValue,
  minimum: 1,
});

const shellCommand: ToolSpec<{ command: string; workdir?: string; timeout_ms: number }> = {
  name: "shell_command",
  description:
    "Execute shell commands in the terminal. The output is what the command printed (stdout, then stderr). " +
    "A non-zero exit code or a timeout makes the call unsuccessful and is stated on the last line. Set " +
    "`workdir` rather than using `cd`; it defaults to the workspace.",
  inputSchema: object(
    {
      command: { type: "string", description: "Shell command to execute" },
      workdir: { type: "string", description: "Working directory" },
      timeout_ms: number("Timeout in milliseconds", 60_000),
    },
    ["command"],
  ),
  kind: "command",
  deadlineMs: (params) => Math.ceil(params.timeout_ms),
  pathParams: ["workdir"],
  async run(params, context): Promise<BaseAgentOutput> {
    const outcome = await runShell(context, {
      command: params.command,
      workdir: params.workdir,
      timeoutMs: Math.ceil(params.timeout_ms),
    });
    const printed = outcome.stdout + outcome.stderr;
    const separator = printed === "" || printed.endsWith("\n") ? "" : "\n";
    if (outcome.timedOut) {
      return {
        success: false,
        output: `${printed}${separator}[command timed out after ${params.timeout_ms} ms]`,
      };
    }
    if (outcome.interrupted) {
      return { success: false, output: `${printed}${separator}[command cancelled]` };
    }
    if (outcome.exitCode !== 0) {
      return { success: false, output: `${printed}${separator}[exit code: ${outcome.exitCode}]` };
    }
    return { output: printed };
  },
};

const readFile: ToolSpec<{ file_path: string; offset: number; limit: number }> = {
  name: "read_file",
  description:
    "Read file contents with line numbers: each line as 'L<n>: <text>', n counting from 1. Use offset " +
    "(1-indexed) and limit (default 2000 lines) for large files; prefer grep_files to find the place first.",
  inputSchema: object(
    {
      file_path: { type: "string", description: "Path to the file" },
      offset: number("Starting line (1-indexed)", 1),
      limit: number("Maximum lines to return", 2000),
    },
    ["file_path"],
  ),
  kind: "read",
  deadlineMs: 10_000,
  pathParams: ["file_path"],
  async run(params, context): Promise<BaseAgentOutput> {
    const file = await readTextFile(context, params.file_path, "file_path");
    const total = file.lines.length;
    const offset = Math.floor(params.offset);
    if (offset > Math.max(total, 1)) {
      throw new ToolFailure(
        "invalid_params",
        `offset ${params.offset} exceeds the file length: ${file.path.relative} has ${total} lines.`,
        { offset: params.offset, total_lines: total },
      );
    }
    const lines = file.lines.slice(offset - 1, offset - 1 + Math.floor(params.limit));
    return { output: lines.map((line, index) => `L${offset + index}: ${line}`).join("\n") };
  },
};

const writeFile: ToolSpec<{ file_path: string; content: string }> = {
  name: "write_file",
  description:
    "Create or overwrite a file with the content given, exactly. Parent directories are created " +
    "automatically. Prefer apply_patch for surgical edits; include a trailing newline.",
  inputSchema: object(
    {
      file_path: { type: "string", description: "Path to the file" },
      content: { type: "string", description: "Content to write" },
    },
    ["file_path", "content"],
  ),
  kind: "write",
  deadlineMs: 10_000,
  pathParams: ["file_path"],
  async run(params, context): Promise<BaseAgentOutput> {
    const written = await writeTextFile(context, params.file_path, params.content, { param: "file_path" });
    return {
      output: `${written.created ? "Created" : "Wrote"} ${written.path.relative} (${written.bytesWritten} bytes).`,
    };
  },
};

const applyPatch: ToolSpec<{ patch: string }> = {
  name: "apply_patch",
  description:
    "Apply surgical file modifications using patch format:\n" +
    "*** Begin Patch\n*** Add File: path\n+line\n*** Update File: path\n@@ context line\n-old\n+new\n" +
    "*** Delete File: path\n*** End Patch\n" +
    "Use '@@ <line>' to say where a change goes (the line must be in the file; the change is sought after " +
    "it), '+' for new lines, '-' for removed ones, 3 lines of context around changes, relative paths " +
    "(absolute ones are refused). Add File overwrites a file that exists. Every hunk is checked before " +
    "anything is written: a patch that does not apply changes nothing.",
  inputSchema: object({ patch: { type: "string", description: "Patch content" } }, ["patch"]),
  kind: "write",
  deadlineMs: 10_000,
  async run(params, context): Promise<BaseAgentOutput> {
    const applied = await applyPatchInWorkspace(context, {
      kind: "text",
      text: params.patch,
      formats: ["envelope"],
      relativePaths: true,
    });
    const lines = applied.plan.files.map((file) => {
      const mark =
        file.after === null ? "D" : file.before === null && file.movedFrom === undefined ? "A" : "M";
      return `${mark} ${file.path}`;
    });
    return { output: ["Success. Updated the following files:", ...lines].join("\n") };
  },
};

const grepFiles: ToolSpec<{ pattern: string; include?: string; path?: string; limit: number }> = {
  name: "grep_files",
  description:
    "Search file contents with a regular expression (ripgrep's syntax: Rust regex) and list the files that match, one " +
    "path per line, most recently modified first, at most `limit` files. Filter with `include` (a glob such " +
    "as '*.py'); search a folder with `path`. Hidden, .gitignored and binary files are skipped.",
  inputSchema: object(
    {
      pattern: { type: "string", description: "Regex pattern to search" },
      include: { type: "string", description: "Glob filter (e.g., `*.py`)" },
      path: { type: "string", description: "Search path" },
      limit: number("Max files to return", 100),
    },
    ["pattern"],
  ),
  kind: "read",
  deadlineMs: 60_000,
  pathParams: ["path"],
  async run(params, context): Promise<BaseAgentOutput> {
    const root = await context.resolve(params.path ?? ".", { param: "path" });
    const result = await searchText(context, {
      root: root.relative,
      pattern: params.pattern,
      regex: true,
      caseSensitive: true,
      ...(params.include ? { include: ripgrepGlob(params.include) } : {}),
      maxMatches: 0,
    });
    if (result.filesWithMatches.length === 0) return { output: "No matches found." };
    const workspace = context.sandbox.workspaceRoot;
    const dated = await Promise.all(
      result.filesWithMatches.map(async (path) => ({
        path,
        mtime: (await context.sandbox.stat(`${workspace}/${path}`)).mtimeMs,
      })),
    );
    dated.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return {
      output: dated
        .slice(0, Math.floor(params.limit))
        .map((file) => file.path)
        .join("\n"),
    };
  },
};

const listDir: ToolSpec<{ dir_path: string; offset: number; limit: number; depth: number }> = {
  name: "list_dir",
  description:
    "List directory contents as an indented tree: the directory on the first line, then its entries, two " +
    "spaces deeper per level, each folder followed by its contents. Directories end with '/', symbolic " +
    "links with '@'. `depth` levels are shown (1 = direct entries); `offset` (1-indexed) and `limit` page " +
    "through the entries.",
  inputSchema: object(
    {
      dir_path: { type: "string", description: "Directory path" },
      offset: number("Starting entry (1-indexed)", 1),
      limit: number("Max entries to return", 50),
      depth: number("Max directory depth", 2),
    },
    ["dir_path"],
  ),
  kind: "read",
  deadlineMs: 30_000,
  pathParams: ["dir_path"],
  async run(params, context): Promise<BaseAgentOutput> {
    const root = await resolveFolder(context, params.dir_path, "dir_path");
    const entries = await listTree(context, root, { maxDepth: Math.floor(params.depth), order: "tree" });
    const offset = Math.floor(params.offset);
    const shown = entries.slice(offset - 1, offset - 1 + Math.floor(params.limit));
    // The folder as named, not where a symlink on the way leads.
    const named = normalizeWorkspacePath(params.dir_path, context.sandbox.workspaceRoot, "dir_path");
    const lines = [named === "" ? "./" : `${named}/`];
    for (const entry of shown) {
      const mark = entry.type === "directory" ? "/" : entry.type === "symlink" ? "@" : "";
      lines.push(`${"  ".repeat(entry.depth)}${entry.name}${mark}`);
    }
    const after = offset - 1 + shown.length;
    if (after < entries.length) {
      lines.push(`[${entries.length - after} more entries; use offset=${after + 1} to see them]`);
    }
    return { output: lines.join("\n") };
  },
};

const viewImage: ToolSpec<{ path: string }> = {
  name: "view_image",
  description:
    "Load an image (PNG, JPEG, GIF, WebP or BMP) from the filesystem and show it to you: it is added to " +
    "the conversation as an image. Large images are resized automatically; an image counts as about " +
    "1000 tokens. Only use it for images the user mentioned, and not for one already in the conversation.",
  inputSchema: object({ path: { type: "string", description: "Path to image file" } }, ["path"]),
  kind: "read",
  deadlineMs: 30_000,
  pathParams: ["path"],
  async run(params, context): Promise<BaseAgentOutput> {
    const image = await loadImage(context, params.path);
    const described = `${image.path} (${image.sourceFormat.toUpperCase()}, ${image.originalWidth}x${image.originalHeight}, ${formatBytes(image.originalBytes)})`;
    const notes = [
      `Image loaded: ${described}.`,
      ...(image.resized ? [`Resized to ${image.width}x${image.height} ${image.format.toUpperCase()}.`] : []),
      ...(image.format !== image.sourceFormat && !image.resized
        ? [`Converted to ${image.format.toUpperCase()}.`]
        : []),
      ...image.warnings,
    ];
    return {
      output: notes.join("\n"),
      inject_content: [
        { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } },
      ],
    };
  },
};

const updatePlanTool: ToolSpec<{ steps: PlanStep[]; explanation?: string }> = {
  name: "update_plan",
  description:
    "Track task progress with a visible plan. Send the whole list each time: every step with a short " +
    "description (5-7 words) and a status (pending, in_progress, completed); at most one step may be " +
    "in_progress. `explanation` says why the plan changed.",
  inputSchema: object(
    {
      steps: {
        type: "array",
        description: "List of step objects",
        items: object(
          {
            description: { type: "string", description: "What the step does" },
            status: {
              type: "string",
              enum: [...STEP_STATUSES],
              description: "pending, in_progress or completed",
            },
          },
          ["description", "status"],
        ),
      },
      explanation: { type: "string", description: "Why the plan changed" },
    },
    ["steps"],
  ),
  kind: "read",
  changesSession: true,
  deadlineMs: 5_000,
  async run(params, context): Promise<BaseAgentOutput> {
    const plan = updatePlan(context, params.steps, params.explanation);
    return {
      output: plan.steps.length === 0 ? "Plan updated (no steps)." : `Plan updated:\n${renderPlan(plan)}`,
    };
  },
};

/** Every output, success or error, is cut to 2,500 tokens, keeping its start and end. */
function capped(output: string): string {
  return truncateMiddleOut(output, BASEAGENT_MAX_OUTPUT_TOKENS).text;
}

export const baseagent: Profile = {
  name: "baseagent",
  title: "BaseAgent",
  spec: "004_0bd30b74edec11f0.txt",
  description:
    "Eight tools (shell_command, read_file, write_file, apply_patch, grep_files, list_dir, view_image, update_plan) with text output cut middle-out to 2,500 tokens.",
  tools: [shellCommand, readFile, writeFile, applyPatch, grepFiles, listDir, viewImage, updatePlanTool],
  symlinks: "inside",
  approval: { write: "auto", command: "auto" },
  envelope: {
    // A command that exits non-zero or times out answers success: false, and so fails.
    failed: failedWhenFalse("success"),
    success(_call, data) {
      const result = data as BaseAgentOutput;
      return {
        success: result.success ?? true,
        output: capped(result.output),
        inject_content: result.inject_content ?? null,
      };
    },
    failure: (_call, failure) => ({
      success: false,
      output: capped(`Error: ${failure.message}`),
      inject_content: null,
    }),
  },
  /** {"name", "arguments"}, where arguments may also be the JSON string a chat API sends. */
  parseCall(raw): ToolCall | undefined {
    if (typeof raw.name !== "string") return undefined;
    let params: unknown = raw.arguments ?? {};
    if (typeof params === "string") {
      const text = params;
      try {
        params = text.trim() === "" ? {} : JSON.parse(text);
      } catch {
        throw new ToolFailure(
          "invalid_params",
          `The arguments of ${raw.name} are not valid JSON: ${text.slice(0, 200)}`,
        );
      }
    }
    if (typeof params !== "object" || params === null || Array.isArray(params)) {
      throw new ToolFailure("invalid_params", `The arguments of ${raw.name} must be a JSON object.`);
    }
    const id = raw.id ?? raw.request_id;
    return {
      tool: raw.name,
      params: params as Record<string, unknown>,
      ...(typeof id === "string" || typeof id === "number" ? { request_id: String(id) } : {}),
    };
  },
};
