/**
 * safe_shell's command policy, over the parsed command (just-bash's bash parser), not over its
 * spelling: every simple command the line can run — in pipelines, lists, loops, functions,
 * substitutions, `bash -c` and `eval` strings — is checked for what it deletes, writes and runs.
 * Refused: recursive and bulk deletes, writes outside the workspace or into system folders, git
 * beyond status/diff/log, writes to git's setup, the machine-level classes (shutdown, mkfs, dd to
 * a device, fork bombs, sudo, curl | sh), and whatever cannot be known before it runs. A refusal
 * always names its class, the reason and a safer way.
 */
import { Analysis } from "./shell-policy/analyzer.ts";

export { DENIED_PATTERNS } from "./shell-policy/rules.ts";

export interface PolicyVerdict {
  blocked: boolean;
  reason?: string;
  /** The class of refusal, or the narrower pattern that matched ("rm -r", "git push --force"). */
  matchedPattern?: string;
  suggestedSafeAlternative?: string;
}

export interface PolicyOptions {
  /** Absolute path of the workspace in the sandbox (default /workspace). */
  workspaceRoot?: string;
  /** Absolute folder the command runs in (default: the workspace root). */
  cwd?: string;
}

/** Checks one command line; the most serious finding wins. */
export function checkCommand(command: string, options: PolicyOptions = {}): PolicyVerdict {
  const workspaceRoot = options.workspaceRoot ?? "/workspace";
  const analysis = new Analysis({ workspaceRoot, cwd: options.cwd ?? workspaceRoot });
  analysis.source(command, [options.cwd ?? workspaceRoot]);
  const finding = analysis.verdict();
  if (!finding) return { blocked: false };
  return {
    blocked: true,
    reason: finding.reason,
    matchedPattern: finding.pattern,
    suggestedSafeAlternative: finding.alternative,
  };
}
