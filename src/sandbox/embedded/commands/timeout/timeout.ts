import type { Command, ExecResult, ResolvedCommandContext } from "just-bash";
import { deadlineSignal, stopReason } from "../../../stop-signal.ts";
import { DEADLINE_VARIABLE } from "../command-io.ts";
import { environmentOf, runWithEnvironment, withStderr } from "../env/env.ts";

/**
 * GNU `timeout DURATION COMMAND [ARG]…` in the embedded shell. just-bash's own dropped everything
 * the command had printed when its time ran out (`timeout 1 bash -c 'echo a; sleep 5'` printed
 * nothing; GNU prints `a`), and its timer never fired while one of our commands was busy (an awk
 * loop under `timeout 1` ran to the call's deadline). Here the command runs under a stop signal
 * that reads the clock whenever it is polled, so busy loops stop on time, and what the command
 * printed before is kept. A stopped program is not killed by a signal here: node and awk say they
 * were stopped, python3 shows its KeyboardInterrupt, where a real program would die silently.
 */
export function timeoutCommands(): Command[] {
  return [{ name: "timeout", trusted: true, execute: runTimeout }];
}

const SIGNALS: Record<string, number> = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  KILL: 9,
  USR1: 10,
  USR2: 12,
  ALRM: 14,
  TERM: 15,
};

const TRY = "Try 'timeout --help' for more information.\n";
const USAGE = `Usage: timeout [OPTION] DURATION COMMAND [ARG]...
  or:  timeout [OPTION]
Start COMMAND, and kill it if still running after DURATION.

  --preserve-status  exit with the same status as COMMAND, even when the command times out
  --foreground       (accepted; commands here have no process group)
  -k, --kill-after=DURATION  (accepted; a timed-out command here stops at once)
  -s, --signal=SIGNAL  the signal named in the status with --preserve-status (default TERM)
  -v, --verbose      diagnose to stderr any signal sent upon timeout
      --help         display this help and exit

DURATION is a floating point number with an optional suffix: 's' for seconds (the default), 'm' for
minutes, 'h' for hours or 'd' for days. A duration of 0 disables the associated timeout.
Exit status: 124 if COMMAND times out and --preserve-status is not given, 125 if timeout itself
fails, 126 if COMMAND is found but cannot be invoked, 127 if COMMAND cannot be found, else the
exit status of COMMAND.
`;

const fail = (message: string): ExecResult => ({ stdout: "", stderr: message, exitCode: 125 });

/** Seconds in a GNU duration ("1.5", "2m", ".5h"), or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+\.?\d*|\.\d+)([smhd]?)$/u.exec(text);
  if (!match) return undefined;
  const scale = { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as "" | "s" | "m" | "h" | "d"];
  return Number(match[1]) * scale;
}

function signalNumber(name: string): number | undefined {
  if (/^\d+$/u.test(name)) return Number(name);
  return SIGNALS[name.toUpperCase().replace(/^SIG/u, "")];
}

async function runTimeout(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
  let signal = "TERM";
  let preserve = false;
  let verbose = false;
  let at = 0;
  for (; at < args.length; at++) {
    const arg = args[at]!;
    if (arg === "--") {
      at++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    if (arg === "--help") return { stdout: USAGE, stderr: "", exitCode: 0 };
    if (arg === "--preserve-status") preserve = true;
    else if (arg === "--foreground") continue;
    else if (arg === "--verbose") verbose = true;
    else if (arg.startsWith("--signal=")) signal = arg.slice(9);
    else if (arg.startsWith("--kill-after=")) {
      if (parseDuration(arg.slice(13)) === undefined)
        return fail(`timeout: invalid time interval ‘${arg.slice(13)}’\n${TRY}`);
    } else if (arg === "--signal" || arg === "--kill-after") {
      if (at + 1 >= args.length) return fail(`timeout: option '${arg}' requires an argument\n${TRY}`);
      const given = args[++at]!;
      if (arg === "--signal") signal = given;
      else if (parseDuration(given) === undefined)
        return fail(`timeout: invalid time interval ‘${given}’\n${TRY}`);
    } else if (arg.startsWith("--")) return fail(`timeout: unrecognized option '${arg}'\n${TRY}`);
    else {
      // Short options, bundled as getopt reads them (-v, -sKILL, -k 5).
      for (let i = 1; i < arg.length; i++) {
        const flag = arg[i]!;
        if (flag === "v") verbose = true;
        else if (flag === "s" || flag === "k") {
          const attached = arg.slice(i + 1);
          if (attached === "" && at + 1 >= args.length)
            return fail(`timeout: option requires an argument -- '${flag}'\n${TRY}`);
          const given = attached !== "" ? attached : args[++at]!;
          if (flag === "s") signal = given;
          else if (parseDuration(given) === undefined)
            return fail(`timeout: invalid time interval ‘${given}’\n${TRY}`);
          break;
        } else return fail(`timeout: invalid option -- '${flag}'\n${TRY}`);
      }
    }
  }
  const signo = signalNumber(signal);
  if (signo === undefined) return fail(`timeout: ‘${signal}’: invalid signal\n${TRY}`);
  const [duration, name, ...rest] = args.slice(at);
  if (duration === undefined || name === undefined) return fail(TRY);
  const seconds = parseDuration(duration);
  if (seconds === undefined) return fail(`timeout: invalid time interval ‘${duration}’\n${TRY}`);
  if (!ctx.exec) return fail("timeout: cannot run commands here\n");

  // An outer timeout's deadline still holds inside this one.
  const outer = Number(ctx.env.get(DEADLINE_VARIABLE));
  const own = seconds > 0 ? Date.now() + seconds * 1000 : Number.POSITIVE_INFINITY;
  const deadlineAt = Math.min(own, Number.isFinite(outer) && outer > 0 ? outer : Number.POSITIVE_INFINITY);
  const limited = deadlineSignal({
    parents: [ctx.signal],
    ...(Number.isFinite(deadlineAt) ? { deadlineAt } : {}),
  });
  // The deadline goes along unexported; the terminal mark too, to a program that prints to the
  // terminal as it runs (runWithEnvironment).
  const markers: Record<string, string> = {};
  if (Number.isFinite(deadlineAt)) markers[DEADLINE_VARIABLE] = String(deadlineAt);
  try {
    const result = await runWithEnvironment(ctx, {
      environment: environmentOf(ctx),
      argv: [name, ...rest],
      cwd: ctx.cwd,
      signal: limited.signal,
      markers,
      runner: "timeout",
      failed: (command, why) => `timeout: failed to run command ‘${command}’: ${why}\n`,
    });
    const timedOut = stopReason(limited.signal) === "deadline" && !ctx.signal?.aborted;
    if (!timedOut) return result;
    // just-bash's note on the command it stopped is not GNU's: a timed-out command says nothing.
    const stderr = result.stderr.replace(/^(bash: )?execution aborted\n/mu, "");
    const said = verbose
      ? `timeout: sending signal ${signal.toUpperCase().replace(/^SIG/u, "")} to command ‘${name}’\n`
      : "";
    return { ...withStderr(result, stderr + said), exitCode: preserve ? 128 + signo : 124 };
  } finally {
    limited.dispose();
  }
}
