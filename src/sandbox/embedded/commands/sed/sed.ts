import { type Command, defineCommand, type ResolvedCommandContext } from "just-bash";
import {
  type CommandResult,
  loopCount,
  Poll,
  readInput,
  STOP_EXIT,
  type StopCheck,
  Stopped,
  type StopReason,
  shellStopCheck,
  stdinText,
  stopMessage,
} from "../command-io.ts";
import { execPosix, loadLinearEngine, testPosix } from "../regex/linear.ts";
import { type PosixRegex, RegexSyntaxError } from "../regex/posix-regex.ts";
import {
  type Address,
  parseSedScript,
  type ReplacementPart,
  type ScriptPiece,
  type SedCommand,
  type SedScript,
  SedSyntaxError,
} from "./sed-script.ts";

/**
 * GNU sed 4.9 as a command of the embedded shell and as the sandboxed `sed` tool's engine: the
 * cycle (pattern and hold space, auto-print, the append queue), ranges as execute.c matches them,
 * s with POSIX leftmost-longest matches, and output that keeps a last line's missing newline.
 */

export interface SedOptions {
  quiet: boolean;
  /** -s / -i: each file on its own (line numbers and $ per file). */
  separate: boolean;
  /** -z: lines end at NUL. */
  nullData: boolean;
  /** -l N: where `l` wraps. */
  lineWrap: number;
}

export interface SedInput {
  /** What F prints: the file name, "-" for stdin. */
  name: string;
  text: string;
}

export interface SedRun {
  script: SedScript;
  inputs: SedInput[];
  options: SedOptions;
  /** Contents of the files r and R read (null: unreadable, which sed ignores). */
  readFiles?: Map<string, string | null>;
  stop?: StopCheck;
  /** Jumps and D restarts allowed for one input line: a runaway loop is an error past this. */
  loopLimit?: number;
  /** Runs a shell command for e and s///e; absent: those fail. */
  exec?: (command: string) => Promise<{ stdout: string; stderr: string; exitCode: number }>;
}

export interface SedResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** With `separate`, what was printed for each input (sed -i writes it back). */
  perInput: string[];
  /** What w, W and s///w wrote, by file name. */
  written: Map<string, string>;
  stopped?: StopReason;
}

export class SedRuntimeError extends Error {
  constructor(
    message: string,
    readonly exitCode = 4,
  ) {
    super(message);
    this.name = "SedRuntimeError";
  }
}

interface Line {
  text: string;
  /** The line ended with a newline (or NUL under -z). */
  complete: boolean;
  input: number;
  last: boolean;
}

type CycleEnd = "end" | "delete" | "restart" | "quit" | "quiet-quit";

export async function runSedScript(run: SedRun): Promise<SedResult> {
  await loadLinearEngine();
  return new SedMachine(run).run();
}

class SedMachine {
  private readonly lines: Line[] = [];
  private next = 0;
  private lineNumber = 0;
  private pattern = "";
  private hold = "";
  /**
   * Whether the space's text ends a line that had its newline (GNU's `chomped`): a last line
   * without one is printed without one. The hold space starts as a full line; g, G, h, H and x
   * carry the flag with the text, as GNU sed does.
   */
  private patternComplete = true;
  private holdComplete = true;
  private current: Line | undefined;
  private substituted = false;
  private lastRegex: PosixRegex | null = null;
  private readonly appendQueue: string[] = [];
  private readonly outputs: string[][] = [[]];
  private sink: string[];
  private missingNewline = false;
  private readonly stderr: string[] = [];
  private readonly written = new Map<string, string[]>();
  private readonly writeMissing = new Map<string, boolean>();
  private readonly rCursors = new Map<string, number>();
  private exitCode = 0;
  private readonly poll: Poll;
  private readonly separator: string;
  private jumps = 0;

