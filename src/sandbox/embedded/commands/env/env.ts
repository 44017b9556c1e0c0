import type { Command, ExecResult, ResolvedCommandContext } from "just-bash";
import { KEPT_WHEN_STOPPED } from "../../live-script.ts";
import { DEADLINE_VARIABLE, PIPED_STDIN_VARIABLE, TERMINAL_OUTPUT_VARIABLE } from "../command-io.ts";

/**
 * GNU `env` and `printenv` in the embedded shell. just-bash's env ran its command with the new
 * variables set but not exported, so `env X=1 node|python3|bash -c …` did not see X, `env -i` kept
 * PWD, and env and printenv listed every shell variable (IFS, SHELLOPTS, unexported ones) where the
 * real ones print the environment. Here the environment is the shell's exported variables, never
 * the sandbox's own markers (`__toolroom_…`), and env runs its command with exactly the one it built.
 */
export function envCommands(): Command[] {
  return [
    { name: "env", trusted: true, execute: runEnv },
    { name: "printenv", trusted: true, execute: runPrintenv },
  ];
}

/** The sandbox's markers a command run by env still needs (they are not part of its environment). */
const CARRIED_MARKERS = [DEADLINE_VARIABLE, PIPED_STDIN_VARIABLE, TERMINAL_OUTPUT_VARIABLE];

/** What a real program finds in its environment: the exported variables, in the shell's order. */
export function environmentOf(ctx: ResolvedCommandContext): Map<string, string> {
  const exported = ctx.exportedEnv ?? {};
  const environment = new Map<string, string>();
  for (const [name] of ctx.env)
    if (Object.hasOwn(exported, name) && !isMarker(name)) environment.set(name, exported[name]!);
  for (const [name, value] of Object.entries(exported))
    if (!environment.has(name) && !isMarker(name)) environment.set(name, value);
  return environment;
}

function isMarker(name: string): boolean {
  return name.startsWith("__toolroom_");
}

/** Bash builtins with no program of that name on a GNU system: env cannot run them. */
const SHELL_ONLY = new Set(
  (
    ". : alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs " +
    "disown enable eval exec exit export fc fg getopts hash help history jobs let local logout mapfile " +
    "popd pushd read readarray readonly return set shift shopt source suspend times trap type typeset " +
    "ulimit umask unalias unset wait"
  ).split(" "),
);

const IDENTIFIER = /^[A-Za-z_]\w*$/u;

const ENV_USAGE = `Usage: env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]
Set each NAME to VALUE in the environment and run COMMAND.

Mandatory arguments to long options are mandatory for short options too.
  -i, --ignore-environment  start with an empty environment
  -0, --null           end each output line with NUL, not newline
  -u, --unset=NAME     remove variable from the environment
  -C, --chdir=DIR      change working directory to DIR
      --default-signal[=SIG]  (accepted: commands here keep the default handling)
      --list-signal-handling  list non default signal handling to stderr (there is none)
  -v, --debug          print verbose information for each processing step
      --help        display this help and exit

A mere - implies -i.  If no COMMAND, print the resulting environment.
Not here: -S (--split-string), --block-signal, --ignore-signal.
`;

const TRY = "Try 'env --help' for more information.\n";

const usageError = (message: string): ExecResult => ({
  stdout: "",
  stderr: `env: ${message}\n${TRY}`,
  exitCode: 125,
});

/** Quotes a name in env's messages as GNU's quote() does: ‘…’ in a UTF-8 locale, '…' otherwise. */
export function quoted(ctx: ResolvedCommandContext, text: string): string {
  const locale = ctx.env.get("LC_ALL") || ctx.env.get("LC_CTYPE") || ctx.env.get("LANG") || "";
  return /utf-?8/iu.test(locale) ? `‘${text}’` : `'${text}'`;
}

interface EnvPlan {
  ignore: boolean;
  unset: string[];
  nul: boolean;
  chdir?: string;
  debug: boolean;
  /** Index of the first NAME=VALUE or command word. */
  rest: number;
}

