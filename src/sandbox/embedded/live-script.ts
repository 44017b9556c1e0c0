import {
  type CommandNode,
  type PipelineNode,
  parse,
  type ScriptNode,
  type SimpleCommandNode,
  type StatementNode,
  type TransformPlugin,
  type WordNode,
} from "just-bash";
import { PIPED_STDIN_VARIABLE, TERMINAL_OUTPUT_VARIABLE } from "./commands/command-io.ts";

/**
 * Makes a just-bash script behave like a live process, by rewriting its syntax tree before it runs
 * (just-bash's transform plugins). just-bash collects a script's output and returns it at the end,
 * and hands commands their stdin as a string; a shell on a terminal prints each command's output as
 * it ends and lets commands read what is typed while they run. So:
 *
 * - every command whose output goes to the terminal (not into a pipe, a `$(…)` or a redirection)
 *   gets `>>OUT 2>>ERR` prepended to its redirections: its output is appended to a device the
 *   sandbox watches the moment it ends, and the command's own redirections still win;
 * - in a session, a command that reads the terminal (`read`, `cat`, `head`, `node`, …: stdin not a
 *   pipe, a redirection or a here-document) is run through a helper that feeds it what is typed;
 * - in a session, every loop pass starts with a tick that lets the worker answer other calls (a read,
 *   Ctrl-C) while a loop runs: a `while`/`until` condition and a `for` body begin with
 *   `(( ++__toolroom_ticks & 31 )) || TICK`, an arithmetic test (cheap; a command costs ~0.5 ms in
 *   just-bash) that calls TICK every 32nd pass. A loop body that reads `$?` first sees its status.
 *
 * Only the script itself is rewritten: a function's body runs wherever it is called from, so its
 * output reaches the terminal when the call ends, and its reads see end of input; so do scripts run
 * with `bash file` or `source` from the session.
 */

export interface LiveScriptOptions {
  /** Device path that terminal-bound stdout is appended to. */
  stdoutPath: string;
  /** Device path that terminal-bound stderr is appended to. */
  stderrPath: string;
  /** Commands that read the terminal are rewritten to run through this command; none when absent. */
  terminalCommand?: string;
  /** File the terminal helper leaves a `read`'s input in (with terminalCommand). */
  linePath?: string;
  /** Name of the command a loop calls every 32nd pass; no ticks when absent. */
  tickCommand?: string;
}

/** The variable loops count their passes in (between ticks). */
export const TICK_COUNTER = "__toolroom_ticks";

/** Commands rewritten to read what is typed when their stdin is the terminal. */
export const TERMINAL_READERS = new Set([
  "read",
  "cat",
  "head",
  "node",
  "python3",
  "python",
  "wc",
  "sort",
  "uniq",
  "tr",
  "tee",
  "grep",
  "sed",
  "awk",
  "jq",
  "tail",
  "tac",
  "base64",
]);

interface Where {
  /** stdout goes to the terminal */
  out: boolean;
  /** stderr goes to the terminal */
  err: boolean;
  /** stdin is the terminal */
  tty: boolean;
}

/**
 * A transform plugin that rewrites the first script it sees (the session's or the call's own) and
 * leaves the nested ones (`bash -c`, `bash file`, `eval`) alone.
 */
export function liveScriptPlugin(options: LiveScriptOptions): TransformPlugin {
  let used = false;
  return {
    name: "toolroom-live",
    transform({ ast }) {
      if (used) return { ast };
      used = true;
      return { ast: rewriteScript(ast, options) };
    },
  };
}

/** The rewrite itself (exported for tests). */
export function rewriteScript(ast: ScriptNode, options: LiveScriptOptions): ScriptNode {
  const scan = scanExec(ast.statements);
  const rewriter = new Rewriter(options, {
    // A script that moves its own stdout or stdin with `exec` decides where output goes: leave it.
    stream: !scan.movesOutput,
    stdinMoved: scan.movesInput,
    terminal: !scan.movesInput && options.terminalCommand !== undefined,
  });
  const statements = rewriter.statements(ast.statements, { out: true, err: true, tty: true });
  // Counted from 0 in every script, so `set -u` never finds the counter unset.
  const start = options.tickCommand ? parse(`${TICK_COUNTER}=0`).statements : [];
  return { ...ast, statements: [...start, ...statements] };
}

class Rewriter {
  constructor(
    private readonly options: LiveScriptOptions,
    private readonly enabled: { stream: boolean; terminal: boolean; stdinMoved: boolean },
  ) {}