  constructor(private readonly job: SedRun) {
    this.sink = this.outputs[0]!;
    this.poll = new Poll(job.stop);
    this.separator = job.options.nullData ? "\0" : "\n";
    job.inputs.forEach((input, index) => {
      if (input.text === "") return;
      const parts = input.text.split(this.separator);
      const complete = parts.at(-1) === "";
      if (complete) parts.pop();
      parts.forEach((text, k) => {
        this.lines.push({ text, complete: complete || k < parts.length - 1, input: index, last: false });
      });
    });
    for (let k = 0; k < this.lines.length; k++) {
      const line = this.lines[k]!;
      const following = this.lines[k + 1];
      line.last = following === undefined || (job.options.separate && following.input !== line.input);
    }
  }

  async run(): Promise<SedResult> {
    let stopped: StopReason | undefined;
    try {
      await this.cycles();
    } catch (error) {
      if (error instanceof Stopped) stopped = error.reason;
      else if (error instanceof SedRuntimeError) {
        this.stderr.push(`sed: ${error.message}\n`);
        this.exitCode = error.exitCode;
      } else if (error instanceof RegexSyntaxError) {
        // A pattern the linear engine cannot finish on this text (regex/linear.ts): said, not guessed.
        this.stderr.push(`sed: ${error.gnuMessage}\n`);
        this.exitCode = 4;
      } else throw error;
    }
    const written = new Map<string, string>();
    for (const [name, chunks] of this.written) written.set(name, chunks.join(""));
    return {
      stdout: this.outputs[0]!.join(""),
      stderr: this.stderr.join(""),
      exitCode: this.exitCode,
      perInput: this.outputs.slice(1).map((chunks) => chunks.join("")),
      written,
      ...(stopped ? { stopped } : {}),
    };
  }

  private async cycles(): Promise<void> {
    let restart = false;
    let inputIndex = -1;
    for (;;) {
      if (!restart) {
        const line = this.lines[this.next];
        if (!line) break;
        if (this.job.options.separate && line.input !== inputIndex) {
          inputIndex = line.input;
          this.lineNumber = 0;
          this.beginInput(line.input);
        }
        this.read();
        this.jumps = 0;
      }
      restart = false;
      const end = await this.execute();
      if (end === "end" || end === "quit") {
        if (!this.job.options.quiet) this.emit(this.pattern, this.patternComplete);
      }
      if (end !== "quiet-quit") this.flushAppends();
      if (end === "quit" || end === "quiet-quit") return;
      if (end === "restart") restart = true;
    }
  }

  /** With -s/-i, each input's output goes to its own buffer. */
  private beginInput(index: number): void {
    if (!this.job.options.separate) return;
    while (this.outputs.length <= index + 1) this.outputs.push([]);
    this.sink = this.outputs[index + 1]!;
    this.missingNewline = false;
  }

  private read(): void {
    const line = this.lines[this.next++]!;
    this.current = line;
    this.pattern = line.text;
    this.patternComplete = line.complete;
    this.lineNumber++;
    this.substituted = false;
  }

  private hasNext(): boolean {
    const line = this.lines[this.next];
    if (!line) return false;
    return !(this.job.options.separate && this.current && line.input !== this.current.input);
  }

  private emit(text: string, newline: boolean): void {
    if (this.missingNewline) this.sink.push("\n");
    this.sink.push(text);
    if (newline) this.sink.push(this.separator);
    this.missingNewline = !newline;
  }

  private emitRaw(text: string): void {
    if (text === "") return;
    if (this.missingNewline) this.sink.push("\n");
    this.sink.push(text);
    this.missingNewline = false;
  }

  private flushAppends(): void {
    for (const text of this.appendQueue) this.emitRaw(text);
    this.appendQueue.length = 0;
  }

  /**
   * w, W and s///w: each file is its own stream (as GNU's FILE*s are), keeping its own missing
   * newline, so `w /dev/stdout` on an unterminated last line is glued to the auto-print.
   */
  private write(file: string, text: string, complete: boolean): void {
    const missing = this.writeMissing.get(file) === true;
    const chunk = `${missing ? "\n" : ""}${text}${complete ? this.separator : ""}`;
    this.writeMissing.set(file, !complete);
    if (file === "/dev/stdout") this.sink.push(chunk);
    else if (file === "/dev/stderr") this.stderr.push(chunk);
    else {
      const chunks = this.written.get(file) ?? [];
      this.written.set(file, chunks);
      chunks.push(chunk);
    }
  }

