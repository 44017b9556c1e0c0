import type { Command, CustomCommand, ExecResult, ResolvedCommandContext } from "just-bash";
import { deadlineSignal, STOP_EXIT_CODES, stopReason } from "../stop-signal.ts";

/**
 * The terminal side of a live process in the embedded sandbox. A session's commands run on the
 * worker's own thread, as async just-bash commands; a command that reads the terminal awaits what
 * is typed (TtyInput), so nothing has to block. live-script.ts rewrites such commands to run through
 * the terminal helper below, which feeds them what is typed and lets them print as they run.
 */

/**
 * What was typed into a terminal and not yet read, in canonical mode: whole lines (with their "\n"),
 * what Ctrl-D sent of an unfinished line, and end-of-input marks (Ctrl-D on an empty line).
 */
export class TtyInput {
  private readonly queue: (string | null)[] = [];
  private readonly wakers = new Set<() => void>();
  private readers = 0;

  /** A line or an unfinished line pushed by Ctrl-D. */
  push(text: string): void {
    if (text === "") return;
    this.queue.push(text);
    this.wake();
  }

  /** Ctrl-D on an empty line: the reader sees end of input once. */
  end(): void {
    this.queue.push(null);
    this.wake();
  }

  /** Ctrl-C flushes what was typed ahead, as a terminal does. */
  discard(): void {
    this.queue.length = 0;
  }

  /** Puts back what a reader took but did not use (the rest of a line after `read -n 1`). */
  giveBack(text: string): void {
    if (text !== "") this.queue.unshift(text);
  }

  /** True when something waits for input and nothing is queued: the program is idle at a prompt. */
  get starved(): boolean {
    return this.readers > 0 && this.queue.length === 0;
  }

  /** The next chunk without waiting (call when `ready`). */
  take(): string | null {
    return this.queue.shift() ?? null;
  }

  /** Whether a chunk is ready to read without waiting. */
  get ready(): boolean {
    return this.queue.length > 0;
  }

  /**
   * The next chunk: a line with its "\n", what Ctrl-D sent, or null at end of input; undefined when
   * `signal` aborted first (Ctrl-C, a deadline). Nothing is taken from the queue then.
   */
  async next(signal?: AbortSignal): Promise<string | null | undefined> {
    for (;;) {
      if (signal?.aborted) return undefined;
      if (this.queue.length > 0) return this.queue.shift()!;
      this.readers++;
      this.wake();
      try {
        await new Promise<void>((resolve) => {
          const wakeUp = () => {
            this.wakers.delete(wakeUp);
            signal?.removeEventListener("abort", wakeUp);
            resolve();
          };
          this.wakers.add(wakeUp);
          signal?.addEventListener("abort", wakeUp, { once: true });
        });
      } finally {
        this.readers--;
      }
    }
  }

  /** Called whenever input arrives or a reader starts waiting (the session's read looks for a prompt). */
  onChange: (() => void) | undefined;

  private wake(): void {
    for (const waker of [...this.wakers]) waker();
    this.onChange?.();
  }
}

/** Where a terminal-bound command's output and input go while it runs. */
export interface LiveIo {
  input: TtyInput;
  /** Prints to the terminal now; absent when that stream goes into a pipe or a file (collect it). */
  stdout?: ((text: string) => void) | undefined;
  stderr?: ((text: string) => void) | undefined;
}

/** A session's terminal streams a command may print to as it runs (see `terminalOutput`). */
export type TerminalOutput = Pick<LiveIo, "stdout" | "stderr">;

const TERMINAL_OUTPUT = Symbol.for("toolroom.terminalOutput");

/**
 * `ctx` with the session's terminal streams that `ctx`'s command prints to: a program whose stdin is
 * not the terminal still prints as it runs (command-signal.ts gives them to node and python3).
 */
export function withTerminalOutput<T extends object>(ctx: T, output: TerminalOutput): T {
  return Object.create(ctx, { [TERMINAL_OUTPUT]: { value: output } }) as T;
}

/** The terminal streams the session gave this command; undefined outside a session or when both are redirected. */
export function terminalOutput(ctx: object): TerminalOutput | undefined {
  return (ctx as Record<symbol, TerminalOutput | undefined>)[TERMINAL_OUTPUT];
}

/** A command that can run against a live terminal (the embedded node): found by the helper by name. */
export type LiveRunner = (args: string[], ctx: ResolvedCommandContext, io: LiveIo) => Promise<ExecResult>;