  statements(statements: StatementNode[], where: Where): StatementNode[] {
    return statements.map((statement) => ({
      ...statement,
      pipelines: statement.pipelines.map((pipeline) => this.pipeline(pipeline, where)),
    }));
  }

  private pipeline(pipeline: PipelineNode, where: Where): PipelineNode {
    const last = pipeline.commands.length - 1;
    return {
      ...pipeline,
      commands: pipeline.commands.map((command, index) =>
        this.command(command, {
          out: index === last ? where.out : false,
          // `|&` sends that command's stderr down the pipe too.
          err: where.err && pipeline.pipeStderr?.[index] !== true,
          tty: index === 0 ? where.tty : false,
        }),
      ),
    };
  }

  private command(command: CommandNode, where: Where): CommandNode {
    if (command.type === "FunctionDef") return command;
    const moved = redirected(command.redirections);
    const inner: Where = {
      out: where.out && !moved.has(1),
      err: where.err && !moved.has(2),
      tty: where.tty && !moved.has(0),
    };
    if (command.type === "SimpleCommand") return this.simple(command, where, inner);
    const streamed = { ...command, redirections: this.streams(where, command.redirections) };
    switch (streamed.type) {
      case "Group":
      case "Subshell":
        return { ...streamed, body: this.statements(streamed.body, inner) };
      case "If":
        return {
          ...streamed,
          clauses: streamed.clauses.map((clause) => ({
            condition: this.statements(clause.condition, inner),
            body: this.statements(clause.body, inner),
          })),
          elseBody: streamed.elseBody ? this.statements(streamed.elseBody, inner) : null,
        };
      case "While":
      case "Until":
        return {
          ...streamed,
          condition: [...this.tick(), ...this.statements(streamed.condition, inner)],
          body: this.statements(streamed.body, inner),
        };
      case "For":
      case "CStyleFor":
        return { ...streamed, body: [...this.tick(), ...this.statements(streamed.body, inner)] };
      case "Case":
        return {
          ...streamed,
          items: streamed.items.map((item) => ({ ...item, body: this.statements(item.body, inner) })),
        };
      default:
        return streamed;
    }
  }

  /** The statement that starts each loop pass (none without a tick command). */
  private tick(): StatementNode[] {
    const tick = this.options.tickCommand;
    if (!tick) return [];
    return parse(`(( ++${TICK_COUNTER} & 31 )) || ${tick}`).statements;
  }

  private simple(given: SimpleCommandNode, where: Where, inner: Where): CommandNode {
    // `env NAME=value… cat|node|python3 …` reading the terminal reads it as the program alone does.
    const original = (this.enabled.terminal && inner.tty && envPrefixed(given)) || given;
    const name = literalOf(original.name);
    // `exec` with redirections moves the shell's own descriptors; ours must not become permanent.
    // An assignment alone (`y=$(…)`) is left too: just-bash drops a substitution's stderr there.
    if (name === "exec" || original.name === null) return original;
    const piped =
      name !== undefined && PIPED_STDIN_READERS.has(name) && (!inner.tty || this.enabled.stdinMoved);
    const terminalOutput = `${inner.out ? "1" : ""}${inner.err ? "2" : ""}`;
    const kept =
      this.enabled.stream &&
      terminalOutput !== "" &&
      name !== undefined &&
      (KEPT_WHEN_STOPPED.has(name) || (name === "env" && envRunsKept(original.args)));
    const assignments = [
      ...original.assignments,
      ...(piped ? [prefixAssignment(PIPED_STDIN_VARIABLE, "1")] : []),
      ...(kept ? [prefixAssignment(TERMINAL_OUTPUT_VARIABLE, terminalOutput)] : []),
    ];
    const command = { ...original, assignments };
    const redirections = this.streams(where, command.redirections);
    if (this.enabled.terminal && inner.tty && name !== undefined && TERMINAL_READERS.has(name)) {
      const rewritten = this.terminalReader(command, name, inner);
      if (rewritten)
        return { ...rewritten, redirections: [...this.streams(where, []), ...rewritten.redirections] };
    }
    return { ...command, redirections };
  }

