import { failedWhenError } from "../core/envelope-failed.ts";
import { ToolFailure } from "../core/errors.ts";
import type { Profile, ToolSpec } from "../core/profile.ts";
import { truncateHeadTailBytes, utf8Length } from "../core/truncate.ts";
import { anyGlob, ripgrepGlob } from "../tools/glob.ts";
import { indentationBlock, renderIndentation } from "../tools/indentation.ts";
import { listTree } from "../tools/list-tree.ts";
import { applyPatchInWorkspace } from "../tools/patch/index.ts";
import { ptySessions, type SessionOutput } from "../tools/pty-sessions.ts";
import { checkLineOffset, lineSlice, readTextFile } from "../tools/read-text.ts";
import { searchText } from "../tools/search-text.ts";
import { runShell } from "../tools/shell.ts";
import { resolveFolder } from "../tools/walk.ts";

/**
 * ToolRouter (../shared/specs/001_f8d14e6aa97545e5.txt): eight tools with strict Pydantic
 * schemas, every path under the FsBoundary, and approval for the mutating and command tools.
 * Results are the spec's output models as they are; failures are {"error": {type, message, code}}.
 */

/** Output of a shell stream or one PTY read kept at most (head and tail, the middle marked). */
export const TOOLROUTER_OUTPUT_LIMIT_BYTES = 64 * 1024;
/** How long exec_command and write_stdin wait for output to settle before answering. */
const SESSION_YIELD_MS = 1000;

const nullableString = (description: string, title: string) => ({
  anyOf: [{ type: "string" }, { type: "null" }],
  default: null,
  description,
  title,
});

