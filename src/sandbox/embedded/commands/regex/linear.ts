import {
  literalPrefilter,
  loadedRustRegex,
  loadRustRegex,
  type RRegexLike,
  requiredLiteral,
} from "../../../../tools/rust-regex.ts";
import { execBacktracking, groupsAt, longestEndAt, type PosixMatch, searchLongest } from "./longest.ts";
import { type Assertion, literal, type PosixRegex, type RegexNode, RegexSyntaxError } from "./posix-regex.ts";

/**
 * POSIX regexes (parsed by posix-regex.ts) matched in linear time: the tree is written in Rust's
 * regex syntax and run by Rust's regex engine (the rregex WebAssembly that rg and search use), so
 * no pattern can run away on a line (`(a+)+$`, `(a|aa)*c`). Rust finds whether a line matches and
 * where the leftmost match starts; POSIX's longest end from there is measured by longest.ts's
 * set-of-states walk. Back-references have no linear engine: those patterns stay on JavaScript.
 */

export interface LinearRegex {
  /** Does the pattern match anywhere in the text? */
  test(text: string): boolean;
  /** The leftmost-longest match at or after the UTF-16 index `from`. */
  search(text: string, from: number): { index: number; end: number } | null;
  /** False when no line of the text (split at "\n") can match: one pass, for grep's files. */
  mayMatchLines(text: string): boolean;
}

/** Loads the engine (1 MB of WebAssembly, once) before any linearRegex call. */
export async function loadLinearEngine(): Promise<void> {
  await loadRustRegex();
}

/**
 * Rust's \b \< \> read a word character as Unicode's \w, which also takes combining marks,
 * connector punctuation and joiners that GNU's (glibc's iswalnum and "_") does not: on a text
 * holding one, word assertions are checked by longest.ts's walk instead.
 */
const RUST_ONLY_WORD = /(?![\p{Alphabetic}\p{Nd}_])[\p{M}\p{Pc}\p{Join_Control}]/u;

function rustAssertion(kind: Assertion): string {
  switch (kind) {
    case "^":
      return "^";
    case "$":
      return "$";
    case "bufferStart":
      return "\\A";
    case "bufferEnd":
      return "\\z";
    case "wordStart":
      return "\\b{start}";
    case "wordEnd":
      return "\\b{end}";
    case "word":
      return "\\b";
    case "notWord":
      return "\\B";
    case "notAfterWord":
      return "\\b{start-half}";
    case "notBeforeWord":
      return "\\b{end-half}";
  }
}

/** The tree in Rust's syntax; null when it holds a back-reference. */
function rustSource(node: RegexNode): string | null {
  switch (node.type) {
    case "char":
      return literal(node.char);
    case "any":
      return ".";
    case "set":
      return `[${node.negated ? "^" : ""}${node.body}]`;
    case "assert":
      return rustAssertion(node.kind);
    case "backref":
      return null;
    case "group": {
      const alternatives: string[] = [];
      for (const sequence of node.alternatives) {
        let text = "";
        for (const child of sequence) {
          const part = rustSource(child);
          if (part === null) return null;
          text += part;
        }
        alternatives.push(text);
      }
      return `(?:${alternatives.join("|")})`;
    }
    case "repeat": {
      const inner = rustSource(node.node);
      if (inner === null) return null;
      const max = node.max === Number.POSITIVE_INFINITY ? "" : String(node.max);
      return `(?:${inner}){${node.min},${max}}`;
    }
  }
}

function usesTextAnchors(node: RegexNode): boolean {
  switch (node.type) {
    case "assert":
      return node.kind === "bufferStart" || node.kind === "bufferEnd";
    case "group":
      return node.alternatives.some((sequence) => sequence.some(usesTextAnchors));
    case "repeat":
      return usesTextAnchors(node.node);
    default:
      return false;
  }
}

function usesWordAssertions(node: RegexNode): boolean {
  switch (node.type) {
    case "assert":
      return !["^", "$", "bufferStart", "bufferEnd"].includes(node.kind);
    case "group":
      return node.alternatives.some((sequence) => sequence.some(usesWordAssertions));
    case "repeat":
      return usesWordAssertions(node.node);
    default:
      return false;
  }
}