  /**
   * `cat …` becomes `HELPER OUT ERR cat …` (OUT/ERR: 1 when that stream reaches the terminal, so the
   * helper may print as the command runs); `read …` becomes `HELPER OUT ERR read … && read … <LINE`:
   * the helper waits for what `read` will consume and leaves it in the file LINE, so just-bash's own
   * `read` does the splitting and the assignments (and returns 1 at end of input).
   */
  private terminalReader(command: SimpleCommandNode, name: string, where: Where): CommandNode | undefined {
    const helper = this.options.terminalCommand!;
    const flags = [literalWord(where.out ? "1" : "0"), literalWord(where.err ? "1" : "0")];
    if (name !== "read") {
      return {
        ...command,
        name: literalWord(helper),
        args: [...flags, command.name!, ...command.args],
      };
    }
    const plan = planRead(command.args);
    if (!plan) return undefined;
    const fill = simpleCommand(helper, [...flags, literalWord("read"), ...command.args]);
    const read: SimpleCommandNode = {
      ...command,
      args: plan.kept,
      redirections: [
        ...command.redirections,
        {
          type: "Redirection",
          fd: 0,
          operator: "<",
          target: literalWord(this.options.linePath ?? "/dev/null"),
        },
      ],
    };
    // The helper stopped (Ctrl-C, read -t's timeout) → read does not run and its status is the helper's.
    return {
      type: "Group",
      body: [
        {
          type: "Statement",
          pipelines: [
            { type: "Pipeline", commands: [fill], negated: false },
            { type: "Pipeline", commands: [read], negated: false },
          ],
          operators: ["&&"],
          background: false,
        },
      ],
      redirections: [],
    };
  }

  private streams(where: Where, own: SimpleCommandNode["redirections"]): SimpleCommandNode["redirections"] {
    if (!this.enabled.stream) return own;
    const ours: SimpleCommandNode["redirections"] = [];
    if (where.out) ours.push(appendTo(1, this.options.stdoutPath));
    if (where.err) ours.push(appendTo(2, this.options.stderrPath));
    // Ours first: the command's own redirections, applied after, still decide.
    return [...ours, ...own];
  }
}

/**
 * `read`'s arguments without those the helper takes over (-p prompt, -t timeout, -e, -s), or
 * undefined when they cannot be read with certainty (a computed option, -u: another descriptor).
 */
export function planRead(args: WordNode[]): { kept: WordNode[] } | undefined {
  const kept: WordNode[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const text = literalOf(word);
    if (text === undefined) {
      // Variable names (and option values) may be computed; an option itself may not.
      kept.push(word);
      continue;
    }
    if (!text.startsWith("-") || text === "-" || text === "--") {
      kept.push(...args.slice(i));
      break;
    }
    let flags = "";
    for (let j = 1; j < text.length; j++) {
      const flag = text[j]!;
      if (flag === "r") flags += flag;
      else if (flag === "s" || flag === "e") continue;
      else if ("adnNptu".includes(flag)) {
        if (flag === "u") return undefined;
        const attached = text.slice(j + 1);
        const value = attached !== "" ? literalWord(attached) : args[++i];
        if (value === undefined) return undefined;
        if (flag !== "p" && flag !== "t") {
          kept.push(literalWord(`-${flags}${flag}`), value);
          flags = "";
        }
        break;
      } else return undefined;
    }
    if (flags !== "") kept.push(literalWord(`-${flags}`));
  }
  return { kept };
}

/** Descriptors a list of redirections points somewhere else (0, 1, 2 only). */
function redirected(redirections: SimpleCommandNode["redirections"]): Set<number> {
  const fds = new Set<number>();
  for (const redirection of redirections) {
    const op = redirection.operator;
    if (op === "&>" || op === "&>>") {
      fds.add(1);
      fds.add(2);
      continue;
    }
    const input = op === "<" || op === "<&" || op === "<<" || op === "<<-" || op === "<<<" || op === "<>";
    fds.add(redirection.fd ?? (input ? 0 : 1));
  }
  return fds;
}

/** Whether the script moves its own stdout/stderr or stdin with `exec` anywhere. */
function scanExec(statements: StatementNode[]): { movesOutput: boolean; movesInput: boolean } {
  const found = { movesOutput: false, movesInput: false };
  const visitStatements = (list: StatementNode[]) => {
    for (const statement of list) {
      for (const pipeline of statement.pipelines) for (const command of pipeline.commands) visit(command);
    }
  };
  const visit = (command: CommandNode) => {
    if (command.type === "SimpleCommand") {
      if (literalOf(command.name) !== "exec") return;
      const fds = redirected(command.redirections);
      if (fds.has(1) || fds.has(2)) found.movesOutput = true;
      if (fds.has(0)) found.movesInput = true;
      // `exec cmd` replaces the shell: nothing after it runs, nothing to worry about.
      return;
    }
    if (command.type === "FunctionDef") {
      visit(command.body);
      return;
    }
    for (const value of Object.values(command)) {
      if (Array.isArray(value) && value.length > 0 && (value[0] as { type?: string })?.type === "Statement") {
        visitStatements(value as StatementNode[]);
      }
    }
    if (command.type === "If") {
      for (const clause of command.clauses) {
        visitStatements(clause.condition);
        visitStatements(clause.body);
      }
    }
    if (command.type === "Case") for (const item of command.items) visitStatements(item.body);
  };
  visitStatements(statements);
  return found;
}

