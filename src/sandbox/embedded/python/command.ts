import {
  type Command,
  defineCommand,
  type ExecResult,
  type IFileSystem,
  type ResolvedCommandContext,
} from "just-bash";
import { deadlineSignal } from "../../stop-signal.ts";
import { programEnv } from "../commands/command-io.ts";
import { type LiveIo, terminalOutput, withLiveRunner } from "../tty.ts";
import { isReserved } from "./engine.ts";
import type { TreeChange, TreeEntry } from "./protocol.ts";
import { pythonRunner } from "./registry.ts";
import { type RunOutcome, STOP_GRACE_MS } from "./runner.ts";
import { EMBEDDED_PYTHON_VERSION } from "./version.ts";

export interface PythonCommandOptions {
  /** Heap cap of one program (default 256 MB). */
  memoryLimitBytes?: number;
  /** Wall-clock cap of one program when the shell gives none (default 10 minutes). */
  timeoutMs?: number;
}

export const DEFAULT_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Output a program may print (stdout and stderr together) before it is stopped, as the embedded node's. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** How much sooner than the shell's deadline a program is interrupted: the grace before termination and some. */
const STOP_MARGIN_MS = STOP_GRACE_MS + 500;
/** Folders of the shell's filesystem that are devices or kernel views, not files to copy in. */
const SKIPPED = ["/proc", "/dev", "/sys"];
/**
 * Folders a Python run is not given a copy of: JavaScript dependencies, often hundreds of MB, that
 * every run would copy (and a folder read on demand would read whole) for a program that never
 * looks at them.
 */
const NOT_COPIED = new Set(["node_modules"]);

/**
 * The embedded `python3` and `python` (CPython 3.13, WebAssembly, on the shell's files) and
 * `pytest` (`python3 -m pytest`, where pytest is installed).
 */
export function createPythonCommands(options: PythonCommandOptions = {}): Command[] {
  const run = (args: string[], ctx: ResolvedCommandContext) => runPython(args, ctx, options);
  // On a session's terminal (live-script.ts rewrites `python3 …` whose stdin is the terminal) the
  // program reads what is typed as it arrives and its output streams out as it is written.
  const live = (args: string[], ctx: ResolvedCommandContext, io: LiveIo) =>
    runPython(args, ctx, options, undefined, io);
  return [
    withLiveRunner(defineCommand("python3", run), live),
    withLiveRunner(defineCommand("python", run), live),
    defineCommand("pytest", (args, ctx) => runPytest(args, ctx, options)),
  ];
}

const NO_RUNNER: ExecResult = {
  stdout: "",
  stderr:
    "python3: Python is not available in this host (it registers no Python runner); the CLI and the app's worker have one.\n",
  exitCode: 127,
};

/** What pytest needs and where it can come from, said when it is missing. */
export const PYTEST_MISSING =
  "pytest is not installed in the embedded Python. Put its packages (pytest, _pytest, pluggy, iniconfig, packaging) in the workspace's .venv/lib/python3.13/site-packages or on PYTHONPATH, give the CLI --python-packages DIR, or install pytest from PyPI in the app's Python panel; `python3 -m unittest` needs nothing.";

async function runPytest(
  args: string[],
  ctx: ResolvedCommandContext,
  options: PythonCommandOptions,
): Promise<ExecResult> {
  const python = pythonRunner();
  if (!python) return NO_RUNNER;
  await python.packagesReady();
  const tree = await readTree(ctx.fs);
  const env = programEnv(ctx);
  // Where `python3 -m pytest` would find it: the working folder, the venv, PYTHONPATH, site-packages.
  const folders = [
    ctx.cwd,
    ...sitePathsFor(tree, ctx.cwd),
    ...(env.PYTHONPATH ?? "")
      .split(":")
      .filter(Boolean)
      .map((entry) => ctx.fs.resolvePath(ctx.cwd, entry)),
  ];
  const files = new Set(tree.map((entry) => entry.path));
  const installed =
    python.packageRoots().includes("pytest") ||
    folders.some((folder) => files.has(`${folder === "/" ? "" : folder}/pytest/__init__.py`));
  if (!installed)
    return { stdout: "", stderr: `bash: pytest: command not found\n${PYTEST_MISSING}\n`, exitCode: 127 };
  return runPython(["-m", "pytest", ...args], ctx, options, tree);
}

