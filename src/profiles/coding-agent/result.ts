import { failedWhenFalse } from "../../core/envelope-failed.ts";
import type { CallInfo, Envelope, ToolSpec } from "../../core/profile.ts";

/** One entry of ToolResult.artifacts: a file the call produced beside the workspace. */
export interface ResultArtifact {
  type: string;
  path: string;
  description: string;
}

/** The coding-agent ToolResult, exactly as the spec prints it. */
export interface ToolResult {
  ok: boolean;
  error_code: string | null;
  message: string;
  data: Record<string, unknown>;
  warnings: string[];
  artifacts: ResultArtifact[];
}

interface Extras {
  message?: string;
  warnings?: string[];
  artifacts?: ResultArtifact[];
}

/**
 * A tool's message, warnings and artifacts ride beside its data (not inside it), so the runtime's
 * `data` stays the plain structured output the spec documents.
 */
const extras = new WeakMap<object, Extras>();

export function report<T extends object>(data: T, extra: Extras): T {
  extras.set(data, extra);
  return data;
}

/** Canonical failure codes in the spec's UPPER_SNAKE form (file_not_found → FILE_NOT_FOUND). */
export function errorCode(code: string): string {
  return code.toUpperCase();
}

export const codingAgentEnvelope: Envelope = {
  failed: failedWhenFalse("ok"),
  success(call: CallInfo, data: unknown): ToolResult {
    const record =
      typeof data === "object" && data !== null ? (data as Record<string, unknown>) : { value: data };
    const extra = typeof data === "object" && data !== null ? extras.get(data) : undefined;
    return {
      ok: true,
      error_code: null,
      message: extra?.message ?? `${call.tool} succeeded.`,
      data: record,
      warnings: extra?.warnings ?? [],
      artifacts: extra?.artifacts ?? [],
    };
  },
  failure(_call, failure): ToolResult {
    const details = failure.details ?? {};
    const { warnings, artifacts, ...data } = details as Record<string, unknown> & {
      warnings?: string[];
      artifacts?: ResultArtifact[];
    };
    return {
      ok: false,
      error_code: errorCode(failure.code),
      message: failure.message,
      data,
      warnings: Array.isArray(warnings) ? warnings : [],
      artifacts: Array.isArray(artifacts) ? artifacts : [],
    };
  },
};

// biome-ignore lint/suspicious/noExplicitAny: a table of tools whose params differ
export type AnyTool = ToolSpec<any>;

/** "1 file" / "2 files". */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
