import { type Assertion, isWordChar, type PosixRegex, type RegexNode } from "./posix-regex.ts";

/**
 * POSIX matching is leftmost-longest; JavaScript's is leftmost-first. Both find the same leftmost
 * start, so a match found by the RegExp is re-measured here: a set-of-states (Thompson) walk of
 * the pattern's tree from that start, keeping the last position where it could end. Linear in the
 * text, it needs no backtracking; patterns with back-references keep the RegExp's extent.
 */

export interface PosixMatch {
  index: number;
  end: number;
  /** [0] is the whole match; undefined for a group that did not take part. */
  groups: (string | undefined)[];
}

type Instruction =
  | { op: "char"; test: (char: string) => boolean }
  | { op: "split"; next: number; alt: number }
  | { op: "jump"; next: number }
  | { op: "assert"; kind: Assertion }
  | { op: "match" };

/** Past this many instructions (huge intervals), the RegExp's own extent is kept. */
const MAX_PROGRAM = 200_000;

class TooBig extends Error {}

function compileProgram(tree: RegexNode, ignoreCase: boolean): Instruction[] {
  const program: Instruction[] = [];
  const fold = (char: string) => (ignoreCase ? char.toLowerCase() : char);
  const push = (instruction: Instruction) => {
    if (program.length >= MAX_PROGRAM) throw new TooBig();
    program.push(instruction);
    return program.length - 1;
  };
  const node = (n: RegexNode): void => {
    switch (n.type) {
      case "char": {
        const want = fold(n.char);
        const upper = n.char.toUpperCase();
        push({
          op: "char",
          test: ignoreCase ? (c) => c.toLowerCase() === want || c.toUpperCase() === upper : (c) => c === want,
        });
        return;
      }
      case "any":
        push({ op: "char", test: () => true });
        return;
      case "set":
        push({ op: "char", test: n.test });
        return;
      case "assert":
        push({ op: "assert", kind: n.kind });
        return;
      case "backref":
        throw new TooBig();
      case "group": {
        const jumps: number[] = [];
        n.alternatives.forEach((sequence, k) => {
          const last = k === n.alternatives.length - 1;
          const split = last ? -1 : push({ op: "split", next: 0, alt: 0 });
          if (split >= 0) (program[split] as { next: number }).next = program.length;
          for (const child of sequence) node(child);
          if (!last) {
            jumps.push(push({ op: "jump", next: 0 }));
            (program[split] as { alt: number }).alt = program.length;
          }
        });
        for (const jump of jumps) (program[jump] as { next: number }).next = program.length;
        return;
      }
      case "repeat": {
        for (let k = 0; k < n.min; k++) node(n.node);
        if (n.max === Number.POSITIVE_INFINITY) {
          const split = push({ op: "split", next: program.length + 1, alt: 0 });
          node(n.node);
          push({ op: "jump", next: split });
          (program[split] as { alt: number }).alt = program.length;
          return;
        }
        const splits: number[] = [];
        for (let k = n.min; k < n.max; k++) {
          splits.push(push({ op: "split", next: program.length + 1, alt: 0 }));
          node(n.node);
        }
        for (const split of splits) (program[split] as { alt: number }).alt = program.length;
        return;
      }
    }
  };
  node(tree);
  push({ op: "match" });
  return program;
}

const programs = new WeakMap<PosixRegex, Instruction[] | null>();

function programOf(re: PosixRegex): Instruction[] | null {
  let program = programs.get(re);
  if (program === undefined) {
    try {
      program = re.hasBackrefs ? null : compileProgram(re.tree, re.options.ignoreCase === true);
    } catch (error) {
      if (!(error instanceof TooBig)) throw error;
      program = null;
    }
    programs.set(re, program);
  }
  return program;
}

/** The whole character that ends just before `at` (both halves of a surrogate pair). */
function charBefore(text: string, at: number): string | undefined {
  if (at <= 0) return undefined;
  const low = text.charCodeAt(at - 1);
  const pair = low >= 0xdc00 && low <= 0xdfff && at >= 2 && (text.charCodeAt(at - 2) & 0xfc00) === 0xd800;
  return text.slice(pair ? at - 2 : at - 1, at);
}

