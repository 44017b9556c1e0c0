import { type Command, defineCommand, type ResolvedCommandContext } from "just-bash";
import {
  type CommandResult,
  loopCount,
  readInput,
  STOP_EXIT,
  type StopCheck,
  shellStopCheck,
  stdinText,
  stopMessage,
} from "../command-io.ts";
import { loadLinearEngine } from "../regex/linear.ts";
import { type AwkProgram, AwkSyntaxError, parseAwk } from "./awk-parse.ts";
import { type AwkResult, runAwkProgram } from "./awk-run.ts";

/**
 * awk as gawk 5.2 behaves, for the embedded shell and the sandboxed `awk` tool: -F, -v, -f, --,
 * operands that are files or var=value assignments. What needs a process or another file at run
 * time (system(), pipes, getline < file) is a clear error here, never a silent wrong answer.
 */

const USAGE =
  "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...\nUsage: awk [POSIX or GNU style options] [--] 'program' file ...\n";

class UsageError extends Error {}

export interface AwkCommandLine {
  programText: string | null;
  programFiles: string[];
  fieldSeparator: string | undefined;
  assignments: [string, string][];
  operands: string[];
}

/**
 * -F fs as gawk reads it: "t" is a tab, and escapes are processed as in a string constant (an
 * unknown one, such as \w or \., is the plain character: gawk warns "treated as plain").
 */
function fieldSeparatorOption(value: string): string {
  if (value === "t") return "\t";
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", a: "\x07", b: "\b" };
  return value.replace(/\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|[\s\S])?/gu, (_all, code: string | undefined) => {
    if (code === undefined) return "\\";
    if (/^[0-7]/u.test(code)) return String.fromCharCode(Number.parseInt(code, 8));
    if (code.length > 1) return String.fromCharCode(Number.parseInt(code.slice(1), 16));
    return simple[code] ?? code;
  });
}

export function parseAwkArgs(args: string[]): AwkCommandLine {
  const line: AwkCommandLine = {
    programText: null,
    programFiles: [],
    fieldSeparator: undefined,
    assignments: [],
    operands: [],
  };
  let k = 0;
  const assignment = (text: string) => {
    const eq = text.indexOf("=");
    if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/u.test(text.slice(0, eq))) {
      throw new UsageError(`awk: \`${text}' argument to \`-v' not in \`var=value' form`);
    }
    line.assignments.push([text.slice(0, eq), text.slice(eq + 1)]);
  };
  for (; k < args.length; k++) {
    const arg = args[k]!;
    if (arg === "--") {
      k++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    const value = (inline: string) => {
      if (inline !== "") return inline;
      const next = args[++k];
      if (next === undefined) throw new UsageError(`awk: option requires an argument -- ${arg[1]}`);
      return next;
    };
    if (arg.startsWith("--field-separator=")) line.fieldSeparator = fieldSeparatorOption(arg.slice(18));
    else if (arg.startsWith("--assign=")) assignment(arg.slice(9));
    else if (arg.startsWith("--file=")) line.programFiles.push(arg.slice(7));
    else if (arg === "--version" || arg === "-V") throw new UsageError("VERSION");
    else if (arg.startsWith("-F")) line.fieldSeparator = fieldSeparatorOption(value(arg.slice(2)));
    else if (arg.startsWith("-v")) assignment(value(arg.slice(2)));
    else if (arg.startsWith("-f")) line.programFiles.push(value(arg.slice(2)));
    else if (arg === "-e" || arg === "--source") line.programText = `${line.programText ?? ""}${value("")}\n`;
    else throw new UsageError(`awk: ${arg}: unknown option`);
  }
  if (line.programText === null && line.programFiles.length === 0) {
    const program = args[k++];
    if (program === undefined) throw new UsageError("");
    line.programText = program;
  }
  line.operands = args.slice(k);
  return line;
}

export interface AwkRunRequest {
  program: AwkProgram;
  operands: string[];
  assignments?: [string, string][];
  fieldSeparator?: string;
  files: Map<string, string | null>;
  environment?: Record<string, string>;
  stop?: StopCheck;
  loopLimit?: number;
  pipes?: boolean;
}

