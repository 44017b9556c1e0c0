import { failedWhenFalse } from "../../core/envelope-failed.ts";
import type { CallInfo, Envelope, ToolContext, ToolSpec } from "../../core/profile.ts";

/** One entry of ToolResult.artifacts: a file the call produced beside the workspace. */
export interface ResultArtifact {
  type: string;
  path: string;
  description: string;
}

/** Where full logs of cut output are kept in the sandbox, outside the workspace (never written back). */
export const READABLE_LOG_FOLDER = "/tmp/toolroom/logs";

/**
 * Saves a log whose output was cut twice: as the run's artifact `artifact` (the run folder, the
 * UI's download) and as a file in the sandbox the agent can read with a shell command, whose path
 * is returned. Artifacts live outside the sandbox, so naming them would send the agent nowhere.
 */
export async function keepLog(context: ToolContext, artifact: string, text: string): Promise<string> {
  context.artifacts.put(artifact, text);
  const readable = `${READABLE_LOG_FOLDER}/${artifact.slice(artifact.lastIndexOf("/") + 1)}`;
  await context.sandbox.mkdir(READABLE_LOG_FOLDER, { recursive: true });
  await context.sandbox.writeFile(readable, text);
  return readable;
}

/** How a warning tells the agent to read a kept log. */
export function readLogHint(readable: string): string {
  return `Full text in ${readable} (read it with a shell command, e.g. \`tail -n 200 ${readable}\` or \`grep -n error ${readable}\`)`;
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