  private jumped(): void {
    const limit = this.job.loopLimit;
    if (limit !== undefined && ++this.jumps > limit) {
      throw new SedRuntimeError(`exceeded maximum iterations (${limit}) on input line ${this.lineNumber}`, 1);
    }
  }

  private regexOf(regex: PosixRegex | null | undefined): PosixRegex {
    const chosen = regex ?? this.lastRegex;
    if (!chosen) throw new SedRuntimeError("no previous regular expression", 1);
    this.lastRegex = chosen;
    return chosen;
  }

  private matchOne(address: Address): boolean {
    const line = this.lineNumber;
    switch (address.kind) {
      case "line":
        return line === address.line;
      case "last":
        return this.current?.last === true;
      case "zero":
        return false;
      case "step":
        return address.step <= 0
          ? line === address.first
          : line >= address.first && (line - address.first) % address.step === 0;
      case "regex":
        return testPosix(this.regexOf(address.regex), this.pattern);
      case "plus":
      case "multiple":
        return false;
    }
  }

  /** GNU's match_address_p: single addresses, and ranges with their state. */
  private selected(command: SedCommand): boolean {
    const { addr1, addr2 } = command;
    if (!addr1) return true;
    if (!addr2) return this.matchOne(addr1);
    command.range ??= { active: false, closed: false, end: 0 };
    const range = command.range;
    const line = this.lineNumber;
    const numericStart = addr1.kind === "line" || addr1.kind === "zero";
    if (range.active) {
      switch (addr2.kind) {
        case "line":
        case "plus":
        case "multiple":
          if (line >= range.end) {
            range.active = false;
            range.closed = numericStart;
            return line <= range.end;
          }
          return true;
        default:
          if (this.matchOne(addr2)) {
            range.active = false;
            range.closed = numericStart;
          }
          return true;
      }
    }
    if (addr1.kind === "line") {
      if (range.closed || line < addr1.line) return false;
      if (addr2.kind === "line" && line > addr2.line) return line === addr1.line;
    } else if (addr1.kind === "zero") {
      if (range.closed) return false;
    } else if (!this.matchOne(addr1)) return false;
    const oneLine = () => {
      range.closed = numericStart;
      return true;
    };
    switch (addr2.kind) {
      case "line":
        if (addr2.line <= line) return oneLine();
        range.end = addr2.line;
        break;
      case "plus":
        if (addr2.count === 0) return oneLine();
        range.end = line + addr2.count;
        break;
      case "multiple": {
        if (addr2.of <= 0) return oneLine();
        const end = Math.ceil(line / addr2.of) * addr2.of;
        if (end === line) return oneLine();
        range.end = end;
        break;
      }
      case "last":
        if (this.matchOne(addr2)) return oneLine();
        break;
      case "regex":
        if (addr1.kind === "zero" && this.matchOne(addr2)) return oneLine();
        break;
      default:
        break;
    }
    range.active = true;
    return true;
  }