function holds(kind: Assertion, text: string, at: number, multiline: boolean): boolean {
  const before = charBefore(text, at);
  const after = at < text.length ? String.fromCodePoint(text.codePointAt(at)!) : undefined;
  switch (kind) {
    case "^":
      return at === 0 || (multiline && before === "\n");
    case "$":
      return at === text.length || (multiline && after === "\n");
    case "bufferStart":
      return at === 0;
    case "bufferEnd":
      return at === text.length;
    case "wordStart":
      return !isWordChar(before) && isWordChar(after);
    case "wordEnd":
      return isWordChar(before) && !isWordChar(after);
    case "word":
      return isWordChar(before) !== isWordChar(after);
    case "notWord":
      return isWordChar(before) === isWordChar(after);
    case "notAfterWord":
      return !isWordChar(before);
    case "notBeforeWord":
      return !isWordChar(after);
  }
}

const walkMarks = new WeakMap<Instruction[], { mark: Int32Array; generation: number }>();

/**
 * One set-of-states walk from `from`: the leftmost-longest match, or null. `anchored`: only a
 * match starting at `from`; else a thread starts at every position until a match is found
 * (earlier starts win a shared state, and later ones are dropped once a match is known). Linear
 * in the text; the states are followed with a stack of their own, so a huge pattern cannot
 * overflow the call stack.
 */
function walk(
  program: Instruction[],
  text: string,
  from: number,
  multiline: boolean,
  anchored: boolean,
): { index: number; end: number } | null {
  // One mark array per program, reused: a generation number newer than any before marks this walk.
  let marks = walkMarks.get(program);
  if (!marks || marks.generation > 0x3fffffff) {
    marks = { mark: new Int32Array(program.length).fill(-1), generation: 0 };
    walkMarks.set(program, marks);
  }
  const mark = marks.mark;
  let generation = ++marks.generation;
  let bestStart = -1;
  let bestEnd = -1;
  let at = from;
  let current: number[] = [];
  let currentStarts: number[] = [];
  let next: number[] = [];
  let nextStarts: number[] = [];
  const stack: number[] = [];
  const add = (pc0: number, start: number) => {
    stack.push(pc0);
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (mark[pc] === generation) continue;
      mark[pc] = generation;
      const instruction = program[pc]!;
      switch (instruction.op) {
        case "jump":
          stack.push(instruction.next);
          break;
        case "split":
          stack.push(instruction.alt, instruction.next);
          break;
        case "assert":
          if (holds(instruction.kind, text, at, multiline)) stack.push(pc + 1);
          break;
        case "match":
          if (bestStart < 0 || start < bestStart || (start === bestStart && at > bestEnd)) {
            bestStart = start;
            bestEnd = at;
          }
          break;
        default:
          next.push(pc);
          nextStarts.push(start);
      }
    }
  };
  add(0, from);
  [current, next, currentStarts, nextStarts] = [next, current, nextStarts, currentStarts];
  while (at < text.length && (current.length > 0 || (bestStart < 0 && !anchored))) {
    const char = String.fromCodePoint(text.codePointAt(at)!);
    generation = ++marks.generation;
    at += char.length;
    next.length = 0;
    nextStarts.length = 0;
    for (let k = 0; k < current.length; k++) {
      const start = currentStarts[k]!;
      if (bestStart >= 0 && start > bestStart) continue;
      const pc = current[k]!;
      if ((program[pc] as { test: (char: string) => boolean }).test(char)) add(pc + 1, start);
    }
    if (bestStart < 0 && !anchored) add(0, at);
    [current, next, currentStarts, nextStarts] = [next, current, nextStarts, currentStarts];
  }
  return bestStart < 0 ? null : { index: bestStart, end: bestEnd };
}

/** The end of the longest match starting exactly at `start`, or -1 if none. */
function longestEnd(program: Instruction[], text: string, start: number, multiline: boolean): number {
  return walk(program, text, start, multiline, true)?.end ?? -1;
}