async function runPython(
  args: string[],
  ctx: ResolvedCommandContext,
  options: PythonCommandOptions,
  gathered?: TreeEntry[],
  live?: LiveIo,
): Promise<ExecResult> {
  const python = pythonRunner();
  if (!python) return NO_RUNNER;
  // CPython prints exactly this; answering it here spares a probe (workspace_info) an interpreter start.
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    const version = `Python ${EMBEDDED_PYTHON_VERSION}\n`;
    if (live?.stdout) {
      live.stdout(version);
      return { stdout: "", stderr: "", exitCode: 0 };
    }
    return { stdout: version, stderr: "", exitCode: 0 };
  }
  const memoryLimitBytes = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
  const remaining = ctx.executionScope?.remainingTimeMs() ?? Number.POSITIVE_INFINITY;
  // Stop before the shell does (KeyboardInterrupt, then termination after the grace), so what the
  // program printed and how it stopped are reported by this command rather than cut off by the shell.
  const shellBudget = remaining - Math.min(STOP_MARGIN_MS, remaining / 4);
  // A session's terminal gets the output as it is written, whatever the program's stdin is.
  const terminal = live ?? terminalOutput(ctx);
  // In a session a program waits for a person: only the shell's own deadline (and Ctrl-C) bound it.
  const ownBudget = options.timeoutMs ?? (terminal ? Number.POSITIVE_INFINITY : DEFAULT_TIMEOUT_MS);
  const budgetMs = Math.max(1, Math.floor(Math.min(ownBudget, shellBudget)));
  const tree = gathered ?? (await readTree(ctx.fs));
  const stdout = new Utf8Collector(terminal?.stdout);
  const stderr = new Utf8Collector(terminal?.stderr);
  // A runaway printer would fill the host's memory before its deadline (it crashed the CLI at 2 GB).
  const maxOutput = Math.min(MAX_OUTPUT_BYTES, ctx.limits?.maxOutputSize ?? MAX_OUTPUT_BYTES);
  let printed = 0;
  let overflowed = false;
  const overflow = new AbortController();
  const stop = deadlineSignal({ parents: [ctx.signal, overflow.signal] });
  const output = (fd: 1 | 2, data: Uint8Array) => {
    if (overflowed) return;
    printed += data.length;
    if (printed > maxOutput) {
      overflowed = true;
      overflow.abort();
      return;
    }
    (fd === 1 ? stdout : stderr).push(data);
  };
  let outcome: RunOutcome;
  try {
    outcome = await python.run(
      {
        args,
        cwd: ctx.cwd,
        env: programEnv(ctx),
        stdin: live ? new Uint8Array(0) : latin1Bytes(String(ctx.stdin as unknown)),
        tree,
        sitePaths: sitePathsFor(tree, ctx.cwd),
        deadline: Date.now() + budgetMs,
        memoryLimitBytes,
        maxOutputBytes: maxOutput,
      },
      {
        output,
        signal: stop.signal,
        ...(live
          ? {
              input: async (stopped: AbortSignal) => {
                const chunk = await live.input.next(stopped);
                return typeof chunk === "string" ? encoder.encode(chunk) : chunk;
              },
              unread: (bytes: Uint8Array) => live.input.giveBack(new TextDecoder().decode(bytes)),
            }
          : {}),
      },
    );
  } catch (error) {
    return {
      stdout: "",
      stderr: `python3: the embedded Python could not start: ${(error as Error).message}\n`,
      exitCode: 1,
    };
  } finally {
    stop.dispose();
  }
  const unkept = await applyChanges(ctx.fs, outcome.changes);
  // Notes on how it ended go where its stderr went: on a terminal they are printed now, since a
  // stopped script (Ctrl-C) keeps no result to print them from.
  const note = (text: string) => stderr.push(encoder.encode(text));
  let exitCode = outcome.exitCode;
  // The program's writes reach the shell's filesystem after it ends: one refused then (the run's
  // written-bytes quota) must not pass for a success.
  for (const failure of unkept) note(`python3: what the program wrote could not be kept: ${failure}\n`);
  if (unkept.length > 0 && exitCode === 0) exitCode = 1;
  if (outcome.stopped === "deadline") {
    exitCode = 124;
    note(
      `python3: stopped after ${budgetMs} ms: the program ran past the sandbox's time limit for a command (an endless loop, or a wait that never ends).${outcome.killed ? " It did not stop at its KeyboardInterrupt, so it was terminated and its file changes were dropped." : ""}\n`,
    );
  } else if (overflowed || outcome.outputLimited) {
    exitCode = 1;
    note(
      `python3: stopped: the program printed more than ${Math.round(maxOutput / 1048576)} MB, more output than the shell keeps for a command.\n`,
    );
  } else if (outcome.stopped === "interrupt") {
    exitCode = 130;
    if (outcome.killed) note("python3: stopped: the command was cancelled (the program was terminated).\n");
  }
  if (outcome.memoryExhausted && exitCode !== 0 && !outcome.stopped) {
    note(
      `python3: the program ran out of memory (the embedded Python's heap is capped at ${Math.round(memoryLimitBytes / 1048576)} MB).\n`,
    );
  }
  if (outcome.crash) note(`python3: ${outcome.crash}\n`);
  return { stdout: stdout.text(), stderr: stderr.text(), exitCode };
}

