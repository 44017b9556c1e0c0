import { failedWhenFalse } from "../core/envelope-failed.ts";
import { ToolFailure } from "../core/errors.ts";
import type { Profile, ToolCall, ToolSpec } from "../core/profile.ts";
import type { JsonSchema } from "../core/schema.ts";
import { truncateHeadBytes } from "../core/truncate.ts";
import { httpGet, MAX_DOWNLOAD_BYTES } from "../tools/net.ts";
import { readTextFile } from "../tools/read-text.ts";
import { replaceText } from "../tools/replace-text.ts";
import { decodeText } from "../tools/text.ts";
import { parseNumberedLines, runTextFilter } from "../tools/text-filters.ts";
import { writeTextFile } from "../tools/write-text.ts";

/**
 * The sandboxed agent system (../shared/specs/003_84f4d4dfe7eebb81.txt): ten tools with hard
 * limits (32 KB files and outputs, 10 MB downloads, 1,000 replacements), every file confined to
 * the workspace (traversal refused, symlinks followed only while they stay inside), network for
 * HTTP(S) GET only. Calls are flat, {"tool": "jq", "filter": …}; results are
 * {success, tool, result} and failures {success: false, tool, error: {type, message, details}}.
 */

/** The system's file and output limit. */
export const SANDBOXED_MAX_BYTES = 32 * 1024;
export const SANDBOXED_MAX_REPLACEMENTS = 1000;

const TEXT_DEADLINE_MS = 10_000;
const NETWORK_DEADLINE_MS = 60_000;

const string = (description: string): JsonSchema => ({ type: "string", description });

function schema(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: "object", properties, required, additionalProperties: false };
}

/** Reads a file for a text tool: through the resolver, 32 KB at most. */
function readLimited(context: Parameters<ToolSpec["run"]>[1], path: string, param: string) {
  return readTextFile(context, path, { param, maxBytes: SANDBOXED_MAX_BYTES });
}

const jq: ToolSpec<{ filter: string; input: string | null }> = {
  name: "jq",
  description:
    "JSON filtering and transformation with stdin support. `input` is a JSON file in the sandbox; without " +
    "it the filter runs once on null input, as `jq -n` (a tool call has no stdin), which builds JSON from " +
    "scratch. Output is jq's own (pretty-printed), 32 KB at most: a larger output is refused.",
  inputSchema: schema(
    {
      filter: string("jq filter expression"),
      input: {
        type: ["string", "null"],
        default: null,
        description: "optional input file path (if not provided, uses stdin)",
      },
    },
    ["filter"],
  ),
  kind: "read",
  deadlineMs: TEXT_DEADLINE_MS,
  pathParams: ["input"],
  async run(params, context) {
    const file = params.input === null ? null : await readTextFile(context, params.input, "input");
    const result = await runTextFilter(context, {
      filter: "jq",
      program: params.filter,
      input: file?.text ?? null,
      maxOutputBytes: SANDBOXED_MAX_BYTES,
    });
    return { output: result.output, input: file?.path.relative ?? null };
  },
};

const grep: ToolSpec<{ pattern: string; file: string }> = {
  name: "grep",
  description:
    "Pattern search with line numbers for file content. The pattern is a basic regular expression, as " +
    "plain grep reads it (\\| for alternation), case-sensitive. Returns each matching line with its " +
    "1-based number; no match is an empty list. Files up to 32 KB.",
  inputSchema: schema({ pattern: string("search pattern"), file: string("file path to search in") }, [
    "pattern",
    "file",
  ]),
  kind: "read",
  deadlineMs: TEXT_DEADLINE_MS,
  pathParams: ["file"],
  async run(params, context) {
    const file = await readLimited(context, params.file, "file");
    const result = await runTextFilter(context, {
      filter: "grep",
      program: params.pattern,
      input: file.text,
    });
    const matches = parseNumberedLines(result.output);
    return { file: file.path.relative, matches, count: matches.length };
  },
};

const sed: ToolSpec<{ expression: string; file: string }> = {
  name: "sed",
  description:
    "Read-only line extraction using sed expressions, in GNU sed 4.9's syntax (basic regular expressions " +
    "with \\+ \\? \\| \\{n,m\\}, back-references, [[:classes:]], the I and M flags, \\U \\L in replacements). " +
    "Runs as `sed -n`: only what the expression prints " +
    "is returned, e.g. '1,10p', '/start/,/end/p', '$p', 's/old/new/p'. Commands that write or read other " +
    "files or run commands (w, W, r, R, e, and the s flags w and e) and options such as -i are refused; the " +
    "file never changes. Files and output up to 32 KB.",
  inputSchema: schema(
    { expression: string("sed expression for line extraction"), file: string("file path to process") },
    ["expression", "file"],
  ),
  kind: "read",
  deadlineMs: TEXT_DEADLINE_MS,
  pathParams: ["file"],
  async run(params, context) {
    const file = await readLimited(context, params.file, "file");
    const result = await runTextFilter(context, {
      filter: "sed",
      program: params.expression,
      input: file.text,
      maxOutputBytes: SANDBOXED_MAX_BYTES,
    });
    // sed's `q N` / `Q N` is part of the answer.
    return {
      file: file.path.relative,
      output: result.output,
      ...(result.exitCode !== 0 ? { exit_code: result.exitCode } : {}),
    };
  },
};

