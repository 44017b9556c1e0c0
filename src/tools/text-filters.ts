import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import { truncateHeadBytes, utf8Length } from "../core/truncate.ts";
import {
  AWK_OPERATORS,
  type AwkProgram,
  AwkSyntaxError,
  parseAwk,
} from "../sandbox/embedded/commands/awk/awk-parse.ts";
import { type StopCheck, Stopped } from "../sandbox/embedded/commands/command-io.ts";
import { JQ_MEMORY_LIMIT_BYTES } from "../sandbox/embedded/commands/jq/runner.ts";
import { loadLinearEngine } from "../sandbox/embedded/commands/regex/linear.ts";
import { RegexSyntaxError } from "../sandbox/embedded/commands/regex/posix-regex.ts";
import {
  parseSedScript,
  type SedScript,
  SedSyntaxError,
} from "../sandbox/embedded/commands/sed/sed-script.ts";
import { formatBytes } from "./write-text.ts";

/**
 * jq, grep, sed and awk as read-only text filters, run by the same implementations as the embedded
 * shell's commands but never through a shell: the program and the input (already read through the
 * resolver and size-checked by the caller) are handed over as values, so no file name or quote in
 * either can change what runs, on either sandbox backend. sed and awk programs are checked first
 * and refused if they could write files, read files behind the resolver's back or run commands.
 * The engines load on first use: they live beside the shell's commands, which no first call needs.
 */

export type TextFilter = "jq" | "grep" | "sed" | "awk";

export interface TextFilterRun {
  filter: TextFilter;
  program: string;
  /** The text to filter; null runs jq on null input (jq -n). */
  input: string | null;
  /** Refuse output larger than this (limit_exceeded naming `maxOutputName`). */
  maxOutputBytes?: number;
  maxOutputName?: string;
  timeoutMs?: number;
}

export interface TextFilterResult {
  output: string;
  exitCode: number;
}

/**
 * Iterations any one loop of a sed or awk program may run. Inputs are small (32 KB): a program
 * looping past this is runaway, and is told so sooner than the deadline would.
 */
export const FILTER_LOOP_LIMIT = 100_000;

/**
 * Runs a filter over text. grep's exit 1 (no match) is a result; any other failure of the command
 * is abnormal_exit with its stderr (invalid_pattern for a bad grep regex).
 */
export async function runTextFilter(context: ToolContext, run: TextFilterRun): Promise<TextFilterResult> {
  // grep, sed and awk match on Rust's linear regex engine, loaded once before their regexes compile.
  if (run.filter !== "jq") await loadLinearEngine();
  if (run.filter === "grep") return inProcess(context, run, (stop) => grepFilter(run, stop));
  if (run.filter === "jq") return jqFilter(context, run);
  if (run.filter === "sed") {
    const script = checkSedExpression(run.program);
    return inProcess(context, run, (stop) => sedFilter(run, script, stop));
  }
  const program = checkAwkScript(run.program);
  return inProcess(context, run, (stop) => awkFilter(run, program, stop));
}

/**
 * The tool's stop check: its signal, and its deadline measured here, because a busy loop never
 * lets the runtime's timer fire (the briefing's polling contract).
 */
function toolStopCheck(context: ToolContext, timeoutMs: number): StopCheck {
  const deadline = performance.now() + timeoutMs;
  return () => {
    if (performance.now() >= deadline) return "deadline";
    if (context.signal.aborted) return "interrupt";
    return null;
  };
}

/** Runs one of our own filters (grep, sed, awk) in this thread, mapping its stops and errors. */
async function inProcess(
  context: ToolContext,
  run: TextFilterRun,
  body: (stop: StopCheck) => TextFilterResult | Promise<TextFilterResult>,
): Promise<TextFilterResult> {
  const timeoutMs = run.timeoutMs ?? context.deadlineMs;
  let result: TextFilterResult;
  try {
    result = await body(toolStopCheck(context, timeoutMs));
  } catch (error) {
    if (error instanceof Stopped) {
      throw new ToolFailure(
        "timeout",
        error.reason === "deadline"
          ? `${run.filter} did not finish within ${timeoutMs / 1000} s.`
          : `${run.filter} was interrupted.`,
        { command: run.filter },
      );
    }
    if (error instanceof RegexSyntaxError) {
      throw new ToolFailure(
        "invalid_pattern",
        `${run.filter}: ${error.gnuMessage} (at character ${error.position + 1} of ${JSON.stringify(run.program)}).`,
        { command: run.filter, position: error.position + 1 },
      );
    }
    throw error;
  }
  if (run.maxOutputBytes !== undefined && utf8Length(result.output) > run.maxOutputBytes) {
    const size = utf8Length(result.output);
    throw new ToolFailure(
      "limit_exceeded",
      `${run.filter} produced ${size} bytes, over the ${formatBytes(run.maxOutputBytes)} output limit (${run.maxOutputName ?? "max_output_size"}). Narrow the program.`,
      { limit: run.maxOutputName ?? "max_output_size", limit_bytes: run.maxOutputBytes, size_bytes: size },
    );
  }
  return result;
}

