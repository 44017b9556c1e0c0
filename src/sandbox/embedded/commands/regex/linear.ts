import { loadedRustRegex, loadRustRegex, type RRegexLike } from "../../../../tools/rust-regex.ts";
import { longestEndAt, searchLongest } from "./longest.ts";
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
    result = makeLinear(re, rust);
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

function makeLinear(re: PosixRegex, rust: RRegexLike): LinearRegex {
  const offsets = new Offsets();
  const wordy = usesWordAssertions(re.tree);
  const rustDisagrees = (text: string) => wordy && RUST_ONLY_WORD.test(text);
  return {
    test(text) {
      if (rustDisagrees(text)) {
        const walked = searchLongest(re, text, 0);
        if (walked === undefined)
          throw new LinearLimit("the pattern is too large to check its word boundaries");
        return walked !== null;
      }
      return rust.isMatch(text);
    },
    search(text, from) {
      if (rustDisagrees(text)) {
        const walked = searchLongest(re, text, from);
        if (walked === undefined)
          throw new LinearLimit("the pattern is too large to check its word boundaries");
        return walked;
      }
      const found = rust.findAt(text, offsets.toBytes(text, from));
      if (!found) return null;
      const index = offsets.toUtf16(text, found.start);
      const end = longestEndAt(re, text, index);
      if (end === null) {
        // Rust's end is the first alternative's, not always POSIX's longest: say so rather than guess.
        throw new LinearLimit(
          "the pattern is too large to measure its matches' extents (use a smaller interval)",
        );
      }
      if (end < 0) {
        // Cannot happen when both engines read the pattern alike: refuse a silent wrong answer.
        throw new Error(`regex engines disagree on ${JSON.stringify(re.pattern)} at ${index}`);
      }
      return { index, end };
    },
  };
}
