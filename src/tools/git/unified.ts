import { diffArrays } from "diff";

/** The hunks of a text change, in git's unified format, with git's function-name hunk headers. */
export interface UnifiedHunks {
  text: string;
  additions: number;
  deletions: number;
}

const CONTEXT_LINES = 3;
/** Changes this close (2 × context) share a hunk, as in xdiff's xdl_get_hunk. */
const MAX_COMMON = 2 * CONTEXT_LINES;
/** git keeps at most this many bytes of the function line it shows after a hunk header. */
const FUNCNAME_MAX_BYTES = 80;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Lines as xdiff's records: each with its own "\n" (the last one may have none). */
function records(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/gu) ?? [];
}

/**
 * git's default function-name rule (xdiff's def_ff): the nearest line above the hunk that starts
 * with a letter, '_' or '$', cut to 80 bytes, trailing whitespace dropped.
 */
function functionLine(oldRecords: string[], firstLine: number): string {
  for (let index = firstLine - 1; index >= 0; index--) {
    const line = oldRecords[index]!;
    if (!/^[A-Za-z_$]/u.test(line)) continue;
    let bytes = encoder.encode(line);
    if (bytes.length > FUNCNAME_MAX_BYTES) bytes = bytes.subarray(0, FUNCNAME_MAX_BYTES);
    return decoder.decode(bytes).replace(/[\s\uFFFD]+$/u, "");
  }
  return "";
}

// ---- xdiff's change compaction with the indent heuristic (xdiffi.c), ported line for line ----

const MAX_INDENT = 200;
const MAX_BLANKS = 20;
const START_OF_FILE_PENALTY = 1;
const END_OF_FILE_PENALTY = 21;
const TOTAL_BLANK_WEIGHT = -30;
const POST_BLANK_WEIGHT = 6;
const RELATIVE_INDENT_PENALTY = -4;
const RELATIVE_INDENT_WITH_BLANK_PENALTY = 10;
const RELATIVE_OUTDENT_PENALTY = 24;
const RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17;
const RELATIVE_DEDENT_PENALTY = 23;
const RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17;
const INDENT_WEIGHT = 60;
const INDENT_HEURISTIC_MAX_SLIDING = 100;

/** One side of a diff: its records and which of them changed (`changed[-1]` and `changed[n]` read as false). */
interface Side {
  recs: string[];
  changed: Uint8Array;
}

const isChanged = (side: Side, index: number) =>
  index >= 0 && index < side.recs.length && side.changed[index] === 1;

interface Group {
  start: number;
  end: number;
}

function groupInit(side: Side): Group {
  const group = { start: 0, end: 0 };
  while (isChanged(side, group.end)) group.end++;
  return group;
}

function groupNext(side: Side, group: Group): boolean {
  if (group.end === side.recs.length) return false;
  group.start = group.end + 1;
  for (group.end = group.start; isChanged(side, group.end); group.end++);
  return true;
}

function groupPrevious(side: Side, group: Group): boolean {
  if (group.start === 0) return false;
  group.end = group.start - 1;
  for (group.start = group.end; isChanged(side, group.start - 1); group.start--);
  return true;
}

function groupSlideDown(side: Side, group: Group): boolean {
  if (group.end < side.recs.length && side.recs[group.start] === side.recs[group.end]) {
    side.changed[group.start++] = 0;
    side.changed[group.end++] = 1;
    while (isChanged(side, group.end)) group.end++;
    return true;
  }
  return false;
}

function groupSlideUp(side: Side, group: Group): boolean {
  if (group.start > 0 && side.recs[group.start - 1] === side.recs[group.end - 1]) {
    side.changed[--group.start] = 1;
    side.changed[--group.end] = 0;
    while (isChanged(side, group.start - 1)) group.start--;
    return true;
  }
  return false;
}

function indentOf(record: string): number {
  let indent = 0;
  for (const char of record) {
    if (!/[ \t\n\v\f\r]/u.test(char)) return indent;
    if (char === " ") indent += 1;
    else if (char === "\t") indent += 8 - (indent % 8);
    if (indent >= MAX_INDENT) return MAX_INDENT;
  }
  return -1;
}

interface Split {
  endOfFile: boolean;
  indent: number;
  preBlank: number;
  preIndent: number;
  postBlank: number;
  postIndent: number;
}

