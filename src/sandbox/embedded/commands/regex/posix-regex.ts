/**
 * POSIX regular expressions as GNU reads them (grep, sed, gawk), parsed into a small tree and
 * translated to a JavaScript RegExp. JavaScript picks the first alternative that matches where
 * POSIX picks the longest match, so `longestMatch` (./longest.ts) re-measures a match's end with
 * a set-of-states walk of the same tree: match extents (sed s///, awk sub/match, grep -o) are
 * POSIX's, except for patterns with back-references, which keep JavaScript's first match.
 */

export type RegexDialect = "basic" | "extended" | "fixed";

export interface PosixRegexOptions {
  dialect: RegexDialect;
  ignoreCase?: boolean;
  /** sed's M flag: ^ and $ also match at embedded newlines. */
  multiline?: boolean;
  /** gawk: backslash escapes work inside brackets, \y is a word boundary, \b a backspace. */
  awk?: boolean;
  /** sed: \n \t \f \v \a \r \dNNN \oNNN \xHH \cX stand for characters. */
  charEscapes?: boolean;
  /**
   * GNU sed (glibc regcomp): in ERE, a quantifier with nothing to repeat (first, or after an
   * anchor) and a "{" that starts no interval are errors, not literals; in BRE, such a "\{" is.
   */
  strictEre?: boolean;
  /** grep -w: the match must not touch a word character on either side. */
  wholeWord?: boolean;
  /** grep -x: the match must be the whole text. */
  wholeLine?: boolean;
}

/** A malformed pattern: GNU's message, and where (0-based character index) it went wrong. */
export class RegexSyntaxError extends Error {
  /** GNU's dfa's own error (after glibc's): how many groups glibc found, for sed's RHS check that comes between. */
  groupCount: number | undefined;
  constructor(
    readonly gnuMessage: string,
    readonly position: number,
  ) {
    super(gnuMessage);
    this.name = "RegexSyntaxError";
  }
}

export type Assertion =
  | "^"
  | "$"
  | "wordStart"
  | "wordEnd"
  | "word"
  | "notWord"
  | "bufferStart"
  | "bufferEnd"
  | "notAfterWord"
  | "notBeforeWord";

export type RegexNode =
  | { type: "char"; char: string }
  | { type: "any" }
  | { type: "set"; negated: boolean; body: string; test: (char: string) => boolean }
  | { type: "group"; capture: number | null; alternatives: RegexNode[][] }
  | { type: "repeat"; node: RegexNode; min: number; max: number }
  | { type: "backref"; group: number }
  | { type: "assert"; kind: Assertion };

export interface PosixRegex {
  readonly pattern: string;
  readonly options: PosixRegexOptions;
  /** Global, sticky-free RegExp: set lastIndex and call exec. */
  readonly regex: RegExp;
  readonly tree: RegexNode;
  readonly groupCount: number;
  readonly hasBackrefs: boolean;
  /**
   * GNU grep -E's dfa and glibc's matcher read it differently (a quantifier after an anchor, a "{"
   * at the start of an expression), and GNU's answers follow one or the other: grep refuses it.
   */
  readonly twoReadings: boolean;
  /**
   * A "^" can follow a character of the same match, or a "$" precede one (a.^b, a$\n): GNU's
   * matchers read it two ways on a text holding a newline, so matching one is refused.
   */
  readonly anchorInsideMatch: boolean;
}

/** GNU's word characters in a UTF-8 locale (glibc's iswalnum, and "_"): letters and other alphabetic characters, decimal digits. */
export const WORD = "\\p{Alphabetic}\\p{Nd}_";
/** glibc's iswspace: Unicode white space except the no-break spaces (U+00A0, U+2007, U+202F) and NEL. */
const SPACE =
  "\\t\\n\\v\\f\\r \\u{1680}\\u{2000}-\\u{2006}\\u{2008}-\\u{200a}\\u{2028}\\u{2029}\\u{205f}\\u{3000}";
const DUP_MAX = 32767;

/** Characters glibc counts in no graphic class: controls, unassigned code points, line and paragraph separators. */
const NOT_PRINT = "\\p{Cc}\\p{Cn}\\u{2028}\\u{2029}";

/**
 * POSIX class names → a character class body that reads the same in JavaScript (`v`) and Rust,
 * as glibc's C.UTF-8 locale defines them (GNU grep, sed and gawk ask glibc): alpha takes every
 * Alphabetic character and the non-ASCII decimal digits, punct every graphic character that is not
 * alphanumeric, print everything assigned but controls and separators.
 */