/**
 * The real jq (WebAssembly, in its own worker: the shell's jq too) on the input as stdin, or on
 * null input (jq -n) without one. Output past the limit stops jq at once rather than after it.
 */
async function jqFilter(context: ToolContext, run: TextFilterRun): Promise<TextFilterResult> {
  const { describeJqEnd, runJq } = await import("../sandbox/embedded/commands/jq/jq.ts");
  const timeoutMs = run.timeoutMs ?? context.deadlineMs;
  const limit = run.maxOutputBytes ?? 16 * 1024 * 1024;
  // A leading space keeps a filter such as "-1" from reading as an option.
  const args = run.input === null ? ["-n", ` ${run.program}`] : [` ${run.program}`];
  const outcome = await runJq({
    args,
    stdin: new TextEncoder().encode(run.input ?? ""),
    files: {},
    cwd: "/",
    env: {},
    timeoutMs,
    stopped: () => (context.signal.aborted ? "interrupt" : null),
    maxOutputBytes: limit,
  });
  if (!outcome)
    throw new ToolFailure("tool_unavailable", "jq is not available in this host.", { command: "jq" });
  if (outcome.stopped === "interrupt") {
    throw new ToolFailure("cancelled", "jq was cancelled and stopped.", { command: "jq" });
  }
  if (outcome.stopped === "deadline") {
    throw new ToolFailure("timeout", `jq did not finish within ${timeoutMs / 1000} s.`, { command: "jq" });
  }
  if (outcome.outputLimited) {
    throw new ToolFailure(
      "limit_exceeded",
      `jq produced more than ${limit} bytes, over the ${formatBytes(limit)} output limit (${run.maxOutputName ?? "max_output_size"}). Narrow the filter.`,
      { limit: run.maxOutputName ?? "max_output_size", limit_bytes: limit },
    );
  }
  if (outcome.outOfMemory) {
    throw new ToolFailure(
      "limit_exceeded",
      `jq stopped: the filter needed more than ${formatBytes(JQ_MEMORY_LIMIT_BYTES)} of memory (max_memory).`,
      { command: "jq", limit: "max_memory", limit_bytes: JQ_MEMORY_LIMIT_BYTES },
    );
  }
  const stderr =
    new TextDecoder().decode(outcome.stderr) +
    describeJqEnd(outcome, {
      maxOutputBytes: limit,
      memoryLimitBytes: JQ_MEMORY_LIMIT_BYTES,
    });
  if (outcome.exitCode !== 0) {
    throw new ToolFailure(
      "abnormal_exit",
      `jq failed (exit ${outcome.exitCode}): ${stderr.trim() || "no message"}`,
      { command: "jq", exit_code: outcome.exitCode, stderr: truncateHeadBytes(stderr, 2000).text },
    );
  }
  return { output: new TextDecoder().decode(outcome.stdout), exitCode: 0 };
}

/** grep as plain grep -n reads the pattern: a BRE, case-sensitive. */
async function grepFilter(run: TextFilterRun, stop: StopCheck): Promise<TextFilterResult> {
  const { grepLines } = await import("../sandbox/embedded/commands/grep/grep.ts");
  const lines = await grepLines(run.input ?? "", run.program, {}, stop);
  return {
    output: lines.map((entry) => `${entry.line}:${entry.text}\n`).join(""),
    exitCode: lines.length > 0 ? 0 : 1,
  };
}

/** sed -n over the input, in this thread; a runaway loop is stopped by counting its jumps. */
async function sedFilter(run: TextFilterRun, script: SedScript, stop: StopCheck): Promise<TextFilterResult> {
  const { runSedScript } = await import("../sandbox/embedded/commands/sed/sed.ts");
  const result = await runSedScript({
    script,
    inputs: [{ name: "-", text: run.input ?? "" }],
    options: { quiet: true, separate: false, nullData: false, lineWrap: 70 },
    stop,
    loopLimit: FILTER_LOOP_LIMIT,
  });
  if (result.stopped) throw new Stopped(result.stopped);
  if (result.exitCode !== 0 && /exceeded maximum iterations/u.test(result.stderr)) {
    throw new ToolFailure(
      "limit_exceeded",
      `sed stopped: a loop ran more than ${FILTER_LOOP_LIMIT} times on one input line (max_loop_iterations).`,
      { command: "sed", limit: "max_loop_iterations", limit_iterations: FILTER_LOOP_LIMIT },
    );
  }
  if (result.stderr !== "") {
    throw new ToolFailure("abnormal_exit", `sed failed (exit ${result.exitCode}): ${result.stderr.trim()}`, {
      command: "sed",
      exit_code: result.exitCode,
      stderr: truncateHeadBytes(result.stderr, 2000).text,
    });
  }
  // q and Q set the exit status; the output is still the answer.
  return { output: result.stdout, exitCode: result.exitCode };
}