const awk: ToolSpec<{ script: string; file: string }> = {
  name: "awk",
  description:
    "Field and line processing using awk scripts in gawk's dialect (extended regular expressions, gensub, " +
    "length(array), and/or/xor), e.g. '{ print $1, $3 }', or 'BEGIN { FS = \",\" } { print $2 }' " +
    "for CSV. `exit N` comes back as exit_code. The script reads only its file: system(), getline from a command or another file, " +
    "pipes and print/printf redirection to files are refused. Files and output up to 32 KB.",
  inputSchema: schema({ script: string("awk script"), file: string("file path to process") }, [
    "script",
    "file",
  ]),
  kind: "read",
  deadlineMs: TEXT_DEADLINE_MS,
  pathParams: ["file"],
  async run(params, context) {
    const file = await readLimited(context, params.file, "file");
    const result = await runTextFilter(context, {
      filter: "awk",
      program: params.script,
      input: file.text,
      maxOutputBytes: SANDBOXED_MAX_BYTES,
    });
    // awk's `exit N` is part of the answer.
    return {
      file: file.path.relative,
      output: result.output,
      ...(result.exitCode !== 0 ? { exit_code: result.exitCode } : {}),
    };
  },
};

const curl: ToolSpec<{ url: string }> = {
  name: "curl",
  description:
    "HTTP download with size limit enforcement. GET over http or https, to URLs the user has allowed; " +
    "redirects are followed and each one checked again. A download over 10 MB is refused. The body comes " +
    "back as text, its first 32 KB (`truncated` says when there was more); a binary body is not shown — " +
    "save it with download_file. An HTTP error status is a result, with its body.",
  inputSchema: schema({ url: string("URL to download") }, ["url"]),
  kind: "read",
  openWorld: true,
  deadlineMs: NETWORK_DEADLINE_MS,
  async run(params, context) {
    const response = await httpGet(context, params.url, { maxBytes: MAX_DOWNLOAD_BYTES });
    const text = decodeText(response.body);
    const shown = text === null ? null : truncateHeadBytes(text, SANDBOXED_MAX_BYTES);
    return {
      url: response.url,
      final_url: response.finalUrl,
      status: response.status,
      content_type: response.contentType,
      bytes: response.body.length,
      body: shown?.text ?? null,
      truncated: shown?.truncated ?? false,
      binary: text === null,
    };
  },
};

const downloadFile: ToolSpec<{ url: string; path: string }> = {
  name: "download_file",
  description:
    "Save HTTP resource to sandbox with size validation. GET over http or https, to URLs the user has " +
    "allowed, redirects checked hop by hop; over 10 MB is refused while downloading and nothing is saved. " +
    "Only a 2xx response is saved; folders on the way are created and an existing file is replaced.",
  inputSchema: schema({ url: string("URL to download"), path: string("local path to save file") }, [
    "url",
    "path",
  ]),
  kind: "write",
  openWorld: true,
  deadlineMs: NETWORK_DEADLINE_MS,
  pathParams: ["path"],
  async run(params, context) {
    // Where it would go is checked before anything is fetched.
    await context.resolve(params.path);
    const response = await httpGet(context, params.url, { maxBytes: MAX_DOWNLOAD_BYTES });
    if (response.status < 200 || response.status > 299) {
      throw new ToolFailure(
        "network_error",
        `${response.finalUrl} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}; nothing was saved.`,
        { url: params.url, status: response.status },
      );
    }
    const written = await writeTextFile(context, params.path, response.body, {
      maxBytes: MAX_DOWNLOAD_BYTES,
    });
    return {
      url: response.url,
      final_url: response.finalUrl,
      path: written.path.relative,
      bytes: written.bytesWritten,
      status: response.status,
      content_type: response.contentType,
    };
  },
};

const writeFile: ToolSpec<{ path: string; content: string }> = {
  name: "write_file",
  description:
    "Create or overwrite file with size check. Content up to 32 KB (UTF-8); larger is refused and nothing " +
    "is written. Folders on the way are created.",
  inputSchema: schema({ path: string("file path to write"), content: string("content to write") }, [
    "path",
    "content",
  ]),
  kind: "write",
  deadlineMs: TEXT_DEADLINE_MS,
  pathParams: ["path"],
  async run(params, context) {
    const written = await writeTextFile(context, params.path, params.content, {
      maxBytes: SANDBOXED_MAX_BYTES,
    });
    return { path: written.path.relative, bytes_written: written.bytesWritten, created: written.created };
  },
};