const LIVE = Symbol.for("toolroom.liveRunner");

/** Marks `command` as able to read a live terminal through `runner`. */
export function withLiveRunner<T extends Command>(command: T, runner: LiveRunner): T {
  (command as unknown as Record<symbol, LiveRunner>)[LIVE] = runner;
  return command;
}

function liveRunnerOf(command: CustomCommand): LiveRunner | undefined {
  return (command as unknown as Record<symbol, LiveRunner | undefined>)[LIVE];
}

/** The helper's and the tick's names: unlikely to clash with anything a person types. */
export const TERMINAL_HELPER = "__toolroom_tty";
export const LOOP_TICK = "__toolroom_tick";

/** How often a session's loop lets the thread answer other work (reads, Ctrl-C, other calls). */
const TICK_EVERY_MS = 15;

export interface TerminalOptions {
  input: TtyInput;
  print(stream: "stdout" | "stderr", text: string): void;
  /** File the helper leaves a `read`'s line in, for just-bash's own `read` to split and assign. */
  linePath: string;
  /** The sandbox's commands, searched for live runners (node). */
  commands: readonly CustomCommand[];
}

const done = (exitCode: number, stdout = "", stderr = ""): ExecResult => ({ stdout, stderr, exitCode });

/**
 * `__toolroom_tty OUT ERR name args…`: runs `name` with the terminal as its stdin. OUT/ERR are "1"
 * when that stream reaches the terminal, so output may be printed as it is produced.
 */
export function terminalCommand(options: TerminalOptions): Command {
  return {
    name: TERMINAL_HELPER,
    trusted: true,
    async execute(args, ctx) {
      const [out, err, name = "", ...rest] = args;
      const io: LiveIo = {
        input: options.input,
        stdout: out === "1" ? (text) => options.print("stdout", text) : undefined,
        stderr: err === "1" ? (text) => options.print("stderr", text) : undefined,
      };
      if (name === "read") return fillRead(rest, ctx, io, options.linePath);
      const command = options.commands.find((candidate) => candidate.name === name);
      const live = command ? liveRunnerOf(command) : undefined;
      if (live) return live(rest, ctx, io);
      return runReader(name, rest, ctx, io);
    },
  };
}

/** `__toolroom_tick`, called by a session's loops every 32nd pass: lets the thread do other work now and then. */
export function loopTickCommand(): Command {
  let last = Date.now();
  return {
    name: LOOP_TICK,
    trusted: true,
    async execute() {
      if (Date.now() - last >= TICK_EVERY_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        last = Date.now();
      }
      return done(0);
    },
  };
}

/** Exit status of a reader stopped by a signal: 130 for Ctrl-C, 124 past its deadline. */
function stopped(signal: AbortSignal | undefined): ExecResult {
  return done(STOP_EXIT_CODES[stopReason(signal) ?? "interrupt"]);
}

/**
 * `read` on the terminal: waits for what `read` will consume (a line, or -n/-N characters, or up to
 * -d's delimiter), prints -p's prompt, and leaves the text in `linePath`; just-bash's `read` then
 * reads it from there, so splitting, -r, -a and the assignments stay its own.
 */
async function fillRead(
  args: string[],
  ctx: ResolvedCommandContext,
  io: LiveIo,
  linePath: string,
): Promise<ExecResult> {
  let prompt = "";
  let timeoutSec: number | undefined;
  let count: number | undefined;
  let stopAtDelimiter = true;
  let delimiter = "\n";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("-") || arg === "-" || arg === "--") break;
    for (let j = 1; j < arg.length; j++) {
      const flag = arg[j]!;
      if (!"adnNptu".includes(flag)) continue;
      const value = arg.slice(j + 1) !== "" ? arg.slice(j + 1) : (args[++i] ?? "");
      if (flag === "p") prompt = value;
      else if (flag === "t") timeoutSec = Number(value);
      else if (flag === "n" || flag === "N") {
        count = Number(value);
        stopAtDelimiter = flag === "n";
      } else if (flag === "d") delimiter = value === "" ? "\0" : value[0]!;
      break;
    }
  }
  let stderr = "";
  if (prompt !== "") {
    if (io.stderr) io.stderr(prompt);
    else stderr = prompt;
  }
  const timed =
    timeoutSec !== undefined && Number.isFinite(timeoutSec) && timeoutSec > 0
      ? deadlineSignal({ deadlineAt: Date.now() + timeoutSec * 1000, parents: [ctx.signal] })
      : undefined;
  const signal = timed?.signal ?? ctx.signal;
  let taken = "";
  try {
    for (;;) {
      if (count !== undefined && taken.length >= count) break;
      const chunk = await io.input.next(signal);
      if (chunk === undefined) {
        io.input.giveBack(taken);
        // read -t's timeout is status 142 (128 + SIGALRM); an outer stop is the outer stop.
        if (timed && !ctx.signal?.aborted) return done(142, "", stderr);
        return stopped(ctx.signal);
      }
      if (chunk === null) break;
      let end = chunk.length;
      if (stopAtDelimiter) {
        const at = chunk.indexOf(delimiter);
        if (at >= 0) end = at + 1;
      }
      if (count !== undefined) end = Math.min(end, count - taken.length);
      taken += chunk.slice(0, end);
      io.input.giveBack(chunk.slice(end));
      if (stopAtDelimiter && taken.endsWith(delimiter)) break;
    }
  } finally {
    timed?.dispose();
  }
  await ctx.fs.writeFile(linePath, taken);
  return done(0, "", stderr);
}