  /** Runs the script over the pattern space once; says how the cycle ends. */
  private async execute(): Promise<CycleEnd> {
    const commands = this.job.script.commands;
    let pc = 0;
    while (pc < commands.length) {
      this.poll.tick();
      const command = commands[pc]!;
      if (command.name === "}" || command.name === ":" || command.name === "#") {
        pc++;
        continue;
      }
      if (this.selected(command) === command.negate) {
        pc = command.name === "{" ? command.blockEnd! + 1 : pc + 1;
        continue;
      }
      switch (command.name) {
        case "{":
          break;
        case "=":
          this.emitRaw(`${this.lineNumber}${this.separator}`);
          break;
        case "a":
          this.appendQueue.push(command.text!);
          break;
        case "i":
          this.emitRaw(command.text!);
          break;
        case "c":
          if (!command.addr2 || command.negate || !command.range?.active) this.emitRaw(command.text!);
          return "delete";
        case "b":
          if (command.target! <= pc) this.jumped();
          pc = command.target!;
          continue;
        case "t":
        case "T": {
          const jump = this.substituted === (command.name === "t");
          this.substituted = false;
          if (jump) {
            if (command.target! <= pc) this.jumped();
            pc = command.target!;
            continue;
          }
          break;
        }
        case "d":
          return "delete";
        case "D": {
          const newline = this.pattern.indexOf("\n");
          if (newline < 0) return "delete";
          this.pattern = this.pattern.slice(newline + 1);
          this.jumped();
          return "restart";
        }
        case "e":
          await this.evaluate(command.text!);
          break;
        case "F":
          this.emitRaw(`${this.job.inputs[this.current?.input ?? 0]?.name ?? "-"}\n`);
          break;
        case "g":
          this.pattern = this.hold;
          this.patternComplete = this.holdComplete;
          break;
        case "G":
          this.pattern += `\n${this.hold}`;
          this.patternComplete = this.holdComplete;
          break;
        case "h":
          this.hold = this.pattern;
          this.holdComplete = this.patternComplete;
          break;
        case "H":
          this.hold += `\n${this.pattern}`;
          this.holdComplete = this.patternComplete;
          break;
        case "l":
          this.emitRaw(escapeForL(this.pattern, command.number ?? this.job.options.lineWrap, this.separator));
          break;
        case "n":
          if (!this.hasNext()) return "quit";
          if (!this.job.options.quiet) this.emit(this.pattern, this.patternComplete);
          this.flushAppends();
          this.read();
          break;
        case "N":
          if (!this.hasNext()) return "quit";
          this.flushAppends();
          {
            const before = this.pattern;
            this.read();
            this.pattern = `${before}\n${this.pattern}`;
          }
          break;
        case "p":
          this.emit(this.pattern, this.patternComplete);
          break;
        case "P": {
          const newline = this.pattern.indexOf("\n");
          if (newline < 0) this.emit(this.pattern, this.patternComplete);
          else this.emit(this.pattern.slice(0, newline), true);
          break;
        }
        case "q":
          this.exitCode = command.number ?? 0;
          return "quit";
        case "Q":
          this.exitCode = command.number ?? 0;
          return "quiet-quit";
        case "r": {
          const text = this.job.readFiles?.get(command.file!);
          if (command.file === "/dev/stdin") break;
          if (text) this.appendQueue.push(text);
          break;
        }
        case "R": {
          const text = this.job.readFiles?.get(command.file!);
          if (!text) break;
          const cursor = this.rCursors.get(command.file!) ?? 0;
          if (cursor >= text.length) break;
          const end = text.indexOf("\n", cursor);
          const line = end < 0 ? `${text.slice(cursor)}\n` : text.slice(cursor, end + 1);
          this.rCursors.set(command.file!, end < 0 ? text.length : end + 1);
          this.appendQueue.push(line);
          break;
        }
        case "s":
          await this.substitute(command);
          break;
        case "w":
          this.write(command.file!, this.pattern, this.patternComplete);
          break;
        case "W": {
          const newline = this.pattern.indexOf("\n");
          if (newline < 0) this.write(command.file!, this.pattern, this.patternComplete);
          else this.write(command.file!, this.pattern.slice(0, newline), true);
          break;
        }
        case "x":
          [this.pattern, this.hold] = [this.hold, this.pattern];
          [this.patternComplete, this.holdComplete] = [this.holdComplete, this.patternComplete];
          break;
        case "y": {
          let out = "";
          for (const char of this.pattern) out += command.map!.get(char) ?? char;
          this.pattern = out;
          break;
        }
        case "z":
          this.pattern = "";
          break;
      }
      pc++;
    }
    return "end";
  }

  private async evaluate(commandText: string): Promise<void> {
    if (!this.job.exec) throw new SedRuntimeError("the e command cannot run commands here", 1);
    if (commandText === "") {
      const result = await this.job.exec(this.pattern);
      this.pattern = result.stdout.replace(/\n$/u, "");
      return;
    }
    const result = await this.job.exec(commandText);
    this.emitRaw(result.stdout);
  }

