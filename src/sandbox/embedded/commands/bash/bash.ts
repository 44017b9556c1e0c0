import type { Command, ExecResult, ResolvedCommandContext } from "just-bash";
import { DEADLINE_VARIABLE, stdinText } from "../command-io.ts";
import { environmentOf } from "../env/env.ts";

/**
 * `bash` and `sh`: `-c SCRIPT [NAME [ARG]…]`, a script file or the script on stdin, after bash's
 * options (`bash -lc …`, `bash -e -o pipefail script.sh`: just-bash's took any option for a file
 * name), the new shell starting from the environment it was handed, as a real one does.
 * just-bash's started from the sandbox's first environment with the exported variables on top, so
 * a variable unset or un-exported before (`env -i bash -c 'echo $HOME'`, `env -u LANG bash -c …`,
 * `export -n HOME; bash -c …`) was back in the new shell, and one handed to it by a prefix or env
 * was not exported in it (`W=1 bash -c 'printenv W'` printed nothing). The script runs in a subshell
 * that exports them: just-bash shares one set of exported names between nested shells, so exporting
 * outside a subshell would leak back to the caller.
 */
export function shellCommands(): Command[] {
  return [
    { name: "bash", trusted: true, execute: (args, ctx) => runShell("bash", args, ctx) },
    { name: "sh", trusted: true, execute: (args, ctx) => runShell("sh", args, ctx) },
  ];
}

/** The variables every new bash sets for itself (not inherited), with just-bash's values. */
const SHELL_OWN: Record<string, string> = {
  OSTYPE: "linux-gnu",
  MACHTYPE: "x86_64-pc-linux-gnu",
  HOSTTYPE: "x86_64",
  HOSTNAME: "localhost",
};

const USAGE = (name: string) => `Usage: ${name} [OPTION]... [-c COMMAND [NAME [ARG]...] | FILE [ARG]...]
Run COMMAND, or the script FILE, or the script on stdin, in a new shell.

  -c COMMAND     run COMMAND; NAME is $0 and ARGs $1…
  -e, -u, -x, -f, -o OPTION   set the shell option (as \`set\` does) before it runs
  -O OPTION      set the shopt option before it runs
  -l, -i, -s, --login, --norc, --noprofile, --posix   accepted (no startup files here)
      --help     display this help and exit
`;

/** bash's command line: its options, then -c's script or a script file or stdin, and the arguments. */
function parseShellArgs(
  name: string,
  args: string[],
): { command: boolean; fromStdin: boolean; settings: string[]; rest: string[] } | ExecResult {
  const settings: string[] = [];
  let command = false;
  let fromStdin = false;
  let at = 0;
  const invalid = (option: string): ExecResult => ({
    stdout: "",
    stderr: `${name}: ${option}: invalid option\n${USAGE(name)}`,
    exitCode: 2,
  });
  for (; at < args.length; at++) {
    const arg = args[at]!;
    if (arg === "--" || arg === "-") {
      at++;
      break;
    }
    if (!arg.startsWith("-")) break;
    if (arg.startsWith("--")) {
      if (arg === "--help") return { stdout: USAGE(name), stderr: "", exitCode: 0 };
      if (["--login", "--norc", "--noprofile", "--posix", "--noediting"].includes(arg)) continue;
      if (arg === "--rcfile" || arg === "--init-file") {
        at++;
        continue;
      }
      return invalid(arg);
    }
    for (let i = 1; i < arg.length; i++) {
      const flag = arg[i]!;
      if (flag === "c") command = true;
      else if (flag === "s") fromStdin = true;
      else if ("euxfnvhCEBHPT".includes(flag)) settings.push(`set -${flag}`);
      else if (flag === "l" || flag === "i") continue;
      else if (flag === "o" || flag === "O") {
        const value = args[++at];
        if (value === undefined)
          return { stdout: "", stderr: `${name}: -${flag}: option requires an argument\n`, exitCode: 2 };
        settings.push(flag === "o" ? `set -o ${value}` : `shopt -s ${value}`);
      } else return invalid(`-${flag}`);
    }
  }
  return { command, fromStdin, settings, rest: args.slice(at) };
}

async function runShell(name: string, args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
  const parsed = parseShellArgs(name, args);
  if (!("rest" in parsed)) return parsed;
  let script: string;
  let zero: string;
  let rest: string[];
  if (parsed.command) {
    if (parsed.rest.length === 0)
      return { stdout: "", stderr: `${name}: -c: option requires an argument\n`, exitCode: 2 };
    script = parsed.rest[0]!;
    zero = parsed.rest[1] ?? name;
    rest = parsed.rest.slice(2);
  } else if (parsed.fromStdin || parsed.rest.length === 0) {
    script = stdinText(ctx);
    if (script.trim() === "") return { stdout: "", stderr: "", exitCode: 0 };
    zero = name;
    rest = parsed.rest;
  } else {
    const file = parsed.rest[0]!;
    try {
      script = await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, file));
    } catch {
      return { stdout: "", stderr: `${name}: ${file}: No such file or directory\n`, exitCode: 127 };
    }
    zero = file;
    rest = parsed.rest.slice(1);
  }
  if (script.startsWith("#!")) {
    const end = script.indexOf("\n");
    if (end !== -1) script = script.slice(end + 1);
  }
  if (!ctx.exec) return { stdout: "", stderr: `${name}: cannot run scripts here\n`, exitCode: 1 };
  const env: Record<string, string> = { IFS: " \t\n", OPTIND: "1" };
  for (const [own, value] of Object.entries(SHELL_OWN)) env[own] = ctx.env.get(own) ?? value;
  const environment = environmentOf(ctx);
  Object.assign(env, Object.fromEntries(environment));
  // An outer timeout's deadline holds in the new shell too (not part of its environment).
  const deadline = ctx.env.get(DEADLINE_VARIABLE);
  if (deadline !== undefined) env[DEADLINE_VARIABLE] = deadline;
  Object.assign(env, { 0: zero, "#": String(rest.length), "@": rest.join(" "), "*": rest.join(" ") });
  rest.forEach((arg, index) => {
    env[String(index + 1)] = arg;
  });
  const names = [...environment.keys()].filter((variable) => /^[A-Za-z_]\w*$/u.test(variable));
  // On the script's first line, so just-bash's line numbers in its messages stay the script's own.
  const settings = parsed.settings.map((setting) => `${setting}; `).join("");
  if (names.length > 0 || settings !== "")
    script = `( ${names.length > 0 ? `export ${names.join(" ")}; ` : ""}${settings}${script}\n)`;
  const options = { env, cwd: ctx.cwd, replaceEnv: true, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  return ctx.execWithInheritedStdin
    ? await ctx.execWithInheritedStdin(script, options)
    : await ctx.exec(script, { ...options, stdin: String(ctx.stdin as unknown), stdinKind: "bytes" });
}
