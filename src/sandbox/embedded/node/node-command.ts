import type { ExecResult, ResolvedCommandContext } from "just-bash";
import { programEnv } from "../commands/command-io.ts";
import { type LiveIo, terminalOutput } from "../tty.ts";
import { SyncFs } from "./sync-fs.ts";
import { findTestFiles } from "./test-files.ts";
import {
  EMBEDDED_NODE_VERSION,
  type MainSpec,
  type OutputChunk,
  runInVm,
  type TestCounts,
  type VmResult,
} from "./vm.ts";

/** Options shared by the embedded `node` and the commands built on it. */
export interface NodeRuntimeOptions {
  /** Heap cap of one program (default 256 MB). */
  memoryLimitBytes?: number;
  /** Wall-clock cap of one `node` command when the shell gives none (default: the shell's maxJsTimeoutMs, else 30 s). */
  timeoutMs?: number;
}

export const DEFAULT_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
const EXEC_PATH = "/usr/local/bin/node";

/** Flags Node accepts that change nothing here. */
const IGNORED_FLAGS =
  /^--(?:no-warnings|no-deprecation|enable-source-maps|trace-uncaught|trace-warnings|experimental-[\w-]+|no-experimental-[\w-]+|max-old-space-size=\d+|stack-size=\d+|test-reporter=tap|test-only|input-type=commonjs|preserve-symlinks|abort-on-uncaught-exception|unhandled-rejections=[\w-]+)$/u;

const USAGE = `Usage: node [options] [ script.js ] [arguments]
       node --test [files or folders ...]

Options:
  -e, --eval script     evaluate script
  -p, --print script    evaluate script and print result
  --test                run tests with node:test (TAP output)
  --test-name-pattern=P run only tests whose name (or an enclosing one's) matches the regular expression P
  -v, --version         print Node.js version
  -h, --help            print this help

This is the embedded node of the Toolroom sandbox: JavaScript runs in QuickJS inside the page,
with Node's core modules (fs, path, events, util, assert, node:test, ...) over the workspace files.
It has no network, no child processes and no REPL.
`;

interface ParsedArgs {
  mode: "script" | "eval" | "print" | "test" | "version" | "help" | "stdin";
  code?: string;
  script?: string;
  rest: string[];
  execArgv: string[];
  error?: string;
}

/** Parses node's command line (the options it supports, then the script and its arguments). */
export function parseNodeArgs(args: string[]): ParsedArgs {
  const execArgv: string[] = [];
  let mode: ParsedArgs["mode"] | null = null;
  let code: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      const [script, ...rest] = args.slice(i + 1);
      if (mode === "test") return { mode, rest: args.slice(i + 1), execArgv };
      return script === undefined
        ? { mode: mode ?? "stdin", rest: [], execArgv }
        : { mode: "script", script, rest, execArgv };
    }
    if (!arg.startsWith("-") || arg === "-") {
      if (mode === "test") return { mode, rest: args.slice(i), execArgv };
      if (mode === "eval" || mode === "print")
        return { mode, code: code ?? "", rest: args.slice(i), execArgv };
      if (arg === "-") return { mode: "stdin", rest: args.slice(i + 1), execArgv };
      return { mode: "script", script: arg, rest: args.slice(i + 1), execArgv };
    }
    execArgv.push(arg);
    if (arg === "-v" || arg === "--version") return { mode: "version", rest: [], execArgv };
    if (arg === "-h" || arg === "--help") return { mode: "help", rest: [], execArgv };
    if (arg === "--test") mode = "test";
    else if (arg === "--test-name-pattern") {
      // Node takes the pattern as the next word too; kept as one --test-name-pattern=… for the guest.
      const value = args[++i];
      if (value === undefined)
        return { mode: "help", rest: [], execArgv, error: `node: ${arg} requires an argument` };
      execArgv[execArgv.length - 1] = `--test-name-pattern=${value}`;
    } else if (arg === "-e" || arg === "--eval" || arg === "-p" || arg === "--print" || arg === "-pe") {
      const value = args[++i];
      if (value === undefined)
        return { mode: "help", rest: [], execArgv, error: `node: ${arg} requires an argument` };
      execArgv.push(value);
      code = value;
      mode = arg === "-e" || arg === "--eval" ? "eval" : "print";
    } else if (arg.startsWith("--eval=") || arg.startsWith("--print=")) {
      code = arg.slice(arg.indexOf("=") + 1);
      mode = arg.startsWith("--eval=") ? "eval" : "print";
    } else if (!IGNORED_FLAGS.test(arg) && !arg.startsWith("--test-")) {
      return { mode: "help", rest: [], execArgv, error: `node: bad option: ${arg}` };
    }
  }
  if (mode === "eval" || mode === "print") return { mode, code: code ?? "", rest: [], execArgv };
  return { mode: mode ?? "stdin", rest: [], execArgv };
}