  private async substitute(command: SedCommand): Promise<void> {
    const regex = this.regexOf(command.regex);
    const text = this.pattern;
    const wanted = command.occurrence ?? 1;
    let out = "";
    let copied = 0;
    let position = 0;
    let count = 0;
    let previousEnd = -1;
    let replaced = false;
    while (position <= text.length) {
      this.poll.tick();
      const match = execPosix(regex, text, position);
      if (!match) break;
      const step = (at: number) =>
        at < text.length ? String.fromCodePoint(text.codePointAt(at)!).length : 1;
      if (match.end === match.index && match.index === previousEnd) {
        // No empty match right after the previous match.
        position = match.index + step(match.index);
        continue;
      }
      count++;
      if (count >= wanted) {
        out +=
          text.slice(copied, match.index) +
          expand(command.replacement!, (n) =>
            n === 0 ? text.slice(match.index, match.end) : match.groups[n],
          );
        copied = match.end;
        replaced = true;
        if (!command.global) break;
      }
      previousEnd = match.end;
      if (match.end === match.index) {
        if (match.index >= text.length) break;
        position = match.index + step(match.index);
      } else position = match.end;
    }
    if (!replaced) return;
    this.pattern = out + text.slice(copied);
    this.substituted = true;
    if (command.evaluate) {
      if (!this.job.exec) throw new SedRuntimeError("the s///e flag cannot run commands here", 1);
      const result = await this.job.exec(this.pattern);
      this.pattern = result.stdout.replace(/\n$/u, "");
    }
    if (command.print) this.emit(this.pattern, this.patternComplete);
    if (command.file !== undefined) this.write(command.file, this.pattern, this.patternComplete);
  }
}

/** The replacement for one match: groups (read only when named: reading them costs), and \L \U \E \l \u case conversion. */
function expand(parts: ReplacementPart[], group: (n: number) => string | undefined): string {
  let out = "";
  let mode: "L" | "U" | null = null;
  let once: "l" | "u" | null = null;
  const add = (text: string) => {
    if (text === "") return;
    let rest = text;
    if (once) {
      const first = String.fromCodePoint(rest.codePointAt(0)!);
      out += once === "u" ? first.toUpperCase() : first.toLowerCase();
      rest = rest.slice(first.length);
      once = null;
    }
    out += mode === "U" ? rest.toUpperCase() : mode === "L" ? rest.toLowerCase() : rest;
  };
  for (const part of parts) {
    if (part.kind === "text") add(part.text);
    else if (part.kind === "group") add(group(part.group) ?? "");
    else if (part.op === "E") {
      mode = null;
      once = null;
    } else if (part.op === "L" || part.op === "U") {
      mode = part.op;
      once = null;
    } else once = part.op;
  }
  return out;
}

const L_ESCAPES: Record<number, string> = {
  7: "\\a",
  8: "\\b",
  9: "\\t",
  10: "\\n",
  11: "\\v",
  12: "\\f",
  13: "\\r",
  92: "\\\\",
};