function measureSplit(side: Side, split: number): Split {
  const count = side.recs.length;
  const measure: Split = {
    endOfFile: split >= count,
    indent: split >= count ? -1 : indentOf(side.recs[split]!),
    preBlank: 0,
    preIndent: -1,
    postBlank: 0,
    postIndent: -1,
  };
  for (let i = split - 1; i >= 0; i--) {
    measure.preIndent = indentOf(side.recs[i]!);
    if (measure.preIndent !== -1) break;
    measure.preBlank += 1;
    if (measure.preBlank === MAX_BLANKS) {
      measure.preIndent = 0;
      break;
    }
  }
  for (let i = split + 1; i < count; i++) {
    measure.postIndent = indentOf(side.recs[i]!);
    if (measure.postIndent !== -1) break;
    measure.postBlank += 1;
    if (measure.postBlank === MAX_BLANKS) {
      measure.postIndent = 0;
      break;
    }
  }
  return measure;
}

interface Score {
  effectiveIndent: number;
  penalty: number;
}

function scoreAddSplit(measure: Split, score: Score): void {
  if (measure.preIndent === -1 && measure.preBlank === 0) score.penalty += START_OF_FILE_PENALTY;
  if (measure.endOfFile) score.penalty += END_OF_FILE_PENALTY;
  const postBlank = measure.indent === -1 ? 1 + measure.postBlank : 0;
  const totalBlank = measure.preBlank + postBlank;
  score.penalty += TOTAL_BLANK_WEIGHT * totalBlank;
  score.penalty += POST_BLANK_WEIGHT * postBlank;
  const indent = measure.indent !== -1 ? measure.indent : measure.postIndent;
  const anyBlanks = totalBlank !== 0;
  score.effectiveIndent += indent;
  if (indent === -1 || measure.preIndent === -1) return;
  if (indent > measure.preIndent) {
    score.penalty += anyBlanks ? RELATIVE_INDENT_WITH_BLANK_PENALTY : RELATIVE_INDENT_PENALTY;
  } else if (indent < measure.preIndent) {
    if (measure.postIndent !== -1 && measure.postIndent > indent) {
      score.penalty += anyBlanks ? RELATIVE_OUTDENT_WITH_BLANK_PENALTY : RELATIVE_OUTDENT_PENALTY;
    } else {
      score.penalty += anyBlanks ? RELATIVE_DEDENT_WITH_BLANK_PENALTY : RELATIVE_DEDENT_PENALTY;
    }
  }
}

function scoreCompare(a: Score, b: Score): number {
  const indents =
    Number(a.effectiveIndent > b.effectiveIndent) - Number(a.effectiveIndent < b.effectiveIndent);
  return INDENT_WEIGHT * indents + (a.penalty - b.penalty);
}

/** Slides each group of changed lines of `side` where git would put it (xdl_change_compact). */
function compact(side: Side, other: Side): void {
  const group = groupInit(side);
  const otherGroup = groupInit(other);
  for (;;) {
    if (group.end !== group.start) {
      let groupSize: number;
      let earliestEnd: number;
      let endMatchingOther: number;
      do {
        groupSize = group.end - group.start;
        endMatchingOther = -1;
        while (groupSlideUp(side, group)) groupPrevious(other, otherGroup);
        earliestEnd = group.end;
        if (otherGroup.end > otherGroup.start) endMatchingOther = group.end;
        for (;;) {
          if (!groupSlideDown(side, group)) break;
          groupNext(other, otherGroup);
          if (otherGroup.end > otherGroup.start) endMatchingOther = group.end;
        }
      } while (groupSize !== group.end - group.start);
      if (group.end === earliestEnd) {
        // No shifting was possible.
      } else if (endMatchingOther !== -1) {
        while (otherGroup.end === otherGroup.start) {
          groupSlideUp(side, group);
          groupPrevious(other, otherGroup);
        }
      } else {
        let shift = earliestEnd;
        if (group.end - groupSize - 1 > shift) shift = group.end - groupSize - 1;
        if (group.end - INDENT_HEURISTIC_MAX_SLIDING > shift)
          shift = group.end - INDENT_HEURISTIC_MAX_SLIDING;
        let bestShift = -1;
        let best: Score = { effectiveIndent: 0, penalty: 0 };
        for (; shift <= group.end; shift++) {
          const score: Score = { effectiveIndent: 0, penalty: 0 };
          scoreAddSplit(measureSplit(side, shift), score);
          scoreAddSplit(measureSplit(side, shift - groupSize), score);
          if (bestShift === -1 || scoreCompare(score, best) <= 0) {
            best = score;
            bestShift = shift;
          }
        }
        while (group.end > bestShift) {
          groupSlideUp(side, group);
          groupPrevious(other, otherGroup);
        }
      }
    }
    if (!groupNext(side, group)) break;
    groupNext(other, otherGroup);
  }
}

interface Change {
  i1: number;
  i2: number;
  chg1: number;
  chg2: number;
}