function stdinText(ctx: ResolvedCommandContext): string {
  // ByteString is a latin1-shaped string at run time; the browser build exports no decoder for it.
  const raw = String(ctx.stdin as unknown);
  if (raw === "") return "";
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i) & 0xff;
  return new TextDecoder().decode(bytes);
}

function topFolder(path: string): string {
  const first = path.split("/").filter(Boolean)[0];
  return first === undefined ? "/" : `/${first}`;
}

/** Everything a run needs from the shell's context. */
export interface NodeRunContext {
  ctx: ResolvedCommandContext;
  options: NodeRuntimeOptions;
  /** A session's terminal: stdin as it is typed, output as it is printed, no time limit of its own. */
  live?: LiveIo | undefined;
}

function deadlineOf(
  ctx: ResolvedCommandContext,
  options: NodeRuntimeOptions,
  live: boolean,
): { deadline: number; budgetMs: number } {
  // In a session a program waits for a person: only the shell's own deadline (and Ctrl-C) bound it.
  const own = live
    ? (options.timeoutMs ?? Number.POSITIVE_INFINITY)
    : (options.timeoutMs ?? ctx.limits?.maxJsTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  const remaining = ctx.executionScope?.remainingTimeMs() ?? Number.POSITIVE_INFINITY;
  const budgetMs = Math.max(1, Math.min(own, remaining));
  return { deadline: Date.now() + budgetMs, budgetMs };
}

function stoppedMessage(result: VmResult, budgetMs: number, memoryLimitBytes: number): string {
  switch (result.stopped) {
    case "deadline":
      // No deadline of its own (a session's program): the shell says why it stopped it.
      if (!Number.isFinite(budgetMs)) return "";
      return `node: stopped after ${budgetMs} ms: the program ran past the embedded sandbox's time limit for a command (an endless loop, or a wait that never ends). The interpreter was interrupted; the shell is fine.\n`;
    case "aborted":
      // The real node prints nothing when Ctrl-C stops it; the status (130) says it.
      return "";
    case "memory":
      return `node: stopped: the program ran out of memory (the embedded node's heap is capped at ${Math.round(memoryLimitBytes / 1048576)} MB).\n`;
    case "stack":
      return "node: stopped: the call stack overflowed (the embedded node allows less recursion than Node).\n";
    case "output":
      return "node: stopped: the program wrote more output than the shell keeps for a command.\n";
    default:
      return "";
  }
}

/** Runs the embedded node with `args` in the shell context, as `node args...` would. */
export async function runNode(args: string[], { ctx, options, live }: NodeRunContext): Promise<ExecResult> {
  const parsed = parseNodeArgs(args);
  if (parsed.error) return { stdout: "", stderr: `${parsed.error}\n${USAGE}`, exitCode: 9 };
  if (parsed.mode === "version") return { stdout: `${EMBEDDED_NODE_VERSION}\n`, stderr: "", exitCode: 0 };
  if (parsed.mode === "help") return { stdout: USAGE, stderr: "", exitCode: 0 };
  const stdin = stdinText(ctx);
  const memoryLimitBytes = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
  const terminal = live ?? terminalOutput(ctx);
  const { deadline, budgetMs } = deadlineOf(ctx, options, terminal !== undefined);
  const printed = { stdout: "", stderr: "" };
  const roots = [topFolder(ctx.cwd), "/tmp"];
  if (parsed.script) roots.push(topFolder(ctx.fs.resolvePath(ctx.cwd, parsed.script)));
  // On a terminal a restart would repeat printed output and lose typed input: load every file up front.
  const mirror = await SyncFs.load(ctx.fs, roots, terminal ? () => true : undefined);
  const env = programEnv(ctx);
  const base: BaseRun = {
    fs: mirror,
    cwd: ctx.cwd,
    env,
    execArgv: parsed.execArgv,
    stdin,
    memoryLimitBytes,
    // Half the shell's byte limit: room for multi-byte characters and the shell's own accounting.
    maxOutputChars:
      ctx.limits?.maxOutputSize === undefined ? undefined : Math.floor(ctx.limits.maxOutputSize / 2),
    deadline,
    signal: ctx.signal,
    sleep: ctx.sleep,
    ...(live ? { liveStdin: live.input } : {}),
    // A session's terminal gets the output as it is printed, whatever the program's stdin is.
    ...(terminal
      ? {
          onOutput: (stream: "stdout" | "stderr", text: string) => {
            const sink = stream === "stdout" ? terminal.stdout : terminal.stderr;
            if (sink) sink(text);
            else printed[stream] += text;
          },
        }
      : {}),
  };
  const shell = { fs: ctx.fs, roots };
  if (parsed.mode === "test") return runTests(parsed.rest, base, shell, budgetMs);
  let main: MainSpec;
  let argv: string[];
  if (parsed.mode === "eval" || parsed.mode === "print") {
    main = { kind: "eval", code: parsed.code ?? "", print: parsed.mode === "print" };
    argv = [EXEC_PATH, ...parsed.rest];
  } else if (parsed.mode === "stdin") {
    if (stdin.trim() === "") {
      return {
        stdout: "",
        stderr:
          "node: the embedded node has no REPL: pass a script file, -e 'code', or pipe a script on stdin.\n",
        exitCode: 9,
      };
    }
    main = { kind: "eval", code: stdin, print: false };
    argv = [EXEC_PATH, ...parsed.rest];
  } else {
    const path = ctx.fs.resolvePath(ctx.cwd, parsed.script!);
    main = { kind: "script", path };
    argv = [EXEC_PATH, path, ...parsed.rest];
  }
  const { result, fs } = await runWithMirror(shell, {
    ...base,
    argv,
    main,
    stdin: parsed.mode === "stdin" ? "" : stdin,
  });
  const unwritten = await fs.flush(ctx.fs);
  let stdout = printed.stdout;
  let stderr = printed.stderr;
  for (const chunk of result.output) {
    if (chunk.stream === "stderr") stderr += chunk.text;
    else stdout += chunk.text;
  }
  stderr += stoppedMessage(result, budgetMs, memoryLimitBytes);
  // The program's writes reach the shell's filesystem after it ends: one refused then (the run's
  // written-bytes quota) must not pass for a success.
  stderr += unwritten
    .map((failure) => `node: what the program wrote could not be kept: ${failure}\n`)
    .join("");
  return { stdout, stderr, exitCode: unwritten.length > 0 && result.exitCode === 0 ? 1 : result.exitCode };
}

type VmRun = Parameters<typeof runInVm>[0];
type BaseRun = Omit<VmRun, "argv" | "main">;
interface ShellFs {
  fs: ResolvedCommandContext["fs"];
  roots: string[];
}

/** Restarts after which every file is read up front. */
const MAX_RESTARTS = 3;

/**
 * Runs a program on the mirror; when it reads a file whose content was not loaded, the mirror is
 * rebuilt from the shell's filesystem (the cut-short run wrote nothing there) with that file loaded,
 * and the program runs again. Returns the result and the mirror holding the run's writes.
 */
async function runWithMirror(shell: ShellFs, run: VmRun): Promise<{ result: VmResult; fs: SyncFs }> {
  const missing = new Set<string>();
  let fs = run.fs;
  for (let attempt = 0; ; attempt++) {
    const result = await runInVm({ ...run, fs });
    if (!result.missing) return { result, fs };
    for (const path of result.missing) missing.add(path);
    fs = await SyncFs.load(shell.fs, shell.roots, attempt + 1 >= MAX_RESTARTS ? () => true : undefined);
    await fs.loadContents(shell.fs, missing);
  }
}

/** Output of a test file's process other than TAP is shown as TAP comments, as Node 20 does. */
function asComments(text: string): string {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => `# ${line}\n`).join("");
}