/** `l`: the pattern space unambiguously, byte by byte, wrapped at `width` (0: never). */
export function escapeForL(text: string, width: number, end = "\n"): string {
  let out = "";
  let column = 0;
  for (const byte of new TextEncoder().encode(text)) {
    const piece =
      L_ESCAPES[byte] ??
      (byte >= 32 && byte < 127 ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, "0")}`);
    if (width > 0 && column + piece.length > width - 1) {
      out += "\\\n";
      column = 0;
    }
    out += piece;
    column += piece.length;
  }
  return `${out}$${end}`;
}

class UsageError extends Error {}
/** --version and --help: printed on stdout, exit 0. */
class VersionRequest extends Error {}

const USAGE = "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...";

export interface SedCommandLine {
  pieces: ScriptPiece[];
  scriptFiles: string[];
  files: string[];
  extended: boolean;
  quiet: boolean;
  separate: boolean;
  nullData: boolean;
  inPlace: string | null;
  lineWrap: number;
  debug: boolean;
}

/** GNU sed's options; the first operand is the script when no -e or -f was given. */
export function parseSedArgs(args: string[]): SedCommandLine {
  const line: SedCommandLine = {
    pieces: [],
    scriptFiles: [],
    files: [],
    extended: false,
    quiet: false,
    separate: false,
    nullData: false,
    inPlace: null,
    lineWrap: 70,
    debug: false,
  };
  let scriptGiven = false;
  const operands: string[] = [];
  const scriptFile = (name: string) => {
    line.pieces.push({ text: "", file: name });
    line.scriptFiles.push(name);
    scriptGiven = true;
  };
  for (let k = 0; k < args.length; k++) {
    const arg = args[k]!;
    if (arg === "--") {
      operands.push(...args.slice(k + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const [name, value] = arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
      const takeValue = () => {
        if (value !== undefined) return value;
        const next = args[++k];
        if (next === undefined) throw new UsageError(`sed: option '${name}' requires an argument`);
        return next;
      };
      switch (name) {
        case "--quiet":
        case "--silent":
          line.quiet = true;
          break;
        case "--expression":
          line.pieces.push({ text: takeValue() });
          scriptGiven = true;
          break;
        case "--file":
          scriptFile(takeValue());
          break;
        case "--regexp-extended":
          line.extended = true;
          break;
        case "--separate":
          line.separate = true;
          break;
        case "--null-data":
        case "--zero-terminated":
          line.nullData = true;
          break;
        case "--in-place":
          line.inPlace = value ?? "";
          line.separate = true;
          break;
        case "--line-length":
          line.lineWrap = Number(takeValue());
          break;
        case "--posix":
        case "--unbuffered":
        case "--sandbox":
        case "--follow-symlinks":
          break;
        case "--debug":
          line.debug = true;
          break;
        case "--version":
          throw new VersionRequest(
            "sed (GNU sed) 4.9 compatible: Toolroom's sed for the embedded shell, held to GNU sed 4.9 by differential tests\n",
          );
        case "--help":
          throw new VersionRequest(`${USAGE}\n`);
        default:
          throw new UsageError(`sed: unrecognized option '${arg}'`);
      }
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") {
      for (let j = 1; j < arg.length; j++) {
        const flag = arg[j]!;
        const rest = arg.slice(j + 1);
        const value = () => {
          if (rest !== "") return rest;
          const next = args[++k];
          if (next === undefined) throw new UsageError(`sed: option requires an argument -- '${flag}'`);
          return next;
        };
        if (flag === "n") line.quiet = true;
        else if (flag === "E" || flag === "r") line.extended = true;
        else if (flag === "s") line.separate = true;
        else if (flag === "z") line.nullData = true;
        else if (flag === "u") continue;
        else if (flag === "e") {
          line.pieces.push({ text: value() });
          scriptGiven = true;
          break;
        } else if (flag === "f") {
          scriptFile(value());
          break;
        } else if (flag === "l") {
          line.lineWrap = Number(value());
          break;
        } else if (flag === "i") {
          line.inPlace = rest;
          line.separate = true;
          break;
        } else throw new UsageError(`sed: invalid option -- '${flag}'`);
      }
      continue;
    }
    operands.push(arg);
  }
  if (!scriptGiven) {
    const script = operands.shift();
    if (script === undefined) throw new UsageError("");
    line.pieces.push({ text: script });
  }
  line.files = operands;
  return line;
}

/** The sed command of the embedded shell. */
export async function runSed(args: string[], ctx: ResolvedCommandContext): Promise<CommandResult> {
  let line: SedCommandLine;
  try {
    line = parseSedArgs(args);
  } catch (error) {
    if (error instanceof UsageError)
      return {
        stdout: "",
        stderr: `${error.message === "" ? "" : `${error.message}\n`}${USAGE}\n`,
        exitCode: 1,
      };
    if (error instanceof VersionRequest) return { stdout: error.message, stderr: "", exitCode: 0 };
    throw error;
  }
  const readText = async (name: string): Promise<string | null> => (await readInput(ctx, name)).text;
  for (const piece of line.pieces) {
    if (piece.file === undefined) continue;
    const text = await readText(piece.file);
    if (text === null) {
      return {
        stdout: "",
        stderr: `sed: couldn't open file ${piece.file}: No such file or directory\n`,
        exitCode: 1,
      };
    }
    piece.text = text.endsWith("\n") ? text.slice(0, -1) : text;
  }
  let script: SedScript;
  try {
    await loadLinearEngine();
    script = parseSedScript(line.pieces, { extended: line.extended });
  } catch (error) {
    if (error instanceof SedSyntaxError) {
      return { stdout: "", stderr: `sed: ${error.message}\n`, exitCode: error.exitCode };
    }
    throw error;
  }
  const stderr: string[] = [];
  let exitCode = 0;
  const inputs: SedInput[] = [];
  const names = line.files.length > 0 ? line.files : ["-"];
  if (line.inPlace !== null && line.files.length === 0) {
    return { stdout: "", stderr: "sed: no input files\n", exitCode: 1 };
  }
  for (const name of names) {
    if (name === "-" && line.inPlace !== null) {
      stderr.push("sed: couldn't edit -: not a regular file\n");
      exitCode = 4;
      continue;
    }
    let text: string | null = null;
    let why = "No such file or directory";
    if (name === "-") text = stdinText(ctx);
    else {
      try {
        const path = ctx.fs.resolvePath(ctx.cwd, name);
        const stat = await ctx.fs.stat(path);
        if (stat.isDirectory) why = "Is a directory";
        else text = new TextDecoder().decode(await ctx.fs.readFileBuffer(path));
      } catch {
        // Named below.
      }
    }
    if (text === null) {
      stderr.push(
        line.inPlace !== null && why === "Is a directory"
          ? `sed: couldn't edit ${name}: not a regular file\n`
          : `sed: can't read ${name}: ${why}\n`,
      );
      exitCode = 2;
      continue;
    }
    inputs.push({ name, text });
  }
  const readFiles = new Map<string, string | null>();
  for (const command of script.commands) {
    if ((command.name === "r" || command.name === "R") && !readFiles.has(command.file!)) {
      readFiles.set(command.file!, await readText(command.file!));
    }
  }
  const result = await runSedScript({
    script,
    inputs,
    options: {
      quiet: line.quiet || script.quietByComment,
      separate: line.separate,
      nullData: line.nullData,
      lineWrap: line.lineWrap,
    },
    readFiles,
    stop: shellStopCheck(ctx),
    loopLimit: loopCount(ctx.limits?.maxSedIterations),
    ...(ctx.exec
      ? {
          exec: async (command: string) => {
            const run = await ctx.exec!(command, { cwd: ctx.cwd, signal: ctx.signal } as never);
            return { stdout: run.stdout, stderr: run.stderr, exitCode: run.exitCode };
          },
        }
      : {}),
  });
  for (const [name, text] of result.written) {
    if (name === "/dev/stdout" || name === "/dev/stderr") continue;
    await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, name), text);
  }
  // w files are created even when nothing was written to them.
  for (const command of script.commands) {
    const file = command.file;
    if (file === undefined || command.name === "r" || command.name === "R") continue;
    if (file === "/dev/stdout" || file === "/dev/stderr" || result.written.has(file)) continue;
    await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, file), "");
  }
  if (line.inPlace !== null) {
    for (const [index, input] of inputs.entries()) {
      const path = ctx.fs.resolvePath(ctx.cwd, input.name);
      if (line.inPlace !== "") {
        const backup = line.inPlace.includes("*")
          ? line.inPlace.replaceAll("*", input.name.split("/").at(-1)!)
          : `${input.name}${line.inPlace}`;
        await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, backup), input.text);
      }
      await ctx.fs.writeFile(path, result.perInput[index] ?? "");
    }
  }
  const stdout =
    line.inPlace !== null ? result.stdout : result.stdout + (line.separate ? result.perInput.join("") : "");
  if (result.stopped) {
    return {
      stdout,
      stderr: stderr.join("") + result.stderr + stopMessage("sed", result.stopped),
      exitCode: STOP_EXIT[result.stopped],
    };
  }
  return {
    stdout,
    stderr: stderr.join("") + result.stderr,
    exitCode: result.exitCode !== 0 ? result.exitCode : exitCode,
  };
}

export function sedCommands(): Command[] {
  return [defineCommand("sed", (args, ctx) => runSed(args, ctx))];
}
