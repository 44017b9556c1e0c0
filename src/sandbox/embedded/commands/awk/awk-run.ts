import { Poll, type StopCheck, Stopped, type StopReason } from "../command-io.ts";
import { execPosix, linearRegex, testPosix } from "../regex/linear.ts";
import { compilePosixRegex, type PosixRegex, RegexSyntaxError } from "../regex/posix-regex.ts";
import { formatPrintf, integerText, looksNumeric, stringToNumber } from "./awk-format.ts";
import type { AwkFunction, AwkProgram, Expr, Rule, Stmt } from "./awk-parse.ts";

/**
 * Runs a parsed awk program as gawk does: records and fields (FS of one character, " ", a regex,
 * or ""; RS of one character, "" for paragraphs, or a regex), strnums from input compared as
 * numbers, numbers printed through OFMT/CONVFMT, uninitialised values, arrays passed by reference,
 * getline, ranges, exit with END. Loops poll the stop check and count against the loop limit.
 */

/** Text from input (fields, getline, split): a number when it looks like one. */
class StrNum {
  private parsed: number | undefined;
  private numericLook: boolean | undefined;
  constructor(readonly text: string) {}
  get number(): number {
    this.parsed ??= stringToNumber(this.text);
    return this.parsed;
  }
  get numeric(): boolean {
    this.numericLook ??= looksNumeric(this.text);
    return this.numericLook;
  }
}

const UNINIT = Symbol("uninitialised");
type Scalar = number | string | StrNum | typeof UNINIT;
type AwkArray = Map<string, Scalar>;
/** A parameter bound to the caller's uninitialised variable: it becomes an array there if used as one. */
class Unbound {
  constructor(readonly bind: (array: AwkArray) => void) {}
}
type Slot = Scalar | AwkArray | Unbound;

interface Stream {
  text: string;
  position: number;
}

/** Output sent to a command (print | "sort"): run by the shell when closed or at the end. */
export interface PipedOutput {
  command: string;
  input: string;
}

export class AwkFatal extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "AwkFatal";
  }
}

class NextRecord {}
class NextFile {}
class ExitProgram {}
class BreakLoop {}
class ContinueLoop {}
class ReturnValue {
  constructor(readonly value: Scalar) {}
}

const NEXT = new NextRecord();
const NEXT_FILE = new NextFile();
const EXIT = new ExitProgram();
const BREAK = new BreakLoop();
const CONTINUE = new ContinueLoop();

export interface AwkInput {
  /** "-" for stdin. */
  name: string;
  text: string | null;
}

export interface AwkRunOptions {
  program: AwkProgram;
  /** ARGV[1..]: files and var=value assignments. */
  operands: string[];
  /** -v assignments, applied before BEGIN. */
  assignments: [string, string][];
  /** Texts of stdin and of the files the operands name (null: cannot be read). */
  files: Map<string, string | null>;
  environment?: Record<string, string>;
  fieldSeparator?: string;
  stop?: StopCheck;
  /** Iterations any one loop may run. */
  loopLimit?: number;
  /** print | command is collected for the caller to run (the shell); otherwise it is an error. */
  pipes?: boolean;
}

export interface AwkResult {
  /** What awk itself printed (without what was piped to commands). */
  stdout: string;
  /** stdout in order, with each piped command's input where its output belongs. */
  output: (string | PipedOutput)[];
  stderr: string;
  exitCode: number;
  /** What print > file wrote, by file name (the shell writes them). */
  written: Map<string, string>;
  stopped?: StopReason;
}

export function runAwkProgram(options: AwkRunOptions): AwkResult {
  return new Interpreter(options).run();
}

