import type { FailureCode } from "../../../core/errors.ts";
import type { HunkOutcome, PatchRequest } from "../types.ts";

/**
 * One table-driven patch case: a workspace, a request, and either the exact workspace after the
 * patch (every file, as text) or the exact failure (code, message fragments, details subset).
 */
export interface PatchCase {
  name: string;
  files: Record<string, string | Uint8Array>;
  request: PatchRequest;
  expect:
    | { files: Record<string, string>; hunks?: Partial<HunkOutcome>[] }
    | { error: { code: FailureCode; message?: (string | RegExp)[]; details?: Record<string, unknown> } };
}

/** Lines joined with "\n", ending with a newline: how most files and patches look. */
export function text(...lines: string[]): string {
  return `${lines.join("\n")}\n`;
}

/** Lines joined with "\n" and no final newline. */
export function bare(...lines: string[]): string {
  return lines.join("\n");
}

/** Lines joined with CRLF, ending with one. */
export function crlf(...lines: string[]): string {
  return `${lines.join("\r\n")}\r\n`;
}

/** A text request. */
export function patch(
  body: string,
  options: Omit<Extract<PatchRequest, { kind: "text" }>, "kind" | "text"> = {},
) {
  return { kind: "text" as const, text: body, ...options };
}

/** Numbered lines "line 1" … "line n", a file whose every line is unique. */
export function numbered(n: number, prefix = "line"): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
}
