import { stepNumber } from "../../core/artifacts.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import { truncateHeadTailBytes } from "../../core/truncate.ts";
import { normalizeWorkspacePath } from "../../core/workspace-path.ts";
import { runShell, type ShellOutcome } from "../../tools/shell.ts";
import { DENIED_PATTERNS } from "../../tools/shell-policy/rules.ts";
import { type AnyTool, keepLog, type ResultArtifact, readLogHint, report } from "./result.ts";

/** Each of stdout and stderr keeps its head and tail up to this size; the whole stream goes to an artifact. */
export const SHELL_OUTPUT_LIMIT_BYTES = 100 * 1024;
export const SHELL_DEFAULT_TIMEOUT_SEC = 60;

interface ShellParams {
  command: string;
  cwd?: string;
  timeout_sec: number;
}

const shellProperties = {
  command: { type: "string", description: "The shell command line to run (bash syntax)." },
  cwd: {
    type: "string",
    description: "Folder to run in, relative to the workspace root. Default: the workspace root.",
  },
  timeout_sec: {
    type: "integer",
    minimum: 1,
    maximum: 3600,
    default: SHELL_DEFAULT_TIMEOUT_SEC,
    description: "Seconds before the command is stopped (TIMEOUT).",
  },
};

/** Output cut to the limit, with the full streams kept (artifact and readable file) when anything was cut. */
export async function shellOutput(
  context: ToolContext,
  outcome: Pick<ShellOutcome, "stdout" | "stderr">,
): Promise<{ stdout: string; stderr: string; warnings: string[]; artifacts: ResultArtifact[] }> {
  const warnings: string[] = [];
  const artifacts: ResultArtifact[] = [];
  const streams = { stdout: outcome.stdout, stderr: outcome.stderr };
  const cut: Record<string, string> = {};
  for (const [name, text] of Object.entries(streams)) {
    const truncated = truncateHeadTailBytes(text, SHELL_OUTPUT_LIMIT_BYTES);
    cut[name] = truncated.text;
    if (truncated.truncated) {
      const path = `logs/tool_step_${stepNumber(context.step)}_${name}.txt`;
      const readable = await keepLog(context, path, text);
      artifacts.push({ type: "log", path, description: `Full ${name} (${truncated.original} bytes)` });
      warnings.push(
        `${name} was ${truncated.original} bytes; kept the first and last ${SHELL_OUTPUT_LIMIT_BYTES / 2048} KB. ${readLogHint(readable)}.`,
      );
    }
  }
  return { stdout: cut.stdout!, stderr: cut.stderr!, warnings, artifacts };
}

async function execute(params: ShellParams, context: ToolContext) {
  const outcome = await runShell(context, {
    command: params.command,
    workdir: params.cwd,
    timeoutMs: params.timeout_sec * 1000,
  });
  const output = await shellOutput(context, outcome);
  if (outcome.interrupted) {
    throw new ToolFailure("cancelled", "The command was cancelled and stopped.", {
      command: params.command,
      stdout: output.stdout,
      stderr: output.stderr,
      warnings: output.warnings,
      artifacts: output.artifacts,
    });
  }
  if (outcome.timedOut) {
    throw new ToolFailure(
      "timeout",
      `The command did not finish within ${params.timeout_sec} s and was stopped.`,
      {
        command: params.command,
        stdout: output.stdout,
        stderr: output.stderr,
        timeout_sec: params.timeout_sec,
        warnings: output.warnings,
        artifacts: output.artifacts,
      },
    );
  }
  return { outcome, output };
}

const safeShell: AnyTool = {
  name: "safe_shell",
  description: `Run a shell command after pattern-based allow/denylist checks. Preferred over shell. The command is parsed and every command in it (pipelines, &&, loops, functions, $(...), bash -c and eval strings) is checked for what it deletes, writes and runs. A denied command is not run: the result is ok=false, error_code COMMAND_BLOCKED, data {blocked: true, reason, matched_pattern, suggested_safe_alternative}. Denied: ${DENIED_PATTERNS.join("; ")}. Allowed: reading files (ls, cat, grep, find...), writing files inside the workspace (touch, mkdir, cp, mv, rm of named files, redirections), git status/diff/log, python/pytest/pip/ruff/mypy, node/npm/npx/tsc/eslint, cargo, go, make.`,
  inputSchema: {
    type: "object",
    properties: shellProperties,
    required: ["command"],
    additionalProperties: false,
  },
  kind: "command",
  deadlineMs: (params: ShellParams) => params.timeout_sec * 1000,
  pathParams: ["cwd"],
  async guard(params: ShellParams, { sandbox }) {
    // The policy parses with the shell's parser, loaded with the shell, not before the first call;
    // sed and awk scripts are parsed with their regexes, which compile on Rust's engine.
    const [{ checkCommand }] = await Promise.all([
      import("../../tools/shell-policy.ts"),
      import("../../sandbox/embedded/commands/regex/linear.ts").then((linear) => linear.loadLinearEngine()),
    ]);
    const root = sandbox.workspaceRoot;
    const cwd = params.cwd
      ? `${root}/${normalizeWorkspacePath(params.cwd, root, "cwd")}`.replace(/\/$/u, "")
      : root;
    const verdict = checkCommand(params.command, { workspaceRoot: root, cwd });
    if (!verdict.blocked) return;
    throw new ToolFailure("command_blocked", `Blocked: ${verdict.reason}`, {
      blocked: true,
      reason: verdict.reason,
      matched_pattern: verdict.matchedPattern,
      suggested_safe_alternative: verdict.suggestedSafeAlternative,
    });
  },
  async run(params: ShellParams, context) {
    const { outcome, output } = await execute(params, context);
    return report(
      { blocked: false, stdout: output.stdout, stderr: output.stderr, exit_code: outcome.exitCode },
      {
        message: `Exited with code ${outcome.exitCode} in ${(outcome.durationMs / 1000).toFixed(2)} s.`,
        warnings: output.warnings,
        artifacts: output.artifacts,
      },
    );
  },
};

const shell: AnyTool = {
  name: "shell",
  description:
    "Execute any shell command without pattern checks. Use safe_shell by default; reach for this only when you need a command not covered by the allowlist.",
  inputSchema: {
    type: "object",
    properties: shellProperties,
    required: ["command"],
    additionalProperties: false,
  },
  kind: "command",
  deadlineMs: (params: ShellParams) => params.timeout_sec * 1000,
  pathParams: ["cwd"],
  async run(params: ShellParams, context) {
    const { outcome, output } = await execute(params, context);
    return report(
      {
        command: params.command,
        exit_code: outcome.exitCode,
        stdout: output.stdout,
        stderr: output.stderr,
        success: outcome.exitCode === 0,
      },
      {
        message: `Exited with code ${outcome.exitCode} in ${(outcome.durationMs / 1000).toFixed(2)} s.`,
        warnings: output.warnings,
        artifacts: output.artifacts,
      },
    );
  },
};

export const SHELL_TOOLS: AnyTool[] = [safeShell, shell];