/** Past this many characters, searches after the first do not hand the text to Rust again. */
const LONG_TEXT = 8192;

/** A pattern this engine cannot finish on a text (too big for longest.ts's walk): said, not guessed. */
export class LinearLimit extends RegexSyntaxError {
  constructor(message: string) {
    super(message, 0);
  }
}

/** UTF-8 length of text[from, to). */
function utf8Length(text: string, from: number, to: number): number {
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < to) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The UTF-16 index `bytes` UTF-8 bytes after the UTF-16 index `from`. */
function utf16Index(text: string, from: number, bytes: number): number {
  let i = from;
  let left = bytes;
  while (left > 0 && i < text.length) {
    const code = text.charCodeAt(i);
    if (code < 0x80) left -= 1;
    else if (code < 0x800) left -= 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      left -= 4;
      i++;
    } else left -= 3;
    i++;
  }
  return i;
}

const compiled = new WeakMap<PosixRegex, LinearRegex | null>();

/**
 * The linear matcher for a compiled POSIX regex, or null when it has a back-reference (the caller
 * keeps the RegExp then). A pattern past Rust's size limit is "Regular expression too big". The
 * engine must be loaded (loadLinearEngine).
 */
export function linearRegex(re: PosixRegex): LinearRegex | null {
  const known = compiled.get(re);
  if (known !== undefined) return known;
  const engine = loadedRustRegex();
  if (!engine) throw new Error("linearRegex: the regex engine is not loaded (await loadLinearEngine())");
  let result: LinearRegex | null = null;
  const body = re.hasBackrefs ? null : rustSource(re.tree);
  if (body !== null) {
    const flags = `(?s${re.options.ignoreCase ? "i" : ""}${re.options.multiline ? "m" : ""})`;
    let rust: RRegexLike;
    try {
      rust = new engine.RRegex(`${flags}${body}`);
    } catch {
      // Past Rust's compiled-size limit (nested intervals such as (a{1,1000}){1,1000}, where GNU
      // grep runs out of memory): said, rather than handed to a backtracking engine.
      throw new RegexSyntaxError("Regular expression too big", 0);
    }
    // The literal every match holds, from the pattern as written ((?i) turns literals into classes).
    const plain = re.options.ignoreCase ? new engine.RRegex(`(?s)${body}`).syntax() : rust.syntax();
    const literal = requiredLiteral(plain);
    const prefilter = literalPrefilter(literal, re.options.ignoreCase !== true);
    // A pattern that is only a literal (-F, a word) needs no engine to say whether a line holds it.
    const exact = prefilter !== null && literal !== null && plain.kind["@variant"] === "Literal";
    // Lines' ^ and $ are the text's lines' in (?m); the whole pass is compiled on first use.
    const lines = () => new engine.RRegex(`(?sm${re.options.ignoreCase ? "i" : ""})${body}`);
    result = makeLinear(re, rust, prefilter, exact ? literal : null, lines);
  }
  compiled.set(re, result);
  return result;
}

/** UTF-16 ↔ UTF-8 offsets in one text, counted on from the last pair asked (matches go left to right). */
class Offsets {
  private text = "";
  private utf16 = 0;
  private bytes = 0;
  private from(text: string) {
    if (text !== this.text) {
      this.text = text;
      this.utf16 = 0;
      this.bytes = 0;
    }
  }
  toBytes(text: string, index: number): number {
    this.from(text);
    if (index < this.utf16) [this.utf16, this.bytes] = [0, 0];
    this.bytes += utf8Length(text, this.utf16, index);
    this.utf16 = index;
    return this.bytes;
  }
  toUtf16(text: string, bytes: number): number {
    this.from(text);
    if (bytes < this.bytes) [this.utf16, this.bytes] = [0, 0];
    this.utf16 = utf16Index(text, this.utf16, bytes - this.bytes);
    this.bytes = bytes;
    return this.utf16;
  }
}