/** The word's text when it is plain literal text (no quotes or expansions), else undefined. */
export function literalOf(word: WordNode | null | undefined): string | undefined {
  if (!word) return undefined;
  let text = "";
  for (const part of word.parts) {
    if (part.type === "Literal" || part.type === "SingleQuoted" || part.type === "Escaped")
      text += part.value;
    else if (part.type === "DoubleQuoted" && part.parts.every((inner) => inner.type === "Literal"))
      text += part.parts.map((inner) => (inner as { value: string }).value).join("");
    else return undefined;
  }
  return text;
}

/** Commands that search stdin only when it is a pipe or a file, however empty (as rg does). */
const PIPED_STDIN_READERS = new Set(["rg"]);

/**
 * Our commands whose output printed before a stop is kept (TERMINAL_OUTPUT_VARIABLE): they poll the
 * stop signal and return what they printed, which just-bash would drop; node, python3 and pytest
 * also print to a session's terminal as they run; timeout hands the mark on to such a command.
 */
export const KEPT_WHEN_STOPPED = new Set([
  "awk",
  "gawk",
  "sed",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "jq",
  "node",
  "python3",
  "python",
  "pytest",
  "timeout",
]);

/**
 * Whether `env [NAME=value…] command …` runs one of KEPT_WHEN_STOPPED: env hands its environment,
 * the mark included, to that command. Not for `env` alone (it prints the environment), a shell
 * (`env X=1 bash -c …` would hand the mark to commands whose output goes elsewhere), options
 * (`-i` drops it anyway) or a computed word.
 */
function envRunsKept(args: WordNode[]): boolean {
  for (const word of args) {
    const text = literalOf(word);
    if (text === undefined || text.startsWith("-")) return false;
    if (/^[A-Za-z_]\w*=/u.test(text)) continue;
    return KEPT_WHEN_STOPPED.has(text);
  }
  return false;
}

/**
 * `env NAME=value… PROGRAM ARG…` as `NAME=value… PROGRAM ARG…` when PROGRAM reads the terminal
 * (TERMINAL_READERS but the builtin read): for a program the two hand it the same environment.
 * Only for literal words: an expanded one may split into several (`env X=$v`), an option changes
 * what env does.
 */
function envPrefixed(command: SimpleCommandNode): SimpleCommandNode | undefined {
  if (literalOf(command.name) !== "env") return undefined;
  const assignments: SimpleCommandNode["assignments"] = [];
  for (const [index, word] of command.args.entries()) {
    const text = literalOf(word);
    if (text === undefined) return undefined;
    const match = /^([A-Za-z_]\w*)=(.*)$/su.exec(text);
    if (match) {
      assignments.push(quotedAssignment(match[1]!, match[2]!));
      continue;
    }
    if (text === "read" || !TERMINAL_READERS.has(text)) return undefined;
    return {
      ...command,
      assignments: [...command.assignments, ...assignments],
      name: word,
      args: command.args.slice(index + 1),
    };
  }
  return undefined;
}

/** `NAME='value'` as the parser reads it. */
function quotedAssignment(name: string, value: string): SimpleCommandNode["assignments"][number] {
  const quoted = `'${value.replace(/'/gu, "'\\''")}'`;
  return (parse(`${name}=${quoted} true`).statements[0]!.pipelines[0]!.commands[0] as SimpleCommandNode)
    .assignments[0]!;
}

/** `NAME=value`, prefixed to a command (command-io.ts reads it). */
function prefixAssignment(name: string, value: string): SimpleCommandNode["assignments"][number] {
  const assignment = (
    parse(`${name}=${value} true`).statements[0]!.pipelines[0]!.commands[0] as SimpleCommandNode
  ).assignments[0]!;
  return assignment;
}

function literalWord(text: string): WordNode {
  return { type: "Word", parts: [{ type: "SingleQuoted", value: text }] };
}

function simpleCommand(name: string, args: WordNode[]): SimpleCommandNode {
  return { type: "SimpleCommand", assignments: [], name: literalWord(name), args, redirections: [] };
}

function appendTo(fd: 1 | 2, path: string): SimpleCommandNode["redirections"][number] {
  return { type: "Redirection", fd, operator: ">>", target: literalWord(path) };
}
