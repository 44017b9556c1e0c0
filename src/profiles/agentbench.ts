import { stepNumber } from "../core/artifacts.ts";
import { failedWhenStatusError } from "../core/envelope-failed.ts";
import { ToolFailure } from "../core/errors.ts";
import type { CallInfo, Profile, ToolContext, ToolSpec } from "../core/profile.ts";
import { truncateHeadTailBytes, utf8Length } from "../core/truncate.ts";
import { ripgrepGlob } from "../tools/glob.ts";
import { listFiles } from "../tools/list-files.ts";
import { applyPatchInWorkspace } from "../tools/patch/index.ts";
import { lineRange, readTextFile } from "../tools/read-text.ts";
import { searchText } from "../tools/search-text.ts";
import { runShell } from "../tools/shell.ts";

/**
 * AgentBench (../shared/specs/000_ff84b711f219dac3.txt): five tools, ToolRequest / ToolResult /
 * ToolError envelopes with timestamps, events.jsonl, artifacts under diffs/ and logs/.
 */

const MAX_LISTED_FILES = 1000;
const READ_TRUNCATE_ABOVE_LINES = 10_000;
const READ_KEEP_LINES = 5_000;
const RUN_OUTPUT_LIMIT_BYTES = 100 * 1024;
export const AGENTBENCH_RUN_DEFAULT_TIMEOUT_SEC = 120;

const listFilesTool: ToolSpec<{ root: string; glob: string | null }> = {
  name: "list_files",
  description: "List files in a directory within the workspace.",
  inputSchema: {
    type: "object",
    title: "ListFilesParams",
    properties: {
      root: { type: "string", default: ".", description: "Directory to list (relative to workspace)" },
      glob: {
        anyOf: [{ type: "string" }, { type: "null" }],
        default: null,
        description: "Glob pattern to filter files",
      },
    },
    required: [],
  },
  kind: "read",
  deadlineMs: 30_000,
  pathParams: ["root"],
  async run(params, context) {
    const listed = await listFiles(context, {
      root: params.root,
      glob: params.glob,
      limit: MAX_LISTED_FILES,
    });
    return { files: listed.files, truncated: listed.truncated, total_files: listed.total };
  },
};

const readFileTool: ToolSpec<{ path: string; start_line: number | null; end_line: number | null }> = {
  name: "read_file",
  description:
    "Read file contents with optional line range (1-indexed, inclusive). `content` is the lines joined with \\n: CRLF and CR endings read as \\n, a BOM and the final newline are left out; an empty file is empty content with total_lines 0. Files over 10,000 lines keep their first and last 5,000 lines.",
  inputSchema: {
    type: "object",
    title: "ReadFileParams",
    properties: {
      path: { type: "string", description: "File path relative to workspace" },
      start_line: {
        anyOf: [{ type: "integer" }, { type: "null" }],
        default: null,
        description: "Start line (1-indexed, inclusive)",
      },
      end_line: {
        anyOf: [{ type: "integer" }, { type: "null" }],
        default: null,
        description: "End line (1-indexed, inclusive)",
      },
    },
    required: ["path"],
  },
  kind: "read",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params, context) {
    const file = await readTextFile(context, params.path);
    const total = file.lines.length;
    const range = lineRange(total, params.start_line, params.end_line);
    const selected = file.lines.slice(range.start - 1, range.end);
    if (selected.length <= READ_TRUNCATE_ABOVE_LINES) {
      return {
        content: selected.join("\n"),
        truncated: false,
        total_lines: total,
        start_line: range.start,
        end_line: range.end,
      };
    }
    // Large files keep their first and last 5,000 lines; the metadata says which lines were left out.
    const head = selected.slice(0, READ_KEEP_LINES);
    const tail = selected.slice(-READ_KEEP_LINES);
    return {
      content: [...head, ...tail].join("\n"),
      truncated: true,
      total_lines: total,
      start_line: range.start,
      end_line: range.end,
      omitted_start_line: range.start + READ_KEEP_LINES,
      omitted_end_line: range.end - READ_KEEP_LINES,
      omitted_lines: selected.length - 2 * READ_KEEP_LINES,
    };
  },
};

