/**
 * What safe_shell refuses, by class. Each refusal names its class (`matched_pattern`), says what in
 * the command triggered it (`reason`) and what to do instead (`suggested_safe_alternative`). When a
 * line breaks several rules, the most serious class is reported (the lowest rank).
 */
export interface Rule {
  /** The class's name, shown as matched_pattern unless a finding names a narrower pattern. */
  pattern: string;
  rank: number;
  alternative: string;
}

export const RULES = {
  unparsable: {
    pattern: "unparsable command",
    rank: 0,
    alternative: "Fix the quoting so the line is valid bash, or run it with the shell tool.",
  },
  shutdown: {
    pattern: "shutdown|reboot|halt|poweroff",
    rank: 1,
    alternative:
      "Nothing to run: a coding task never stops the machine. Finish the task and report; the person decides about their machine.",
  },
  mkfs: {
    pattern: "mkfs",
    rank: 1,
    alternative:
      "Nothing to run: formatting disks is never part of a coding task. Create files in the workspace (file_write) instead.",
  },
  device: {
    pattern: "dd of=/dev/*",
    rank: 1,
    alternative:
      "Write the bytes to a file in the workspace instead (dd if=… of=out.bin), and leave devices alone.",
  },
  forkBomb: {
    pattern: ":(){ :|:& };:",
    rank: 1,
    alternative: "Run the work once, in the foreground; a function that starts copies of itself never ends.",
  },
  sudo: {
    pattern: "sudo",
    rank: 1,
    alternative:
      "Run the command without sudo; install packages per project (pip install --user, npm install).",
  },
  pipeToShell: {
    pattern: "curl|wget ... | sh",
    rank: 1,
    alternative:
      "Download to a file first (curl -fsSL -o install.sh URL), read it with file_read, then run it explicitly.",
  },
  clock: {
    pattern: "date --set",
    rank: 1,
    alternative: "Read the time with date; setting the machine's clock is not part of a coding task.",
  },
  recursiveDelete: {
    pattern: "recursive delete",
    rank: 2,
    alternative:
      'Delete the one folder you mean with file_delete {"path": "<folder>", "recursive": true} after checking it with file_list, or rm files one by one by name.',
  },
  systemWrite: {
    pattern: "write to /etc/, /bin/, /usr/",
    rank: 3,
    alternative:
      "Write the file inside the workspace (file_write), or set the configuration per project (an env var, a local config file).",
  },
  git: {
    pattern: "git that changes history or refs",
    rank: 4,
    alternative:
      "Use git_status and git_diff to look, and git_commit to commit (it asks for confirmed=true); safe_shell runs git status, diff and log only.",
  },
  gitSetup: {
    pattern: "write to .git setup",
    rank: 5,
    alternative:
      "Leave .git/config and .git/hooks to the person; commit with git_commit, and keep project settings in tracked files.",
  },
  outsideWrite: {
    pattern: "write outside the workspace",
    rank: 6,
    alternative:
      "Write inside the workspace with a relative path (file_write, or a scratch folder such as ./tmp/).",
  },
  unseen: {
    pattern: "command safe_shell cannot check",
    rank: 7,
    alternative:
      "Spell the command and its paths out literally (no $VAR or $(…) where it writes or deletes, no scripts run by bash, eval or source), or run it with the shell tool.",
  },
  notAllowed: {
    pattern: "not on the allowlist",
    rank: 8,
    alternative:
      "If the command is really needed, run it with the shell tool, which skips these checks (and may ask for approval).",
  },
} as const satisfies Record<string, Rule>;

export type RuleName = keyof typeof RULES;

export interface Finding {
  rule: RuleName;
  pattern: string;
  reason: string;
  alternative: string;
}

/** The pattern classes, in the order they are checked, for the tool's description. */
export const DENIED_PATTERNS: readonly string[] = [
  "rm -r / find -delete / find -exec rm / xargs rm / git clean (recursive or bulk deletes)",
  "writes outside the workspace or to system folders (/etc, /bin, /usr, …) by any command or redirection",
  "git other than status, diff and log",
  "writes to .git/config, .git/hooks and other git setup",
  "curl|wget ... | sh",
  "shutdown|reboot|halt|poweroff",
  "mkfs",
  "dd of=/dev/*",
  ":(){ :|:& };:",
  "sudo",
  'commands hidden in variables, eval, bash -c "$x" or scripts, which cannot be checked',
];