const appendFile: ToolSpec<{ path: string; content: string }> = {
  name: "append_file",
  description:
    "Append content to file with size check. The file is created if missing; the whole file after " +
    "appending must be 32 KB or less, otherwise nothing is appended.",
  inputSchema: schema({ path: string("file path to append to"), content: string("content to append") }, [
    "path",
    "content",
  ]),
  kind: "write",
  deadlineMs: TEXT_DEADLINE_MS,
  pathParams: ["path"],
  async run(params, context) {
    const written = await writeTextFile(context, params.path, params.content, {
      append: true,
      maxBytes: SANDBOXED_MAX_BYTES,
    });
    return { path: written.path.relative, bytes_appended: written.bytesWritten, size: written.size };
  },
};

const readFile: ToolSpec<{ path: string }> = {
  name: "read_file",
  description: "Read file content with size limit. UTF-8 text files up to 32 KB; a larger file is refused.",
  inputSchema: schema({ path: string("file path to read") }, ["path"]),
  kind: "read",
  deadlineMs: TEXT_DEADLINE_MS,
  pathParams: ["path"],
  async run(params, context) {
    const file = await readLimited(context, params.path, "path");
    return { path: file.path.relative, content: file.text, size: file.bytes };
  },
};

const textReplace: ToolSpec<{ file: string; search: string; replace: string }> = {
  name: "text_replace",
  description:
    "Safe search and replace with hit counting. Replaces every occurrence of the exact text (not a regex) " +
    "and returns how many there were; none is a result (hits 0, file unchanged). More than 1,000 hits, or a " +
    "file over 32 KB before or after, is refused and nothing changes.",
  inputSchema: schema(
    {
      file: string("file path to process"),
      search: string("text to search for"),
      replace: string("text to replace with"),
    },
    ["file", "search", "replace"],
  ),
  kind: "write",
  deadlineMs: TEXT_DEADLINE_MS,
  pathParams: ["file"],
  async run(params, context) {
    const replaced = await replaceText(context, params.file, params.search, params.replace, {
      mode: "all",
      maxBytes: SANDBOXED_MAX_BYTES,
      maxReplacements: SANDBOXED_MAX_REPLACEMENTS,
      allowNoMatch: true,
      param: "file",
    });
    return {
      file: replaced.path,
      hits: replaced.hits,
      size: new TextEncoder().encode(replaced.after).length,
    };
  },
};

/** Error types in the spec's words where it has them ("path traversal", "symlinks pointing outside"). */
const ERROR_TYPES: Record<string, string> = {
  invalid_params: "invalid_arguments",
  path_escape: "path_traversal",
  symlink_blocked: "symlink_outside_sandbox",
  command_blocked: "operation_not_allowed",
  protected_path: "operation_not_allowed",
  abnormal_exit: "command_failed",
};

/** Limit failures say which kind of limit they hit. */
const LIMIT_TYPES: Record<string, string> = {
  max_file_size: "size_limit_exceeded",
  max_output_size: "size_limit_exceeded",
  max_download_size: "size_limit_exceeded",
  max_written_bytes: "size_limit_exceeded",
  max_replacements: "replacement_limit_exceeded",
  max_loop_iterations: "iteration_limit_exceeded",
};

export function sandboxedErrorType(code: string, details: Record<string, unknown> | undefined): string {
  if (code === "limit_exceeded") return LIMIT_TYPES[String(details?.limit)] ?? "limit_exceeded";
  return ERROR_TYPES[code] ?? code;
}

export const sandboxed: Profile = {
  name: "sandboxed",
  title: "Sandboxed agent system",
  spec: "003_84f4d4dfe7eebb81.txt",
  description:
    "Ten tools (jq, grep, sed, awk, curl, download_file, write_file, append_file, read_file, text_replace) with 32 KB and 10 MB limits.",
  tools: [jq, grep, sed, awk, curl, downloadFile, writeFile, appendFile, readFile, textReplace],
  symlinks: "inside",
  // The spec: "Path traversal attempts (../) are blocked", even when they would stay inside.
  parentSegments: "refuse",
  approval: { write: "auto", command: "auto" },
  envelope: {
    failed: failedWhenFalse("success"),
    success: (call, data) => ({ success: true, tool: call.tool, result: data }),
    failure: (call, failure) => ({
      success: false,
      tool: call.tool,
      error: {
        type: sandboxedErrorType(failure.code, failure.details),
        message: failure.message,
        details: { code: failure.code, ...failure.details },
      },
    }),
  },
  parseCall(raw): ToolCall | undefined {
    if (typeof raw.tool !== "string") return undefined;
    const { tool, request_id, ...params } = raw;
    return {
      tool,
      params,
      ...(typeof request_id === "string" || typeof request_id === "number"
        ? { request_id: String(request_id) }
        : {}),
    };
  },
};