/** The fewest and most characters a match of the node spans (Infinity: unbounded). */
function width(node: RegexNode): { min: number; max: number } {
  switch (node.type) {
    case "char":
    case "any":
    case "set":
      return { min: 1, max: 1 };
    case "assert":
      return { min: 0, max: 0 };
    case "backref":
      return { min: 0, max: Number.POSITIVE_INFINITY };
    case "group": {
      let min = Number.POSITIVE_INFINITY;
      let max = 0;
      for (const sequence of node.alternatives) {
        let low = 0;
        let high = 0;
        for (const child of sequence) {
          const part = width(child);
          low += part.min;
          high += part.max;
        }
        min = Math.min(min, low);
        max = Math.max(max, high);
      }
      return { min, max };
    }
    case "repeat": {
      const part = width(node.node);
      const max = node.max === 0 ? 0 : part.max * node.max;
      return { min: part.min * node.min, max: Number.isNaN(max) ? Number.POSITIVE_INFINITY : max };
    }
  }
}

/** Rust's matches in one text, in UTF-16 indexes: one call for all of a line's matches (gsub, s///g, -o). */
class MatchList {
  text: string | null = null;
  starts: number[] = [];
  ends: number[] = [];
  fill(rust: RRegexLike, text: string): void {
    this.text = text;
    this.starts = [];
    this.ends = [];
    let utf16 = 0;
    let bytes = 0;
    for (const match of rust.findAll(text)) {
      utf16 = utf16Index(text, utf16, match.start - bytes);
      bytes = match.start;
      this.starts.push(utf16);
      utf16 = utf16Index(text, utf16, match.end - bytes);
      bytes = match.end;
      this.ends.push(utf16);
    }
  }
  /** The first match starting at or after `from`; undefined when the list cannot say (see search). */
  after(from: number): { index: number; end: number } | null | undefined {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.starts[middle]! < from) low = middle + 1;
      else high = middle;
    }
    // Rust searched on from the previous match's end: only from there on is its next match leftmost.
    if (low > 0 && this.ends[low - 1]! > from) return undefined;
    if (low === this.starts.length) return null;
    return { index: this.starts[low]!, end: this.ends[low]! };
  }
}

