import { linearRegex } from "../regex/linear.ts";
import { compilePosixRegex, type PosixRegex, RegexSyntaxError } from "../regex/posix-regex.ts";

/**
 * GNU sed 4.9's script language, parsed as compile.c reads it: addresses (N, $, /re/IM, \cREc,
 * first~step, 0,/re/, addr,+N, addr,~N), `!`, blocks, labels, a/i/c in both the classic and the
 * one-line form, s with any delimiter and the flags g p N i m e w, y, and the one-letter commands.
 * A malformed script is a SedSyntaxError carrying GNU's message and where it went wrong.
 */

/** One script piece as given on the command line (-e TEXT, or -f FILE's text). */
export interface ScriptPiece {
  text: string;
  /** "-e" pieces are numbered "-e expression #N"; a file is named. */
  file?: string;
}

export class SedSyntaxError extends Error {
  constructor(
    readonly reason: string,
    /** Where, as GNU words it: "-e expression #1, char 3" or "file x.sed line 2"; "" for none. */
    readonly where: string,
    /** 1-based character of the whole script. */
    readonly position: number,
    /** GNU exits 4 ("panic") for a jump to a missing label, 1 for the rest. */
    readonly exitCode = 1,
  ) {
    super(where === "" ? reason : `${where}: ${reason}`);
    this.name = "SedSyntaxError";
  }
}

export type Address =
  | { kind: "line"; line: number }
  | { kind: "last" }
  | { kind: "zero" }
  | { kind: "step"; first: number; step: number }
  | { kind: "regex"; regex: PosixRegex | null }
  | { kind: "plus"; count: number }
  | { kind: "multiple"; of: number };

/** A replacement: literal text, a group (0 is the whole match), or a case conversion. */
export type ReplacementPart =
  | { kind: "text"; text: string }
  | { kind: "group"; group: number }
  | { kind: "case"; op: "L" | "U" | "E" | "l" | "u" };

export interface SedCommand {
  name: string;
  addr1?: Address;
  addr2?: Address;
  negate: boolean;
  /** a, i, c: the text, ending in a newline. */
  text?: string;
  /** b, t, T, and : — the label; for jumps, the index jumped to (resolved after parsing). */
  label?: string;
  target?: number;
  /** { — the index of its }. */
  blockEnd?: number;
  /** q, Q: exit code; l, L: line length. */
  number?: number;
  /** r, R, w, W and s///w: the file name. */
  file?: string;
  /** s */
  regex?: PosixRegex | null;
  replacement?: ReplacementPart[];
  global?: boolean;
  occurrence?: number;
  print?: number;
  evaluate?: boolean;
  /** y: source code point → target. */
  map?: Map<string, string>;
  /** 1-based character where the command starts (for messages at run time). */
  position: number;
  /** Range state at run time. */
  range?: { active: boolean; closed: boolean; end: number };
}

export interface SedScript {
  commands: SedCommand[];
  /** "#n" on the script's first line: like -n. */
  quietByComment: boolean;
}