/** awk over the input, in this thread; `exit N` is the result's exit code. */
async function awkFilter(
  run: TextFilterRun,
  program: AwkProgram,
  stop: StopCheck,
): Promise<TextFilterResult> {
  const { runAwk } = await import("../sandbox/embedded/commands/awk/awk.ts");
  const result = runAwk({
    program,
    operands: [],
    files: new Map([["-", run.input ?? ""]]),
    stop,
    loopLimit: FILTER_LOOP_LIMIT,
  });
  if (result.stopped) throw new Stopped(result.stopped);
  if (/exceeded maximum iterations/u.test(result.stderr)) {
    throw new ToolFailure(
      "limit_exceeded",
      `awk stopped: a loop ran more than ${FILTER_LOOP_LIMIT} times (max_loop_iterations).`,
      { command: "awk", limit: "max_loop_iterations", limit_iterations: FILTER_LOOP_LIMIT },
    );
  }
  if (/fatal/u.test(result.stderr)) {
    throw new ToolFailure("abnormal_exit", `awk failed (exit ${result.exitCode}): ${result.stderr.trim()}`, {
      command: "awk",
      exit_code: result.exitCode,
      stderr: truncateHeadBytes(result.stderr, 2000).text,
    });
  }
  return { output: result.stdout, exitCode: result.exitCode };
}

/** grep -n output ("12:text") as numbered lines. */
export function parseNumberedLines(output: string): { line: number; text: string }[] {
  const lines = output.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((entry) => {
    const colon = entry.indexOf(":");
    return { line: Number(entry.slice(0, colon)), text: entry.slice(colon + 1) };
  });
}

function refuse(filter: string, what: string, why: string): never {
  throw new ToolFailure("command_blocked", `${filter}: ${what} is not allowed here: ${why}.`, {
    command: filter,
    construct: what,
  });
}

/**
 * Parses a sed script as GNU sed does and checks it is read-only: w, W, r, R, e and the s flags
 * e and w are refused, as are options (-i and friends) passed where the script goes. A
 * malformed script is invalid_params with GNU's message and position.
 */
export function checkSedExpression(script: string): SedScript {
  if (/^\s*-/u.test(script)) {
    refuse(
      "sed",
      "an option",
      "give only the sed expression (such as '1,10p'); options like -i are not accepted",
    );
  }
  let parsed: SedScript;
  try {
    parsed = parseSedScript([{ text: script }], { extended: false });
  } catch (error) {
    if (error instanceof SedSyntaxError) {
      throw new ToolFailure("invalid_params", `sed: ${error.message} (in ${JSON.stringify(script)}).`, {
        command: "sed",
        position: error.position,
      });
    }
    throw error;
  }
  for (const command of parsed.commands) {
    const name = command.name;
    if (name === "w" || name === "W")
      refuse("sed", `the ${name} command`, "it writes files, and this sed is read-only");
    if (name === "r" || name === "R")
      refuse("sed", `the ${name} command`, "it reads other files; grep or read them instead");
    if (name === "e") refuse("sed", "the e command", "it runs shell commands");
    if (name === "s" && command.file !== undefined)
      refuse("sed", "the s///w flag", "it writes files, and this sed is read-only");
    if (name === "s" && command.evaluate)
      refuse("sed", "the s///e flag", "it runs the pattern space as a shell command");
  }
  return parsed;
}

type AwkToken = { kind: "word" | "number" | "string" | "regex" | "op" | "newline"; text: string };

const AWK_KEYWORDS = new Set([
  "print",
  "printf",
  "return",
  "getline",
  "in",
  "delete",
  "if",
  "else",
  "while",
  "for",
  "do",
  "exit",
  "next",
  "nextfile",
  "function",
  "func",
  "BEGIN",
  "END",
]);

