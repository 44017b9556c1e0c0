import type { Command, CustomCommand, ExecResult, ResolvedCommandContext } from "just-bash";
import { deadlineSignal } from "../stop-signal.ts";
import { DEADLINE_VARIABLE, decodeLatin1Bytes, TERMINAL_OUTPUT_VARIABLE } from "./commands/command-io.ts";
import { withTerminalOutput } from "./tty.ts";

/**
 * Our own commands (node, git, grep…) get a `ctx.signal` that sees a stop synchronously.
 * just-bash hands a custom command a signal of its own that follows the script's only through the
 * abort event, which a command busy in a loop never lets run; this one also reads the script's
 * signal (a stop-signal.ts signal) whenever the command polls `ctx.signal.aborted`.
 *
 * With `keep`, a command the script's rewrite marked (TERMINAL_OUTPUT_VARIABLE) has what it printed
 * to the terminal kept when a stop cuts it short; with `stream` (a session) too, it is handed the
 * terminal's streams (tty.ts's terminalOutput) to print to as it runs, as a real program does.
 */
export function withStopSignal(
  commands: readonly CustomCommand[],
  stop: AbortSignal,
  keep?: StoppedOutput,
  stream = false,
): CustomCommand[] {
  return commands.map((command) => wrap(command, stop, keep, stream));
}

/** Where the terminal-bound output of a command a stop cut short goes (just-bash would drop it). */
export type StoppedOutput = (stream: "stdout" | "stderr", text: string) => void;

function wrap(
  command: CustomCommand,
  stop: AbortSignal,
  keep: StoppedOutput | undefined,
  stream: boolean,
): CustomCommand {
  if ("load" in command) {
    return {
      name: command.name,
      ...(command.trusted !== undefined ? { trusted: command.trusted } : {}),
      load: async () => wrap(await command.load(), stop, keep, stream) as Command,
    };
  }
  const wrapped: Command = {
    name: command.name,
    ...(command.trusted !== undefined ? { trusted: command.trusted } : {}),
    async execute(args: string[], ctx: ResolvedCommandContext) {
      // The script's signal first: its reason (deadline or interrupt) is the one the command reports.
      const deadlineAt = Number(ctx.env.get(DEADLINE_VARIABLE));
      const handle = deadlineSignal({
        parents: [stop, ctx.signal],
        ...(Number.isFinite(deadlineAt) && deadlineAt > 0 ? { deadlineAt } : {}),
      });
      // Read now: just-bash revokes a stopped command's context.
      const terminal = keep ? ctx.env.get(TERMINAL_OUTPUT_VARIABLE) : undefined;
      try {
        let own: ResolvedCommandContext = Object.create(ctx, { signal: { value: handle.signal } });
        if (keep && terminal && stream) {
          own = withTerminalOutput(own, {
            stdout: terminal.includes("1") ? (text) => keep("stdout", text) : undefined,
            stderr: terminal.includes("2") ? (text) => keep("stderr", text) : undefined,
          });
        }
        const result = await command.execute(args, own);
        if (keep && terminal && handle.signal.aborted) {
          // just-bash drops a stopped command's result (the script's stop, or timeout's deadline):
          // what it printed reaches the terminal here.
          if (terminal.includes("1")) keep("stdout", textOf(result.stdout, result.stdoutKind));
          if (terminal.includes("2")) keep("stderr", result.stderr);
          return { ...result, stdout: "", stderr: "", stdoutKind: "text" };
        }
        return asBytes(result);
      } finally {
        handle.dispose();
      }
    },
  };
  return wrapped;
}

/** Text output longer than this is handed on as bytes (see asBytes). */
const BYTES_ABOVE = 1024 * 1024;

/**
 * A long text result as the bytes a pipe carries. just-bash encodes a command's text output to UTF-8
 * a character at a time when it is piped or redirected: 30 MB took 3.8 s and 1 GB of memory (a
 * `node … | wc -c` grew the CLI past 1.3 GB); encoded here it takes a fraction of that.
 */
function asBytes(result: ExecResult): ExecResult {
  if (result.stdoutKind === "bytes" || result.stdout.length < BYTES_ABOVE) return result;
  const utf8 = new TextEncoder().encode(result.stdout);
  const parts: string[] = [];
  for (let at = 0; at < utf8.length; at += 8192)
    parts.push(String.fromCharCode.apply(null, utf8.subarray(at, at + 8192) as unknown as number[]));
  return { ...result, stdout: parts.join(""), stdoutKind: "bytes" };
}

/** A command's output as text (a "bytes" result is a latin1-shaped string of UTF-8 bytes). */
function textOf(output: string, kind: string | undefined): string {
  return kind === "bytes" ? decodeLatin1Bytes(output) : output;
}
