import type { ToolContext } from "../core/profile.ts";
import { resolveFolder } from "./walk.ts";

export interface ShellRun {
  command: string;
  /** Workspace folder to run in; the workspace root when absent. */
  workdir?: unknown;
  env?: Record<string, string> | null;
  timeoutMs: number;
  stdin?: string;
}

export interface ShellOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Stopped by a cancel (Ctrl-C, Cancel, a client's cancel) rather than its deadline. */
  interrupted: boolean;
  durationMs: number;
  /** Workspace-relative folder the command ran in. */
  workdir: string;
}

/** Runs one shell command in the sandbox, in a workspace folder, with a deadline. */
export async function runShell(context: ToolContext, run: ShellRun): Promise<ShellOutcome> {
  const workdir =
    run.workdir === undefined || run.workdir === null
      ? ""
      : await resolveFolder(context, run.workdir, "workdir");
  const root = context.sandbox.workspaceRoot;
  const started = performance.now();
  const result = await context.sandbox.exec(run.command, {
    cwd: workdir === "" ? root : `${root}/${workdir}`,
    env: run.env ?? {},
    timeoutMs: run.timeoutMs,
    signal: context.signal,
    ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
  });
  return { ...result, durationMs: performance.now() - started, workdir };
}
