import type { Command, ExecResult, ResolvedCommandContext } from "just-bash";
import { DEADLINE_VARIABLE, stdinText } from "../command-io.ts";
import { environmentOf } from "../env/env.ts";

/**
 * `bash` and `sh` run as just-bash's own (`-c SCRIPT [NAME [ARG]…]`, a script file, or the script
 * on stdin), but the new shell starts from the environment it was handed, as a real one does.
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

async function runShell(name: string, args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
  let script: string;
  let zero: string;
  let rest: string[];
  if (args[0] === "-c" && args.length >= 2) {
    script = args[1]!;
    zero = args[2] ?? name;
    rest = args.slice(3);
  } else if (args.length === 0) {
    script = stdinText(ctx);
    if (script.trim() === "") return { stdout: "", stderr: "", exitCode: 0 };
    zero = name;
    rest = [];
  } else {
    try {
      script = await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, args[0]!));
    } catch {
      return { stdout: "", stderr: `${name}: ${args[0]}: No such file or directory\n`, exitCode: 127 };
    }
    zero = args[0]!;
    rest = args.slice(1);
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
  if (names.length > 0) script = `( export ${names.join(" ")}; ${script}\n)`;
  const options = { env, cwd: ctx.cwd, replaceEnv: true, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  return ctx.execWithInheritedStdin
    ? await ctx.execWithInheritedStdin(script, options)
    : await ctx.exec(script, { ...options, stdin: String(ctx.stdin as unknown), stdinKind: "bytes" });
}