/** The edit script of two compacted sides (xdl_build_script), in file order. */
function script(before: Side, after: Side): Change[] {
  const changes: Change[] = [];
  let i1 = 0;
  let i2 = 0;
  const n1 = before.recs.length;
  const n2 = after.recs.length;
  while (i1 < n1 || i2 < n2) {
    if (isChanged(before, i1) || isChanged(after, i2)) {
      const start1 = i1;
      const start2 = i2;
      while (isChanged(before, i1)) i1++;
      while (isChanged(after, i2)) i2++;
      changes.push({ i1: start1, i2: start2, chg1: i1 - start1, chg2: i2 - start2 });
    } else {
      i1++;
      i2++;
    }
  }
  return changes;
}

function range(start: number, count: number): string {
  // xdiff prints the 1-based start, or the 0-based one for an empty range.
  const first = count === 0 ? start : start + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}

function emit(prefix: string, record: string): string {
  return record.endsWith("\n") ? `${prefix}${record}` : `${prefix}${record}\n\\ No newline at end of file\n`;
}

/** A Myers search that runs longer than this gives up; the differing middle is then replaced whole. */
export const DIFF_TIMEOUT_MS = 2000;

/**
 * Marks the changed records of both sides: the common head and tail are taken off first (cheap),
 * then Myers runs on the middle. Myers costs lines × edits, so a huge rewrite is bounded by a
 * timeout, past which the middle counts as removed and added whole (still a correct diff).
 */
function markChanges(before: Side, after: Side): void {
  const n1 = before.recs.length;
  const n2 = after.recs.length;
  let head = 0;
  while (head < n1 && head < n2 && before.recs[head] === after.recs[head]) head++;
  let tail = 0;
  while (tail < n1 - head && tail < n2 - head && before.recs[n1 - 1 - tail] === after.recs[n2 - 1 - tail])
    tail++;
  const middleBefore = before.recs.slice(head, n1 - tail);
  const middleAfter = after.recs.slice(head, n2 - tail);
  const parts = diffArrays(middleBefore, middleAfter, { timeout: DIFF_TIMEOUT_MS }) as
    | { value: string[]; added?: boolean; removed?: boolean }[]
    | undefined;
  if (!parts) {
    before.changed.fill(1, head, n1 - tail);
    after.changed.fill(1, head, n2 - tail);
    return;
  }
  let i1 = head;
  let i2 = head;
  for (const part of parts) {
    const count = part.value.length;
    if (part.removed) for (let k = 0; k < count; k++) before.changed[i1++] = 1;
    else if (part.added) for (let k = 0; k < count; k++) after.changed[i2++] = 1;
    else {
      i1 += count;
      i2 += count;
    }
  }
}

/** Unified hunks between two texts, 3 lines of context, exactly as `git diff` prints them. */
export function unifiedHunks(beforeText: string, afterText: string): UnifiedHunks {
  const before: Side = { recs: records(beforeText), changed: new Uint8Array(0) };
  const after: Side = { recs: records(afterText), changed: new Uint8Array(0) };
  before.changed = new Uint8Array(before.recs.length);
  after.changed = new Uint8Array(after.recs.length);
  markChanges(before, after);
  compact(before, after);
  compact(after, before);
  const changes = script(before, after);
  let text = "";
  let additions = 0;
  let deletions = 0;
  for (let first = 0; first < changes.length; ) {
    let last = first;
    while (last + 1 < changes.length) {
      const previous = changes[last]!;
      if (changes[last + 1]!.i1 - (previous.i1 + previous.chg1) > MAX_COMMON) break;
      last++;
    }
    const head = changes[first]!;
    const tail = changes[last]!;
    const s1 = Math.max(head.i1 - CONTEXT_LINES, 0);
    const s2 = Math.max(head.i2 - CONTEXT_LINES, 0);
    const e1 = Math.min(tail.i1 + tail.chg1 + CONTEXT_LINES, before.recs.length);
    const e2 = Math.min(tail.i2 + tail.chg2 + CONTEXT_LINES, after.recs.length);
    const name = functionLine(before.recs, s1);
    text += `@@ -${range(s1, e1 - s1)} +${range(s2, e2 - s2)} @@${name ? ` ${name}` : ""}\n`;
    let at = s1;
    for (let index = first; index <= last; index++) {
      const change = changes[index]!;
      for (; at < change.i1; at++) text += emit(" ", before.recs[at]!);
      for (let k = 0; k < change.chg1; k++) text += emit("-", before.recs[change.i1 + k]!);
      for (let k = 0; k < change.chg2; k++) text += emit("+", after.recs[change.i2 + k]!);
      deletions += change.chg1;
      additions += change.chg2;
      at = change.i1 + change.chg1;
    }
    for (; at < e1; at++) text += emit(" ", before.recs[at]!);
    first = last + 1;
  }
  return { text, additions, deletions };
}

/** git's binary test: a NUL byte in the first 8,000 bytes. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}