const CLASSES: Record<string, string> = {
  alpha: "\\p{Alphabetic}[\\p{Nd}--[0-9]]",
  digit: "0-9",
  alnum: "\\p{Alphabetic}\\p{Nd}",
  upper: "\\p{Uppercase}\\p{Lt}",
  lower: "\\p{Lowercase}\\p{Lt}",
  space: SPACE,
  blank: "\\t \\u{1680}\\u{2000}-\\u{2006}\\u{2008}-\\u{200a}\\u{205f}\\u{3000}",
  punct: `[^${NOT_PRINT}${SPACE}\\p{Alphabetic}\\p{Nd}]`,
  print: `[^${NOT_PRINT}]`,
  graph: `[^${NOT_PRINT}${SPACE}]`,
  cntrl: "\\p{Cc}\\u{2028}\\u{2029}",
  xdigit: "0-9A-Fa-f",
};

/**
 * A code point written so it is literal in a JavaScript `u` pattern and in a Rust one, in a class
 * or out of it: ASCII other than letters and digits as \u{…} (Rust gives & ~ - meaning in classes).
 */
export function literal(char: string): string {
  const code = char.codePointAt(0)!;
  if (code < 0x80 && !/[A-Za-z0-9]/u.test(char)) return `\\u{${code.toString(16)}}`;
  return char;
}

export function compilePosixRegex(pattern: string, options: PosixRegexOptions): PosixRegex {
  const parser = new Parser(pattern, options);
  let tree: RegexNode =
    options.dialect === "fixed"
      ? {
          type: "group",
          capture: null,
          alternatives: [[...pattern].map((char): RegexNode => ({ type: "char", char }))],
        }
      : parser.parse();
  if (options.wholeLine) {
    tree = {
      type: "group",
      capture: null,
      alternatives: [[{ type: "assert", kind: "^" }, tree, { type: "assert", kind: "$" }]],
    };
  } else if (options.wholeWord) {
    tree = {
      type: "group",
      capture: null,
      alternatives: [
        [{ type: "assert", kind: "notAfterWord" }, tree, { type: "assert", kind: "notBeforeWord" }],
      ],
    };
  }
  if (parser.backrefs) {
    refuseUnsetBackrefs(tree, parser, new Set(), new Set());
    refuseEmptyLoopBackrefs(tree, groupsOf(tree));
  }
  // grep -E refuses a quantified anchor on its own (twoReadings), saying why.
  if (!parser.twoReadings) refuseCopiedAnchors(tree);
  refuseNotWordAfterStar(tree);
  const source = emit(tree, options);
  let regex: RegExp;
  try {
    regex = new RegExp(source, `gsv${options.ignoreCase ? "i" : ""}${options.multiline ? "m" : ""}`);
  } catch (error) {
    throw new RegexSyntaxError(`Invalid regular expression (${(error as Error).message})`, 0);
  }
  return {
    pattern,
    options,
    regex,
    tree,
    groupCount: parser.groups,
    hasBackrefs: parser.backrefs,
    twoReadings: parser.twoReadings,
    anchorInsideMatch: !options.multiline && anchorInsideMatch(tree),
  };
}

class Parser {
  private i = 0;
  groups = 0;
  backrefs = false;
  /** GNU grep -E reads the pattern two ways: its dfa selects lines, glibc's matcher finds -o's matches. */
  twoReadings = false;
  private closed = new Set<number>();
  /** Groups under a "*", "?" or {0,n}: they may take no part in a match. */
  readonly optional = new Set<number>();
  /** Groups in one alternative of several: they take no part when another alternative matches. */
  readonly branched = new Set<number>();
  private classSyntax: RegexSyntaxError | undefined;
  private readonly basic: boolean;

  constructor(
    private readonly src: string,
    private readonly options: PosixRegexOptions,
  ) {
    this.basic = options.dialect === "basic";
    this.anchorsUnquantified = this.basic || options.strictEre === true || options.awk === true;
  }

  /** A quantifier after an anchor starts an expression (GNU grep -E alone quantifies the anchor, as its dfa does). */
  private readonly anchorsUnquantified: boolean;

  parse(): RegexNode {
    const alternatives = this.alternation(0);
    if (this.i < this.src.length) {
      // Only a stray close paren stops the top level.
      throw new RegexSyntaxError("Unmatched ) or \\)", this.i);
    }
    if (this.classSyntax) {
      this.classSyntax.groupCount = this.groups;
      throw this.classSyntax;
    }
    return { type: "group", capture: null, alternatives };
  }

  private atAlternation(): boolean {
    return this.basic ? this.src.startsWith("\\|", this.i) : this.src[this.i] === "|";
  }

  private atClose(depth: number): boolean {
    if (this.basic) return this.src.startsWith("\\)", this.i);
    // An ERE ")" with no open group is an ordinary character to GNU grep and gawk; sed -E stops there.
    return this.src[this.i] === ")" && (depth > 0 || this.options.strictEre === true);
  }

  private alternation(depth: number): RegexNode[][] {
    // glibc: a back-reference names a group closed before it in its own alternative.
    const initial = new Set(this.closed);
    const accumulated = new Set(this.closed);
    const alternatives: RegexNode[][] = [this.sequence(depth)];
    while (this.atAlternation()) {
      this.i += this.basic ? 2 : 1;
      for (const group of this.closed) accumulated.add(group);
      this.closed = new Set(initial);
      alternatives.push(this.sequence(depth));
    }
    for (const group of accumulated) this.closed.add(group);
    if (alternatives.length > 1) {
      for (const group of alternatives.flat().flatMap(captures)) this.branched.add(group);
    }
    return alternatives;
  }

