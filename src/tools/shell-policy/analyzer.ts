import {
  type CommandNode,
  type PipelineNode,
  parse,
  type ScriptNode,
  type SimpleCommandNode,
  type StatementNode,
  type WordNode,
} from "just-bash";
import { gitSetupReason } from "../../core/git-setup.ts";
import { COMMANDS, isAllowedProgram } from "./commands.ts";
import { type Finding, RULES, type RuleName } from "./rules.ts";
import { type Arg, expandWord, type Variables, wordText } from "./words.ts";

/** The folders a line may be in at one point (absolute), or null when it cannot be known. */
export type Cwd = readonly string[] | null;

/** A command about to run: its words expanded as far as the text allows. */
export interface Invocation {
  name: string;
  args: Arg[];
  /** The command as written, for messages. */
  text: string;
  cwd: Cwd;
}

export type CommandCheck = (command: Invocation, analysis: Analysis) => Cwd | undefined;

/** Folders whose contents belong to the system, not to a project. */
const SYSTEM_FOLDERS = new Set([
  "bin",
  "boot",
  "dev",
  "etc",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "opt",
  "proc",
  "root",
  "run",
  "sbin",
  "snap",
  "srv",
  "sys",
  "usr",
  "var",
  "System",
  "Library",
  "Applications",
  "private",
  "Volumes",
]);