const searchTool: ToolSpec<{
  query: string;
  glob: string | null;
  max_results: number;
  context_lines: number;
  is_regex: boolean;
}> = {
  name: "search",
  description:
    "Search for text patterns across files, case-insensitively, line by line. With is_regex the query is a regular expression in ripgrep's syntax (Rust regex: \\d, \\pL, [[:digit:]], (?P<name>…), (?-i) to turn case back on); otherwise it is literal text.",
  inputSchema: {
    type: "object",
    title: "SearchParams",
    properties: {
      query: { type: "string", description: "Text or regex pattern" },
      glob: {
        anyOf: [{ type: "string" }, { type: "null" }],
        default: null,
        description: "File pattern to search in",
      },
      max_results: { type: "integer", default: 50, minimum: 1, description: "Maximum matches to return" },
      context_lines: {
        type: "integer",
        default: 2,
        minimum: 0,
        maximum: 10,
        description: "Lines of context (0-10)",
      },
      is_regex: { type: "boolean", default: false, description: "Treat query as regex" },
    },
    required: ["query"],
  },
  kind: "read",
  deadlineMs: 60_000,
  async run(params, context) {
    const result = await searchText(context, {
      root: "",
      pattern: params.query,
      regex: params.is_regex,
      caseSensitive: false,
      ...(params.glob ? { include: ripgrepGlob(params.glob) } : {}),
      contextLines: params.context_lines,
      maxMatches: params.max_results,
    });
    return {
      matches: result.matches.map((match) => ({
        file: match.path,
        line: match.line,
        content: match.text,
        context_before: match.before,
        context_after: match.after,
      })),
      truncated: result.truncated,
      total_matches: result.totalMatches,
    };
  },
};

const applyPatchTool: ToolSpec<{ unified_diff: string }> = {
  name: "apply_patch",
  description:
    "Apply a unified diff patch to files, as GNU `patch -p1` does at its default fuzz: paths relative to the workspace with git's a/ and b/ prefixes; each hunk sought from its @@ line numbers (after the offset of the hunks before it), lines compared exactly (the newline at end of file too, per `\\ No newline at end of file`), and up to 2 context lines at a hunk's ends left unchecked (fuzz) when nothing matches exactly; data.hunks says where each hunk went and with what fuzz. Every hunk of every file is checked before anything is written (the dry run): a patch that does not apply changes nothing.",
  inputSchema: {
    type: "object",
    title: "ApplyPatchParams",
    properties: { unified_diff: { type: "string", description: "Standard unified diff format" } },
    required: ["unified_diff"],
  },
  kind: "write",
  deadlineMs: 10_000,
  async run(params, context) {
    const applied = await applyPatchInWorkspace(context, {
      kind: "text",
      text: params.unified_diff,
      formats: ["unified"],
      mode: "gnu-patch",
    });
    return {
      changed_files: applied.changedFiles,
      patch_size_bytes: utf8Length(params.unified_diff),
      patch_path: applied.artifactPath,
      hunks: applied.plan.hunks,
    };
  },
};