const listDir: ToolSpec<{ path: string; depth: number; offset: number; limit: number }> = {
  name: "list_dir",
  description:
    "List directory entries breadth-first up to a depth.\n\n" +
    "Entries are relative to `path`; directories end with '/'. Level by level: the folder's own entries " +
    "first (directories, then files, each by name), then its sub-folders' entries, and so on. `depth` is how " +
    "many levels of sub-folders are entered: 0 lists only the folder's own entries. Symlinks are listed, never " +
    "followed; .git is listed but not entered. `offset` and `limit` page through the entries.",
  inputSchema: {
    properties: {
      path: { default: ".", description: "Root directory to list from.", title: "Path", type: "string" },
      depth: {
        default: 2,
        description: "Maximum depth to traverse (BFS).",
        minimum: 0,
        title: "Depth",
        type: "integer",
      },
      offset: {
        default: 0,
        description: "Number of entries to skip from the start.",
        minimum: 0,
        title: "Offset",
        type: "integer",
      },
      limit: {
        default: 200,
        description: "Maximum number of entries to return.",
        minimum: 1,
        title: "Limit",
        type: "integer",
      },
    },
    title: "ListDirInput",
    type: "object",
    required: ["path", "depth", "offset", "limit"],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 30_000,
  pathParams: ["path"],
  async run(params, context) {
    const root = await resolveFolder(context, params.path);
    const entries = await listTree(context, root, {
      maxDepth: params.depth + 1,
      order: "breadth",
      directoriesFirst: true,
    });
    return {
      entries: entries
        .map((entry) => (entry.type === "directory" ? `${entry.relative}/` : entry.relative))
        .slice(params.offset, params.offset + params.limit),
    };
  },
};

const readFile: ToolSpec<{ path: string; offset: number; limit: number; mode: string; indent: string }> = {
  name: "read_file",
  description:
    "Read a slice of a file with optional indentation formatting.\n\n" +
    "mode='slice': lines offset .. offset+limit-1 (0-indexed) as they are; `truncated` is true when the file " +
    "goes on after them. mode='indentation': the code block around line `offset`, found by indentation: if " +
    "that line opens a block (the next line is indented deeper) the block it opens, otherwise the innermost " +
    "block containing it, from its header line to the end of the body, with a closing '}' / 'end' line and " +
    "the decorators or comments right above the header; a top-level line gets its paragraph. At most `limit` " +
    "lines (`truncated` says when the block is longer); the file's own indentation is re-rendered as one " +
    "`indent` per level, so `indent` also converts tabs or 2-space files.",
  inputSchema: {
    properties: {
      path: { description: "File path to read.", title: "Path", type: "string" },
      offset: {
        default: 0,
        description: "Starting line (0-indexed).",
        minimum: 0,
        title: "Offset",
        type: "integer",
      },
      limit: {
        default: 400,
        description: "Maximum number of lines to return.",
        minimum: 1,
        title: "Limit",
        type: "integer",
      },
      mode: {
        default: "slice",
        description: "Either 'slice' or 'indentation'.",
        title: "Mode",
        type: "string",
      },
      indent: {
        default: "    ",
        description: "Indentation prefix when mode='indentation'.",
        title: "Indent",
        type: "string",
      },
    },
    required: ["path", "offset", "limit", "mode", "indent"],
    title: "ReadFileInput",
    type: "object",
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params, context) {
    if (params.mode !== "slice" && params.mode !== "indentation") {
      throw new ToolFailure(
        "invalid_params",
        `mode must be 'slice' or 'indentation', not ${JSON.stringify(params.mode)}.`,
        {
          mode: params.mode,
        },
      );
    }
    const file = await readTextFile(context, params.path);
    if (params.mode === "slice") return lineSlice(file, params.offset, params.limit);
    checkLineOffset(file, params.offset);
    const block = indentationBlock(file.lines, params.offset, params.limit);
    const lines = renderIndentation(file.lines.slice(block.start, block.end), params.indent, block.unit);
    return { text: lines.length > 0 ? `${lines.join("\n")}\n` : "", truncated: block.truncated };
  },
};

const grepFiles: ToolSpec<{ pattern: string; path: string; include: string[] | null; limit: number }> = {
  name: "grep_files",
  description:
    "Recursive regex search with optional include globs.\n\n" +
    "Regular expressions in ripgrep's syntax (Rust regex: \\d, \\w, \\pL, [[:digit:]], (?P<name>…), no look-around or back-references), case-sensitive ((?i) for ignoring case), matched line by line. " +
    "Results are grouped by file (relative to `path`), files in path order, lines ascending, at most `limit` " +
    "matches in all. Like ripgrep, hidden files, .gitignored files and binary files are skipped. `include` " +
    "globs match a file's name ('*.py') or, with a '/', its path under `path`.",
  inputSchema: {
    properties: {
      pattern: { description: "Regex pattern to search for.", title: "Pattern", type: "string" },
      path: { default: ".", description: "Root directory to search under.", title: "Path", type: "string" },
      include: {
        anyOf: [{ items: { type: "string" }, type: "array" }, { type: "null" }],
        default: null,
        description: "Optional glob filters to include.",
        title: "Include",
      },
      limit: {
        default: 200,
        description: "Maximum matches to return.",
        minimum: 1,
        title: "Limit",
        type: "integer",
      },
    },
    required: ["pattern", "path", "include", "limit"],
    title: "GrepFilesInput",
    type: "object",
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 60_000,
  pathParams: ["path"],
  async run(params, context) {
    const root = await context.resolve(params.path);
    const result = await searchText(context, {
      root: root.relative,
      pattern: params.pattern,
      regex: true,
      caseSensitive: true,
      include: anyGlob(params.include, ripgrepGlob),
      maxMatches: params.limit,
    });
    const results: { file: string; matches: { line_num: number; line: string }[] }[] = [];
    for (const match of result.matches) {
      const file = relativeTo(root.relative, match.path);
      let group = results.at(-1);
      if (group?.file !== file) {
        group = { file, matches: [] };
        results.push(group);
      }
      group.matches.push({ line_num: match.line, line: match.text });
    }
    return { results };
  },
};

/** A workspace path relative to the searched root (a file searched directly is named by itself). */
function relativeTo(root: string, path: string): string {
  if (root === "") return path;
  if (path === root) return path.slice(path.lastIndexOf("/") + 1);
  return path.slice(root.length + 1);
}

const PATCH_SCHEMA = {
  properties: {
    patch: {
      description: "Unified diff text or freeform apply_patch envelope.",
      title: "Patch",
      type: "string",
    },
  },
  required: ["patch"],
  title: "ApplyPatchInput",
  type: "object",
  additionalProperties: false,
};

const PATCH_DETAILS =
  "\n\nEither format is accepted and recognised by its first marker. Every hunk of every file is checked " +
  "before anything is written: a patch that does not apply changes nothing. `results` lists each file the " +
  "patch wrote or deleted (bytes_written 0), with created=true for new files.";

function patchTool(name: string, description: string): ToolSpec<{ patch: string }> {
  return {
    name,
    description: description + PATCH_DETAILS,
    inputSchema: PATCH_SCHEMA,
    kind: "write",
    deadlineMs: 10_000,
    async run(params, context) {
      const applied = await applyPatchInWorkspace(context, { kind: "text", text: params.patch });
      return {
        results: applied.plan.files.map((file) => ({
          path: file.path,
          bytes_written: file.after === null ? 0 : utf8Length(file.after),
          created: file.before === null && file.after !== null,
        })),
      };
    },
  };
}

const shell: ToolSpec<{ command: string; workdir: string | null; timeout_ms: number }> = {
  name: "shell",
  description:
    "Run a shell command with truncation and timeout protections.\n\n" +
    "Runs in the workspace (or `workdir` under it). stdout and stderr are kept separately, each cut to " +
    "64 KB (head and tail kept, the middle marked) with *_truncated set. A command still running at " +
    "timeout_ms is stopped: timeout=true and returncode null. A non-zero returncode is a result, not an error.",
  inputSchema: {
    properties: {
      command: { description: "Shell command to run.", title: "Command", type: "string" },
      workdir: nullableString("Working directory (optional).", "Workdir"),
      timeout_ms: {
        default: 60000,
        description: "Timeout in milliseconds.",
        minimum: 1,
        title: "Timeout Ms",
        type: "integer",
      },
    },
    required: ["command", "workdir", "timeout_ms"],
    title: "ShellInput",
    type: "object",
    additionalProperties: false,
  },
  kind: "command",
  deadlineMs: (params) => params.timeout_ms,
  pathParams: ["workdir"],
  async run(params, context) {
    const outcome = await runShell(context, {
      command: params.command,
      workdir: params.workdir,
      timeoutMs: params.timeout_ms,
    });
    const stdout = truncateHeadTailBytes(outcome.stdout, TOOLROUTER_OUTPUT_LIMIT_BYTES);
    const stderr = truncateHeadTailBytes(outcome.stderr, TOOLROUTER_OUTPUT_LIMIT_BYTES);
    const notes: string[] = [];
    if (outcome.timedOut) notes.push(`Command timed out after ${params.timeout_ms} ms and was stopped.`);
    if (outcome.interrupted) notes.push("Command was cancelled (interrupted) and stopped.");
    if (stdout.truncated)
      notes.push(`stdout was ${stdout.original} bytes; the middle was cut to keep 64 KB.`);
    if (stderr.truncated)
      notes.push(`stderr was ${stderr.original} bytes; the middle was cut to keep 64 KB.`);
    return {
      stdout: stdout.text,
      stderr: stderr.text,
      returncode: outcome.timedOut ? null : outcome.exitCode,
      stdout_truncated: stdout.truncated,
      stderr_truncated: stderr.truncated,
      timeout: outcome.timedOut,
      message: notes.length > 0 ? notes.join(" ") : null,
    };
  },
};

/** The output model of both session tools; an exit is reported at the end of the output. */
/** A session read is cut this much under 64 KB, so that the exit line added after it stays within. */
const SESSION_READ_BYTES = TOOLROUTER_OUTPUT_LIMIT_BYTES - 64;

function sessionOutput(read: SessionOutput): { output: string; truncated: boolean } {
  const exit = read.exited
    ? `${read.output === "" || read.output.endsWith("\n") ? "" : "\n"}[process exited with code ${read.exitCode}]\n`
    : "";
  return { output: read.output + exit, truncated: read.truncated };
}

const execCommand: ToolSpec<{ session_id: string; cmd: string; workdir: string | null }> = {
  name: "exec_command",
  description:
    "Start a PTY-backed long-running command.\n\n" +
    "The session keeps running under `session_id` (which must not be in use by a running session); " +
    "send it input with write_stdin. `output` is what it printed in its first second, or sooner once it " +
    "waits for input (64 KB at most, `truncated` says when more was cut); the command keeps running and " +
    "reads stdin as it arrives. When the command has ended, the output ends with " +
    "'[process exited with code N]'. `cmd` 'bash' starts an interactive shell that keeps its state. " +
    "At most 16 sessions run at once.",
  inputSchema: {
    properties: {
      session_id: { description: "Opaque PTY session identifier.", title: "Session Id", type: "string" },
      cmd: { description: "Command to execute in PTY.", title: "Cmd", type: "string" },
      workdir: nullableString("Working directory (optional).", "Workdir"),
    },
    required: ["session_id", "cmd", "workdir"],
    title: "ExecCommandInput",
    type: "object",
    additionalProperties: false,
  },
  kind: "command",
  deadlineMs: 30_000,
  pathParams: ["workdir"],
  async run(params, context) {
    const read = await ptySessions(context).start(context, params.session_id, params.cmd, params.workdir, {
      yieldMs: SESSION_YIELD_MS,
      maxBytes: SESSION_READ_BYTES,
    });
    return sessionOutput(read);
  },
};

const writeStdin: ToolSpec<{ session_id: string; chars: string }> = {
  name: "write_stdin",
  description:
    "Send input to an existing PTY session created by `exec_command`.\n\n" +
    "`output` is everything the session printed since the last exec_command or write_stdin on it (64 KB at " +
    "most, `truncated` says when more was cut), waiting up to a second, or less once it waits for input. " +
    "Input is typed into a terminal: echoed, handed over a line at a time on '\\n'. Empty `chars` just " +
    "collects new output; '\\u0003' is Ctrl-C (stops the running command), '\\u0004' is Ctrl-D (ends its " +
    "input). When the session has ended, the output ends with '[process exited with code N]' and later writes fail.",
  inputSchema: {
    properties: {
      session_id: { description: "Existing PTY session id.", title: "Session Id", type: "string" },
      chars: { description: "Characters to write to stdin.", title: "Chars", type: "string" },
    },
    required: ["session_id", "chars"],
    title: "WriteStdinInput",
    type: "object",
    additionalProperties: false,
  },
  kind: "command",
  deadlineMs: 30_000,
  async run(params, context) {
    const read = await ptySessions(context).write(params.session_id, params.chars, {
      yieldMs: SESSION_YIELD_MS,
      maxBytes: SESSION_READ_BYTES,
    });
    return sessionOutput(read);
  },
};

/**
 * The Python exception a ToolRouter would raise for each canonical failure: its `type` in the
 * error envelope. Anything unlisted is a ToolError.
 */
export const TOOLROUTER_ERROR_TYPES: Record<string, string> = {
  invalid_params: "ValidationError",
  unknown_tool: "UnknownToolError",
  path_escape: "FsBoundaryError",
  symlink_blocked: "FsBoundaryError",
  file_not_found: "FileNotFoundError",
  not_a_file: "IsADirectoryError",
  not_a_directory: "NotADirectoryError",
  already_exists: "FileExistsError",
  binary_file: "UnicodeDecodeError",
  invalid_pattern: "PatternError",
  timeout: "TimeoutError",
  cancelled: "CancelledError",
  approval_denied: "ApprovalDenied",
  protected_path: "PermissionError",
  patch_parse_error: "PatchParseError",
  patch_hunk_fail: "PatchApplyError",
  hash_mismatch: "PatchApplyError",
  session_not_found: "SessionNotFoundError",
  session_exists: "SessionExistsError",
  session_exited: "SessionExitedError",
  limit_exceeded: "ValueError",
};

export const toolrouter: Profile = {
  name: "toolrouter",
  title: "ToolRouter",
  spec: "001_f8d14e6aa97545e5.txt",
  description:
    "Eight tools (list_dir, read_file, grep_files, apply_patch_json/freeform, shell, exec_command, write_stdin) with strict schemas and approvals.",
  tools: [
    listDir,
    readFile,
    grepFiles,
    patchTool("apply_patch_json", "Apply a unified diff."),
    patchTool(
      "apply_patch_freeform",
      "Apply a patch using the apply_patch freeform envelope (Begin/End Patch).",
    ),
    shell,
    execCommand,
    writeStdin,
  ],
  // FsBoundary resolves a path (symlinks included) and refuses what lands outside the root.
  symlinks: "inside",
  // "Logging: Requests at INFO, responses at DEBUG in the session log."
  logLevels: { request: "INFO", response: "DEBUG" },
  approval: { write: "ask", command: "ask" },
  envelope: {
    // A non-zero returncode is a result, not an error: only an `error` object fails a call.
    failed: failedWhenError,
    success: (_call, data) => data,
    failure: (_call, failure) => ({
      error: {
        // Python raises OSError (errno 28, no space left on device) on a full disk.
        type:
          failure.details?.limit === "max_written_bytes"
            ? "OSError"
            : (TOOLROUTER_ERROR_TYPES[failure.code] ?? "ToolError"),
        message: failure.message,
        code: failure.code,
      },
    }),
  },
};
