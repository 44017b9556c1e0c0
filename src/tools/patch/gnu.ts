/**
 * Hunks applied the way GNU patch 2.7 applies a unified diff (patch.c: locate_hunk, patch_match,
 * apply_hunk): lines compared byte for byte with their newline (so `\ No newline at end of file`
 * must agree with the file), a hunk sought from its header line plus the offset of the hunks
 * before it, alternately after and before, never before the last line an earlier hunk changed;
 * then with fuzz 1 and 2 (context lines dropped at the hunk's ends); a hunk whose leading context is
 * shorter than its trailing context is anchored to the start of the file, and the reverse to its
 * end. Context lines keep the file's text. AgentBench's apply_patch ("uses the patch command with
 * -p1") runs on this; the planner keeps it all or nothing (GNU patch's dry run).
 */
import { oldSide, type PlacedHunk } from "./apply.ts";
import { closestLines, LineIndex } from "./locate.ts";
import type { HunkLine, ParsedHunk, RejectedHunk } from "./types.ts";

/** GNU patch's default maximum fuzz (-F2). */
export const GNU_DEFAULT_FUZZ = 2;

/** A hunk line with its newline, as GNU patch compares and writes it. */
interface Line {
  kind: HunkLine["kind"];
  text: string;
}

export interface GnuApplied {
  text: string;
  placed: PlacedHunk[];
  rejected: Omit<RejectedHunk, "file">[];
}

/** The file's lines, each with its own `\n` (the last one may have none). CRs are content. */
function inputLines(text: string): string[] {
  const lines = text.split("\n").map((line) => `${line}\n`);
  const last = lines.pop()!;
  if (last !== "\n") lines.push(last.slice(0, -1));
  return lines;
}

/**
 * A hunk's lines with their newlines: every line ends with one, except the last line of a side
 * that `\ No newline at end of file` marks (a context line there is the last line of both sides).
 */
function withNewlines(hunk: ParsedHunk, convert: (text: string, last: boolean) => string): Line[] {
  const lastOld = lastIndex(hunk.lines, (line) => line.kind !== "+");
  const lastNew = lastIndex(hunk.lines, (line) => line.kind !== "-");
  return hunk.lines.map((line, k) => {
    const bare = (k === lastOld && hunk.oldNoNewline) || (k === lastNew && hunk.newNoNewline);
    return { kind: line.kind, text: convert(line.text, bare) + (bare ? "" : "\n") };
  });
}

function lastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let k = items.length - 1; k >= 0; k--) if (test(items[k]!)) return k;
  return -1;
}

/**
 * Line endings as jsdiff reconciles them (GNU patch would strip the CRs of a CRLF patch whatever
 * the file, and so patch LF lines of a mixed file): a patch whose every line ends in CR meets a file
 * with only LF endings without its CRs; a patch with no CR meets a file with only CRLF endings with
 * CRs added (not on a line marked "No newline"); otherwise lines are compared as they are.
 */
function endingConversion(
  hunks: readonly ParsedHunk[],
  text: string,
): (line: string, last: boolean) => string {
  const same = (line: string) => line;
  // A line marked "No newline" has no line ending: a CR at its end is content, not evidence.
  const unmarked = hunks.flatMap((hunk) => {
    const lastOld = lastIndex(hunk.lines, (line) => line.kind !== "+");
    const lastNew = lastIndex(hunk.lines, (line) => line.kind !== "-");
    return hunk.lines.filter(
      (_, k) => !((k === lastOld && hunk.oldNoNewline) || (k === lastNew && hunk.newNoNewline)),
    );
  });
  if (unmarked.length === 0) return same;
  const fileCrlf = text.includes("\r\n");
  const fileOnlyCrlf = fileCrlf && !text.startsWith("\n") && !/[^\r]\n/u.test(text);
  const fileOnlyLf = !fileCrlf && text.includes("\n");
  const withCr = unmarked.filter((line) => line.text.endsWith("\r")).length;
  if (withCr === 0 && fileOnlyCrlf) return (line, last) => (last ? line : `${line}\r`);
  if (withCr === unmarked.length && fileOnlyLf) {
    return (line, last) => (!last && line.endsWith("\r") ? line.slice(0, -1) : line);
  }
  return same;
}