export function runAwk(request: AwkRunRequest): AwkResult {
  return runAwkProgram({
    program: request.program,
    operands: request.operands,
    assignments: request.assignments ?? [],
    files: request.files,
    ...(request.environment ? { environment: request.environment } : {}),
    ...(request.fieldSeparator !== undefined ? { fieldSeparator: request.fieldSeparator } : {}),
    ...(request.stop ? { stop: request.stop } : {}),
    ...(request.loopLimit !== undefined ? { loopLimit: request.loopLimit } : {}),
    ...(request.pipes ? { pipes: true } : {}),
  });
}

/** The awk command of the embedded shell. */
export async function runAwkCommand(args: string[], ctx: ResolvedCommandContext): Promise<CommandResult> {
  // awk's regexes run on Rust's linear engine (regex/linear.ts), which loads once.
  await loadLinearEngine();
  let line: AwkCommandLine;
  try {
    line = parseAwkArgs(args);
  } catch (error) {
    if (error instanceof UsageError) {
      if (error.message === "VERSION") {
        return {
          stdout:
            "GNU Awk 5.2.1 compatible: Toolroom's awk for the embedded shell, held to gawk 5.2.1 by differential tests\n",
          stderr: "",
          exitCode: 0,
        };
      }
      return {
        stdout: "",
        stderr: `${error.message === "" ? "" : `${error.message}\n`}${USAGE}`,
        exitCode: 2,
      };
    }
    throw error;
  }
  const read = async (name: string): Promise<string | null> => (await readInput(ctx, name)).text;
  let source = line.programText ?? "";
  for (const file of line.programFiles) {
    const text = await read(file);
    if (text === null) {
      return {
        stdout: "",
        stderr: `awk: fatal: can't open source file \`${file}' for reading: No such file or directory\n`,
        exitCode: 2,
      };
    }
    source += `${text}\n`;
  }
  let program: AwkProgram;
  try {
    program = parseAwk(source);
  } catch (error) {
    if (error instanceof AwkSyntaxError) return { stdout: "", stderr: `${error.message}\n`, exitCode: 1 };
    throw error;
  }
  const files = new Map<string, string | null>();
  files.set("-", stdinText(ctx));
  for (const operand of line.operands) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/u.test(operand) || files.has(operand)) continue;
    files.set(operand, await read(operand));
  }
  // getline < "file" reads ahead what the program names: the shell's files are read asynchronously.
  if (source.includes("getline")) {
    const literals = [...source.matchAll(/"((?:[^"\\\n]|\\.)*)"/gu)].map((match) => match[1]!).slice(0, 64);
    for (const name of literals) {
      if (name === "" || files.has(name) || name.includes("\\")) continue;
      // A name that is not a readable file makes getline return -1, as it does in gawk.
      files.set(name, await read(name));
    }
  }
  const environment: Record<string, string> = {};
  // The shell's own markers (command-io.ts) are not the program's environment.
  for (const [key, value] of ctx.env) if (!key.startsWith("__toolroom_")) environment[key] = value;
  const result = runAwk({
    program,
    operands: line.operands,
    assignments: line.assignments,
    ...(line.fieldSeparator !== undefined ? { fieldSeparator: line.fieldSeparator } : {}),
    files,
    environment,
    stop: shellStopCheck(ctx),
    loopLimit: loopCount(ctx.limits?.maxAwkIterations),
    pipes: ctx.exec !== undefined,
  });
  // print | "command": each command runs once closed (or at the end), its output in its place.
  let stdout = "";
  let stderr = result.stderr;
  for (const part of result.output) {
    if (typeof part === "string") {
      stdout += part;
      continue;
    }
    const run = await ctx.exec!(part.command, {
      cwd: ctx.cwd,
      stdin: part.input,
      signal: ctx.signal,
    } as never);
    stdout += run.stdout;
    stderr += run.stderr;
  }
  for (const [name, text] of result.written) {
    await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, name), text);
  }
  if (result.stopped) {
    return {
      stdout,
      stderr: stderr + stopMessage("awk", result.stopped),
      exitCode: STOP_EXIT[result.stopped],
    };
  }
  return { stdout, stderr, exitCode: result.exitCode };
}

export function awkCommands(): Command[] {
  return [
    defineCommand("awk", (args, ctx) => runAwkCommand(args, ctx)),
    defineCommand("gawk", (args, ctx) => runAwkCommand(args, ctx)),
  ];
}