/** How a terminal-bound reader uses its stdin. */
type StdinUse =
  | { kind: "none" }
  | { kind: "stream" }
  | { kind: "lines"; count: number }
  | { kind: "bytes"; count: number }
  | { kind: "all" };

/** Runs one of live-script.ts's TERMINAL_READERS (other than read and live runners) on the terminal. */
async function runReader(
  name: string,
  args: string[],
  ctx: ResolvedCommandContext,
  io: LiveIo,
): Promise<ExecResult> {
  const use = stdinUse(name, args);
  const run = (stdin: string) => {
    if (!ctx.exec) return Promise.resolve(done(127, "", `${name}: cannot run on the terminal\n`));
    return ctx.exec(name, { cwd: ctx.cwd, args, stdin, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  };
  if (use.kind === "none") return run("");
  let collected = "";
  const emit = (text: string) => {
    if (io.stdout) io.stdout(text);
    else collected += text;
  };
  if (use.kind === "all") {
    // Whole-input programs (sort, wc, awk…) answer once the input ends: Ctrl-D.
    let input = "";
    for (;;) {
      const chunk = await io.input.next(ctx.signal);
      if (chunk === undefined) return stopped(ctx.signal);
      if (chunk === null) break;
      input += chunk;
    }
    return run(input);
  }
  let lines = 0;
  let bytes = 0;
  for (;;) {
    if (use.kind === "lines" && lines >= use.count) break;
    if (use.kind === "bytes" && bytes >= use.count) break;
    const chunk = await io.input.next(ctx.signal);
    if (chunk === undefined) {
      const result = stopped(ctx.signal);
      return { ...result, stdout: collected };
    }
    if (chunk === null) break;
    let text = chunk;
    if (use.kind === "bytes") {
      const encoded = new TextEncoder().encode(chunk);
      if (bytes + encoded.length > use.count) {
        const keep = use.count - bytes;
        text = new TextDecoder().decode(encoded.slice(0, keep));
        io.input.giveBack(new TextDecoder().decode(encoded.slice(keep)));
      }
      bytes += new TextEncoder().encode(text).length;
    }
    if (text.endsWith("\n")) lines++;
    emit(text);
  }
  return done(0, collected);
}

/** Short options that take a value, per reader (so that the value is not taken for a file operand). */
const SHORT_VALUES: Record<string, string> = {
  cat: "",
  head: "nc",
  tail: "ncs",
  wc: "",
  sort: "kotST",
  uniq: "fsw",
  tr: "",
  tee: "",
  grep: "efmABCdD",
  sed: "efl",
  awk: "fvF",
  jq: "L",
  tac: "s",
  base64: "w",
};
/** Long options that take the next word(s) as values, when written without "=". */
const LONG_VALUES: Record<string, number> = {
  "--lines": 1,
  "--bytes": 1,
  "--regexp": 1,
  "--file": 1,
  "--max-count": 1,
  "--arg": 2,
  "--argjson": 2,
  "--slurpfile": 2,
  "--rawfile": 2,
  "--indent": 1,
  "--key": 1,
  "--output": 1,
  "--field-separator": 1,
  "--expression": 1,
  "--wrap": 1,
};
/** Readers whose first operand is their program, unless an option gave one (grep -e, sed -f, awk -f). */
const PROGRAM_FIRST: Record<string, string> = { grep: "ef", sed: "ef", awk: "f", jq: "" };
/** Readers that always read stdin, whatever their operands (tr's are sets, tee's are outputs). */
const ALWAYS_READ = new Set(["tr", "tee"]);

/**
 * Whether and how much of the terminal a reader consumes. When unsure it answers "none" (the
 * command runs with empty input, as a command whose stdin is not a terminal would): waiting for a
 * Ctrl-D that never comes is the worse mistake.
 */
export function stdinUse(name: string, args: string[]): StdinUse {
  const shortValues = SHORT_VALUES[name];
  if (shortValues === undefined) return { kind: "none" };
  const operands: string[] = [];
  const flags = new Set<string>();
  let programGiven = false;
  let lines: number | undefined;
  let bytes: number | undefined;
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (onlyOperands || !arg.startsWith("-") || arg === "-") {
      operands.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyOperands = true;
      continue;
    }
    if (arg === "--help" || arg === "--version") return { kind: "none" };
    if (arg.startsWith("--")) {
      const [option, inline] = arg.split("=", 2) as [string, string | undefined];
      flags.add(option);
      const count = inline === undefined ? (LONG_VALUES[option] ?? 0) : 0;
      const value = inline ?? args[i + 1];
      if ((option === "--regexp" || option === "--file" || option === "--expression") && value !== undefined)
        programGiven = true;
      if (option === "--lines" && value !== undefined) lines = Number(value);
      if (option === "--bytes" && value !== undefined) bytes = Number(value);
      i += count;
      continue;
    }
    // -5 is head's and tail's old form of -n 5.
    if ((name === "head" || name === "tail") && /^-\d+$/u.test(arg)) {
      lines = Number(arg.slice(1));
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const flag = arg[j]!;
      flags.add(flag);
      if (!shortValues.includes(flag)) continue;
      const attached = arg.slice(j + 1);
      const value = attached !== "" ? attached : args[++i];
      if ((PROGRAM_FIRST[name] ?? "").includes(flag)) programGiven = true;
      if (flag === "n" && (name === "head" || name === "tail")) lines = Number(value);
      if (flag === "c" && (name === "head" || name === "tail")) bytes = Number(value);
      break;
    }
  }
  if (name in PROGRAM_FIRST && !programGiven) {
    const program = operands.shift();
    if (program === undefined) return { kind: "none" };
    if (name === "awk" && !awkReadsInput(program)) return { kind: "none" };
  }
  if (name === "grep" && (flags.has("r") || flags.has("R") || flags.has("--recursive")))
    return { kind: "none" };
  if (name === "jq" && (flags.has("n") || flags.has("--null-input"))) return { kind: "none" };
  if (name === "awk") {
    // var=value operands are assignments, not files.
    for (let i = operands.length - 1; i >= 0; i--)
      if (/^[A-Za-z_]\w*=/u.test(operands[i]!)) operands.splice(i, 1);
  }
  const readsStdin = ALWAYS_READ.has(name) || operands.length === 0 || operands.includes("-");
  if (!readsStdin) return { kind: "none" };
  // Only plain forms stream; anything with options or file operands mixed in waits for the whole input.
  if (operands.length > 0 && !ALWAYS_READ.has(name)) return { kind: "all" };
  if (name === "cat" && [...flags].every((flag) => flag === "u")) return { kind: "stream" };
  if (
    name === "head" &&
    [...flags].every((flag) => "nc".includes(flag) || flag === "--lines" || flag === "--bytes")
  ) {
    if (bytes !== undefined)
      return Number.isInteger(bytes) && bytes >= 0 ? { kind: "bytes", count: bytes } : { kind: "all" };
    const count = lines ?? 10;
    return Number.isInteger(count) && count >= 0 ? { kind: "lines", count } : { kind: "all" };
  }
  return { kind: "all" };
}

/** False for an awk program made only of BEGIN blocks and functions: awk then never reads input. */
function awkReadsInput(program: string): boolean {
  let rest = program;
  for (;;) {
    const match = /^\s*(?:BEGIN\s*|function\s+\w+\s*\([^)]*\)\s*)\{/u.exec(rest);
    if (!match) break;
    const close = matchingBrace(rest, match[0].length - 1);
    if (close < 0) return true;
    rest = rest.slice(close + 1).replace(/^[\s;]*/u, "");
  }
  return rest.trim() !== "";
}

/** Index of the "}" closing the "{" at `open`, skipping strings and regex-free text; -1 when none. */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"') quote = char;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return i;
  }
  return -1;
}