  private sequence(depth: number): RegexNode[] {
    const nodes: RegexNode[] = [];
    let start = this.i;
    while (this.i < this.src.length && !this.atAlternation() && !this.atClose(depth)) {
      const afterAnchor = this.anchorsUnquantified && nodes.at(-1)?.type === "assert";
      const at = this.i;
      const atom = this.atom(depth, this.i === start, this.i === start || afterAnchor);
      if (atom === null) {
        // A skipped "*+?" leaves the expression at its start ("+*a" is a); a "{" is two readings.
        if (this.src[at] !== "{") {
          this.afterSkippedQuantifier(depth, this.i);
          start = this.i;
        }
        continue;
      }
      // glibc (BRE, sed -E) and gawk quantify no anchor: "^*", "\>*" are an anchor and a literal star.
      if (this.anchorsUnquantified && atom.type === "assert") {
        // GNU grep's dfa repeats "\`" and "\'" in BRE too ("\'*" selects every line): two readings.
        const buffer = atom.kind === "bufferStart" || atom.kind === "bufferEnd";
        const quantifier = this.src[this.i] === "*" || /^\\[+?{]/u.test(this.src.slice(this.i, this.i + 2));
        // And "\<\{0\}" after any anchor (the dfa's empty repeat, glibc's literal "{0}").
        const interval = this.src.startsWith("\\{", this.i);
        if (this.basic && !this.options.strictEre && ((buffer && quantifier) || interval))
          this.twoReadings = true;
        nodes.push(atom);
      } else {
        if (atom.type === "assert" && this.atQuantifier()) {
          // GNU grep -E: its dfa repeats the anchor ("^*"), glibc's matcher skips the quantifier
          // (each "*+?" or the "{" alone), and GNU's answers follow one or the other: refused.
          this.twoReadings = true;
          let skipped = this.i;
          while ("*+?{".includes(this.src[skipped] ?? "_")) skipped++;
          // glibc swallows that ")" too: a later one closes the group ("(a^*))" is no error), and
          // then only the dfa's reading differs, which grep refuses as two readings.
          if (!this.src.includes(")", skipped + 1)) this.afterSkippedQuantifier(depth, skipped);
        }
        nodes.push(this.quantifiers(atom));
      }
    }
    return nodes;
  }

  private atQuantifier(): boolean {
    const c = this.src[this.i];
    return c === "*" || c === "+" || c === "?" || c === "{";
  }

  /** GNU grep -E: a quantifier glibc skips right before ")" leaves it an empty group, an error. */
  private afterSkippedQuantifier(depth: number, at: number): void {
    if (depth > 0 && this.src[at] === ")") throw new RegexSyntaxError("Unmatched ( or \\(", at);
  }

  /** Reads quantifiers after an atom; several in a row nest, as GNU reads them. */
  private quantifiers(atom: RegexNode): RegexNode {
    let node = atom;
    for (;;) {
      const c = this.src[this.i];
      let min: number;
      let max: number;
      if (
        this.basic &&
        this.options.strictEre &&
        node !== atom &&
        (c === "*" || this.src.startsWith("\\{", this.i))
      ) {
        // GNU sed (glibc's POSIX BRE): "a**" and "a*\{2\}" repeat a repetition, an error.
        throw new RegexSyntaxError("Invalid preceding regular expression", this.i);
      }
      if (c === "*") {
        this.i++;
        [min, max] = [0, Number.POSITIVE_INFINITY];
      } else if (this.basic ? this.src.startsWith("\\+", this.i) : c === "+") {
        this.i += this.basic ? 2 : 1;
        [min, max] = [1, Number.POSITIVE_INFINITY];
      } else if (this.basic ? this.src.startsWith("\\?", this.i) : c === "?") {
        this.i += this.basic ? 2 : 1;
        [min, max] = [0, 1];
      } else if (this.basic ? this.src.startsWith("\\{", this.i) : c === "{") {
        const interval = this.interval();
        if (interval === null) return node;
        [min, max] = interval;
      } else return node;
      if (node.type === "assert" && (node.kind === "^" || node.kind === "$")) {
        // GNU: a quantified anchor quantifies nothing useful; keep it as written.
        node = { type: "group", capture: null, alternatives: [[node]] };
      }
      if (min === 0) for (const group of captures(node)) this.optional.add(group);
      node = { type: "repeat", node, min, max };
    }
  }

  /** Reads {m}, {m,}, {,n}, {m,n} (with backslashes in BRE); null: an ERE "{" that is a literal. */
  private interval(): [number, number] | null {
    const open = this.i;
    this.i += this.basic ? 2 : 1;
    const digits = () => {
      const from = this.i;
      while (/[0-9]/u.test(this.src[this.i] ?? "")) this.i++;
      return from === this.i ? null : Number(this.src.slice(from, this.i));
    };
    const min = digits();
    let max = min;
    if (this.src[this.i] === ",") {
      this.i++;
      max = digits();
      if (max === null) max = Number.POSITIVE_INFINITY;
    }
    const close = this.basic ? "\\}" : "}";
    if (!this.src.startsWith(close, this.i)) {
      if (!this.basic && !this.options.strictEre) {
        // GNU ERE: a "{" that does not start a valid interval is an ordinary character.
        this.i = open;
        return null;
      }
      if (this.i >= this.src.length || (this.src[this.i] === "\\" && this.i + 1 >= this.src.length)) {
        throw new RegexSyntaxError("Unmatched \\{", open);
      }
      // "a\{1a" has no closing brace at all; "a\{1a\}" has bad content.
      if (this.src.indexOf("\\}", this.i) < 0) throw new RegexSyntaxError("Unmatched \\{", open);
      throw new RegexSyntaxError("Invalid content of \\{\\}", open);
    }
    this.i += close.length;
    if (min === null && max === null) {
      if (!this.basic) {
        this.i = open;
        return null;
      }
      throw new RegexSyntaxError("Invalid content of \\{\\}", open);
    }
    const low = min ?? 0;
    const high = max ?? low;
    if (high < low) throw new RegexSyntaxError("Invalid content of \\{\\}", open);
    if (low > DUP_MAX || (high !== Number.POSITIVE_INFINITY && high > DUP_MAX)) {
      throw new RegexSyntaxError("Regular expression too big", open);
    }
    return [low, high];
  }

  /**
   * One atom, or null for something that produced nothing (an ignored leading quantifier).
   * `first`: at the start of an expression; `bare`: there or after an anchor, where a quantifier has nothing to repeat.
   */
  private atom(depth: number, first: boolean, bare: boolean): RegexNode | null {
    const c = this.src[this.i]!;
    const start = this.i;
    if (c === "^") {
      this.i++;
      // BRE: ^ is an anchor only first in the pattern or a group or an alternative.
      if (this.basic && !first) return { type: "char", char: "^" };
      return { type: "assert", kind: "^" };
    }
    if (c === "$") {
      this.i++;
      if (this.basic && !(this.i >= this.src.length || this.atAlternation() || this.atClose(depth))) {
        return { type: "char", char: "$" };
      }
      return { type: "assert", kind: "$" };
    }
    if (!this.basic && this.options.strictEre && bare && (c === "*" || c === "+" || c === "?" || c === "{")) {
      throw new RegexSyntaxError("Invalid preceding regular expression", this.i);
    }
    if (c === "*" && bare) {
      this.i++;
      // BRE and gawk: a leading * is literal; ERE (GNU grep): a leading * is ignored.
      return this.basic || this.options.awk ? { type: "char", char: "*" } : null;
    }
    if (!this.basic && (c === "+" || c === "?" || c === "{") && bare && this.options.awk) {
      this.i++;
      return { type: "char", char: c };
    }
    if (!this.basic && (c === "+" || c === "?") && bare) {
      this.i++;
      return null;
    }
    if (!this.basic && c === "{" && bare) {
      // GNU grep -E: its dfa reads "{1}b" as b and "{x" as "{x", glibc's matcher (-o) skips the "{".
      this.twoReadings = true;
      const save = this.i;
      const interval = this.interval();
      if (interval !== null) return null;
      this.i = save + 1;
      return { type: "char", char: "{" };
    }
    if (c === ".") {
      this.i++;
      return { type: "any" };
    }
    if (c === "[") return this.bracket();
    if (!this.basic && c === "(") {
      this.i++;
      return this.group(depth, start);
    }
    if (c === "\\") return this.escape(depth, bare);
    const char = String.fromCodePoint(this.src.codePointAt(this.i)!);
    this.i += char.length;
    return { type: "char", char };
  }

  private group(depth: number, start: number): RegexNode {
    const capture = ++this.groups;
    const alternatives = this.alternation(depth + 1);
    const close = this.basic ? "\\)" : ")";
    if (!this.src.startsWith(close, this.i)) throw new RegexSyntaxError("Unmatched ( or \\(", start);
    this.i += close.length;
    this.closed.add(capture);
    return { type: "group", capture, alternatives };
  }

  private escape(depth: number, bare: boolean): RegexNode | null {
    const start = this.i;
    const next = this.src[this.i + 1];
    if (next === undefined) throw new RegexSyntaxError("Trailing backslash", start);
    this.i += 2;
    if (this.basic && next === "(") return this.group(depth, start);
    if (this.basic && next === "{" && bare) {
      // GNU sed (glibc's POSIX syntax) refuses an interval with nothing to repeat; GNU grep reads a "{".
      if (this.options.strictEre) throw new RegexSyntaxError("Invalid preceding regular expression", start);
      return { type: "char", char: "{" };
    }
    if (this.basic && next === "}") return { type: "char", char: "}" };
    if (/[1-9]/u.test(next)) {
      const group = Number(next);
      if (!this.closed.has(group)) throw new RegexSyntaxError("Invalid back reference", start);
      this.backrefs = true;
      return { type: "backref", group };
    }
    switch (next) {
      case "<":
        return { type: "assert", kind: "wordStart" };
      case ">":
        return { type: "assert", kind: "wordEnd" };
      case "b":
        if (this.options.awk) return { type: "char", char: "\b" };
        return { type: "assert", kind: "word" };
      case "y":
        if (this.options.awk) return { type: "assert", kind: "word" };
        break;
      case "B":
        return { type: "assert", kind: "notWord" };
      case "`":
        return { type: "assert", kind: "bufferStart" };
      case "'":
        return { type: "assert", kind: "bufferEnd" };
      case "w":
        return this.classNode(false, WORD);
      case "W":
        return this.classNode(true, WORD);
      case "s":
        return this.classNode(false, SPACE);
      case "S":
        return this.classNode(true, SPACE);
    }
    const char = this.characterEscape(next);
    if (char !== null) return { type: "char", char };
    if (next === "\n" && !this.options.awk) return { type: "char", char: "\n" };
    const literalChar = String.fromCodePoint(this.src.codePointAt(this.i - 1)!);
    this.i += literalChar.length - 1;
    if (this.options.ignoreCase && /^[a-z]$/u.test(literalChar)) {
      // glibc ignoring case matches nothing with "\\a", where GNU grep's dfa (-c) matches a and A.
      throw new RegexSyntaxError(
        `a backslash before the letter '${literalChar}' while ignoring case is not supported: GNU's matcher then matches nothing (write '${literalChar}')`,
        start,
      );
    }
    return { type: "char", char: literalChar };
  }

  /** \n, \t … where the dialect has them (sed, awk); the index is just past the letter. */
  private characterEscape(letter: string): string | null {
    if (!this.options.charEscapes && !this.options.awk) return null;
    const simple: Record<string, string> = { n: "\n", t: "\t", f: "\f", v: "\v", a: "\x07", r: "\r" };
    if (letter in simple) return simple[letter]!;
    if (this.options.awk && letter === "/") return "/";
    if (this.options.awk && letter === '"') return '"';
    if (this.options.charEscapes) {
      const numeric = (radix: number, pattern: RegExp, max: number) => {
        const match = pattern.exec(this.src.slice(this.i, this.i + max));
        if (!match) return null;
        this.i += match[0].length;
        return String.fromCharCode(Number.parseInt(match[0], radix));
      };
      if (letter === "d") return numeric(10, /^[0-9]{1,3}/u, 3);
      if (letter === "o") return numeric(8, /^[0-7]{1,3}/u, 3);
      if (letter === "x") return numeric(16, /^[0-9A-Fa-f]{1,2}/u, 2);
      if (letter === "c") {
        // GNU sed: "\c" needs a character, and not an escaped one.
        if (this.i >= this.src.length) throw new RegexSyntaxError("Trailing backslash", this.i);
        if (this.src[this.i] === "\\") {
          throw new RegexSyntaxError("recursive escaping after \\c not allowed", this.i);
        }
        const target = this.src[this.i++]!.toUpperCase();
        return String.fromCharCode(target.charCodeAt(0) ^ 0x40);
      }
    }
    if (this.options.awk && /[0-7]/u.test(letter)) {
      const match = /^[0-7]{0,2}/u.exec(this.src.slice(this.i, this.i + 2))!;
      this.i += match[0].length;
      return String.fromCharCode(Number.parseInt(letter + match[0], 8));
    }
    return null;
  }

  private classNode(negated: boolean, body: string): RegexNode {
    const test = new RegExp(`^[${negated ? "^" : ""}${body}]$`, `sv${this.options.ignoreCase ? "i" : ""}`);
    return { type: "set", negated, body, test: (char) => test.test(char) };
  }

  /** A bracket expression, from "[" to its "]". */
  private bracket(): RegexNode {
    const open = this.i;
    this.i++;
    let negated = false;
    if (this.src[this.i] === "^") {
      negated = true;
      this.i++;
    }
    const parts: string[] = [];
    const contentStart = this.i;
    let firstItem = true;
    const unmatched = () => new RegexSyntaxError("Unmatched [, [^, [:, [., or [=", open);
    /** One element: a character (possibly a collating element) or null for a class. */
    const element = (): { char: string; equivalence?: boolean } | { body: string } => {
      const c = this.src[this.i];
      if (c === undefined) throw unmatched();
      if (c === "[" && /[:=.]/u.test(this.src[this.i + 1] ?? "")) {
        const kind = this.src[this.i + 1]!;
        const end = this.src.indexOf(`${kind}]`, this.i + 2);
        if (end < 0) throw unmatched();
        const name = this.src.slice(this.i + 2, end);
        this.i = end + 2;
        if (kind === ":") {
          const body = CLASSES[name];
          if (body === undefined) throw new RegexSyntaxError("Invalid character class name", open);
          // GNU: ignoring case, [:upper:] and [:lower:] are [:alpha:].
          const cased =
            this.options.ignoreCase && (name === "upper" || name === "lower") ? CLASSES.alpha! : body;
          return { body: cased };
        }
        // glibc's C.UTF-8 names no collating element past ASCII.
        if ([...name].length !== 1 || name.codePointAt(0)! > 0x7f) {
          throw new RegexSyntaxError("Invalid collation character", open);
        }
        return kind === "=" ? { char: name, equivalence: true } : { char: name };
      }
      if (c === "\\" && this.options.charEscapes && !this.options.awk) {
        // GNU sed reads \n \t \f \v \a \r \d \o \x \c in a bracket too; other backslashes are literal.
        const next = this.src[this.i + 1];
        if (next !== undefined && "ntfvardoxc".includes(next)) {
          this.i += 2;
          const escaped = this.characterEscape(next);
          if (escaped !== null) return { char: escaped };
          this.i -= 2;
        }
      }
      if (c === "\\" && this.options.awk) {
        const next = this.src[this.i + 1];
        if (next === undefined) throw unmatched();
        this.i += 2;
        const escaped = this.characterEscape(next);
        if (escaped !== null) return { char: escaped };
        if (next === "y" || next === "B" || next === "<" || next === ">") return { char: next };
        return { char: String.fromCodePoint(this.src.codePointAt(this.i - 1)!) };
      }
      const char = String.fromCodePoint(this.src.codePointAt(this.i)!);
      this.i += char.length;
      return { char };
    };
    for (;;) {
      const c = this.src[this.i];
      if (c === undefined) throw unmatched();
      if (c === "]" && !firstItem) {
        this.i++;
        break;
      }
      firstItem = false;
      const from = element();
      // glibc: a "-" after a class or a range (not last) starts a range from it, which cannot be.
      const dashAfter = () =>
        this.src[this.i] === "-" && this.src[this.i + 1] !== "]" && this.src[this.i + 1] !== undefined;
      if ("body" in from) {
        if (dashAfter()) throw new RegexSyntaxError("Invalid range end", open);
        parts.push(from.body);
        continue;
      }
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]" && this.src[this.i + 1] !== undefined) {
        this.i++;
        const to = element();
        if ("body" in to || from.equivalence || to.equivalence)
          throw new RegexSyntaxError("Invalid range end", open);
        // glibc (grep, sed) in C.UTF-8 has no collation order for a range past ASCII; gawk ranges by code point.
        if (!this.options.awk && (from.char.codePointAt(0)! > 0x7f || to.char.codePointAt(0)! > 0x7f)) {
          throw new RegexSyntaxError("Invalid collation character", open);
        }
        // glibc ignoring case ranges between the upper-case ends: "[a-_]" is A to _, "[Z-a]" is wrong.
        const [low, high] = this.options.ignoreCase
          ? [asciiUpper(from.char), asciiUpper(to.char)]
          : [from.char, to.char];
        if (high.codePointAt(0)! < low.codePointAt(0)!) {
          throw new RegexSyntaxError("Invalid range end", open);
        }
        if (dashAfter()) throw new RegexSyntaxError("Invalid range end", open);
        parts.push(`${literal(low)}-${literal(high)}`);
        continue;
      }
      parts.push(literal(from.char));
    }
    // GNU's dfa (grep, sed): "[:digit:]" meant as a class is an error, not the characters ":digt".
    const content = this.src.slice(contentStart, this.i - 1);
    if (!this.options.awk && /^:[^[]*[^:[][^[]*:$/u.test(content) && !/[^:]-[^:]/u.test(content)) {
      // Said after glibc's own errors, as GNU compiles with glibc first.
      this.classSyntax ??= new RegexSyntaxError("character class syntax is [[:space:]], not [:space:]", open);
    }
    const body = parts.join("");
    const flags = `sv${this.options.ignoreCase ? "i" : ""}`;
    const test = new RegExp(`^[${negated ? "^" : ""}${body}]$`, flags);
    return { type: "set", negated, body, test: (char) => test.test(char) };
  }
}

/**
 * "\(a\)*y\1": where the group took no part, glibc's back-reference fails and JavaScript's
 * matches empty. Refused unless one repetition holds both (there JavaScript's rule against an
 * empty round makes the two agree, as in GNU's "a\(\(b\)*\2\)*d").
 */
function refuseUnsetBackrefs(
  node: RegexNode,
  parser: { optional: Set<number>; branched: Set<number> },
  repeated: Set<number>,
  sameBranch: Set<number>,
): void {
  if (
    node.type === "backref" &&
    ((parser.optional.has(node.group) && !repeated.has(node.group)) ||
      (parser.branched.has(node.group) && !sameBranch.has(node.group)))
  ) {
    throw new RegexSyntaxError(
      `back-reference \\${node.group} to a group that may take no part (as in \\(a\\)*y\\1) is not supported: GNU fails it where JavaScript's engine matches empty`,
      0,
    );
  }
  if (node.type === "repeat") {
    refuseUnsetBackrefs(node.node, parser, new Set([...repeated, ...captures(node.node)]), sameBranch);
  }
  if (node.type === "group") {
    for (const sequence of node.alternatives) {
      const branch =
        node.alternatives.length > 1
          ? new Set([...sameBranch, ...sequence.flatMap(sureCaptures)])
          : sameBranch;
      for (const child of sequence) refuseUnsetBackrefs(child, parser, repeated, branch);
    }
  }
}

/**
 * glibc reads "^" after a newline the match went through as the start of a line ("a.^b" matches
 * "a\nb" in GNU sed after N and in gawk), "$" before one as its end, and GNU's dfa (grep -c, sed
 * -z's first check) both as the text's ends; on a text without a newline all agree. Whether some
 * "^" may follow a character of its own match, or some "$" precede one.
 */
function anchorInsideMatch(tree: RegexNode): boolean {
  let found = false;
  /** Walks a node forward (backward for "$"); `taken`: the match may hold a character already. Returns whether the node may take one. */
  const walk = (node: RegexNode, taken: boolean, kind: "^" | "$"): boolean => {
    switch (node.type) {
      case "assert":
        if (node.kind === kind && taken) found = true;
        return false;
      case "repeat": {
        const takes = walk(node.node, taken, kind);
        // A later round comes after what an earlier one took.
        if (takes && node.max >= 2) walk(node.node, true, kind);
        return takes && node.max > 0;
      }
      case "group": {
        let takes = false;
        for (const sequence of node.alternatives) {
          let before = taken;
          for (const child of kind === "^" ? sequence : [...sequence].reverse()) {
            if (walk(child, before, kind)) {
              before = true;
              takes = true;
            }
          }
        }
        return takes;
      }
      default:
        return true;
    }
  };
  walk(tree, false, "^");
  walk(tree, false, "$");
  return found;
}

/**
 * glibc reads \\B right after a "*" one character early where the star takes nothing: "b*\\B" finds
 * an empty match between "b" and "." of "Ab.", none between "A" and "b", and ".*\\B" one at the end
 * of "ab1" (GNU grep, sed and gawk alike; "+", "?" and intervals agree). Refused.
 */
function refuseNotWordAfterStar(node: RegexNode): void {
  if (node.type === "repeat") refuseNotWordAfterStar(node.node);
  if (node.type !== "group") return;
  for (const sequence of node.alternatives) {
    for (const [k, child] of sequence.entries()) {
      refuseNotWordAfterStar(child);
      const next = sequence[k + 1];
      const star = child.type === "repeat" && child.min === 0 && child.max === Number.POSITIVE_INFINITY;
      if (star && next && startsWithNotWord(next)) {
        throw new RegexSyntaxError(
          "\\B right after a * (as in b*\\B) is not supported: GNU's matcher reads it a character early where the * takes nothing",
          0,
        );
      }
    }
  }
}

function startsWithNotWord(node: RegexNode): boolean {
  if (node.type === "assert") return node.kind === "notWord";
  if (node.type === "group")
    return node.alternatives.some((sequence) => sequence[0] !== undefined && startsWithNotWord(sequence[0]));
  return false;
}

/**
 * glibc makes a copy of a group repeated by "+" or an interval ({2}, {0,2}, {1,}) for each round,
 * and the copies lose their anchors' conditions: GNU grep, sed and gawk alike match all of "bA__É"
 * with "A(_|$.*)+", nothing in "bA__x" with "A(_|\\<x)+", nothing in "aa a" with "(\\<a)+" or in
 * "aaab" with "(^a)+". Refused rather than answered otherwise ("*" and "?" make no copies, and agree).
 */
function refuseCopiedAnchors(node: RegexNode): void {
  if (node.type === "repeat") {
    const copies = node.max >= 2 && !(node.min === 0 && node.max === Number.POSITIVE_INFINITY);
    if (copies && holdsAnchor(node.node)) {
      throw new RegexSyntaxError(
        "an anchor (^ $ \\< \\> \\b \\B \\` \\') in a group repeated by + or an interval (as in (\\<a)+ or (x|$.*){2}) is not supported: GNU's matcher loses the anchor in the group's copies",
        0,
      );
    }
    refuseCopiedAnchors(node.node);
  }
  if (node.type === "group") for (const child of node.alternatives.flat()) refuseCopiedAnchors(child);
}

function holdsAnchor(node: RegexNode): boolean {
  if (node.type === "assert") return true;
  if (node.type === "repeat") return holdsAnchor(node.node);
  return node.type === "group" && node.alternatives.flat().some(holdsAnchor);
}

/**
 * "\(a\(x*\)*\)\1", "\(x\?\+\)\1": where a repetition of something that can match empty (x*
 * under *) ends the referenced group's match, glibc's back-reference fails ("aa" has no match)
 * where POSIX and JavaScript match. Refused.
 */
function refuseEmptyLoopBackrefs(node: RegexNode, groups: Map<number, RegexNode>): void {
  if (node.type === "backref") {
    const group = groups.get(node.group);
    if (group && holdsEmptyLoop(group)) {
      throw new RegexSyntaxError(
        `back-reference \\${node.group} to a group holding a repetition of something that can match empty (as in \\(a\\(x*\\)*\\)\\1) is not supported: GNU's matcher fails it where the repetition matches empty`,
        0,
      );
    }
  }
  if (node.type === "repeat") refuseEmptyLoopBackrefs(node.node, groups);
  if (node.type === "group") {
    for (const child of node.alternatives.flat()) refuseEmptyLoopBackrefs(child, groups);
  }
}

/** Whether a node holds an unbounded repetition of something that can match empty. */
function holdsEmptyLoop(node: RegexNode): boolean {
  if (node.type === "repeat") {
    return (node.max === Number.POSITIVE_INFINITY && canBeEmpty(node.node)) || holdsEmptyLoop(node.node);
  }
  return node.type === "group" && node.alternatives.flat().some(holdsEmptyLoop);
}

function canBeEmpty(node: RegexNode): boolean {
  switch (node.type) {
    case "char":
    case "any":
    case "set":
      return false;
    case "assert":
    case "backref":
      return true;
    case "repeat":
      return node.min === 0 || canBeEmpty(node.node);
    case "group":
      return node.alternatives.some((sequence) => sequence.every(canBeEmpty));
  }
}

/** The capture groups of a tree by number. */
function groupsOf(node: RegexNode, into = new Map<number, RegexNode>()): Map<number, RegexNode> {
  if (node.type === "repeat") groupsOf(node.node, into);
  if (node.type === "group") {
    if (node.capture !== null) into.set(node.capture, node);
    for (const child of node.alternatives.flat()) groupsOf(child, into);
  }
  return into;
}

const asciiUpper = (char: string) => (/^[a-z]$/u.test(char) ? char.toUpperCase() : char);

/** The capture groups a match of the node holds whichever alternatives inside it match. */
function sureCaptures(node: RegexNode): number[] {
  if (node.type === "repeat") return sureCaptures(node.node);
  if (node.type !== "group") return [];
  const inner = node.alternatives.length === 1 ? node.alternatives[0]!.flatMap(sureCaptures) : [];
  return node.capture === null ? inner : [node.capture, ...inner];
}

/** The capture groups in a node. */
function captures(node: RegexNode): number[] {
  if (node.type === "repeat") return captures(node.node);
  if (node.type !== "group") return [];
  const inner = node.alternatives.flat().flatMap(captures);
  return node.capture === null ? inner : [node.capture, ...inner];
}

function emitAssertion(kind: Assertion): string {
  switch (kind) {
    case "^":
      return "^";
    case "$":
      return "$";
    case "bufferStart":
      return "(?<![\\s\\S])";
    case "bufferEnd":
      return "(?![\\s\\S])";
    case "wordStart":
      return `(?<![${WORD}])(?=[${WORD}])`;
    case "wordEnd":
      return `(?<=[${WORD}])(?![${WORD}])`;
    case "word":
      return `(?:(?<![${WORD}])(?=[${WORD}])|(?<=[${WORD}])(?![${WORD}]))`;
    case "notWord":
      return `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;
    case "notAfterWord":
      return `(?<![${WORD}])`;
    case "notBeforeWord":
      return `(?![${WORD}])`;
  }
}

function emit(node: RegexNode, options: PosixRegexOptions): string {
  switch (node.type) {
    case "char":
      return literal(node.char);
    case "any":
      return ".";
    case "set":
      return `[${node.negated ? "^" : ""}${node.body}]`;
    case "assert":
      return emitAssertion(node.kind);
    case "backref":
      return `\\${node.group}`;
    case "group": {
      const body = node.alternatives
        .map((sequence) => sequence.map((child) => emit(child, options)).join(""))
        .join("|");
      return node.capture === null ? `(?:${body})` : `(${body})`;
    }
    case "repeat": {
      let inner = emit(node.node, options);
      if (node.node.type === "repeat" || node.node.type === "assert") inner = `(?:${inner})`;
      const { min, max } = node;
      const suffix =
        min === 0 && max === Number.POSITIVE_INFINITY
          ? "*"
          : min === 1 && max === Number.POSITIVE_INFINITY
            ? "+"
            : min === 0 && max === 1
              ? "?"
              : max === Number.POSITIVE_INFINITY
                ? `{${min},}`
                : min === max
                  ? `{${min}}`
                  : `{${min},${max}}`;
      return `${inner}${suffix}`;
    }
  }
}

const WORD_CHAR = new RegExp(`^[${WORD}]$`, "v");

/** Is `char` a word constituent as GNU's \w reads it? */
export function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD_CHAR.test(char);
}
