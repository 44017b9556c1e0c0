import { type Command, defineCommand, type ResolvedCommandContext } from "just-bash";
import { type CommandResult, programEnv, STOP_EXIT, shellStopCheck, stopMessage } from "../command-io.ts";
import type { JqResult } from "./jq-wasm.ts";
import { JQ_MEMORY_LIMIT_BYTES, type JqOutcome, jqRunner } from "./runner.ts";

/**
 * `jq` in the embedded shell: the real jq 1.7.1 (WebAssembly, in a worker of its own), given the
 * files its command line names, read from the shell's filesystem beforehand. The sandboxed
 * profile's jq tool runs the same program through `runJq`.
 */

/** Output a shell jq may print before it is stopped (the shell keeps whole outputs in memory). */
const SHELL_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const DEFAULT_SHELL_TIMEOUT_MS = 60_000;

export interface JqInvocation {
  args: string[];
  stdin: Uint8Array;
  files: Record<string, Uint8Array>;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  stopped?: () => "interrupt" | "deadline" | null;
  maxOutputBytes?: number;
  memoryLimitBytes?: number;
}

/** Runs jq; null when this host has no jq (no runner registered). */
export async function runJq(invocation: JqInvocation): Promise<JqOutcome | null> {
  const runner = jqRunner();
  if (!runner) return null;
  return runner.run(
    {
      args: invocation.args,
      stdin: invocation.stdin,
      files: invocation.files,
      cwd: invocation.cwd,
      env: invocation.env,
      memoryLimitBytes: invocation.memoryLimitBytes ?? JQ_MEMORY_LIMIT_BYTES,
      maxOutputBytes: invocation.maxOutputBytes ?? SHELL_MAX_OUTPUT_BYTES,
    },
    { timeoutMs: invocation.timeoutMs, ...(invocation.stopped ? { stopped: invocation.stopped } : {}) },
  );
}

/** The files a jq command line reads (as jq 1.7.1's main() reads its arguments), and -L folders. */
export function jqFileArguments(args: string[]): { files: string[]; libraries: string[] } {
  const files: string[] = [];
  const libraries: string[] = [];
  let programSeen = false;
  let fromFile = false;
  let positional: "files" | "args" = "files";
  let optionsDone = false;
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!;
    if (optionsDone || !text.startsWith("-") || text === "-") {
      if (!programSeen) {
        programSeen = true;
        if (fromFile) files.push(text);
      } else if (positional === "files") files.push(text);
      continue;
    }
    if (text === "--") {
      optionsDone = true;
      continue;
    }
    if (text.startsWith("--")) {
      const name = text.slice(2);
      if (name === "arg" || name === "argjson") i += 2;
      else if (name === "slurpfile" || name === "rawfile") {
        if (args[i + 2] !== undefined) files.push(args[i + 2]!);
        i += 2;
      } else if (name === "indent") i += 1;
      else if (name === "library-path") {
        if (args[i + 1] !== undefined) libraries.push(args[i + 1]!);
        i += 1;
      } else if (name === "from-file") fromFile = true;
      else if (name === "args" || name === "jsonargs") positional = "args";
      continue;
    }
    // A cluster of short options (-nr); -L takes the rest of the word or the next argument.
    for (let k = 1; k < text.length; k++) {
      const option = text[k];
      if (option === "f") fromFile = true;
      if (option === "L") {
        const rest = text.slice(k + 1);
        if (rest) libraries.push(rest);
        else if (args[i + 1] !== undefined) libraries.push(args[++i]!);
        break;
      }
    }
  }
  return { files, libraries };
}

const MAX_LIBRARY_FILES = 500;

async function readShellFiles(
  ctx: ResolvedCommandContext,
  args: string[],
): Promise<Record<string, Uint8Array>> {
  const { files, libraries } = jqFileArguments(args);
  const out: Record<string, Uint8Array> = {};
  for (const name of files) {
    const path = ctx.fs.resolvePath(ctx.cwd, name);
    try {
      if ((await ctx.fs.stat(path)).isFile) out[path] = await ctx.fs.readFileBuffer(path);
    } catch {
      // jq says "Could not open" itself.
    }
  }
  // Modules a filter imports from -L folders: their .jq and .json files, a bounded number.
  let budget = MAX_LIBRARY_FILES;
  const walk = async (folder: string, depth: number): Promise<void> => {
    if (depth > 8 || budget <= 0) return;
    let entries: string[];
    try {
      entries = await ctx.fs.readdir(folder);
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = folder === "/" ? `/${entry}` : `${folder}/${entry}`;
      try {
        const stat = await ctx.fs.stat(path);
        if (stat.isDirectory) await walk(path, depth + 1);
        else if (stat.isFile && /\.(jq|json)$/u.test(entry) && budget-- > 0)
          out[path] = await ctx.fs.readFileBuffer(path);
      } catch {
        // Unreadable entries are not modules.
      }
    }
  };
  for (const library of libraries) await walk(ctx.fs.resolvePath(ctx.cwd, library), 0);
  return out;
}

/** Bytes of a latin1-shaped byte string (what just-bash hands a command as stdin). */
function stdinBytes(ctx: ResolvedCommandContext): Uint8Array {
  const raw = String(ctx.stdin as unknown);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i) & 0xff;
  return bytes;
}

const decoder = new TextDecoder();

/** What jq printed, and what the host adds when jq could not finish on its own. */
export function describeJqEnd(
  result: JqResult,
  limits: { maxOutputBytes: number; memoryLimitBytes: number },
): string {
  if (result.outputLimited)
    return `jq: output stopped at ${limits.maxOutputBytes} bytes (the output limit)\n`;
  if (result.outOfMemory)
    return `jq: stopped: the filter needed more than ${Math.round(limits.memoryLimitBytes / 1048576)} MB of memory\n`;
  if (result.crash) return `jq: crashed: ${result.crash}\n`;
  return "";
}

async function jqShell(args: string[], ctx: ResolvedCommandContext): Promise<CommandResult> {
  const outcome = await runJq({
    args,
    stdin: stdinBytes(ctx),
    files: await readShellFiles(ctx, args),
    cwd: ctx.cwd,
    env: programEnv(ctx),
    timeoutMs: ctx.executionScope?.remainingTimeMs() ?? DEFAULT_SHELL_TIMEOUT_MS,
    stopped: shellStopCheck(ctx),
  });
  if (!outcome) return { stdout: "", stderr: "jq: not available in this host\n", exitCode: 127 };
  if (outcome.stopped) {
    return { stdout: "", stderr: stopMessage("jq", outcome.stopped), exitCode: STOP_EXIT[outcome.stopped] };
  }
  const note = describeJqEnd(outcome, {
    maxOutputBytes: SHELL_MAX_OUTPUT_BYTES,
    memoryLimitBytes: JQ_MEMORY_LIMIT_BYTES,
  });
  return {
    stdout: decoder.decode(outcome.stdout),
    stderr: decoder.decode(outcome.stderr) + note,
    exitCode: outcome.exitCode,
  };
}

export function jqCommands(): Command[] {
  return [defineCommand("jq", jqShell)];
}