/**
 * The workspace's virtual environment, used as if activated: the site-packages of the closest
 * `.venv` or `venv` folder from the working folder up.
 */
export function sitePathsFor(tree: TreeEntry[], cwd: string): string[] {
  const folders = tree.filter((entry) => entry.kind === "directory").map((entry) => entry.path);
  for (let folder = cwd; ; folder = folder.slice(0, Math.max(folder.lastIndexOf("/"), 0)) || "/") {
    const base = folder === "/" ? "" : folder;
    const found = folders.filter((path) =>
      new RegExp(`^${escapeRegExp(base)}/\\.?venv/lib/python3\\.\\d+/site-packages$`, "u").test(path),
    );
    if (found.length > 0) return found.sort();
    if (folder === "/") return [];
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

const encoder = new TextEncoder();

/** Decodes output chunks as UTF-8 across chunk boundaries; printed as they come when given a terminal. */
class Utf8Collector {
  private readonly decoder = new TextDecoder();
  private out = "";
  constructor(private readonly terminal?: ((text: string) => void) | undefined) {}
  push(data: Uint8Array): void {
    this.emit(this.decoder.decode(data, { stream: true }));
  }
  text(): string {
    this.emit(this.decoder.decode());
    return this.out;
  }
  private emit(text: string): void {
    if (text === "") return;
    if (this.terminal) this.terminal(text);
    else this.out += text;
  }
}

/** The shell hands stdin as a latin1-shaped string: one char per byte. */
function latin1Bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** Every path of the shell's filesystem, parents first, each file's bytes its own copy (transferable). */
export async function readTree(fs: IFileSystem): Promise<TreeEntry[]> {
  const tree: TreeEntry[] = [];
  const walk = async (folder: string): Promise<void> => {
    const names = (await fs.readdir(folder)).sort();
    for (const name of names) {
      const path = folder === "/" ? `/${name}` : `${folder}/${name}`;
      if (SKIPPED.includes(path) || NOT_COPIED.has(name) || isReserved(path)) continue;
      const stat = await fs.lstat(path);
      if (stat.isSymbolicLink) tree.push({ path, kind: "symlink", target: await fs.readlink(path) });
      else if (stat.isDirectory) {
        tree.push({ path, kind: "directory", mode: stat.mode & 0o7777, mtimeMs: stat.mtime.getTime() });
        await walk(path);
      } else {
        const data = (await fs.readFileBuffer(path)).slice();
        tree.push({ path, kind: "file", mode: stat.mode & 0o7777, mtimeMs: stat.mtime.getTime(), data });
      }
    }
  };
  await walk("/");
  return tree;
}

/**
 * Writes a run's changes to the shell's filesystem (so the tree, the log and checkpoints see them).
 * A change the filesystem refuses is skipped and reported ("path: why"); the others still apply.
 */
export async function applyChanges(fs: IFileSystem, changes: TreeChange[]): Promise<string[]> {
  const failures: string[] = [];
  for (const change of changes) {
    try {
      await applyChange(fs, change);
    } catch (error) {
      failures.push(`${change.path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return failures;
}

async function applyChange(fs: IFileSystem, change: TreeChange): Promise<void> {
  const existing = await fs.lstat(change.path).catch(() => null);
  if (change.kind === "deleted") {
    if (existing) await fs.rm(change.path, { recursive: true, force: true });
  } else if (change.kind === "directory") {
    if (existing && !existing.isDirectory) await fs.rm(change.path, { force: true });
    if (!existing?.isDirectory) await fs.mkdir(change.path, { recursive: true });
    if (!existing || (existing.mode & 0o7777) !== change.mode) await fs.chmod(change.path, change.mode);
  } else if (change.kind === "file") {
    if (existing?.isDirectory || existing?.isSymbolicLink)
      await fs.rm(change.path, { recursive: true, force: true });
    await fs.writeFile(change.path, change.data);
    const kept = existing?.isFile ? existing.mode & 0o7777 : 0o644;
    if (kept !== change.mode) await fs.chmod(change.path, change.mode);
  } else {
    if (existing) await fs.rm(change.path, { recursive: true, force: true });
    await fs.symlink(change.target, change.path);
  }
}