/** Special files a command may always write: they are not files on any disk. */
const HARMLESS_TARGETS = /^\/dev\/(?:null|zero|stdout|stderr|tty|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/u;

/** Variables that make git or the shell run other commands, or read another repository. */
const COMMAND_VARIABLES =
  /^(?:GIT_(?!AUTHOR_|COMMITTER_)\w+|PAGER|EDITOR|VISUAL|BASH_ENV|ENV|PROMPT_COMMAND|LD_PRELOAD|LD_LIBRARY_PATH|DYLD_\w+)$/u;

/** What a write leaves at a path, for git's setup check (a `.git` file points git elsewhere). */
const FILE = { path: "", type: "file", data: new Uint8Array() } as const;
const DIRECTORY = { path: "", type: "directory" } as const;

const MAX_NESTING = 8;
const MAX_WORK = 20_000;
const MAX_CWDS = 16;

export interface AnalysisOptions {
  /** Absolute path of the workspace in the sandbox. */
  workspaceRoot: string;
  /** Absolute folder the line starts in. */
  cwd: string;
}

/**
 * A walk over the parsed line that notes every finding: each simple command (in pipelines,
 * lists, loops, conditionals, functions, substitutions, `bash -c` and `eval` strings) is checked
 * against what it deletes, writes and runs; paths are resolved against the folder the line is in
 * at that point (`cd` followed).
 */
export class Analysis {
  readonly findings: Finding[] = [];
  readonly root: string;
  private readonly functions = new Map<string, StatementNode[]>();
  private readonly calling: string[] = [];
  private readonly variables = new Map<string, Arg[] | null>();
  private work = 0;
  private nesting = 0;
  /** Inside a pipeline of several commands or a background job: a self-call there multiplies. */
  private spawning = 0;

  constructor(options: AnalysisOptions) {
    this.root = options.workspaceRoot.replace(/\/+$/u, "") || "/";
  }

  refuse(rule: RuleName, reason: string, pattern?: string, alternative?: string): void {
    this.findings.push({
      rule,
      pattern: pattern ?? RULES[rule].pattern,
      reason,
      alternative: alternative ?? RULES[rule].alternative,
    });
  }

  /** The most serious finding, the first of its rank. */
  verdict(): Finding | undefined {
    let best: Finding | undefined;
    for (const finding of this.findings) {
      if (!best || RULES[finding.rule].rank < RULES[best.rule].rank) best = finding;
    }
    return best;
  }

  /** Parses and walks a line (or a `bash -c` / `eval` string inside one). */
  source(text: string, cwd: Cwd, origin?: string): Cwd {
    if (this.nesting >= MAX_NESTING) {
      this.refuse("unseen", `${origin ?? "The line"} nests commands more than ${MAX_NESTING} levels deep.`);
      return null;
    }
    let script: ScriptNode;
    try {
      script = parse(text);
    } catch (error) {
      const message = (error as Error).message.replace(/\s+/gu, " ");
      this.refuse(
        "unparsable",
        `${origin ? `${origin}: ` : ""}safe_shell could not parse the command (${message}), so it cannot tell what it would do.`,
      );
      return null;
    }
    this.nesting++;
    try {
      this.collectVariables(script);
      this.collectFunctions(script);
      return this.statements(script.statements, cwd);
    } finally {
      this.nesting--;
    }
  }

  // ---- structure --------------------------------------------------------------------------------

  private statements(list: readonly StatementNode[], cwd: Cwd): Cwd {
    let current = cwd;
    for (const statement of list) current = this.statement(statement, current);
    return current;
  }

  private statement(statement: StatementNode, cwd: Cwd): Cwd {
    if (statement.deferredError) {
      this.refuse(
        "unparsable",
        `safe_shell could not parse the command (${statement.deferredError.message}), so it cannot tell what it would do.`,
      );
      return cwd;
    }
    if (statement.background) this.spawning++;
    try {
      let current = this.pipeline(statement.pipelines[0]!, cwd);
      for (let i = 1; i < statement.pipelines.length; i++) {
        const after = this.pipeline(statement.pipelines[i]!, current);
        // After && or || the second part may not have run: either folder is possible.
        current = statement.operators[i - 1] === ";" ? after : union(current, after);
      }
      return statement.background ? cwd : current;
    } finally {
      if (statement.background) this.spawning--;
    }
  }

  private pipeline(pipeline: PipelineNode, cwd: Cwd): Cwd {
    if (pipeline.commands.length === 1) return this.command(pipeline.commands[0]!, cwd);
    this.checkPipeToShell(pipeline);
    this.spawning++;
    try {
      // Each part of a pipeline runs in a subshell: a cd there changes nothing after it.
      for (const command of pipeline.commands) this.command(command, cwd);
    } finally {
      this.spawning--;
    }
    return cwd;
  }

  private command(command: CommandNode, cwd: Cwd): Cwd {
    if (++this.work > MAX_WORK) {
      if (this.work === MAX_WORK + 1)
        this.refuse("unseen", "The line is too long or loops too deep for safe_shell to check all of it.");
      return null;
    }
    switch (command.type) {
      case "SimpleCommand":
        return this.simpleCommand(command, cwd);
      case "FunctionDef":
        // Checked where it is called, with the folder it runs in then.
        this.redirections(command.redirections, cwd);
        return cwd;
      case "Group":
        this.redirections(command.redirections, cwd);
        return this.statements(command.body, cwd);
      case "Subshell":
        this.redirections(command.redirections, cwd);
        this.statements(command.body, cwd);
        return cwd;
      case "If": {
        this.redirections(command.redirections, cwd);
        let out: Cwd = command.elseBody ? [] : cwd;
        let current = cwd;
        for (const clause of command.clauses) {
          current = this.statements(clause.condition, current);
          out = union(out, this.statements(clause.body, current));
        }
        if (command.elseBody) out = union(out, this.statements(command.elseBody, current));
        return out;
      }
      case "For":
      case "CStyleFor":
      case "While":
      case "Until": {
        this.redirections(command.redirections, cwd);
        if (command.type === "For") for (const word of command.words ?? []) this.substitutions(word, cwd);
        else this.substitutions(command, cwd, ["body", "condition", "redirections"]);
        const condition = command.type === "While" || command.type === "Until" ? command.condition : [];
        // Twice round the loop: a cd in the body moves the second pass.
        let current = cwd;
        for (let pass = 0; pass < 2; pass++) {
          const start = current;
          current = union(start, this.statements(command.body, this.statements(condition, start)));
          if (sameCwd(start, current)) break;
        }
        return current;
      }
      case "Case": {
        this.redirections(command.redirections, cwd);
        this.substitutions(command.word, cwd);
        let out: Cwd = cwd;
        for (const item of command.items) {
          for (const pattern of item.patterns) this.substitutions(pattern, cwd);
          out = union(out, this.statements(item.body, cwd));
        }
        return out;
      }
      case "ArithmeticCommand":
      case "ConditionalCommand":
        this.redirections(command.redirections, cwd);
        this.substitutions(command.expression, cwd);
        return cwd;
    }
  }

  private simpleCommand(node: SimpleCommandNode, cwd: Cwd): Cwd {
    for (const assignment of node.assignments) {
      this.checkVariable(assignment.name);
      if (assignment.value) this.substitutions(assignment.value, cwd);
      for (const word of assignment.array ?? []) this.substitutions(word, cwd);
    }
    this.redirections(node.redirections, cwd);
    if (!node.name) return cwd;
    const words = [node.name, ...node.args];
    for (const word of words) this.substitutions(word, cwd);
    const argv = words.flatMap((word) => expandWord(word, this.variables));
    const text = words.map(wordText).join(" ");
    return this.run(argv, text, cwd);
  }

  /** Checks one command given as words (also for wrappers: env, xargs, find -exec, timeout…). */
  run(argv: readonly Arg[], text: string, cwd: Cwd): Cwd {
    const [first, ...args] = argv;
    if (!first) return cwd;
    if (first.value === null) {
      this.refuse(
        "unseen",
        `\`${text}\` runs a command whose name (${first.text}) is only known when it runs.`,
      );
      return cwd;
    }
    const written = first.value;
    const name = written.includes("/") ? written.slice(written.lastIndexOf("/") + 1) : written;
    const body = this.functions.get(written);
    if (body) return this.callFunction(written, body, cwd);
    if (written.includes("/") && !isSystemProgram(written) && !isProjectTool(written)) {
      this.refuse(
        "notAllowed",
        `\`${text}\` runs the program ${written}, which safe_shell cannot check.`,
        `not on the allowlist: ${written}`,
      );
      return cwd;
    }
    const check = COMMANDS[name];
    if (check) {
      const after = check({ name, args, text, cwd }, this);
      return after === undefined ? cwd : after;
    }
    if (isAllowedProgram(name)) return cwd;
    this.refuse(
      "notAllowed",
      `"${name}" is not on safe_shell's allowlist (reading files, git status/diff/log, building, testing and linting).`,
      `not on the allowlist: ${name}`,
    );
    return cwd;
  }

  private callFunction(name: string, body: StatementNode[], cwd: Cwd): Cwd {
    if (this.calling.includes(name)) {
      if (this.spawning > 0)
        this.refuse(
          "forkBomb",
          `The function ${name} starts copies of itself in a pipeline or the background: a fork bomb.`,
        );
      return cwd;
    }
    this.calling.push(name);
    try {
      return this.statements(body, cwd);
    } finally {
      this.calling.pop();
    }
  }

  /** A line handed to bash -c, eval or trap: checked like the line itself. */
  nested(text: string, cwd: Cwd, origin: string): Cwd {
    return this.source(text, cwd, origin);
  }

  private checkPipeToShell(pipeline: PipelineNode): void {
    const names = pipeline.commands.map((command) =>
      command.type === "SimpleCommand" && command.name
        ? (expandWord(command.name, this.variables)[0]?.value ?? "")
        : "",
    );
    const download = names.findIndex((name) => /(?:^|\/)(?:curl|wget)$/u.test(name));
    if (download === -1) return;
    const shell = names.findIndex(
      (name, index) =>
        index > download && /(?:^|\/)(?:ba|z|k|da|fi|a)?sh$|(?:^|\/)(?:python3?|perl|ruby|node)$/u.test(name),
    );
    if (shell !== -1)
      this.refuse("pipeToShell", `Piping a download into ${names[shell]} runs code nobody has read.`);
  }

  // ---- words, redirections, variables ------------------------------------------------------------

  /** Finds $(…), `…`, <(…) and $((… $(…) …)) anywhere under a node and checks their commands. */
  private substitutions(node: unknown, cwd: Cwd, skip: readonly string[] = []): void {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) this.substitutions(item, cwd);
      return;
    }
    const typed = node as { type?: string; body?: ScriptNode; command?: string };
    if (typed.type === "CommandSubstitution" || typed.type === "ProcessSubstitution") {
      this.nesting++;
      try {
        this.statements(typed.body!.statements, cwd);
      } finally {
        this.nesting--;
      }
      return;
    }
    if (typed.type === "ArithCommandSubst" && typeof typed.command === "string") {
      this.source(typed.command, cwd, "$((…))");
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (!skip.includes(key)) this.substitutions(value, cwd);
    }
  }

  private redirections(redirections: SimpleCommandNode["redirections"], cwd: Cwd): void {
    for (const redirection of redirections) {
      const target = redirection.target;
      if (target.type === "HereDoc") {
        if (!target.quoted) this.substitutions(target.content, cwd);
        continue;
      }
      this.substitutions(target, cwd);
      const op = redirection.operator;
      const writes = op === ">" || op === ">>" || op === ">|" || op === "&>" || op === "&>>" || op === "<>";
      const args = expandWord(target, this.variables);
      // >&2, >&- and >&"$fd" duplicate descriptors; >& with a name writes the file.
      const dup = op === ">&" && args.every((arg) => arg.value === null || /^(?:\d+-?|-)$/u.test(arg.value));
      if (!writes && !(op === ">&" && !dup)) continue;
      for (const arg of args) this.write(arg, cwd, `the redirection ${op}${wordText(target)}`);
    }
  }

  private checkVariable(name: string): void {
    if (COMMAND_VARIABLES.test(name))
      this.refuse(
        "unseen",
        `Setting ${name} changes which commands git or the shell run, and safe_shell cannot check those.`,
        `setting ${name}`,
      );
  }

  /** export/declare/local/readonly NAME=VALUE: the same check as an assignment. */
  declared(args: readonly Arg[]): void {
    for (const arg of args) {
      const match = /^([A-Za-z_]\w*)(?:\+?=|$)/u.exec(arg.value ?? "");
      if (match && arg.value!.includes("=")) this.checkVariable(match[1]!);
    }
  }

  /** Every value the line gives each variable (anywhere in it): what `$NAME` may stand for. */
  private collectVariables(script: ScriptNode): void {
    const assign = (name: string, values: Arg[] | null) => {
      const previous = this.variables.get(name);
      if (previous === null || values === null) {
        this.variables.set(name, null);
        return;
      }
      this.variables.set(name, [...(previous ?? []), ...values]);
    };
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== "object") return;
      if (Array.isArray(node)) {
        for (const item of node) visit(item);
        return;
      }
      const typed = node as Record<string, unknown> & { type?: string };
      if (typed.type === "Assignment") {
        const assignment = typed as unknown as {
          name: string;
          value: WordNode | null;
          array: WordNode[] | null;
          append: boolean;
        };
        if (assignment.array || assignment.append) assign(assignment.name, null);
        else
          assign(
            assignment.name,
            assignment.value
              ? expandWord(assignment.value, new Map())
              : [{ value: "", text: "", glob: false }],
          );
      } else if (typed.type === "For") {
        const loop = typed as unknown as { variable: string; words: WordNode[] | null };
        assign(loop.variable, loop.words ? loop.words.flatMap((word) => expandWord(word, new Map())) : null);
      } else if (typed.type === "ArithAssignment" || typed.type === "ArithDynamicAssignment") {
        const variable = (typed as { variable?: string }).variable;
        if (variable) assign(variable, null);
      } else if (typed.type === "SimpleCommand") {
        // read, mapfile, getopts, printf -v, declare…: names set at run time.
        const command = typed as unknown as SimpleCommandNode;
        const name = command.name ? wordText(command.name) : "";
        if (
          /^(?:read|mapfile|readarray|getopts|printf|declare|typeset|local|export|readonly|let|unset|select)$/u.test(
            name,
          )
        ) {
          for (const word of command.args) {
            const match = /^([A-Za-z_]\w*)/u.exec(wordText(word));
            if (match) assign(match[1]!, null);
          }
        }
      }
      for (const value of Object.values(typed)) visit(value);
    };
    visit(script);
  }

  private collectFunctions(script: ScriptNode): void {
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== "object") return;
      if (Array.isArray(node)) {
        for (const item of node) visit(item);
        return;
      }
      const typed = node as { type?: string; name?: string; body?: CommandNode };
      if (typed.type === "FunctionDef" && typed.name && typed.body) {
        const body = typed.body;
        this.functions.set(typed.name, [
          {
            type: "Statement",
            pipelines: [{ type: "Pipeline", commands: [body], negated: false }],
            operators: [],
            background: false,
          },
        ]);
      }
      for (const value of Object.values(node)) visit(value);
    };
    visit(script);
  }

  // ---- paths ------------------------------------------------------------------------------------

  /** The absolute paths an argument may name, from each folder the line may be in; null: unknown. */
  paths(arg: Arg, cwd: Cwd): string[] | null {
    if (arg.value === null) return arg.within ? [...arg.within] : null;
    if (arg.value.startsWith("/")) return [collapse(arg.value)];
    if (cwd === null) return null;
    return cwd.map((folder) => collapse(`${folder}/${arg.value}`));
  }

  /** Where a path lies: inside the workspace, in a system folder, elsewhere, or a harmless device. */
  place(path: string): "inside" | "system" | "outside" | "harmless" {
    if (path === this.root || path.startsWith(`${this.root === "/" ? "" : this.root}/`)) return "inside";
    if (HARMLESS_TARGETS.test(path)) return "harmless";
    const top = path.split("/")[1] ?? "";
    return path === "/" || SYSTEM_FOLDERS.has(top) ? "system" : "outside";
  }

  relative(path: string): string {
    return path === this.root ? "" : path.slice(this.root.length + 1);
  }

  /**
   * Checks one path a command writes, creates, changes or deletes: inside the workspace, known,
   * and not git's setup.
   */
  write(arg: Arg, cwd: Cwd, what: string, verb = "writes"): void {
    const paths = this.paths(arg, cwd);
    if (paths === null) {
      this.refuse(
        "unseen",
        arg.value === null
          ? `${capitalize(what)} ${verb} ${arg.text}, a path only known when it runs; safe_shell cannot tell where it lands.`
          : `${capitalize(what)} ${verb} ${arg.text} after a cd safe_shell cannot follow, so it cannot tell where it lands.`,
      );
      return;
    }
    for (const path of paths) {
      const place = this.place(path);
      if (place === "system") {
        this.refuse(
          "systemWrite",
          `${capitalize(what)} ${verb} ${path}, in a system folder that is not the project's.`,
        );
      } else if (place === "outside") {
        this.refuse(
          "outsideWrite",
          `${capitalize(what)} ${verb} ${path}, outside the workspace (${this.root}).`,
        );
      } else if (place === "inside") {
        const becomes =
          verb === "deletes" || verb === "moves away" ? null : verb === "creates" ? DIRECTORY : FILE;
        const reason = gitSetupReason(this.relative(path), becomes);
        if (reason) this.refuse("gitSetup", `${capitalize(what)}: ${reason}.`);
      }
    }
  }

  /** A folder change: every folder the line may then be in, or null when it cannot be followed. */
  changeFolder(arg: Arg | undefined, cwd: Cwd): Cwd {
    if (!arg || arg.value === null || arg.value === "-" || arg.value.startsWith("~")) return null;
    const targets = this.paths(arg, cwd);
    // A cd that fails leaves the line where it was.
    return targets === null ? null : union(cwd, targets);
  }
}

/** The project's own copy of an allowed tool: node_modules/.bin/vitest, .venv/bin/pytest. */
function isProjectTool(path: string): boolean {
  const match = /^(?:\.\/)?(?:node_modules\/\.bin|\.?venv\/bin)\/([^/]+)$/u.exec(path);
  return match !== null && isAllowedProgram(match[1]!);
}

function isSystemProgram(path: string): boolean {
  return /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$/u.test(path);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Resolves . and .. in an absolute path, lexically. */
export function collapse(path: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}`;
}

function union(a: Cwd, b: Cwd): Cwd {
  if (a === null || b === null) return null;
  const merged = [...new Set([...a, ...b])];
  return merged.length > MAX_CWDS ? null : merged;
}

function sameCwd(a: Cwd, b: Cwd): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((folder) => b.includes(folder));
}

export type { Variables };