function awkUnescapeAssignment(text: string): string {
  return text.replace(/\\(["\\/abfnrtv]|[0-7]{1,3})/gu, (_all, code: string) => {
    if (/^[0-7]/u.test(code)) return String.fromCharCode(Number.parseInt(code, 8));
    const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", a: "\x07", b: "\b" };
    return map[code] ?? code;
  });
}

class Interpreter {
  private readonly globals = new Map<string, Slot>();
  private frames: Map<string, Slot>[] = [];
  private record = "";
  private fields: string[] | null = null;
  private fieldValues: (StrNum | string)[] | null = null;
  private readonly out: (string | PipedOutput)[] = [];
  /** Printed but not yet flushed: a command's output started later comes before it. */
  private readonly pending: string[] = [];
  private readonly err: string[] = [];
  private readonly written = new Map<string, string[]>();
  private readonly regexes = new Map<string, PosixRegex>();
  private readonly poll: Poll;
  private exitCode = 0;
  private readonly rangeActive: boolean[];
  private seed = 0;
  private random: () => number;
  private callDepth = 0;
  // Input state.
  private argIndex = 1;
  private input: Stream | null = null;
  /** getline < file: each file's read position, until close(). */
  private readonly fileStreams = new Map<string, Stream>();
  /** print | command: what each open command was sent. */
  private readonly pipes = new Map<string, string[]>();
  private haveInput = false;
  private inEnd = false;

  constructor(private readonly options: AwkRunOptions) {
    this.poll = new Poll(options.stop);
    this.rangeActive = options.program.rules.map(() => false);
    this.random = mulberry(0);
    const set = (name: string, value: Scalar) => this.globals.set(name, value);
    set("FS", options.fieldSeparator ?? " ");
    set("OFS", " ");
    set("ORS", "\n");
    set("RS", "\n");
    set("NR", 0);
    set("FNR", 0);
    set("SUBSEP", "\x1c");
    set("CONVFMT", "%.6g");
    set("OFMT", "%.6g");
    set("RSTART", 0);
    set("RLENGTH", -1);
    set("FILENAME", "");
    set("RT", "");
    const argv: AwkArray = new Map();
    argv.set("0", "awk");
    for (const [k, operand] of options.operands.entries()) argv.set(String(k + 1), new StrNum(operand));
    this.globals.set("ARGV", argv);
    set("ARGC", options.operands.length + 1);
    const environ: AwkArray = new Map();
    for (const [key, value] of Object.entries(options.environment ?? {})) environ.set(key, new StrNum(value));
    this.globals.set("ENVIRON", environ);
    for (const [name, value] of options.assignments)
      this.globals.set(name, new StrNum(awkUnescapeAssignment(value)));
  }

  run(): AwkResult {
    let stopped: StopReason | undefined;
    try {
      this.runAll();
    } catch (error) {
      if (error instanceof Stopped) stopped = error.reason;
      else if (error instanceof AwkFatal) {
        this.err.push(`awk: ${error.message}\n`);
        this.exitCode = error.exitCode;
      } else if (error instanceof RegexSyntaxError) {
        this.err.push(`awk: fatal: ${error.gnuMessage}\n`);
        this.exitCode = 2;
      } else throw error;
    }
    this.flush();
    const written = new Map<string, string>();
    for (const [name, chunks] of this.written) written.set(name, chunks.join(""));
    return {
      stdout: this.out.filter((part) => typeof part === "string").join(""),
      output: this.out,
      stderr: this.err.join(""),
      exitCode: this.exitCode,
      written,
      ...(stopped ? { stopped } : {}),
    };
  }

  private runAll(): void {
    const { rules } = this.options.program;
    const begins = rules.filter((rule) => rule.kind === "begin");
    const mains = rules.filter((rule) => rule.kind === "main");
    const ends = rules.filter((rule) => rule.kind === "end");
    // gawk compiles FS as it is set: a malformed -F regex is fatal before BEGIN.
    this.checkFieldSeparator(this.toStr(this.getVar("FS")));
    try {
      for (const rule of begins) this.statements(rule.action!);
      if (mains.length > 0 || ends.length > 0) {
        while (this.nextMainRecord()) {
          this.poll.tick();
          try {
            for (const [index, rule] of rules.entries()) {
              if (rule.kind === "main" && this.ruleMatches(rule, index)) {
                if (rule.action) this.statements(rule.action);
                else this.print([], null);
              }
            }
          } catch (signal) {
            if (signal === NEXT) continue;
            if (signal === NEXT_FILE) {
              this.input = null;
              continue;
            }
            throw signal;
          }
        }
      }
    } catch (signal) {
      if (signal !== EXIT) throw signal;
    }
    try {
      this.inEnd = true;
      for (const rule of ends) this.statements(rule.action!);
    } catch (signal) {
      if (signal !== EXIT) throw signal;
    }
    // At the end the commands are closed first, then awk's own buffered output is written.
    for (const [command, chunks] of this.pipes) this.out.push({ command, input: chunks.join("") });
    this.pipes.clear();
  }

  /** close(): a pipe's command runs now (its output goes here); a file is read again from its start. */
  private closePipe(name: string): number {
    const chunks = this.pipes.get(name);
    this.fileStreams.delete(name);
    if (!chunks) return -1;
    this.pipes.delete(name);
    this.flush();
    this.out.push({ command: name, input: chunks.join("") });
    return 0;
  }

  /** awk's buffered output goes out (before a command starts or is closed, and at the end). */
  private flush(): void {
    this.out.push(...this.pending);
    this.pending.length = 0;
  }

  private ruleMatches(rule: Rule, index: number): boolean {
    if (!rule.pattern) return true;
    if (!rule.until) return this.truthy(this.evaluate(rule.pattern));
    if (this.rangeActive[index]) {
      if (this.truthy(this.evaluate(rule.until))) this.rangeActive[index] = false;
      return true;
    }
    if (!this.truthy(this.evaluate(rule.pattern))) return false;
    if (!this.truthy(this.evaluate(rule.until))) this.rangeActive[index] = true;
    return true;
  }

  // ---- input ----

  /** Opens the next input operand (applying var=value operands on the way); false at the end. */
  private openNextInput(): boolean {
    for (;;) {
      const argc = this.toNumber(this.getVar("ARGC"));
      const argv = this.arrayOf("ARGV");
      if (this.argIndex >= argc) {
        if (this.haveInput) return false;
        this.haveInput = true;
        return this.open("-");
      }
      const operand = argv.get(String(this.argIndex++));
      const text = operand === undefined ? "" : this.toStr(operand);
      if (text === "") continue;
      const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/su.exec(text);
      if (assignment) {
        this.setVar(assignment[1]!, new StrNum(awkUnescapeAssignment(assignment[2]!)));
        continue;
      }
      this.haveInput = true;
      return this.open(text);
    }
  }

  private open(name: string): boolean {
    const text = this.options.files.get(name);
    if (text === undefined || text === null) {
      if (text === undefined && name !== "-") {
        throw new AwkFatal(
          `fatal: cannot open file \`${name}' for reading: it was not named on the command line`,
        );
      }
      this.err.push(
        `awk: cmd. line:1: warning: cannot open file \`${name}' for reading: No such file or directory\n`,
      );
      this.exitCode = 2;
      return this.openNextInput();
    }
    this.input = { text, position: 0 };
    this.globals.set("FILENAME", name === "-" ? "" : name);
    this.globals.set("FNR", 0);
    return true;
  }

  /** The next record of the main input, or null at its end. */
  private readRecord(): string | null {
    for (;;) {
      if (this.input === null && !this.openNextInput()) return null;
      const record = this.splitRecord(this.input!);
      if (record !== null) return record;
      this.input = null;
    }
  }

  /** The next record of a stream as RS says (one character, "" for paragraphs, or a regex). */
  private splitRecord(stream: Stream): string | null {
    const { text } = stream;
    let at = stream.position;
    const rs = this.toStr(this.getVar("RS"));
    if (rs === "") {
      while (at < text.length && text[at] === "\n") at++;
      if (at >= text.length) return null;
      const match = /\n\n+/gu;
      match.lastIndex = at;
      const found = match.exec(text);
      const end = found ? found.index : text.length;
      let record = text.slice(at, end);
      if (!found) record = record.replace(/\n+$/u, "");
      stream.position = found ? found.index + found[0].length : text.length;
      this.globals.set("RT", found ? found[0] : "");
      return record;
    }
    if (at >= text.length) return null;
    if (rs.length === 1) {
      const end = text.indexOf(rs, at);
      stream.position = end < 0 ? text.length : end + 1;
      this.globals.set("RT", end < 0 ? "" : rs);
      return text.slice(at, end < 0 ? text.length : end);
    }
    const found = execPosix(this.regex(rs), text, at);
    if (!found || found.end === found.index) {
      stream.position = text.length;
      this.globals.set("RT", "");
      return text.slice(at);
    }
    stream.position = found.end;
    this.globals.set("RT", text.slice(found.index, found.end));
    return text.slice(at, found.index);
  }

  private nextMainRecord(): boolean {
    const record = this.readRecord();
    if (record === null) return false;
    this.setRecord(record);
    this.increment("NR");
    this.increment("FNR");
    return true;
  }

  private increment(name: string): void {
    this.globals.set(name, this.toNumber(this.getVar(name)) + 1);
  }

  // ---- records and fields ----

  private setRecord(text: string): void {
    this.record = text;
    this.fields = null;
    this.fieldValues = null;
  }

  private splitFields(): string[] {
    if (this.fields) return this.fields;
    const fs = this.toStr(this.getVar("FS"));
    const paragraph = this.toStr(this.getVar("RS")) === "";
    this.fields = this.split(this.record, fs, { paragraph });
    this.fieldValues = this.fields.map((field) => new StrNum(field));
    this.globals.set("NF", this.fields.length);
    return this.fields;
  }

  /**
   * Splits text as FS (or split()'s separator) says: FS " " at runs of blanks and newlines (leading
   * and trailing ones dropped), "" into characters, one other character literally (and at newlines
   * in paragraph mode), anything else (or a regex literal) as a regex. `separators`, when given,
   * receives what stood between the pieces as gawk's split() numbers them: k between pieces k and
   * k+1; for " ", 0 the leading blanks and n the trailing ones.
   */
  private split(
    text: string,
    fs: string,
    options: { paragraph?: boolean; regex?: boolean; separators?: Map<number, string> } = {},
  ): string[] {
    if (text === "") return [];
    const { separators } = options;
    if (!options.regex && fs === "") {
      const pieces = [...text];
      for (let k = 1; k < pieces.length; k++) separators?.set(k, "");
      return pieces;
    }
    let regex: PosixRegex | RegExp;
    if (!options.regex && fs === " ") regex = /[ \t\n]+/gu;
    else if (!options.regex && fs.length === 1 && fs !== "\\")
      regex = new RegExp(`[${fs.replace(/[\\\]^-]/gu, "\\$&")}${options.paragraph ? "\\n" : ""}]`, "gu");
    else regex = this.regex(options.paragraph ? `(${fs})|\n` : fs);
    const blanks = !options.regex && fs === " ";
    const pieces: string[] = [];
    let start = 0;
    let from = 0;
    while (from <= text.length) {
      const match = regex instanceof RegExp ? nextMatch(regex, text, from) : execPosix(regex, text, from);
      if (!match) break;
      if (match.end === match.index) {
        from = match.index + 1;
        continue;
      }
      if (blanks && match.index === 0) separators?.set(0, text.slice(0, match.end));
      else {
        pieces.push(text.slice(start, match.index));
        separators?.set(pieces.length, text.slice(match.index, match.end));
      }
      start = match.end;
      from = match.end;
    }
    if (!blanks || start < text.length) pieces.push(text.slice(start));
    return pieces;
  }

  /** Compiles FS now when split() would read it as a regex: RegexSyntaxError when malformed. */
  private checkFieldSeparator(fs: string): void {
    if (fs !== " " && fs !== "" && !(fs.length === 1 && fs !== "\\")) this.regex(fs);
  }

  private getField(index: number): Scalar {
    if (index < 0) throw new AwkFatal(`cmd. line:1: fatal: attempt to access field ${index}`);
    if (index === 0) return new StrNum(this.record);
    const fields = this.splitFields();
    // A field past NF is an empty string, compared as a string ($2 != 0 is true).
    if (index > fields.length) return "";
    return this.fieldValues![index - 1]!;
  }

  private setField(index: number, value: Scalar): void {
    if (index < 0) throw new AwkFatal(`cmd. line:1: fatal: attempt to access field ${index}`);
    if (index === 0) {
      this.setRecord(this.toStr(value));
      return;
    }
    const fields = [...this.splitFields()];
    const values = [...this.fieldValues!];
    while (fields.length < index) {
      fields.push("");
      values.push("");
    }
    const text = this.toStr(value);
    fields[index - 1] = text;
    values[index - 1] = typeof value === "number" ? text : value === UNINIT ? "" : (value as StrNum | string);
    this.rebuild(fields, values);
  }

  private rebuild(fields: string[], values: (StrNum | string)[]): void {
    this.record = fields.join(this.toStr(this.getVar("OFS")));
    this.fields = fields;
    this.fieldValues = values;
    this.globals.set("NF", fields.length);
  }

  private setNF(value: number): void {
    const count = Math.trunc(value);
    if (count < 0) throw new AwkFatal("cmd. line:1: fatal: NF set to negative value");
    const fields = this.splitFields().slice(0, count);
    const values = this.fieldValues!.slice(0, count);
    while (fields.length < count) {
      fields.push("");
      values.push("");
    }
    this.rebuild(fields, values);
  }

  // ---- variables ----

  private frame(): Map<string, Slot> | undefined {
    return this.frames.at(-1);
  }

  private slotOwner(name: string): Map<string, Slot> {
    const frame = this.frame();
    if (frame?.has(name)) return frame;
    return this.globals;
  }

  private getVar(name: string): Scalar {
    if (name === "NF") {
      this.splitFields();
    }
    const slot = this.slotOwner(name).get(name);
    if (slot === undefined || slot instanceof Unbound) return UNINIT;
    if (slot instanceof Map)
      throw new AwkFatal(`cmd. line:1: fatal: attempt to use array \`${name}' in a scalar context`);
    return slot;
  }

  private setVar(name: string, value: Scalar): void {
    const owner = this.slotOwner(name);
    if (owner.get(name) instanceof Map) {
      throw new AwkFatal(`cmd. line:1: fatal: attempt to use array \`${name}' in a scalar context`);
    }
    if (name === "NF" && owner === this.globals) {
      this.setNF(this.toNumber(value));
      return;
    }
    // A new FS applies from the next record; this one keeps its split.
    if (owner === this.globals && name === "FS") {
      this.splitFields();
      this.checkFieldSeparator(this.toStr(value));
    }
    owner.set(name, value);
  }

  private arrayOf(name: string): AwkArray {
    const owner = this.slotOwner(name);
    const slot = owner.get(name);
    if (slot instanceof Map) return slot;
    if (slot instanceof Unbound) {
      const array: AwkArray = new Map();
      slot.bind(array);
      owner.set(name, array);
      return array;
    }
    if (slot === undefined || slot === UNINIT) {
      const array: AwkArray = new Map();
      owner.set(name, array);
      return array;
    }
    throw new AwkFatal(`cmd. line:1: fatal: attempt to use scalar \`${name}' as an array`);
  }

  private subscript(subscripts: Expr[]): string {
    if (subscripts.length === 1) return this.toStr(this.evaluate(subscripts[0]!));
    const separator = this.toStr(this.getVar("SUBSEP"));
    return subscripts.map((expr) => this.toStr(this.evaluate(expr))).join(separator);
  }

  // ---- conversions ----

  toNumber(value: Scalar): number {
    if (typeof value === "number") return value;
    if (typeof value === "string") return stringToNumber(value);
    if (value === UNINIT) return 0;
    return value.number;
  }

  private numberToString(value: number, format: string): string {
    if (Number.isInteger(value)) return integerText(value);
    if (!Number.isFinite(value)) return Number.isNaN(value) ? "-nan" : value > 0 ? "+inf" : "-inf";
    return this.sprintf(format, [value]);
  }

  toStr(value: Scalar): string {
    if (typeof value === "string") return value;
    if (typeof value === "number") return this.numberToString(value, this.formatVar("CONVFMT"));
    if (value === UNINIT) return "";
    return value.text;
  }

  private outputString(value: Scalar): string {
    if (typeof value === "number") return this.numberToString(value, this.formatVar("OFMT"));
    return this.toStr(value);
  }

  private formatVar(name: string): string {
    const slot = this.globals.get(name);
    return typeof slot === "string" ? slot : slot instanceof StrNum ? slot.text : "%.6g";
  }

  truthy(value: Scalar): boolean {
    if (typeof value === "number") return value !== 0;
    if (typeof value === "string") return value !== "";
    if (value === UNINIT) return false;
    return value.numeric ? value.number !== 0 : value.text !== "";
  }

  private isNumeric(value: Scalar): boolean {
    return typeof value === "number" || value === UNINIT || (value instanceof StrNum && value.numeric);
  }

  private compare(left: Scalar, right: Scalar): number {
    if (this.isNumeric(left) && this.isNumeric(right)) {
      const a = this.toNumber(left);
      const b = this.toNumber(right);
      return a < b ? -1 : a > b ? 1 : a === b ? 0 : Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
    }
    const a = this.toStr(left);
    const b = this.toStr(right);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  private regex(source: string): PosixRegex {
    let regex = this.regexes.get(source);
    if (!regex) {
      regex = compilePosixRegex(source, { dialect: "extended", awk: true });
      // Compiled for Rust's engine now, so a pattern too big for it fails where it is written.
      linearRegex(regex);
      this.regexes.set(source, regex);
    }
    return regex;
  }

  /** A regex operand: a /literal/ as itself, anything else as a dynamic regex string. */
  private regexOperand(expr: Expr): PosixRegex {
    if (expr.type === "regex") return this.regex(expr.source);
    return this.regex(this.toStr(this.evaluate(expr)));
  }

  private matches(text: string, regex: PosixRegex): boolean {
    return testPosix(regex, text);
  }

  // ---- statements ----

  private statements(list: Stmt[]): void {
    for (const statement of list) this.statement(statement);
  }

  private loop(): () => void {
    const limit = this.options.loopLimit;
    let count = 0;
    return () => {
      this.poll.tick();
      if (limit !== undefined && ++count > limit) {
        throw new AwkFatal(`cmd. line:1: fatal: a loop exceeded maximum iterations (${limit})`);
      }
    };
  }

  private statement(statement: Stmt): void {
    switch (statement.type) {
      case "expr":
        this.evaluate(statement.expr);
        return;
      case "print":
        this.print(statement.args, statement.redirect, statement.printf);
        return;
      case "block":
        this.statements(statement.body);
        return;
      case "if":
        if (this.truthy(this.evaluate(statement.test))) this.statement(statement.then);
        else if (statement.else) this.statement(statement.else);
        return;
      case "while": {
        const tick = this.loop();
        while (this.truthy(this.evaluate(statement.test))) {
          tick();
          if (this.loopBody(statement.body)) break;
        }
        return;
      }
      case "do": {
        const tick = this.loop();
        do {
          tick();
          if (this.loopBody(statement.body)) break;
        } while (this.truthy(this.evaluate(statement.test)));
        return;
      }
      case "for": {
        const tick = this.loop();
        if (statement.init) this.statement(statement.init);
        while (!statement.test || this.truthy(this.evaluate(statement.test))) {
          tick();
          if (this.loopBody(statement.body)) break;
          if (statement.step) this.statement(statement.step);
        }
        return;
      }
      case "forIn": {
        const tick = this.loop();
        const array = this.arrayOf(statement.name);
        for (const key of [...array.keys()]) {
          if (!array.has(key)) continue;
          tick();
          this.assign(statement.variable, looksNumeric(key) ? new StrNum(key) : key);
          if (this.loopBody(statement.body)) break;
        }
        return;
      }
      case "next":
        if (this.inEnd) throw new AwkFatal("cmd. line:1: fatal: `next' used in END action");
        throw NEXT;
      case "nextfile":
        throw NEXT_FILE;
      case "break":
        throw BREAK;
      case "continue":
        throw CONTINUE;
      case "exit":
        if (statement.value) this.exitCode = Math.trunc(this.toNumber(this.evaluate(statement.value))) & 0xff;
        throw EXIT;
      case "return":
        throw new ReturnValue(statement.value ? this.evaluate(statement.value) : UNINIT);
      case "delete": {
        const array = this.arrayOf(statement.name);
        if (statement.subscripts) array.delete(this.subscript(statement.subscripts));
        else array.clear();
        return;
      }
    }
  }

  /** Runs a loop body; true when it broke out. */
  private loopBody(body: Stmt): boolean {
    try {
      this.statement(body);
    } catch (signal) {
      if (signal === BREAK) return true;
      if (signal === CONTINUE) return false;
      throw signal;
    }
    return false;
  }

  private print(args: Expr[], redirect: { op: string; target: Expr } | null, printf = false): void {
    let text: string;
    if (printf) {
      const values = args.map((arg) => this.evaluate(arg));
      text = this.sprintf(this.toStr(values[0]!), values.slice(1));
    } else {
      const parts =
        args.length === 0 ? [this.record] : args.map((arg) => this.outputString(this.evaluate(arg)));
      text = parts.join(this.toStr(this.getVar("OFS"))) + this.toStr(this.getVar("ORS"));
    }
    if (!redirect) {
      this.pending.push(text);
      return;
    }
    const target = this.toStr(this.evaluate(redirect.target));
    if (redirect.op === "|&") {
      throw new AwkFatal(`cmd. line:1: fatal: co-processes (|&) are not supported here ("${target}")`);
    }
    if (redirect.op === "|") {
      if (!this.options.pipes) {
        throw new AwkFatal(`cmd. line:1: fatal: print to a command ("${target}") is not supported here`);
      }
      let chunks = this.pipes.get(target);
      if (!chunks) {
        // gawk flushes its own output before it starts a command.
        this.flush();
        chunks = [];
        this.pipes.set(target, chunks);
      }
      chunks.push(text);
      return;
    }
    if (target === "/dev/stdout" || target === "-") this.pending.push(text);
    else if (target === "/dev/stderr") this.err.push(text);
    else {
      const chunks = this.written.get(target) ?? [];
      this.written.set(target, chunks);
      chunks.push(text);
    }
  }

  sprintf(format: string, values: Scalar[]): string {
    return formatPrintf(
      format,
      {
        count: values.length,
        number: (index) => this.toNumber(values[index] ?? UNINIT),
        string: (index) => this.toStr(values[index] ?? UNINIT),
        isNumber: (index) => {
          const value = values[index];
          return typeof value === "number" || (value instanceof StrNum && value.numeric);
        },
      },
      (message) => {
        throw new AwkFatal(`cmd. line:1: ${message}`);
      },
    );
  }

  // ---- expressions ----

  private assign(target: Expr, value: Scalar): Scalar {
    switch (target.type) {
      case "var":
        this.setVar(target.name, value);
        return value;
      case "field":
        this.setField(Math.trunc(this.toNumber(this.evaluate(target.index))), value);
        return value;
      case "index":
        this.arrayOf(target.name).set(this.subscript(target.subscripts), value);
        return value;
      case "group":
        return this.assign(target.expr, value);
      default:
        throw new AwkFatal("cmd. line:1: fatal: assignment to a value that is not a variable");
    }
  }

  private evaluate(expr: Expr): Scalar {
    switch (expr.type) {
      case "num":
        return expr.value;
      case "str":
        return expr.value;
      case "regex":
        return this.matches(this.record, this.regex(expr.source)) ? 1 : 0;
      case "group":
        return this.evaluate(expr.expr);
      case "var":
        return this.getVar(expr.name);
      case "field":
        return this.getField(Math.trunc(this.toNumber(this.evaluate(expr.index))));
      case "index": {
        const array = this.arrayOf(expr.name);
        const key = this.subscript(expr.subscripts);
        const value = array.get(key);
        if (value === undefined) {
          array.set(key, UNINIT);
          return UNINIT;
        }
        return value;
      }
      case "assign": {
        if (expr.op === "=") {
          return this.assign(expr.target, this.evaluate(expr.value));
        }
        const right = this.toNumber(this.evaluate(expr.value));
        const left = this.toNumber(this.evaluate(expr.target));
        return this.assign(expr.target, this.arithmetic(expr.op.slice(0, -1), left, right));
      }
      case "cond":
        return this.truthy(this.evaluate(expr.test)) ? this.evaluate(expr.yes) : this.evaluate(expr.no);
      case "and":
        return this.truthy(this.evaluate(expr.left)) && this.truthy(this.evaluate(expr.right)) ? 1 : 0;
      case "or":
        return this.truthy(this.evaluate(expr.left)) || this.truthy(this.evaluate(expr.right)) ? 1 : 0;
      case "in":
        return this.arrayOf(expr.name).has(this.subscript(expr.subscripts)) ? 1 : 0;
      case "match": {
        const text = this.toStr(this.evaluate(expr.left));
        const found = this.matches(text, this.regexOperand(expr.right));
        return found !== expr.negate ? 1 : 0;
      }
      case "binary": {
        const { op } = expr;
        if (op === "<" || op === "<=" || op === "==" || op === "!=" || op === ">" || op === ">=") {
          const order = this.compare(this.evaluate(expr.left), this.evaluate(expr.right));
          const result =
            op === "<"
              ? order < 0
              : op === "<="
                ? order <= 0
                : op === "=="
                  ? order === 0
                  : op === "!="
                    ? order !== 0
                    : op === ">"
                      ? order > 0
                      : order >= 0;
          return result ? 1 : 0;
        }
        const left = this.toNumber(this.evaluate(expr.left));
        const right = this.toNumber(this.evaluate(expr.right));
        return this.arithmetic(op, left, right);
      }
      case "concat":
        return this.toStr(this.evaluate(expr.left)) + this.toStr(this.evaluate(expr.right));
      case "unary": {
        const value = this.evaluate(expr.operand);
        if (expr.op === "!") return this.truthy(value) ? 0 : 1;
        const number = this.toNumber(value);
        return expr.op === "-" ? -number : number;
      }
      case "incdec": {
        const before = this.toNumber(this.evaluate(expr.target));
        const after = expr.op === "++" ? before + 1 : before - 1;
        this.assign(expr.target, after);
        return expr.prefix ? after : before;
      }
      case "call":
        return this.call(expr.name, expr.args);
      case "builtin":
        return this.builtin(expr.name, expr.args);
      case "getline":
        return this.getline(expr);
    }
  }

  private arithmetic(op: string, left: number, right: number): number {
    switch (op) {
      case "+":
        return left + right;
      case "-":
        return left - right;
      case "*":
        return left * right;
      case "/":
        if (right === 0) throw new AwkFatal("cmd. line:1: fatal: division by zero attempted");
        return left / right;
      case "%":
        if (right === 0) throw new AwkFatal("cmd. line:1: fatal: division by zero attempted in `%'");
        return left % right;
      case "^":
        return left ** right;
      default:
        throw new AwkFatal(`cmd. line:1: fatal: unknown operator ${op}`);
    }
  }

  private getline(expr: Extract<Expr, { type: "getline" }>): Scalar {
    if (expr.command) {
      throw new AwkFatal("cmd. line:1: fatal: getline from a command is not supported here");
    }
    if (expr.file) return this.getlineFromFile(this.toStr(this.evaluate(expr.file)), expr.target);
    const record = this.readRecord();
    if (record === null) return 0;
    this.increment("NR");
    this.increment("FNR");
    if (expr.target) this.assign(expr.target, new StrNum(record));
    else this.setRecord(record);
    return 1;
  }

  /** getline [var] < file: from the files read ahead; NR and FNR stay. -1 when it cannot be read. */
  private getlineFromFile(name: string, target: Expr | null): Scalar {
    let stream = this.fileStreams.get(name);
    if (!stream) {
      const text = this.options.files.get(name === "/dev/stdin" ? "-" : name);
      if (text === undefined) {
        throw new AwkFatal(
          `cmd. line:1: fatal: getline < "${name}": only files named in the program or on the command line can be read here`,
        );
      }
      if (text === null) return -1;
      stream = { text, position: 0 };
      this.fileStreams.set(name, stream);
    }
    const record = this.splitRecord(stream);
    if (record === null) return 0;
    if (target) this.assign(target, new StrNum(record));
    else this.setRecord(record);
    return 1;
  }

  private call(name: string, args: Expr[]): Scalar {
    const fn: AwkFunction | undefined = this.options.program.functions.get(name);
    if (!fn) throw new AwkFatal(`cmd. line:1: fatal: function \`${name}' not defined`);
    if (args.length > fn.params.length) {
      throw new AwkFatal(`cmd. line:1: fatal: function \`${name}' called with more arguments than declared`);
    }
    if (++this.callDepth > 10_000) throw new AwkFatal("cmd. line:1: fatal: function calls nested too deeply");
    this.poll.tick();
    const frame = new Map<string, Slot>();
    fn.params.forEach((param, k) => {
      const arg = args[k];
      if (!arg) {
        frame.set(param, UNINIT);
        return;
      }
      if (arg.type === "var") {
        const owner = this.slotOwner(arg.name);
        const slot = owner.get(arg.name);
        if (slot instanceof Map) {
          frame.set(param, slot);
          return;
        }
        if (slot === undefined || slot === UNINIT || slot instanceof Unbound) {
          frame.set(
            param,
            new Unbound((array) => {
              if (slot instanceof Unbound) slot.bind(array);
              owner.set(arg.name, array);
            }),
          );
          return;
        }
      }
      const value = this.evaluate(arg);
      frame.set(param, value);
    });
    this.frames.push(frame);
    try {
      this.statements(fn.body);
      return UNINIT;
    } catch (signal) {
      if (signal instanceof ReturnValue) return signal.value;
      throw signal;
    } finally {
      this.frames.pop();
      this.callDepth--;
    }
  }

  private argString(args: Expr[], k: number): string {
    return this.toStr(this.evaluate(args[k]!));
  }

  private argNumber(args: Expr[], k: number): number {
    return this.toNumber(this.evaluate(args[k]!));
  }

  private arity(name: string, args: Expr[], min: number, max: number): void {
    if (args.length < min || args.length > max) {
      throw new AwkFatal(`cmd. line:1: fatal: ${name}: called with ${args.length} arguments`);
    }
  }

  private builtin(name: string, args: Expr[]): Scalar {
    switch (name) {
      case "length": {
        this.arity(name, args, 0, 1);
        if (args.length === 0) return [...this.record].length;
        const arg = args[0]!;
        if (arg.type === "var") {
          const slot = this.slotOwner(arg.name).get(arg.name);
          if (slot instanceof Map) return slot.size;
        }
        return [...this.argString(args, 0)].length;
      }
      case "substr": {
        // gawk: a start before 1 counts from 1 without shortening the length; fractions truncate.
        this.arity(name, args, 2, 3);
        const chars = [...this.argString(args, 0)];
        const start = this.argNumber(args, 1);
        const from = Number.isNaN(start) || start < 1 ? 1 : Math.trunc(start);
        let to = chars.length + 1;
        if (args.length === 3) {
          const count = this.argNumber(args, 2);
          if (Number.isNaN(count) || count <= 0) return "";
          to = Math.min(to, from + Math.trunc(count));
        }
        return to <= from ? "" : chars.slice(from - 1, to - 1).join("");
      }
      case "index": {
        this.arity(name, args, 2, 2);
        const text = this.argString(args, 0);
        const at = text.indexOf(this.argString(args, 1));
        return at < 0 ? 0 : [...text.slice(0, at)].length + 1;
      }
      case "split":
        return this.splitBuiltin(args);
      case "sub":
      case "gsub":
        return this.substitute(name, args);
      case "gensub":
        return this.gensub(args);
      case "match":
        return this.matchBuiltin(args);
      case "sprintf": {
        if (args.length === 0) throw new AwkFatal("cmd. line:1: fatal: sprintf: no arguments");
        const values = args.map((arg) => this.evaluate(arg));
        return this.sprintf(this.toStr(values[0]!), values.slice(1));
      }
      case "sin":
        return Math.sin(this.argNumber(args, 0));
      case "cos":
        return Math.cos(this.argNumber(args, 0));
      case "atan2":
        return Math.atan2(this.argNumber(args, 0), this.argNumber(args, 1));
      case "exp":
        return Math.exp(this.argNumber(args, 0));
      case "log": {
        const value = this.argNumber(args, 0);
        if (value < 0)
          this.err.push(`awk: cmd. line:1: warning: log: received negative argument ${integerOr(value)}\n`);
        return Math.log(value);
      }
      case "sqrt": {
        const value = this.argNumber(args, 0);
        if (value < 0)
          this.err.push(
            `awk: cmd. line:1: warning: sqrt: called with negative argument ${integerOr(value)}\n`,
          );
        return Math.sqrt(value);
      }
      case "int":
        this.arity(name, args, 1, 1);
        return Math.trunc(this.argNumber(args, 0));
      case "rand":
        return this.random();
      case "srand": {
        const previous = this.seed;
        this.seed = args.length > 0 ? Math.trunc(this.argNumber(args, 0)) : Math.floor(Date.now() / 1000);
        this.random = mulberry(this.seed);
        return previous;
      }
      case "tolower":
        return this.argString(args, 0).toLowerCase();
      case "toupper":
        return this.argString(args, 0).toUpperCase();
      case "system":
        throw new AwkFatal("cmd. line:1: fatal: system() cannot run commands here");
      case "close":
        return this.closePipe(this.argString(args, 0));
      case "fflush":
        return 0;
      case "and":
      case "or":
      case "xor": {
        if (args.length < 2)
          throw new AwkFatal(`cmd. line:1: fatal: ${name}: called with less than two arguments`);
        let result = toUnsigned(this.argNumber(args, 0));
        for (let k = 1; k < args.length; k++) {
          const value = toUnsigned(this.argNumber(args, k));
          result = name === "and" ? result & value : name === "or" ? result | value : result ^ value;
        }
        return Number(result);
      }
      case "lshift":
        return Number(
          BigInt.asUintN(
            64,
            toUnsigned(this.argNumber(args, 0)) << BigInt(Math.trunc(this.argNumber(args, 1))),
          ),
        );
      case "rshift":
        return Number(toUnsigned(this.argNumber(args, 0)) >> BigInt(Math.trunc(this.argNumber(args, 1))));
      case "compl":
        return Number(BigInt.asUintN(53, ~toUnsigned(this.argNumber(args, 0))));
      case "strtonum": {
        const text = this.argString(args, 0).trim();
        if (/^0[xX][0-9a-fA-F]+/u.test(text)) return Number.parseInt(text.slice(2), 16);
        if (/^0[0-7]+$/u.test(text)) return Number.parseInt(text, 8);
        return stringToNumber(text);
      }
      case "systime":
        return Math.floor(Date.now() / 1000);
      case "isarray": {
        const arg = args[0];
        return arg?.type === "var" && this.slotOwner(arg.name).get(arg.name) instanceof Map ? 1 : 0;
      }
      case "typeof": {
        const arg = args[0]!;
        if (arg.type === "var") {
          const slot = this.slotOwner(arg.name).get(arg.name);
          if (slot instanceof Map) return "array";
          if (slot === undefined || slot === UNINIT || slot instanceof Unbound) return "untyped";
        }
        const value = this.evaluate(arg);
        if (value === UNINIT) return "unassigned";
        if (typeof value === "number") return "number";
        if (typeof value === "string") return "string";
        return value.numeric ? "strnum" : "string";
      }
      case "asort":
      case "asorti":
        return this.sortBuiltin(name, args);
      default:
        throw new AwkFatal(`cmd. line:1: fatal: ${name}() is not supported here`);
    }
  }

  private arrayArgument(arg: Expr | undefined, what: string): string {
    if (arg?.type !== "var") throw new AwkFatal(`cmd. line:1: fatal: ${what}: argument is not an array`);
    return arg.name;
  }

  private splitBuiltin(args: Expr[]): Scalar {
    this.arity("split", args, 2, 4);
    const text = this.argString(args, 0);
    const name = this.arrayArgument(args[1], "split: second argument");
    const separators = args[3] ? new Map<number, string>() : undefined;
    const sepExpr = args[2];
    const pieces =
      sepExpr?.type === "regex"
        ? this.split(text, sepExpr.source, { regex: true, separators })
        : this.split(text, sepExpr ? this.toStr(this.evaluate(sepExpr)) : this.toStr(this.getVar("FS")), {
            separators,
          });
    const array = this.arrayOf(name);
    array.clear();
    for (const [k, piece] of pieces.entries()) array.set(String(k + 1), new StrNum(piece));
    if (args[3]) {
      const seps = this.arrayOf(this.arrayArgument(args[3], "split: fourth argument"));
      seps.clear();
      for (const [k, separator] of separators!) seps.set(String(k), separator);
    }
    return pieces.length;
  }

  /**
   * The matches sub, gsub and gensub replace, as gawk's do_sub walks a text: leftmost-longest from
   * where the last one ended (a character on after an empty one). Where every match is replaced
   * (gsub, gensub "g"), an empty match right where the search resumed is skipped once after any
   * non-empty one, as gawk's `lastmatchnonzero` does (gsub with \yA* on "Ab-c" replaces no
   * empty match before "c"); counting to the nth (gensub n) skips none.
   */
  private *allMatches(regex: PosixRegex, text: string, everyMatch: boolean) {
    let position = 0;
    let afterNonEmpty = false;
    // gawk steps over an empty match by a byte: past a multi-byte character it resumes inside it,
    // so the next match (at the character's end) is not where it resumed.
    let insideCharacter = false;
    while (position <= text.length) {
      const match = execPosix(regex, text, position);
      if (!match) return;
      const empty = match.end === match.index;
      if (everyMatch && empty && afterNonEmpty && match.index === position && !insideCharacter) {
        afterNonEmpty = false;
        insideCharacter = (text.codePointAt(match.index) ?? 0) > 0x7f;
        position = match.index + 1;
        continue;
      }
      yield match;
      if (!empty) afterNonEmpty = true;
      insideCharacter = empty && (text.codePointAt(match.index) ?? 0) > 0x7f;
      position = empty ? match.index + 1 : match.end;
    }
  }

  private substitute(name: string, args: Expr[]): Scalar {
    this.arity(name, args, 2, 3);
    const regex = this.regexOperand(args[0]!);
    const replacement = this.argString(args, 1);
    const target: Expr = args[2] ?? { type: "field", index: { type: "num", value: 0 } };
    const text = this.toStr(this.evaluate(target));
    let out = "";
    let copied = 0;
    let count = 0;
    for (const match of this.allMatches(regex, text, name === "gsub")) {
      out +=
        text.slice(copied, match.index) + subReplacement(replacement, text.slice(match.index, match.end));
      copied = match.end;
      count++;
      if (name === "sub") break;
    }
    if (count > 0) {
      if (
        target.type !== "var" &&
        target.type !== "field" &&
        target.type !== "index" &&
        target.type !== "group"
      ) {
        return count;
      }
      this.assign(target, out + text.slice(copied));
    }
    return count;
  }

  private gensub(args: Expr[]): Scalar {
    this.arity("gensub", args, 3, 4);
    const regex = this.regexOperand(args[0]!);
    const replacement = this.argString(args, 1);
    const how = this.evaluate(args[2]!);
    const howText = this.toStr(how);
    const global = /^[gG]/u.test(howText);
    const which = global ? 0 : Math.max(1, Math.trunc(this.toNumber(how)) || 1);
    const text = args[3] ? this.argString(args, 3) : this.record;
    let out = "";
    let copied = 0;
    let count = 0;
    for (const match of this.allMatches(regex, text, global)) {
      count++;
      if (!global && count !== which) continue;
      out += text.slice(copied, match.index) + gensubReplacement(replacement, match.groups);
      copied = match.end;
      if (!global) break;
    }
    return out + text.slice(copied);
  }

  private matchBuiltin(args: Expr[]): Scalar {
    this.arity("match", args, 2, 3);
    const text = this.argString(args, 0);
    const regex = this.regexOperand(args[1]!);
    const match = execPosix(regex, text, 0);
    const chars = (s: string) => [...s].length;
    const start = match ? chars(text.slice(0, match.index)) + 1 : 0;
    const length = match ? chars(text.slice(match.index, match.end)) : -1;
    this.globals.set("RSTART", start);
    this.globals.set("RLENGTH", length);
    if (args[2]) {
      const array = this.arrayOf(this.arrayArgument(args[2], "match: third argument"));
      array.clear();
      if (match) {
        const subsep = this.toStr(this.getVar("SUBSEP"));
        let offset = match.index;
        match.groups.forEach((group, k) => {
          if (group === undefined) return;
          const at = k === 0 ? match.index : text.indexOf(group, offset);
          if (k > 0 && at >= 0) offset = at;
          array.set(String(k), new StrNum(group));
          array.set(`${k}${subsep}start`, chars(text.slice(0, at)) + 1);
          array.set(`${k}${subsep}length`, chars(group));
        });
      }
    }
    return start;
  }

  private sortBuiltin(name: string, args: Expr[]): Scalar {
    const source = this.arrayOf(this.arrayArgument(args[0], `${name}: first argument`));
    const items: Scalar[] = name === "asorti" ? [...source.keys()] : [...source.values()];
    items.sort((a, b) => {
      const numericA = typeof a === "number" || (a instanceof StrNum && a.numeric);
      const numericB = typeof b === "number" || (b instanceof StrNum && b.numeric);
      if (numericA && numericB) return this.toNumber(a) - this.toNumber(b);
      if (numericA !== numericB) return numericA ? -1 : 1;
      const x = this.toStr(a);
      const y = this.toStr(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const dest = args[1] ? this.arrayOf(this.arrayArgument(args[1], `${name}: second argument`)) : source;
    dest.clear();
    for (const [k, item] of items.entries()) dest.set(String(k + 1), item);
    return items.length;
  }
}

function integerOr(value: number): string {
  return Number.isInteger(value) ? String(value) : String(value);
}

function toUnsigned(value: number): bigint {
  if (value < 0)
    throw new AwkFatal("cmd. line:1: fatal: bitwise operations on negative values are not allowed");
  return BigInt(Math.trunc(value));
}

/** sub/gsub's replacement as gawk reads it: & is the match; \\& a literal &; \\\\& a backslash and the match. */
function subReplacement(replacement: string, matched: string): string {
  let out = "";
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    if (c === "&") {
      out += matched;
      continue;
    }
    if (c !== "\\") {
      out += c;
      continue;
    }
    if (replacement.startsWith("\\\\\\\\", i)) {
      out += "\\\\";
      i += 3;
    } else if (replacement.startsWith("\\\\\\&", i)) {
      out += "\\&";
      i += 3;
    } else if (replacement.startsWith("\\\\&", i)) {
      out += `\\${matched}`;
      i += 2;
    } else if (replacement[i + 1] === "&") {
      out += "&";
      i += 1;
    } else out += "\\";
  }
  return out;
}

/** gensub's replacement: & and \0 the match, \1-\9 groups, \\ a backslash, \& a literal &. */
function gensubReplacement(replacement: string, groups: (string | undefined)[]): string {
  let out = "";
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    if (c === "&") {
      out += groups[0] ?? "";
      continue;
    }
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = replacement[i + 1];
    if (next === undefined) {
      // gawk 5 turns a trailing unpaired backslash into a NUL (a lone one stays).
      out += i === 0 ? "\\" : "\0";
      continue;
    }
    i++;
    if (/[0-9]/u.test(next)) out += groups[Number(next)] ?? "";
    else out += next;
  }
  return out;
}

/** A small seeded generator for rand() (gawk's random() sequence is not reproduced). */
function mulberry(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The next match of a global JavaScript RegExp at or after `from` (FS " " or one character: no runaway). */
function nextMatch(regex: RegExp, text: string, from: number): { index: number; end: number } | null {
  regex.lastIndex = from;
  const found = regex.exec(text);
  return found ? { index: found.index, end: found.index + found[0].length } : null;
}