function makeLinear(
  re: PosixRegex,
  rust: RRegexLike,
  prefilter: { test(text: string): boolean } | null,
  exact: string | null,
  compileLines: () => RRegexLike,
): LinearRegex {
  const offsets = new Offsets();
  // \` and \' are the text's own ends, not a line's: a whole pass cannot rule lines out then.
  const textAnchored = usesTextAnchors(re.tree);
  let lines: RRegexLike | null = null;
  const wordy = usesWordAssertions(re.tree);
  const rustDisagrees = (text: string) => wordy && RUST_ONLY_WORD.test(text);
  // A literal pattern is found by JavaScript's own search (the prefilter's, ASCII when (?i)).
  const literalRegex =
    exact !== null && re.options.ignoreCase ? new RegExp((prefilter as RegExp).source, "giu") : null;
  const findLiteral =
    exact === null
      ? null
      : literalRegex
        ? (text: string, from: number) => {
            literalRegex.lastIndex = from;
            const found = literalRegex.exec(text);
            return found ? { index: found.index, end: found.index + found[0].length } : null;
          }
        : (text: string, from: number) => {
            const index = text.indexOf(exact, from);
            return index < 0 ? null : { index, end: index + exact.length };
          };
  const span = width(re.tree);
  // A pattern that never matches empty can take its matches from one list (Rust's iteration skips
  // empty matches that touch the previous one); one of fixed width needs no walk for its end.
  const listed = span.min > 0 ? new MatchList() : null;
  const fixed = span.min === span.max;
  const measure = (text: string, index: number, rustEnd: number) => {
    if (fixed) return rustEnd;
    const end = longestEndAt(re, text, index);
    if (end === null) {
      // Rust's end is the first alternative's, not always POSIX's longest: say so rather than guess.
      throw new LinearLimit(
        "the pattern is too large to measure its matches' extents (use a smaller interval)",
      );
    }
    if (end < rustEnd) {
      // Cannot happen when both engines read the pattern alike: refuse a silent wrong answer.
      throw new LinearLimit(
        `the regex engines disagree on ${JSON.stringify(re.pattern)} at character ${index + 1}`,
      );
    }
    return end;
  };
  return {
    test(text) {
      if (prefilter && !prefilter.test(text)) return false;
      if (exact !== null) return true;
      if (rustDisagrees(text)) {
        const walked = searchLongest(re, text, 0);
        if (walked === undefined)
          throw new LinearLimit("the pattern is too large to check its word boundaries");
        return walked !== null;
      }
      return rust.isMatch(text);
    },
    mayMatchLines(text) {
      if (prefilter && !prefilter.test(text)) return false;
      if (exact !== null || textAnchored || rustDisagrees(text)) return true;
      // A match inside one line is a match of the text: its neighbours there are "\n", which no
      // word assertion counts as a word character, as the line's ends.
      lines ??= compileLines();
      return lines.isMatch(text);
    },
    search(text, from) {
      if (findLiteral) return findLiteral(text, from);
      if (rustDisagrees(text)) {
        const walked = searchLongest(re, text, from);
        if (walked === undefined)
          throw new LinearLimit("the pattern is too large to check its word boundaries");
        return walked;
      }
      if (from === 0 && prefilter && !prefilter.test(text)) return null;
      if (listed) {
        if (listed.text !== text) listed.fill(rust, text);
        const next = listed.after(from);
        if (next === null) return null;
        if (next) return { index: next.index, end: measure(text, next.index, next.end) };
      } else if (from > 0 && text.length > LONG_TEXT) {
        // Each call hands Rust the whole text: on a long one (awk's RS, sed's N-joined pattern
        // space), later matches are found by the walk, which reads only as far as the match.
        const walked = searchLongest(re, text, from);
        if (walked !== undefined) return walked;
      }
      const found = rust.findAt(text, offsets.toBytes(text, from));
      if (!found) return null;
      const index = offsets.toUtf16(text, found.start);
      return { index, end: measure(text, index, offsets.toUtf16(text, found.end)) };
    },
  };
}

/**
 * The leftmost-longest match at or after `from` (grep -o, sed s///, awk sub/match/split/RS). Its
 * groups are read only when asked for: by JavaScript's RegExp anchored at the match found, forced
 * to its extent. A pattern with a back-reference runs on JavaScript's RegExp alone.
 */
export function execPosix(re: PosixRegex, text: string, from: number): PosixMatch | null {
  refuseAnchorByNewline(re, text);
  const linear = linearRegex(re);
  if (!linear) return execBacktracking(re, text, from);
  const found = linear.search(text, from);
  if (!found) return null;
  return new FoundMatch(re, text, found.index, found.end);
}

/** A match whose groups are read on first use (a class: its getter costs nothing per match). */
class FoundMatch implements PosixMatch {
  private read: (string | undefined)[] | undefined;
  constructor(
    private readonly re: PosixRegex,
    private readonly text: string,
    readonly index: number,
    readonly end: number,
  ) {}
  get groups(): (string | undefined)[] {
    this.read ??=
      this.re.groupCount === 0
        ? [this.text.slice(this.index, this.end)]
        : groupsAt(this.re, this.text, this.index, this.end);
    return this.read;
  }
}

/** Does the pattern match anywhere in the text? */
export function testPosix(re: PosixRegex, text: string): boolean {
  refuseAnchorByNewline(re, text);
  const linear = linearRegex(re);
  if (linear) return linear.test(text);
  re.regex.lastIndex = 0;
  return re.regex.test(text);
}

/** GNU's two matchers read "a.^b" or "a$\n" two ways on a text holding a newline (PosixRegex.anchorInsideMatch). */
function refuseAnchorByNewline(re: PosixRegex, text: string): void {
  if (re.anchorInsideMatch && text.includes("\n")) {
    throw new RegexSyntaxError(
      "a ^ after text of its own match, or a $ before it (as in a.^b or a$\\n), on text holding a newline is not supported: GNU's two matchers read it two ways",
      0,
    );
  }
}