const ONE_ADDRESS = new Set(["q", "Q"]);
const NO_ADDRESS = new Set([":", "}", "#"]);
const SIMPLE = new Set(["=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F"]);
const TEXT_ESCAPES: Record<string, string> = {
  a: "\x07",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

export interface ParseOptions {
  extended: boolean;
  /** --posix: GNU extensions still parse; kept for messages. */
  sandbox?: boolean;
}

export function parseSedScript(pieces: ScriptPiece[], options: ParseOptions): SedScript {
  return new ScriptParser(pieces, options).parse();
}

class ScriptParser {
  private readonly src: string;
  private i = 0;
  private readonly starts: number[] = [];
  private readonly commands: SedCommand[] = [];
  private readonly blocks: number[] = [];
  private sawRegex = false;

  constructor(
    private readonly pieces: ScriptPiece[],
    private readonly options: ParseOptions,
  ) {
    let offset = 0;
    for (const piece of pieces) {
      this.starts.push(offset);
      offset += piece.text.length + 1;
    }
    this.src = pieces.map((piece) => piece.text).join("\n");
  }

  /** GNU's "-e expression #N, char M" (M counts what was read, the bad character included). */
  private where(at: number): { where: string; position: number } {
    let piece = 0;
    while (piece + 1 < this.starts.length && this.starts[piece + 1]! <= at) piece++;
    const local = at - (this.starts[piece] ?? 0);
    const entry = this.pieces[piece];
    if (entry?.file !== undefined) {
      const line = entry.text.slice(0, local).split("\n").length;
      return { where: `file ${entry.file} line ${line}`, position: at + 1 };
    }
    const number = this.pieces.slice(0, piece + 1).filter((p) => p.file === undefined).length;
    const char = Math.min(local, entry?.text.length ?? local);
    // GNU counts bytes: "s/[à-ü]/x/" fails at char 12.
    const bytes = new TextEncoder().encode((entry?.text ?? "").slice(0, char)).length;
    return { where: `-e expression #${number}, char ${bytes}`, position: (this.starts[piece] ?? 0) + char };
  }

  private fail(reason: string, at = this.i): never {
    const { where, position } = this.where(at);
    throw new SedSyntaxError(reason, where, position);
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  private skipBlanks(): void {
    while (this.i < this.src.length && /[ \t\r\f\v]/u.test(this.src[this.i]!)) this.i++;
  }

  parse(): SedScript {
    const quietByComment = /^#n(?:\n|$)/u.test(this.src);
    for (;;) {
      while (this.i < this.src.length && (/\s/u.test(this.src[this.i]!) || this.src[this.i] === ";"))
        this.i++;
      if (this.i >= this.src.length) break;
      this.command();
    }
    if (this.blocks.length > 0) this.fail("unmatched `{'", 0);
    const labels = new Map<string, number>();
    for (const [index, command] of this.commands.entries()) {
      if (command.name !== ":") continue;
      if (labels.has(command.label!)) this.fail(`duplicate label \`${command.label}'`, command.position);
      labels.set(command.label!, index);
    }
    for (const command of this.commands) {
      if (command.name !== "b" && command.name !== "t" && command.name !== "T") continue;
      if (command.label === "") command.target = this.commands.length;
      else {
        const target = labels.get(command.label!);
        if (target === undefined) {
          throw new SedSyntaxError(
            `can't find label for jump to \`${command.label}'`,
            "",
            command.position,
            4,
          );
        }
        command.target = target;
      }
    }
    return { commands: this.commands, quietByComment };
  }

  private command(): void {
    const start = this.i;
    const command: SedCommand = { name: "", negate: false, position: start + 1 };
    const addr1 = this.address(true);
    if (addr1) {
      command.addr1 = addr1;
      this.skipBlanks();
      if (this.peek() === ",") {
        this.i++;
        this.skipBlanks();
        const addr2 = this.address(false);
        if (!addr2) this.fail("unexpected `,'", this.i + 1);
        command.addr2 = addr2;
      }
      if (addr1.kind === "zero") {
        if (command.addr2?.kind !== "regex") this.fail("invalid usage of line address 0", this.i + 1);
      }
    }
    this.skipBlanks();
    if (this.peek() === "!") {
      command.negate = true;
      this.i++;
      this.skipBlanks();
      if (this.peek() === "!") this.fail("multiple `!'s", this.i + 1);
    }
    const name = this.peek();
    if (name === undefined || name === "\n" || name === ";") this.fail("missing command", this.i);
    this.i++;
    command.name = name;
    if (command.addr1 && NO_ADDRESS.has(name)) {
      if (name === "}") this.fail("unexpected `}'");
      if (name === "#") this.fail("comments don't accept any addresses");
      this.fail(": doesn't want any addresses");
    }
    if (command.addr2 && ONE_ADDRESS.has(name)) this.fail("command only uses one address");
    const index = this.commands.length;
    this.commands.push(command);
    switch (name) {
      case "{":
        this.blocks.push(index);
        return;
      case "}": {
        const open = this.blocks.pop();
        if (open === undefined) this.fail("unexpected `}'");
        this.commands[open]!.blockEnd = index;
        this.endOfCommand();
        return;
      }
      case "#":
        while (this.i < this.src.length && this.src[this.i] !== "\n") this.i++;
        return;
      case ":": {
        this.skipBlanks();
        const label = this.label(false);
        if (label === "") this.fail('":" lacks a label');
        command.label = label;
        return;
      }
      case "b":
      case "t":
      case "T":
        this.skipBlanks();
        command.label = this.label(true);
        this.endOfCommand();
        return;
      case "a":
      case "i":
      case "c":
        command.text = this.text();
        return;
      case "q":
      case "Q":
      case "l": {
        this.skipBlanks();
        const digits = /^[0-9]+/u.exec(this.src.slice(this.i));
        if (digits) {
          command.number = Number(digits[0]);
          this.i += digits[0].length;
        }
        this.endOfCommand();
        return;
      }
      case "r":
      case "R":
      case "w":
      case "W":
        command.file = this.fileName();
        return;
      case "e":
        this.skipBlanks();
        command.text = this.restOfLine();
        return;
      case "v":
        this.label(false);
        this.endOfCommand();
        return;
      case "s":
        this.substitute(command);
        return;
      case "y":
        this.transliterate(command);
        return;
    }
    if (SIMPLE.has(name)) {
      this.endOfCommand();
      return;
    }
    this.fail(`unknown command: \`${name}'`, this.i);
  }

  /** After a command: blanks, then the end of the line, ;, } or #. */
  private endOfCommand(): void {
    this.skipBlanks();
    const next = this.peek();
    if (next === undefined || next === "\n" || next === ";") {
      if (next !== undefined) this.i++;
      return;
    }
    if (next === "}" || next === "#") return;
    this.fail("extra characters after command", this.i + 1);
  }

  /** A label ends at whitespace or a semicolon (and a jump's at "}"), as GNU sed 4.9 reads it. */
  private label(jump: boolean): string {
    const from = this.i;
    while (
      this.i < this.src.length &&
      !/[\s;]/u.test(this.src[this.i]!) &&
      !(jump && this.src[this.i] === "}")
    ) {
      this.i++;
    }
    return this.src.slice(from, this.i);
  }

  private restOfLine(): string {
    const from = this.i;
    while (this.i < this.src.length && this.src[this.i] !== "\n") this.i++;
    const text = this.src.slice(from, this.i);
    if (this.i < this.src.length) this.i++;
    return text;
  }

  private fileName(): string {
    this.skipBlanks();
    const name = this.restOfLine();
    if (name === "") this.fail("missing filename in r/R/w/W commands");
    return name;
  }

  private number(): number | null {
    const digits = /^[0-9]+/u.exec(this.src.slice(this.i));
    if (!digits) return null;
    this.i += digits[0].length;
    return Number(digits[0]);
  }

  private address(first: boolean): Address | null {
    const c = this.peek();
    if (c === undefined) return null;
    if (/[0-9]/u.test(c)) {
      const line = this.number()!;
      this.skipBlanks();
      if (first && this.peek() === "~") {
        this.i++;
        this.skipBlanks();
        const step = this.number() ?? 0;
        return { kind: "step", first: line, step };
      }
      if (line === 0 && first) return { kind: "zero" };
      if (line === 0) this.fail("invalid usage of line address 0");
      return { kind: "line", line };
    }
    if ((c === "+" || c === "~") && !first) {
      this.i++;
      const count = this.number();
      if (count === null) this.fail("expected newer version of sed");
      return c === "+" ? { kind: "plus", count } : { kind: "multiple", of: count };
    }
    if ((c === "+" || c === "~") && first)
      this.fail("invalid usage of +N or ~N as first address", this.i + 1);
    if (c === "$") {
      this.i++;
      return { kind: "last" };
    }
    if (c === "/" || c === "\\") {
      this.i++;
      let delimiter = "/";
      if (c === "\\") {
        delimiter = this.peek() ?? "";
        if (delimiter === "" || delimiter === "\n" || delimiter === "\\") {
          this.fail("unterminated address regex");
        }
        this.i++;
      }
      const body = this.delimited(delimiter, true, "unterminated address regex");
      let ignoreCase = false;
      let multiline = false;
      for (;;) {
        const flag = this.peek();
        if (flag === "I") ignoreCase = true;
        else if (flag === "M") multiline = true;
        else break;
        this.i++;
      }
      return { kind: "regex", regex: this.regex(body, ignoreCase, multiline) };
    }
    return null;
  }

  /**
   * Reads up to an unescaped delimiter (GNU's match_slash): `\delim` becomes the delimiter,
   * `\n` a newline in a regex, a backslash-newline a newline; other escapes are kept for later.
   */
  private delimited(delimiter: string, regex: boolean, unterminated: string): string {
    let out = "";
    for (;;) {
      const c = this.src[this.i];
      if (c === undefined) this.fail(unterminated);
      this.i++;
      if (c === delimiter) return out;
      if (c === "\n" && regex) this.fail(unterminated);
      if (c === "\\") {
        const next = this.src[this.i];
        if (next === undefined) this.fail(unterminated);
        this.i++;
        if (next === delimiter && !(!regex && next === "&")) out += next;
        else if (next === "n" && regex) out += "\n";
        else if (next === "\n") out += regex ? "\n" : "\\\n";
        else out += `\\${next}`;
        continue;
      }
      if (c === "[" && regex) {
        // A bracket expression may hold the delimiter unescaped.
        const end = bracketEnd(this.src, this.i - 1);
        if (end < 0 || this.src.slice(this.i, end).includes("\n")) {
          this.i = this.src.length;
          this.fail(unterminated);
        }
        out += this.src.slice(this.i - 1, end);
        this.i = end;
        continue;
      }
      out += c;
    }
  }

  /** `neededGroup`: the highest \\N of an s command's replacement. */
  private regex(body: string, ignoreCase: boolean, multiline: boolean, neededGroup = 0): PosixRegex | null {
    if (body === "") {
      if (!this.sawRegex || ignoreCase || multiline) this.fail("no previous regular expression", 0);
      return null;
    }
    this.sawRegex = true;
    try {
      const regex = compilePosixRegex(body, {
        dialect: this.options.extended ? "extended" : "basic",
        ignoreCase,
        multiline,
        charEscapes: true,
        strictEre: true,
      });
      // Compiled for Rust's engine now (loaded by the caller), so a pattern too big for it fails here.
      linearRegex(regex);
      return regex;
    } catch (error) {
      if (error instanceof RegexSyntaxError && error.gnuMessage.startsWith("character class syntax")) {
        // GNU sed checks the replacement's \\N against glibc's groups before its dfa compiles.
        if (error.groupCount !== undefined && neededGroup > error.groupCount) {
          this.fail(`invalid reference \\${neededGroup} on \`s' command's RHS`, this.i);
        }
        // GNU sed's dfa says this one without a place, and exits 4.
        throw new SedSyntaxError(error.gnuMessage, "", this.i, 4);
      }
      if (error instanceof RegexSyntaxError) this.fail(error.gnuMessage, this.i);
      throw error;
    }
  }

  /** a, i, c text: the one-line form (`a text`) or the classic one (`a\` then lines). */
  private text(): string {
    this.skipBlanks();
    if (this.peek() === "\\") {
      this.i++;
      if (this.peek() === "\n") this.i++;
      // `a\` at the very end: GNU adds nothing at all.
      else if (this.i >= this.src.length) return "";
    } else if (this.i >= this.src.length) {
      this.fail("expected \\ after `a', `c' or `i'");
    }
    let text = "";
    while (this.i < this.src.length) {
      const c = this.src[this.i]!;
      this.i++;
      if (c === "\n") break;
      if (c === "\\") {
        const next = this.src[this.i];
        if (next === undefined) break;
        this.i++;
        text += TEXT_ESCAPES[next] ?? next;
        continue;
      }
      text += c;
    }
    return `${text}\n`;
  }

  private substitute(command: SedCommand): void {
    const delimiter = this.peek();
    if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") {
      this.fail("unterminated `s' command");
    }
    this.i++;
    const pattern = this.delimited(delimiter, true, "unterminated `s' command");
    const replacementAt = this.i;
    const replacement = this.delimited(delimiter, false, "unterminated `s' command");
    let ignoreCase = false;
    let multiline = false;
    command.print = 0;
    for (;;) {
      const flag = this.peek();
      if (flag === "g") {
        if (command.global) this.fail("multiple `g' options to `s' command", this.i + 1);
        command.global = true;
      } else if (flag === "p") {
        if (command.print) this.fail("multiple `p' options to `s' command", this.i + 1);
        command.print = 1;
      } else if (flag === "i" || flag === "I") ignoreCase = true;
      else if (flag === "m" || flag === "M") multiline = true;
      else if (flag === "e") command.evaluate = true;
      else if (flag !== undefined && /[0-9]/u.test(flag)) {
        if (command.occurrence !== undefined) {
          this.fail("multiple number options to `s' command", this.i + 1);
        }
        const n = this.number()!;
        if (n === 0) this.fail("number option to `s' command may not be zero");
        command.occurrence = n;
        continue;
      } else if (flag === "w") {
        this.i++;
        command.file = this.fileName();
        break;
      } else {
        if (flag === undefined || flag === "\n" || flag === ";" || flag === "}" || flag === "#") break;
        if (/[ \t]/u.test(flag)) {
          this.endOfCommand();
          break;
        }
        this.fail("unknown option to `s'", this.i + 1);
      }
      this.i++;
    }
    let neededGroup = 0;
    try {
      for (const part of parseReplacement(replacement, () => {
        throw new Error("malformed");
      })) {
        if (part.kind === "group") neededGroup = Math.max(neededGroup, part.group);
      }
    } catch {
      // A malformed replacement is said below, after the regex's own errors.
    }
    command.regex = this.regex(pattern, ignoreCase, multiline, neededGroup);
    command.replacement = parseReplacement(replacement, (reason) => this.fail(reason, replacementAt));
    const groups = command.regex ? command.regex.groupCount : 9;
    for (const part of command.replacement) {
      if (part.kind === "group" && part.group > groups) {
        this.fail(`invalid reference \\${part.group} on \`s' command's RHS`, this.i);
      }
    }
    if (command.file === undefined) this.endOfCommand();
  }

  private transliterate(command: SedCommand): void {
    const delimiter = this.peek();
    if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") {
      this.fail("unterminated `y' command");
    }
    this.i++;
    const read = () => {
      const chars: string[] = [];
      for (;;) {
        const c = this.src[this.i];
        if (c === undefined || c === "\n") this.fail("unterminated `y' command");
        this.i++;
        if (c === delimiter) return chars;
        if (c === "\\") {
          const next = this.src[this.i];
          if (next === undefined) this.fail("unterminated `y' command");
          this.i++;
          if (next === delimiter) chars.push(next);
          else if (next === "\\") chars.push("\\");
          else if (next === "n") chars.push("\n");
          else if (next === "\n") chars.push("\n");
          else if (TEXT_ESCAPES[next] !== undefined) chars.push(TEXT_ESCAPES[next]!);
          else this.fail("unknown option to `y'");
          continue;
        }
        const code = String.fromCodePoint(this.src.codePointAt(this.i - 1)!);
        this.i += code.length - 1;
        chars.push(code);
      }
    };
    const source = read();
    const target = read();
    if (source.length !== target.length) this.fail("strings for `y' command are different lengths");
    command.map = new Map(source.map((char, k) => [char, target[k]!]));
    this.endOfCommand();
  }
}