/** Applies one file's hunks as GNU patch -p1 -F2 would, all of them tried; rejected ones are reported. */
export function applyHunksGnu(
  text: string,
  hunks: readonly ParsedHunk[],
  maxFuzz = GNU_DEFAULT_FUZZ,
): GnuApplied {
  const input = inputLines(text);
  const convert = endingConversion(hunks, text);
  const output: string[] = [];
  let afterNewline = true;
  /** Input lines (1-based) up to this one are written or dropped. */
  let lastFrozen = 0;
  /** How far the hunks found so far sit from their headers. */
  let inOffset = 0;
  const placed: PlacedHunk[] = [];
  const rejected: Omit<RejectedHunk, "file">[] = [];
  let index: LineIndex | undefined;

  const copyTill = (last: number): boolean => {
    if (lastFrozen > last) return false; // "misordered hunks! output would be garbled"
    while (lastFrozen < last) {
      const line = input[lastFrozen++];
      if (line === undefined || line === "") continue;
      if (!afterNewline) output.push("\n");
      output.push(line);
      afterNewline = line.endsWith("\n");
    }
    return true;
  };

  hunks.forEach((hunk, h) => {
    const lines = withNewlines(hunk, convert);
    const pattern = lines.filter((line) => line.kind !== "+");
    const replacement = lines.filter((line) => line.kind !== "-");
    const prefixContext = leadingContext(lines);
    const suffixContext = leadingContext([...lines].reverse());
    const context = Math.max(prefixContext, suffixContext);
    const first = (hunk.oldStart ?? 1) + (pattern.length === 0 ? 1 : 0);
    const myMaxFuzz = Math.min(maxFuzz, context);

    const matches = (base: number, prefixFuzz: number, suffixFuzz: number): boolean => {
      for (let p = prefixFuzz, i = base + prefixFuzz; p < pattern.length - suffixFuzz; p++, i++) {
        if ((input[i - 1] ?? "") !== pattern[p]!.text) return false;
      }
      return true;
    };

    const locateHunk = (fuzz: number): number => {
      const firstGuess = first + inOffset;
      const patLines = pattern.length;
      let prefixFuzz = fuzz + prefixContext - context;
      const suffixFuzz = fuzz + suffixContext - context;
      const maxWhere = input.length - (patLines - suffixFuzz) + 1;
      const minWhere = lastFrozen + 1;
      const maxPosOffset = maxWhere - firstGuess;
      let maxNegOffset = firstGuess - minWhere;
      const maxOffset = Math.max(maxPosOffset, maxNegOffset);
      if (patLines === 0) return firstGuess; // a pure insertion goes where its header says
      if (firstGuess <= maxNegOffset) maxNegOffset = firstGuess - 1;
      if (prefixFuzz < 0 && first <= 1) {
        // Less leading than trailing context at line 1: it can only match the start of the file.
        if (suffixFuzz < 0 && (patLines !== input.length || prefixContext < lastFrozen)) return 0;
        const offset = 1 - firstGuess;
        if (
          lastFrozen <= prefixContext &&
          offset <= maxPosOffset &&
          matches(firstGuess + offset, 0, suffixFuzz)
        ) {
          inOffset += offset;
          return firstGuess + offset;
        }
        return 0;
      }
      if (prefixFuzz < 0) prefixFuzz = 0;
      if (suffixFuzz < 0) {
        // Less trailing than leading context: it can only match the end of the file.
        const offset = firstGuess - (input.length - patLines + 1);
        if (offset <= maxNegOffset && matches(firstGuess - offset, prefixFuzz, 0)) {
          inOffset -= offset;
          return firstGuess - offset;
        }
        return 0;
      }
      const minOffset =
        maxPosOffset < 0 ? firstGuess - maxWhere : maxNegOffset < 0 ? firstGuess - minWhere : 0;
      for (let offset = minOffset; offset <= maxOffset; offset++) {
        if (offset <= maxPosOffset && matches(firstGuess + offset, prefixFuzz, suffixFuzz)) {
          inOffset += offset;
          return firstGuess + offset;
        }
        if (offset <= maxNegOffset && matches(firstGuess - offset, prefixFuzz, suffixFuzz)) {
          inOffset -= offset;
          return firstGuess - offset;
        }
      }
      return 0;
    };

    /** Writes the hunk at `where` (1-based line of its first old line); false when hunks are out of order. */
    const applyAt = (where: number): boolean => {
      let o = 0;
      let n = 0;
      const base = where - 1;
      while (o < pattern.length) {
        if (pattern[o]!.kind === "-") {
          if (!copyTill(base + o)) return false;
          lastFrozen++;
          o++;
        } else if (n >= replacement.length) {
          break;
        } else if (replacement[n]!.kind === "+") {
          if (!copyTill(base + o)) return false;
          output.push(replacement[n]!.text);
          afterNewline = replacement[n]!.text.endsWith("\n");
          n++;
        } else {
          o++;
          n++;
        }
      }
      if (n < replacement.length && replacement[n]!.kind === "+") {
        if (!copyTill(base + o)) return false;
        for (; n < replacement.length && replacement[n]!.kind === "+"; n++) {
          if (!afterNewline) output.push("\n");
          output.push(replacement[n]!.text);
          afterNewline = replacement[n]!.text.endsWith("\n");
        }
      }
      return true;
    };

    let where = 0;
    let fuzz = 0;
    for (; fuzz <= myMaxFuzz; fuzz++) {
      where = locateHunk(fuzz);
      if (where) break;
    }
    const saved = { output: output.length, afterNewline, lastFrozen };
    if (where && applyAt(where)) {
      placed.push({
        hunk: h + 1,
        line: where,
        offset: where - first,
        match: fuzz > 0 ? "fuzz" : hunk.countsRepaired ? "line_counts_repaired" : "exact",
        ...(fuzz > 0 ? { fuzz } : {}),
      });
      return;
    }
    output.length = saved.output;
    afterNewline = saved.afterNewline;
    lastFrozen = saved.lastFrozen;
    const expected = oldSide(hunk.lines);
    index ??= new LineIndex(input.map((line) => line.replace(/\r?\n$/u, "")));
    rejected.push({
      hunk: h + 1,
      expected,
      closest: closestLines(index, expected, Math.max(0, first + inOffset - 1), rejected.length < 20),
      reason: where
        ? "it overlaps the lines an earlier hunk changed (GNU patch: misordered hunks)"
        : `its lines were not found as GNU patch -p1 seeks them (from line ${first + inOffset} on, lines compared exactly${hunk.oldNoNewline || hunk.newNoNewline ? " with the newline at end of file" : ""}, up to ${myMaxFuzz} context line${myMaxFuzz === 1 ? "" : "s"} of fuzz at each end)`,
    });
  });
  copyTill(input.length);
  return { text: output.join(""), placed, rejected };
}

/** How many context lines come before the first changed line. */
function leadingContext(lines: readonly Line[]): number {
  const k = lines.findIndex((line) => line.kind !== " ");
  return k === -1 ? lines.length : k;
}
