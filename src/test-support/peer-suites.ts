import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { Runtime } from "../core/runtime.ts";
import { readReferenceSuite } from "./reference-suites.ts";

/**
 * The sed/grep/awk peer suites of ../shared/reference-suites (BusyBox's tests and GNU grep's
 * bre/spencer1 tests, each translated to one sandboxed tool call with GNU's output as the
 * expectation), and the way a tool's envelope is turned back into the original command's output.
 */

export type FilterTool = "grep" | "sed" | "awk";

export interface PeerCase {
  id: string;
  name: string;
  command: string;
  tool?: FilterTool;
  program?: string;
  content?: string;
  map?: { numbered?: boolean; count?: boolean; quiet?: boolean; echoStatus?: boolean };
  expected?: string | null;
  expectError?: boolean;
  skip?: string;
}

/** The runnable cases of one suite (those without a `skip`). */
export function peerCases(tool: FilterTool): PeerCase[] {
  const suite = readReferenceSuite<{ cases: PeerCase[] }>("peer-suites", `${tool}-cases.json`);
  return suite.cases.filter((entry) => !entry.skip);
}

const PARAMS: Record<FilterTool, string> = { grep: "pattern", sed: "expression", awk: "script" };

interface Envelope {
  success: boolean;
  result?: {
    matches?: { line: number; text: string }[];
    count?: number;
    output?: string;
    exit_code?: number;
  };
  error?: { type: string; message: string; details?: Record<string, unknown> };
}

/** What the original command would have printed, from the tool's envelope; null: the call failed. */
export function mapEnvelope(entry: PeerCase, envelope: Envelope): string | null {
  const map = entry.map ?? {};
  if (!envelope.success) return map.echoStatus ? "ERR\n" : null;
  const result = envelope.result ?? {};
  let text: string;
  let status: number;
  if (entry.tool === "grep") {
    const matches = result.matches ?? [];
    status = matches.length > 0 ? 0 : 1;
    if (map.quiet) text = "";
    else if (map.count) text = `${matches.length}\n`;
    else
      text = matches
        .map((match) => (map.numbered ? `${match.line}:${match.text}\n` : `${match.text}\n`))
        .join("");
  } else {
    text = result.output ?? "";
    status = result.exit_code ?? 0;
  }
  return map.echoStatus ? `${text}${status}\n` : text;
}

export interface CaseOutcome {
  entry: PeerCase;
  passed: boolean;
  got: string | null;
  error?: string;
}

/** Runs one case through the sandboxed profile's tool, on a file holding the case's content. */
export async function runPeerCase(runtime: Runtime, entry: PeerCase): Promise<CaseOutcome> {
  const tool = entry.tool!;
  await runtime.sandbox.writeFile(`${runtime.sandbox.workspaceRoot}/input.txt`, entry.content ?? "");
  const envelope = (await runtime.call("sandboxed", {
    tool,
    params: { [PARAMS[tool]]: entry.program ?? "", file: "input.txt" },
  })) as Envelope;
  const got = mapEnvelope(entry, envelope);
  const passed = entry.expectError ? !envelope.success : got !== null && got === entry.expected;
  return { entry, passed, got, ...(envelope.error ? { error: envelope.error.message } : {}) };
}

/**
 * Runs a whole suite through the sandboxed tool. What is wrong: each failing case (got vs want) that
 * is not a known difference, and each known difference that passes now; `summary` counts the passes.
 */
export async function peerSuiteFailures(
  runtime: Runtime,
  tool: FilterTool,
  knownDifferences: readonly string[] = [],
): Promise<{ failures: string[]; cases: number; summary: string }> {
  const failures: string[] = [];
  const cases = peerCases(tool);
  for (const entry of cases) {
    const outcome = await runPeerCase(runtime, entry);
    const known = knownDifferences.includes(entry.id);
    if (!outcome.passed && !known) {
      failures.push(
        `${entry.id} ${JSON.stringify(entry.program)}: got ${JSON.stringify(outcome.got)} ${outcome.error ?? ""}, want ${JSON.stringify(entry.expected)}`,
      );
    }
    if (outcome.passed && known) failures.push(`${entry.id} passes now`);
  }
  const passed = cases.length - failures.length - knownDifferences.length;
  return { failures, cases: cases.length, summary: `${passed}/${cases.length} passed` };
}

/** The real program's path when it is installed (CI installs gawk; grep and sed are in every Debian). */
export function realProgram(name: "grep" | "sed" | "gawk"): string | null {
  for (const path of [`/usr/bin/${name}`, `/bin/${name}`]) if (existsSync(path)) return path;
  return null;
}

export interface RealRun {
  stdout: string;
  stderr: string;
  status: number;
}

/** Runs the real program with arguments and stdin, in the C.UTF-8 locale the suites were made in. */
export function runReal(program: string, args: string[], stdin: string, cwd?: string): RealRun {
  const result = spawnSync(program, args, {
    input: stdin,
    encoding: "utf8",
    cwd,
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C.UTF-8" },
    timeout: 10_000,
  });
  return { stdout: result.stdout ?? "", stderr: result.stderr ?? "", status: result.status ?? -1 };
}

/** One command line, run through ours and the real program on the same files and stdin. */
export interface DifferentialCase {
  args: string[];
  stdin?: string;
  files?: Record<string, string>;
}

export type CommandUnderTest = (
  args: string[],
  ctx: import("just-bash").ResolvedCommandContext,
) => Promise<{
  stdout: string;
  stderr: string;
  exitCode: number;
}>;

/** Runs a case through our command on an in-memory fs and through the real program in a temp folder. */
export async function runDifferential(
  ours: CommandUnderTest,
  real: string,
  entry: DifferentialCase,
): Promise<{ ours: RealRun; real: RealRun }> {
  const { createCommandContext, InMemoryFs, unsafeBytesFromLatin1 } = await import("just-bash");
  const { mkdtempSync, writeFileSync, mkdirSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join, dirname } = await import("node:path");
  const fs = new InMemoryFs();
  const folder = mkdtempSync(join(tmpdir(), "toolroom-diff-"));
  try {
    await fs.mkdir("/work", { recursive: true });
    for (const [name, text] of Object.entries(entry.files ?? {})) {
      await fs.mkdir(dirname(`/work/${name}`), { recursive: true });
      await fs.writeFile(`/work/${name}`, text);
      mkdirSync(dirname(join(folder, name)), { recursive: true });
      writeFileSync(join(folder, name), text);
    }
    const stdin = entry.stdin ?? "";
    const latin1 = String.fromCharCode(...new TextEncoder().encode(stdin));
    const ctx = createCommandContext({ fs, cwd: "/work", stdin: unsafeBytesFromLatin1(latin1) });
    const result = await ours(entry.args, ctx as never);
    const theirs = runReal(real, entry.args, stdin, folder);
    return { ours: { stdout: result.stdout, stderr: result.stderr, status: result.exitCode }, real: theirs };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
