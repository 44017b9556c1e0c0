import type { ResolvedCommandContext } from "just-bash";
import { stopReason } from "../../stop-signal.ts";

/**
 * What grep, sed and awk share as shell commands: text from stdin or files, and the one way a
 * long run is stopped (briefing: poll the signal and the deadline every ~1,000 steps; exit 130
 * for an interrupt, 124 for the deadline, keeping what was printed).
 */

export type StopReason = "interrupt" | "deadline";

/** Thrown out of a run by `Poll` when the caller asked it to stop. */
export class Stopped extends Error {
  constructor(readonly reason: StopReason) {
    super(reason === "interrupt" ? "interrupted" : "deadline passed");
    this.name = "Stopped";
  }
}

/** Says whether to stop now; polled every ~1,000 steps of a loop. */
export type StopCheck = () => StopReason | null;

/** Counts steps and asks the stop check every `every` of them. */
export class Poll {
  private steps = 0;
  constructor(
    private readonly check: StopCheck | undefined,
    private readonly every = 1000,
  ) {}
  tick(): void {
    if (++this.steps >= this.every) {
      this.steps = 0;
      const reason = this.check?.();
      if (reason) throw new Stopped(reason);
    }
  }
}

export const STOP_EXIT: Record<StopReason, number> = { interrupt: 130, deadline: 124 };

export function stopMessage(command: string, reason: StopReason): string {
  return reason === "interrupt"
    ? `${command}: interrupted\n`
    : `${command}: stopped at the command's deadline (exceeded its execution deadline)\n`;
}

/**
 * The loop count a shell command enforces: the shell hands an unbounded one (Infinity) wherever its
 * deadline or stop signal ends the loop, as nothing but those stops a loop in the real programs.
 */
export function loopCount(limit: number | undefined): number | undefined {
  return limit !== undefined && Number.isFinite(limit) ? limit : undefined;
}

/** A shell command's stop check: its AbortSignal and the shell's deadline. */
export function shellStopCheck(ctx: ResolvedCommandContext): StopCheck {
  return () => {
    // A signal aborted by the call's deadline says so (stop-signal.ts's reason).
    if (ctx.signal?.aborted) return stopReason(ctx.signal) ?? "interrupt";
    if (ctx.executionScope && ctx.executionScope.remainingTimeMs() <= 0) return "deadline";
    return null;
  };
}

/**
 * just-bash hands every command its stdin as a string, "" both when nothing was piped and when an
 * empty pipe was: the script's rewrite (live-script.ts) sets this variable on a command whose stdin
 * is a pipe, a redirection or a here-document, for commands that choose their input by it (rg).
 */
export const PIPED_STDIN_VARIABLE = "__toolroom_stdin_piped";

/**
 * just-bash drops what a command printed when a stop (deadline, Ctrl-C) cuts it short: the script's
 * rewrite sets this variable on a command (awk, sed, grep, node, python3…) whose stdout ("1"), stderr ("2") or
 * both ("12") reach the terminal, so the sandbox prints what it printed before the stop itself.
 */
export const TERMINAL_OUTPUT_VARIABLE = "__toolroom_terminal_output";

/**
 * The epoch ms at which `timeout` stops what it runs, in the environment of everything it runs: a
 * command busy in a loop never lets timeout's timer fire, so our commands read the clock themselves
 * (command-signal.ts adds it to the signal they poll).
 */
export const DEADLINE_VARIABLE = "__toolroom_deadline";

/** The environment a program (node, python3) is given: the exported variables, not the shell's markers. */
export function programEnv(ctx: ResolvedCommandContext): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(ctx.exportedEnv ?? Object.fromEntries(ctx.env)))
    if (!key.startsWith("__toolroom_")) env[key] = value;
  return env;
}

/** Whether the command's stdin is a pipe or a file, even an empty one (see PIPED_STDIN_VARIABLE). */
export function stdinIsPiped(ctx: ResolvedCommandContext): boolean {
  return ctx.env.get(PIPED_STDIN_VARIABLE) === "1";
}

/** UTF-8 text of a latin1-shaped byte string (what just-bash hands a command as stdin). */
export function decodeLatin1Bytes(raw: string): string {
  if (raw === "") return "";
  // Pure ASCII needs no decoding.
  if (!/[\x80-\xff]/u.test(raw)) return raw;
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i) & 0xff;
  return new TextDecoder().decode(bytes);
}

export function stdinText(ctx: ResolvedCommandContext): string {
  // ByteString is a latin1-shaped string at run time; the browser build exports no decoder.
  return decodeLatin1Bytes(String(ctx.stdin as unknown));
}

export interface InputFile {
  /** The name as given ("-" for stdin); null text: it could not be read (message says why). */
  name: string;
  text: string | null;
  error?: string;
}

/** Reads a file named on the command line ("-" and /dev/stdin are stdin), as a program would see it. */
export async function readInput(ctx: ResolvedCommandContext, name: string): Promise<InputFile> {
  if (name === "-" || name === "/dev/stdin") return { name, text: stdinText(ctx) };
  const path = ctx.fs.resolvePath(ctx.cwd, name);
  try {
    const stat = await ctx.fs.stat(path);
    if (stat.isDirectory) return { name, text: null, error: "Is a directory" };
    const bytes = await ctx.fs.readFileBuffer(path);
    return { name, text: new TextDecoder().decode(bytes) };
  } catch {
    return { name, text: null, error: "No such file or directory" };
  }
}

/** Splits text into lines; `complete` tells whether the last one ended with a newline. */
export function splitLines(text: string, separator = "\n"): { lines: string[]; complete: boolean } {
  if (text === "") return { lines: [], complete: true };
  const lines = text.split(separator);
  const complete = lines.at(-1) === "";
  if (complete) lines.pop();
  return { lines, complete };
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}