const runTool: ToolSpec<{ command: string; timeout_sec: number | null; env: Record<string, string> | null }> =
  {
    name: "run",
    description: "Execute a command in the sandbox.",
    inputSchema: {
      type: "object",
      title: "RunParams",
      properties: {
        command: { type: "string", description: "Shell command to execute" },
        timeout_sec: {
          anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }],
          default: null,
          description: "Override default timeout",
        },
        env: {
          anyOf: [{ type: "object", additionalProperties: { type: "string" } }, { type: "null" }],
          default: null,
          description: "Additional environment variables",
        },
      },
      required: ["command"],
    },
    kind: "command",
    deadlineMs: (params) => (params.timeout_sec ?? AGENTBENCH_RUN_DEFAULT_TIMEOUT_SEC) * 1000,
    async run(params, context) {
      const outcome = await runShell(context, {
        command: params.command,
        env: params.env,
        timeoutMs: context.deadlineMs,
      });
      const stdout = truncateHeadTailBytes(outcome.stdout, RUN_OUTPUT_LIMIT_BYTES);
      const stderr = truncateHeadTailBytes(outcome.stderr, RUN_OUTPUT_LIMIT_BYTES);
      const paths = saveRunLogs(context, stdout.text, stderr.text);
      const data = {
        exit_code: outcome.timedOut ? null : outcome.exitCode,
        ...paths,
        stdout: stdout.text,
        stderr: stderr.text,
        stdout_truncated: stdout.truncated,
        stderr_truncated: stderr.truncated,
      };
      if (outcome.timedOut) {
        throw new ToolFailure(
          "timeout",
          `Command exceeded its ${context.deadlineMs / 1000} s timeout and was stopped.`,
          {
            ...data,
            timeout_sec: context.deadlineMs / 1000,
          },
        );
      }
      if (outcome.interrupted) {
        throw new ToolFailure("cancelled", "Command was cancelled and stopped.", data);
      }
      if (outcome.exitCode !== 0) {
        throw new ToolFailure("abnormal_exit", `Command exited with code ${outcome.exitCode}.`, data);
      }
      return data;
    },
  };

function saveRunLogs(
  context: ToolContext,
  stdout: string,
  stderr: string,
): { stdout_path: string; stderr_path: string } {
  const stdoutPath = `logs/tool_step_${stepNumber(context.step)}_stdout.txt`;
  const stderrPath = `logs/tool_step_${stepNumber(context.step)}_stderr.txt`;
  context.artifacts.put(stdoutPath, stdout);
  context.artifacts.put(stderrPath, stderr);
  return { stdout_path: stdoutPath, stderr_path: stderrPath };
}

/** AgentBench's error_type names, where they differ from the canonical codes. */
const ERROR_TYPES: Record<string, string> = {
  invalid_pattern: "ripgrep_error",
  invalid_params: "invalid_params",
};

const RUN_FIELDS = ["exit_code", "stdout_path", "stderr_path"] as const;

function timestamps(call: CallInfo) {
  return {
    started_at: call.startedAt.toISOString(),
    ended_at: call.endedAt.toISOString(),
    duration_sec: (call.endedAt.getTime() - call.startedAt.getTime()) / 1000,
  };
}

function runFields(
  source: Record<string, unknown> | undefined,
): Record<(typeof RUN_FIELDS)[number], unknown> {
  return {
    exit_code: (source?.exit_code as number | null | undefined) ?? null,
    stdout_path: (source?.stdout_path as string | undefined) ?? null,
    stderr_path: (source?.stderr_path as string | undefined) ?? null,
  };
}

export const agentbench: Profile = {
  name: "agentbench",
  title: "AgentBench",
  spec: "000_ff84b711f219dac3.txt",
  description:
    "Five tools (list_files, read_file, search, apply_patch, run) with ToolResult envelopes and artifacts.",
  tools: [listFilesTool, readFileTool, searchTool, applyPatchTool, runTool],
  symlinks: "block",
  approval: { write: "auto", command: "auto" },
  envelope: {
    failed: failedWhenStatusError,
    success(call, data) {
      return {
        request_id: call.requestId,
        tool: call.tool,
        status: "success",
        ...timestamps(call),
        data: data ?? null,
        error: null,
        ...runFields(call.tool === "run" ? (data as Record<string, unknown>) : undefined),
      };
    },
    failure(call, failure) {
      const details = failure.details;
      const isRun = call.tool === "run" && details !== undefined && "stdout_path" in details;
      return {
        request_id: call.requestId,
        tool: call.tool,
        status: "error",
        ...timestamps(call),
        data: isRun ? details : null,
        error: {
          error_type: ERROR_TYPES[failure.code] ?? failure.code,
          message: failure.message,
          details: details ?? null,
        },
        ...runFields(isRun ? details : undefined),
      };
    },
  },
};
