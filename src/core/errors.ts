import { isSandboxError } from "../sandbox/types.ts";

/**
 * The one failure type of every capability. Capabilities throw it with a canonical code;
 * each profile maps the code onto its own dialect (agentbench `error_type`, coding-agent
 * `error_code`, ...). The message says what went wrong and what to do next.
 */
export type FailureCode =
  | "invalid_params"
  | "unknown_tool"
  | "path_escape"
  | "symlink_blocked"
  | "file_not_found"
  | "not_a_file"
  | "not_a_directory"
  | "already_exists"
  | "directory_not_empty"
  | "recursive_required"
  | "binary_file"
  | "invalid_pattern"
  | "limit_exceeded"
  | "timeout"
  | "cancelled"
  | "approval_denied"
  | "command_blocked"
  | "tool_not_allowed"
  | "read_only_path"
  | "protected_path"
  | "patch_parse_error"
  | "patch_hunk_fail"
  | "hash_mismatch"
  | "match_not_found"
  | "ambiguous_match"
  | "nothing_to_commit"
  | "confirmation_required"
  | "not_a_git_repo"
  | "git_error"
  | "not_serializable"
  | "invalid_key"
  | "no_dependency_file"
  | "unsupported_format"
  | "read_error"
  | "network_denied"
  | "network_error"
  | "session_not_found"
  | "session_exists"
  | "session_exited"
  | "unsupported_image"
  | "tool_unavailable"
  | "sandbox_error"
  | "abnormal_exit"
  | "internal_error";

export class ToolFailure extends Error {
  readonly code: FailureCode;
  readonly details: Record<string, unknown> | undefined;
  constructor(code: FailureCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "ToolFailure";
    this.code = code;
    this.details = details;
  }
}

export function isToolFailure(error: unknown): error is ToolFailure {
  return error instanceof ToolFailure || (error as { name?: unknown } | null)?.name === "ToolFailure";
}

/** Turns anything thrown into a ToolFailure, keeping the message of unexpected errors. */
export function asToolFailure(error: unknown): ToolFailure {
  if (isToolFailure(error)) return error;
  if (isSandboxError(error, "ENOSPC")) return writtenBytesExceeded(error.path, error.message);
  const message = error instanceof Error ? error.message : String(error);
  return new ToolFailure("internal_error", `Unexpected error: ${message}`);
}

/**
 * The sandbox's filesystem holds what a run writes in memory, up to a quota (ENOSPC past it, as a
 * full disk says): each profile reports it as its own limit error.
 */
function writtenBytesExceeded(path: string, message: string): ToolFailure {
  const limit = Number(/\((\d+) bytes\)/u.exec(message)?.[1] ?? Number.NaN);
  const size = Number.isFinite(limit) ? ` ${Math.round(limit / (1024 * 1024))} MB` : "";
  return new ToolFailure(
    "limit_exceeded",
    `No space left to write ${path}: the files this run has written would pass its${size} quota (max_written_bytes; toolroom's --max-written-mb sets it). The write was refused; delete or shorten files the run wrote to make room.`,
    { path, limit: "max_written_bytes", ...(Number.isFinite(limit) ? { limit_bytes: limit } : {}) },
  );
}