/** Where the bracket expression opening at `open` ends (just past its "]"), or -1. */
function bracketEnd(src: string, open: number): number {
  let i = open + 1;
  if (src[i] === "^") i++;
  if (src[i] === "]") i++;
  while (i < src.length) {
    if (src[i] === "[" && /[:=.]/u.test(src[i + 1] ?? "")) {
      const close = src.indexOf(`${src[i + 1]}]`, i + 2);
      if (close < 0) return -1;
      i = close + 2;
      continue;
    }
    if (src[i] === "]") return i + 1;
    i++;
  }
  return -1;
}

/** s's right-hand side: & and \0-\9 groups, \L \U \l \u \E, \n and the other character escapes. */
function parseReplacement(text: string, fail: (reason: string) => never): ReplacementPart[] {
  const parts: ReplacementPart[] = [];
  let literal = "";
  const flush = () => {
    if (literal !== "") parts.push({ kind: "text", text: literal });
    literal = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "&") {
      flush();
      parts.push({ kind: "group", group: 0 });
      continue;
    }
    if (c !== "\\") {
      literal += c;
      continue;
    }
    const next = text[++i];
    if (next === undefined) fail("unterminated `s' command");
    if (/[0-9]/u.test(next)) {
      flush();
      parts.push({ kind: "group", group: Number(next) });
    } else if (next === "L" || next === "U" || next === "E" || next === "l" || next === "u") {
      flush();
      parts.push({ kind: "case", op: next });
    } else if (next === "\n") literal += "\n";
    else if (TEXT_ESCAPES[next] !== undefined) literal += TEXT_ESCAPES[next];
    else if (next === "c" && i + 1 < text.length) {
      literal += String.fromCharCode(text[++i]!.toUpperCase().charCodeAt(0) ^ 0x40);
    } else if (next === "d" || next === "o" || next === "x") {
      const [radix, pattern] =
        next === "d" ? [10, /^[0-9]{1,3}/u] : next === "o" ? [8, /^[0-7]{1,3}/u] : [16, /^[0-9A-Fa-f]{1,2}/u];
      const digits = pattern.exec(text.slice(i + 1));
      if (digits) {
        literal += String.fromCharCode(Number.parseInt(digits[0], radix));
        i += digits[0].length;
      } else literal += next;
    } else literal += next;
  }
  flush();
  return parts;
}