/** `node --test`: each file in its own fresh engine, one TAP stream numbered across files. */
async function runTests(
  args: string[],
  base: BaseRun,
  shell: ShellFs,
  budgetMs: number,
): Promise<ExecResult> {
  const started = performance.now();
  let mirror = base.fs;
  const { files, missing } = findTestFiles(mirror, base.cwd, args);
  if (missing.length > 0) {
    return {
      stdout: "",
      stderr: `Could not find '${missing.map((m) => `${base.cwd}/${m}`).join("', '")}'\n`,
      exitCode: 1,
    };
  }
  const totals: Omit<TestCounts, "topLevel"> = {
    tests: 0,
    suites: 0,
    pass: 0,
    fail: 0,
    cancelled: 0,
    skipped: 0,
    todo: 0,
  };
  let topLevel = 0;
  let stdout = "TAP version 13\n";
  let stderr = "";
  for (const [index, file] of files.entries()) {
    const fileStarted = performance.now();
    const { result, fs } = await runWithMirror(shell, {
      ...base,
      fs: mirror,
      argv: [EXEC_PATH, file],
      // Each file's process sees the runner's name patterns, as Node passes them on.
      execArgv: ["--test", ...base.execArgv.filter((arg) => arg.startsWith("--test-name-pattern="))],
      main: { kind: "test-file", path: file, startNumber: topLevel + 1 },
    });
    // Each file is a process of its own: what it wrote is on disk before the next one starts.
    const unwritten = await fs.flush(shell.fs);
    stderr += unwritten.map((failure) => `node: what ${file} wrote could not be kept: ${failure}\n`).join("");
    if (unwritten.length > 0) totals.fail++;
    mirror = fs;
    for (const chunk of result.output as OutputChunk[]) {
      stdout += chunk.stream === "tap" ? chunk.text : asComments(chunk.text);
    }
    const counts = result.tests;
    if (counts) {
      for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += counts[key];
      topLevel += counts.topLevel;
    }
    const hadTests = counts !== undefined && counts.tests + counts.suites > 0;
    const failedInside = counts !== undefined && counts.fail + counts.cancelled > 0;
    if (result.stopped) stdout += asComments(stoppedMessage(result, budgetMs, base.memoryLimitBytes));
    if (!hadTests || (result.exitCode !== 0 && !failedInside)) {
      // Node reports a file that ran no test, or failed outside its tests, as one test named after it.
      const ok = result.exitCode === 0;
      const duration = Number((performance.now() - fileStarted).toFixed(6));
      stdout += `# Subtest: ${file}\n${ok ? "ok" : "not ok"} ${index + 1} - ${file}\n  ---\n  duration_ms: ${duration}\n`;
      if (!ok) {
        stdout += `  location: '${file}:1:1'\n  failureType: 'testCodeFailure'\n  exitCode: ${result.exitCode}\n  signal: ~\n  error: 'test failed'\n  code: 'ERR_TEST_FAILURE'\n`;
      }
      stdout += "  ...\n";
      totals.tests++;
      if (ok) totals.pass++;
      else totals.fail++;
      topLevel++;
    }
    if (result.stopped === "deadline" || result.stopped === "aborted") {
      stderr += stoppedMessage(result, budgetMs, base.memoryLimitBytes);
      break;
    }
  }
  stdout += `1..${topLevel}\n`;
  for (const key of ["tests", "suites", "pass", "fail", "cancelled", "skipped", "todo"] as const) {
    stdout += `# ${key} ${totals[key]}\n`;
  }
  stdout += `# duration_ms ${Number((performance.now() - started).toFixed(6))}\n`;
  return { stdout, stderr, exitCode: totals.fail + totals.cancelled > 0 ? 1 : 0 };
}