/** Splits an awk program into tokens, telling regex literals from division by what precedes them. */
export function tokenizeAwk(script: string): AwkToken[] {
  const tokens: AwkToken[] = [];
  let i = 0;
  const operand = () => {
    const last = tokens.at(-1);
    if (!last) return false;
    if (last.kind === "word") return !AWK_KEYWORDS.has(last.text);
    return (
      last.kind === "number" ||
      last.kind === "string" ||
      last.kind === "regex" ||
      last.text === ")" ||
      last.text === "]" ||
      last.text === "$"
    );
  };
  while (i < script.length) {
    const c = script[i]!;
    if (c === "\n") {
      tokens.push({ kind: "newline", text: "\n" });
      i++;
    } else if (c === " " || c === "\t" || c === "\r") i++;
    else if (c === "\\" && script[i + 1] === "\n") i += 2;
    else if (c === "#") {
      while (i < script.length && script[i] !== "\n") i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < script.length && script[j] !== '"') j += script[j] === "\\" ? 2 : 1;
      tokens.push({ kind: "string", text: script.slice(i, j + 1) });
      i = j + 1;
    } else if (c === "/" && !operand()) {
      let j = i + 1;
      let inBracket = false;
      while (j < script.length && (inBracket || script[j] !== "/") && script[j] !== "\n") {
        if (script[j] === "\\") j++;
        else if (script[j] === "[") inBracket = true;
        else if (script[j] === "]") inBracket = false;
        j++;
      }
      tokens.push({ kind: "regex", text: script.slice(i, j + 1) });
      i = j + 1;
    } else if (/[A-Za-z_]/u.test(c)) {
      let j = i;
      while (j < script.length && /[A-Za-z0-9_]/u.test(script[j]!)) j++;
      tokens.push({ kind: "word", text: script.slice(i, j) });
      i = j;
    } else if (/[0-9]/u.test(c) || (c === "." && /[0-9]/u.test(script[i + 1] ?? ""))) {
      let j = i;
      while (j < script.length && /[0-9.eE]/u.test(script[j]!)) j++;
      tokens.push({ kind: "number", text: script.slice(i, j) });
      i = j;
    } else {
      const op = AWK_OPERATORS.find((candidate) => script.startsWith(candidate, i)) ?? c;
      tokens.push({ kind: "op", text: op });
      i += op.length;
    }
  }
  return tokens;
}

/**
 * Checks an awk program cannot reach past its input: system(), command pipes (`cmd | getline`,
 * `print | cmd`, `|&`), `getline < file`, and output redirection of print/printf (`>` and `>>`
 * outside parentheses) are refused. Comparisons such as `$1 > 5` in a pattern, or inside
 * parentheses in a print, are fine.
 */
export function checkAwkScript(script: string): AwkProgram {
  if (/^\s*-/u.test(script)) refuse("awk", "an option", "give only the awk program (such as '{ print $1 }')");
  const tokens = tokenizeAwk(script);
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k]!;
    if (token.text === "|&") refuse("awk", "a co-process (|&)", "it runs commands");
    if (token.kind === "word" && token.text === "system" && tokens[k + 1]?.text === "(") {
      refuse("awk", "system()", "it runs shell commands");
    }
    if (token.kind === "word" && token.text === "getline") {
      if (tokens[k - 1]?.text === "|") refuse("awk", "command | getline", "it runs commands");
      let j = k + 1;
      // Skip the optional variable getline reads into (name, name[...], or $expr).
      if (tokens[j]?.text === "$") j++;
      if (tokens[j]?.kind === "word" || tokens[j]?.kind === "number") j++;
      if (tokens[j]?.text === "[") {
        let depth = 0;
        for (; j < tokens.length; j++) {
          if (tokens[j]!.text === "[") depth++;
          if (tokens[j]!.text === "]" && --depth === 0) {
            j++;
            break;
          }
        }
      }
      if (tokens[j]?.text === "<") refuse("awk", "getline < file", "it reads files other than the input");
    }
    if (token.kind === "word" && (token.text === "print" || token.text === "printf")) {
      let depth = 0;
      for (let j = k + 1; j < tokens.length; j++) {
        const next = tokens[j]!;
        if (next.text === "(" || next.text === "[") depth++;
        else if (next.text === ")" || next.text === "]") depth--;
        if (depth < 0 || (depth === 0 && (next.kind === "newline" || next.text === ";" || next.text === "}")))
          break;
        if (depth === 0 && (next.text === ">" || next.text === ">>")) {
          refuse(
            "awk",
            `${token.text} ${next.text} file`,
            "it writes files, and awk here only reads its input",
          );
        }
        if (depth === 0 && next.text === "|") refuse("awk", `${token.text} | command`, "it runs commands");
      }
    }
  }
  try {
    return parseAwk(script);
  } catch (error) {
    if (error instanceof AwkSyntaxError) {
      throw new ToolFailure(
        "invalid_params",
        `awk: syntax error at line ${error.line}, column ${error.column}: ${error.reason}.\n${error.message}`,
        {
          command: "awk",
          line: error.line,
          column: error.column,
        },
      );
    }
    throw error;
  }
}
