import type { ToolContext } from "../../core/profile.ts";
import { loadGit } from "../git/load.ts";

/** Runtimes workspace_info reports, and the command names each may go by (first found wins). */
const RUNTIMES: Record<string, string[]> = {
  python: ["python3", "python"],
  node: ["node"],
  java: ["java"],
  go: ["go"],
};

/** CLI tools workspace_info probes for in the sandbox's shell. */
export const PROBED_TOOLS = [
  "git",
  "pytest",
  "pip",
  "npm",
  "npx",
  "yarn",
  "pnpm",
  "ruff",
  "eslint",
  "mypy",
  "pyright",
  "tsc",
  "vitest",
  "jest",
  "cargo",
  "rg",
  "jq",
  "sqlite3",
  "make",
] as const;

export interface BuiltInTool {
  name: string;
  version: string;
  /** What it stands in for: the tool calls that use it. */
  provides: string;
}

export interface WorkspaceInfo {
  workspace_root: string;
  os: string;
  platform: string;
  backend: string;
  runtimes: Record<string, string | null>;
  git_present: boolean;
  git_repo_root: string | null;
  /** Each probed command: its first --version line (or "available"), null when absent. */
  tools: Record<string, string | null>;
  /** Tools Toolroom runs itself, in the worker, whatever the sandbox has. */
  built_in: BuiltInTool[];
  probed_at: string;
}

const PROBE_TIMEOUT_MS = 15_000;
const MARK = "\u0001";

/**
 * One shell script probes every command: `command -v`, then `--version` (first line). One exec
 * instead of thirty keeps the probe fast on every backend.
 */
function probeScript(names: string[]): string {
  const quoted = names.map((name) => `'${name}'`).join(" ");
  return `for t in ${quoted}; do if command -v "$t" >/dev/null 2>&1; then v=$("$t" --version 2>&1 </dev/null | head -n 1); printf '%s${MARK}1${MARK}%s\\n' "$t" "$v"; else printf '%s${MARK}0${MARK}\\n' "$t"; fi; done`;
}

function versionOf(output: string): string | null {
  const line = output.trim();
  if (line === "" || /not found|not available|No such file|command not/iu.test(line)) return null;
  // It exists but has no --version flag (just-bash's rg, sqlite3): present, version unknown.
  if (/unrecognized option|unknown option|invalid option|usage:/iu.test(line)) return "available";
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

function hostPlatform(): string {
  const scope = globalThis as {
    WorkerGlobalScope?: unknown;
    window?: unknown;
    process?: { versions?: { node?: string } };
  };
  if (scope.process?.versions?.node) return `node ${scope.process.versions.node}`;
  if (scope.WorkerGlobalScope !== undefined) return "browser (web worker)";
  if (scope.window !== undefined) return "browser";
  return "unknown";
}

/** Probes the backend for runtimes and tools; the profile caches the answer per runtime. */
export async function probeWorkspace(
  context: Pick<ToolContext, "sandbox" | "clock" | "signal">,
): Promise<WorkspaceInfo> {
  const sandbox = context.sandbox;
  const names = [...new Set([...Object.values(RUNTIMES).flat(), ...PROBED_TOOLS])];
  const result = await sandbox.exec(probeScript(names), {
    timeoutMs: PROBE_TIMEOUT_MS,
    signal: context.signal,
  });
  const found = new Map<string, string | null>();
  for (const line of result.stdout.split("\n")) {
    const [name, present, version] = line.split(MARK);
    if (!name || present !== "1") continue;
    // A command can exist as a name and still refuse to run here (just-bash's browser python3).
    const parsed = versionOf(version ?? "");
    if (parsed !== null || (version ?? "").trim() === "") found.set(name, parsed ?? "available");
  }
  const runtimes: Record<string, string | null> = {};
  for (const [runtime, commands] of Object.entries(RUNTIMES)) {
    runtimes[runtime] =
      commands.map((command) => found.get(command)).find((value) => value !== undefined) ?? null;
  }
  const tools: Record<string, string | null> = {};
  for (const name of PROBED_TOOLS) tools[name] = found.get(name) ?? null;
  const git = await loadGit();
  const gitStat = await sandbox.stat(`${sandbox.workspaceRoot}/.git`).catch(() => null);
  const builtIn: BuiltInTool[] = [
    { name: "git", version: `isomorphic-git ${git.version()}`, provides: "git_status, git_diff, git_commit" },
    {
      name: "tsc",
      version: "TypeScript compiler API (loaded on first use)",
      provides: "typecheck of .ts/.tsx/.js projects",
    },
    {
      name: "ruff",
      version: "ruff's WebAssembly build (loaded on first use)",
      provides: "run_lint of Python files",
    },
    { name: "grep", version: "JavaScript RegExp search", provides: "grep, glob, symbols_index" },
  ];
  return {
    workspace_root: sandbox.workspaceRoot,
    os:
      sandbox.kind === "embedded"
        ? "embedded sandbox (just-bash shell, in-memory files)"
        : "WebContainer (jsh shell)",
    platform: hostPlatform(),
    backend: sandbox.kind,
    runtimes,
    git_present: true,
    git_repo_root: gitStat?.type === "directory" ? "." : null,
    tools,
    built_in: builtIn,
    probed_at: context.clock.now().toISOString(),
  };
}