/** GNU env's options (getopt with "+": the first word that is not an option ends them). */
function parseEnvOptions(args: string[]): EnvPlan | ExecResult {
  const plan: EnvPlan = { ignore: false, unset: [], nul: false, debug: false, rest: args.length };
  let at = 0;
  for (; at < args.length; at++) {
    const arg = args[at]!;
    if (arg === "--") {
      at++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    if (arg.startsWith("--")) {
      const [long, value] = splitLong(arg);
      const takes = (name: string): string | ExecResult => {
        if (value !== undefined) return value;
        if (at + 1 >= args.length) return usageError(`option '--${name}' requires an argument`);
        return args[++at]!;
      };
      const name = matchLong(long);
      if (name === undefined) return usageError(`unrecognized option '${arg}'`);
      if (name === "ambiguous") return usageError(`option '${arg}' is ambiguous`);
      if (name === "help") return { stdout: ENV_USAGE, stderr: "", exitCode: 0 };
      if (name === "version") return { stdout: "env (GNU coreutils) 9.1\n", stderr: "", exitCode: 0 };
      if (name === "ignore-environment") plan.ignore = true;
      else if (name === "null") plan.nul = true;
      else if (name === "debug") plan.debug = true;
      else if (name === "default-signal" || name === "list-signal-handling") continue;
      else if (name === "unset" || name === "chdir") {
        const given = takes(name);
        if (typeof given !== "string") return given;
        if (name === "unset") plan.unset.push(given);
        else plan.chdir = given;
      } else
        return {
          stdout: "",
          stderr: `env: --${name} is not supported in this shell\n`,
          exitCode: 125,
        };
      continue;
    }
    for (let i = 1; i < arg.length; i++) {
      const flag = arg[i]!;
      if (flag === "i") plan.ignore = true;
      else if (flag === "0") plan.nul = true;
      else if (flag === "v") plan.debug = true;
      else if (flag === "u" || flag === "C" || flag === "S") {
        const attached = arg.slice(i + 1);
        if (attached === "" && at + 1 >= args.length)
          return usageError(`option requires an argument -- '${flag}'`);
        const given = attached !== "" ? attached : args[++at]!;
        if (flag === "S")
          return { stdout: "", stderr: "env: -S is not supported in this shell\n", exitCode: 125 };
        if (flag === "u") plan.unset.push(given);
        else plan.chdir = given;
        break;
      } else return usageError(`invalid option -- '${flag}'`);
    }
  }
  // A mere "-" after the options implies -i.
  if (args[at] === "-") {
    plan.ignore = true;
    at++;
  }
  plan.rest = at;
  return plan;
}

const LONG_OPTIONS = [
  "ignore-environment",
  "null",
  "unset",
  "chdir",
  "split-string",
  "block-signal",
  "default-signal",
  "ignore-signal",
  "list-signal-handling",
  "debug",
  "help",
  "version",
];

function splitLong(arg: string): [string, string | undefined] {
  const equals = arg.indexOf("=");
  return equals === -1 ? [arg.slice(2), undefined] : [arg.slice(2, equals), arg.slice(equals + 1)];
}

/** A long option by its name or an unambiguous prefix of it, as getopt_long takes them. */
function matchLong(given: string): string | undefined {
  if (LONG_OPTIONS.includes(given)) return given;
  const matches = LONG_OPTIONS.filter((name) => name.startsWith(given));
  if (matches.length === 0 || given === "") return undefined;
  return matches.length === 1 ? matches[0] : "ambiguous";
}

async function runEnv(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
  const plan = parseEnvOptions(args);
  if (!("rest" in plan)) return plan;
  let debug = "";
  const environment = plan.ignore ? new Map<string, string>() : environmentOf(ctx);
  if (plan.ignore && plan.debug) debug += "cleaning environ\n";
  for (const name of plan.unset) {
    if (name === "" || name.includes("="))
      return {
        stdout: debug,
        stderr: `env: cannot unset ${quoted(ctx, name)}: Invalid argument\n`,
        exitCode: 125,
      };
    if (plan.debug) debug += `unset:    ${name}\n`;
    environment.delete(name);
  }
  let at = plan.rest;
  for (; at < args.length && args[at]!.includes("="); at++) {
    const arg = args[at]!;
    const equals = arg.indexOf("=");
    if (plan.debug) debug += `setenv:   ${arg}\n`;
    // GNU's putenv takes "=value" too (a variable with an empty name).
    environment.delete(arg.slice(0, equals));
    environment.set(arg.slice(0, equals), arg.slice(equals + 1));
  }
  const argv = args.slice(at);
  if (argv.length === 0) {
    if (plan.chdir !== undefined) return usageError("must specify command with --chdir (-C)");
    let stdout = "";
    for (const [name, value] of environment) stdout += `${name}=${value}${plan.nul ? "\0" : "\n"}`;
    return { stdout, stderr: debug, exitCode: 0 };
  }
  if (plan.nul) return usageError("cannot specify --null (-0) with command");

  let cwd = ctx.cwd;
  if (plan.chdir !== undefined) {
    const target = ctx.fs.resolvePath(ctx.cwd, plan.chdir);
    const stat = await ctx.fs.stat(target).catch(() => undefined);
    if (plan.debug) debug += `chdir:    '${plan.chdir}'\n`;
    if (!stat?.isDirectory) {
      const why = stat ? "Not a directory" : "No such file or directory";
      return {
        stdout: "",
        stderr: `${debug}env: cannot change directory to '${plan.chdir}': ${why}\n`,
        exitCode: 125,
      };
    }
    cwd = target;
  }
  if (plan.debug) {
    debug += `executing: ${argv[0]}\n`;
    argv.forEach((word, index) => {
      debug += `   arg[${index}]= ${quoted(ctx, word)}\n`;
    });
  }
  const result = await runWithEnvironment(ctx, {
    environment,
    argv,
    cwd,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    runner: "env",
    failed: (name, why) => `env: ${quoted(ctx, name)}: ${why}\n`,
  });
  return debug === "" ? result : withStderr(result, debug + result.stderr);
}

/** How a command that runs another (env, timeout) starts it. */
export interface RunOptions {
  /** Exactly the variables the command finds in its environment. */
  environment: Map<string, string>;
  argv: string[];
  cwd: string;
  signal?: AbortSignal;
  /** Markers set for the command (DEADLINE_VARIABLE…), on top of those carried from the caller. */
  markers?: Record<string, string>;
  /** The runner's name, for its own errors. */
  runner: string;
  /** The runner's word for a command it could not find or run (GNU env's and timeout's differ). */
  failed: (name: string, why: "No such file or directory" | "Permission denied") => string;
}

/**
 * Runs `argv` as a program (never a shell builtin or function) with exactly `environment` exported,
 * in `cwd`: the way env and timeout start their command. The command runs in a subshell of a nested
 * script, so its exports and unsets end with it; the sandbox's markers go along unexported.
 */
export async function runWithEnvironment(
  ctx: ResolvedCommandContext,
  options: RunOptions,
): Promise<ExecResult> {
  const { environment, argv } = options;
  const name = argv[0]!;
  if (SHELL_ONLY.has(name) || name === "")
    return { stdout: "", stderr: options.failed(name, "No such file or directory"), exitCode: 127 };
  if (!ctx.exec)
    return { stdout: "", stderr: `${options.runner}: cannot run commands here\n`, exitCode: 125 };
  for (const variable of environment.keys())
    if (!IDENTIFIER.test(variable))
      return {
        stdout: "",
        stderr: `${options.runner}: cannot hand the variable ${quoted(ctx, variable)} to a command in this shell: only shell variable names can be exported here\n`,
        exitCode: 125,
      };
  const carried: Record<string, string> = {};
  for (const marker of CARRIED_MARKERS) {
    const value = ctx.env.get(marker);
    // The terminal mark only to a program that prints to the terminal itself (live-script.ts).
    if (value !== undefined && (marker !== TERMINAL_OUTPUT_VARIABLE || KEPT_WHEN_STOPPED.has(name)))
      carried[marker] = value;
  }
  const names = [...environment.keys()];
  // just-bash sets PWD in every nested script; a real program sees it only if it was passed on.
  const drop = environment.has("PWD") ? "" : "unset PWD; ";
  const exports = names.length > 0 ? `export ${names.join(" ")}; ` : "";
  const script = `( ${drop}${exports}command -- ${argv.map(shellWord).join(" ")} )`;
  const ran = await ctx.exec(script, {
    cwd: options.cwd,
    env: { ...Object.fromEntries(environment), ...carried, ...options.markers },
    replaceEnv: true,
    stdin: String(ctx.stdin as unknown),
    stdinKind: "bytes",
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (
    ran.exitCode === 127 &&
    /^bash: .*: (command not found|No such file or directory)\n$/su.test(ran.stderr)
  )
    return withStderr(ran, options.failed(name, "No such file or directory"));
  if (ran.exitCode === 126 && /^bash: .*: Permission denied\n$/su.test(ran.stderr))
    return withStderr(ran, options.failed(name, "Permission denied"));
  return ran;
}

/**
 * A result with its stderr replaced. just-bash's accounting of the output it already charged to the
 * budget is left out: it would no longer match the text (just-bash then fails the whole script).
 */
export function withStderr(result: ExecResult, stderr: string): ExecResult {
  const { internalOutputAccounting: _, ...rest } = result;
  return { ...rest, stderr };
}

/** One word of a shell command line, quoted so the shell reads it back as it is. */
function shellWord(word: string): string {
  return /^[\w@%+:,./-]+$/u.test(word) && !word.includes("=") ? word : `'${word.replace(/'/gu, "'\\''")}'`;
}

const PRINTENV_USAGE = `Usage: printenv [OPTION]... [VARIABLE]...
Print the values of the specified environment VARIABLE(s).
If no VARIABLE is specified, print name and value pairs for them all.

  -0, --null     end each output line with NUL, not newline
      --help     display this help and exit
`;

/** GNU printenv: the environment (exported variables), all of it or the named ones' values. */
async function runPrintenv(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
  let nul = false;
  let at = 0;
  for (; at < args.length; at++) {
    const arg = args[at]!;
    if (arg === "--") {
      at++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    const fail = (message: string): ExecResult => ({
      stdout: "",
      stderr: `printenv: ${message}\nTry 'printenv --help' for more information.\n`,
      exitCode: 2,
    });
    if (arg.startsWith("--")) {
      const long = arg.slice(2);
      if (long !== "" && "null".startsWith(long) && !"help".startsWith(long)) nul = true;
      else if (long !== "" && "help".startsWith(long))
        return { stdout: PRINTENV_USAGE, stderr: "", exitCode: 0 };
      else if (long !== "" && "version".startsWith(long))
        return { stdout: "printenv (GNU coreutils) 9.1\n", stderr: "", exitCode: 0 };
      else return fail(`unrecognized option '${arg}'`);
      continue;
    }
    for (const flag of arg.slice(1)) {
      if (flag === "0") nul = true;
      else return fail(`invalid option -- '${flag}'`);
    }
  }
  const end = nul ? "\0" : "\n";
  const environment = environmentOf(ctx);
  const names = args.slice(at);
  if (names.length === 0) {
    let stdout = "";
    for (const [name, value] of environment) stdout += `${name}=${value}${end}`;
    return { stdout, stderr: "", exitCode: 0 };
  }
  let stdout = "";
  let missing = 0;
  for (const name of names) {
    const value = name.includes("=") ? undefined : environment.get(name);
    if (value === undefined) missing++;
    else stdout += value + end;
  }
  return { stdout, stderr: "", exitCode: missing > 0 ? 1 : 0 };
}