/**
 * The end of the longest match starting at `start`, or -1 for none; null when the pattern has no
 * program here (back-references, huge intervals).
 */
export function longestEndAt(re: PosixRegex, text: string, start: number): number | null {
  const program = programOf(re);
  return program === null ? null : longestEnd(program, text, start, re.options.multiline === true);
}

/** The leftmost-longest match at or after `from` (linear); undefined when the pattern has no program here. */
export function searchLongest(
  re: PosixRegex,
  text: string,
  from: number,
): { index: number; end: number } | null | undefined {
  const program = programOf(re);
  if (program === null) return undefined;
  return walk(program, text, from, re.options.multiline === true, false);
}

const forcedEnds = new WeakMap<PosixRegex, RegExp>();

/** The same pattern, sticky and forced to end where the text ends: to read groups of a longer match. */
function forcedEnd(re: PosixRegex): RegExp {
  let forced = forcedEnds.get(re);
  if (!forced) {
    forced = new RegExp(`(?:${re.regex.source})(?![\\s\\S])`, `${re.regex.flags.replace("g", "")}y`);
    forcedEnds.set(re, forced);
  }
  return forced;
}

/**
 * The groups of a match known to span [index, end): JavaScript's RegExp anchored there and forced
 * to end there (its first reading of that extent). It has a match to find, so it does not search.
 */
export function groupsAt(re: PosixRegex, text: string, index: number, end: number): (string | undefined)[] {
  // Cut at the match's end, an assertion that looks ahead ($, \b, \>) would see the text end there.
  const forced = looksAhead(re.tree) ? forcedAt(re, text.length - end) : forcedEnd(re);
  forced.lastIndex = index;
  const again = forced.exec(looksAhead(re.tree) ? text : text.slice(0, end));
  return again ? [...again] : [text.slice(index, end)];
}

const forcedAts = new WeakMap<PosixRegex, Map<number, RegExp>>();

/** The same pattern, sticky and forced to end `rest` characters before the text's end. */
function forcedAt(re: PosixRegex, rest: number): RegExp {
  let byRest = forcedAts.get(re);
  if (!byRest) {
    byRest = new Map();
    forcedAts.set(re, byRest);
  }
  let forced = byRest.get(rest);
  if (!forced) {
    if (byRest.size > 256) byRest.clear();
    forced = new RegExp(
      `(?:${re.regex.source})(?=[\\s\\S]{${rest}}(?![\\s\\S]))`,
      `${re.regex.flags.replace("g", "")}y`,
    );
    byRest.set(rest, forced);
  }
  return forced;
}

const lookingAhead = new WeakMap<RegexNode, boolean>();

/** Whether a pattern holds an assertion that reads the text after its place. */
function looksAhead(node: RegexNode): boolean {
  let known = lookingAhead.get(node);
  if (known === undefined) {
    known = aheadIn(node);
    lookingAhead.set(node, known);
  }
  return known;
}

function aheadIn(node: RegexNode): boolean {
  if (node.type === "assert") return !["^", "bufferStart", "notAfterWord"].includes(node.kind);
  if (node.type === "repeat") return aheadIn(node.node);
  return node.type === "group" && node.alternatives.flat().some(aheadIn);
}

/**
 * JavaScript's RegExp (backtracking, not stoppable mid-text) for patterns with back-references:
 * the leftmost match with JavaScript's extent and groups (POSIX's longest where the walk can
 * measure it).
 */
export function execBacktracking(re: PosixRegex, text: string, from: number): PosixMatch | null {
  re.regex.lastIndex = from;
  const found = re.regex.exec(text);
  if (!found) return null;
  const index = found.index;
  const jsEnd = index + found[0].length;
  const groups: (string | undefined)[] = [...found];
  if (jsEnd === text.length) return { index, end: jsEnd, groups };
  const program = programOf(re);
  if (program === null) return { index, end: jsEnd, groups };
  const end = longestEnd(program, text, index, re.options.multiline === true);
  if (end <= jsEnd) return { index, end: jsEnd, groups };
  return { index, end, groups: groupsAt(re, text, index, end) };
}
