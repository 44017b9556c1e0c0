import { closestLines, LineIndex, type Located, locate, type MatchLevel } from "./locate.ts";
import { endsWithNewline, type FileLines, joinLines, sealLines } from "./text.ts";
import type { HunkLine, HunkMatch, ParsedHunk, RejectedHunk } from "./types.ts";

/** A changed stretch: old lines [oldStart, oldEnd) became new lines [newStart, newEnd), 0-based. */
export interface Edit {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/** Where one hunk applied, before the file name is attached. */
export interface PlacedHunk {
  hunk: number;
  line: number;
  offset: number;
  match: HunkMatch;
  fuzz?: number;
}

/**
 * What changed, for the plan's diff: the lines before and after and the stretches that differ,
 * so the diff need neither split the texts again nor search the unchanged stretches.
 */
export interface DiffHint {
  before: FileLines;
  after: FileLines;
  edits: Edit[];
}

/** The outcome of applying one file's hunks: the new text (and how it was made) when every hunk applied. */
export interface AppliedHunks {
  text: string;
  placed: PlacedHunk[];
  rejected: Omit<RejectedHunk, "file">[];
  hint?: DiffHint;
}

interface Placement {
  hunkIndex: number;
  position: number;
  level: MatchLevel;
  lines: readonly HunkLine[];
  hunk: ParsedHunk;
  footprint: Footprint;
}

/** Failed hunks of one file that get the whole-file similar-lines search; later ones only exact votes. */
const SIMILAR_LINES_BUDGET = 20;

/** A range of old lines, [start, end) 0-based. */
interface Span {
  start: number;
  end: number;
}

/**
 * What a placed hunk covers in the old file: all its old lines, the stretches it removes, and
 * the places where it only inserts.
 */
interface Footprint extends Span {
  removed: Span[];
  inserts: number[];
}

function footprint(lines: readonly HunkLine[], position: number): Footprint {
  const removed: Span[] = [];
  const inserts: number[] = [];
  let i = position;
  // The current run of changed lines: where it starts, and whether it removes any line.
  let runStart = -1;
  let runRemoves = false;
  for (const line of lines) {
    if (line.kind === " ") {
      if (runStart !== -1) closeRun(removed, inserts, runStart, runRemoves, i);
      runStart = -1;
      i++;
      continue;
    }
    if (runStart === -1) {
      runStart = i;
      runRemoves = false;
    }
    if (line.kind === "-") {
      runRemoves = true;
      i++;
    }
  }
  if (runStart !== -1) closeRun(removed, inserts, runStart, runRemoves, i);
  return { start: position, end: i, removed, inserts };
}

function closeRun(removed: Span[], inserts: number[], start: number, removes: boolean, end: number): void {
  if (removes) removed.push({ start, end });
  else inserts.push(start);
}

function overlaps(span: Span, other: Span): boolean {
  return span.start < other.end && other.start < span.end;
}

/**
 * Two hunks clash when one removes a line the other needs (as context or to remove), or inserts
 * between two lines the other needs together. Sharing context lines is fine: models often send
 * neighbouring hunks whose context overlaps, and GNU patch applies those.
 */
function clash(a: Footprint, b: Footprint): boolean {
  if (a.removed.some((span) => overlaps(span, b)) || b.removed.some((span) => overlaps(span, a))) return true;
  return a.inserts.some((p) => b.start < p && p < b.end) || b.inserts.some((p) => a.start < p && p < a.end);
}

/**
 * Whether a hunk with these lines may sit at a position among the hunks placed so far. Hunks whose
 * old lines do not overlap never clash, so the footprint is only worked out when some do.
 */
function freeAmong(
  placements: readonly Placement[],
  lines: readonly HunkLine[],
): (position: number) => boolean {
  const length = oldSide(lines).length;
  return (position) => {
    const end = position + length;
    let mine: Footprint | undefined;
    for (const other of placements) {
      if (end <= other.footprint.start || position >= other.footprint.end) continue;
      mine ??= footprint(lines, position);
      if (clash(mine, other.footprint)) return false;
    }
    return true;
  };
}

/**
 * Places every hunk in the file (all against the original lines, never against each other's
 * output), then writes the result in one pass. Context lines keep the file's own text; removed
 * lines go; added lines take the file's line ending. Every hunk is tried, so all failures are reported.
 */
export function applyHunks(file: FileLines, given: readonly ParsedHunk[]): AppliedHunks {
  const { hunks, bom } = withoutBom(given, file);
  if (bom) file = { ...file, bom };
  const index = new LineIndex(file.lines);
  const placements: Placement[] = [];
  const placed: PlacedHunk[] = [];
  const rejected: Omit<RejectedHunk, "file">[] = [];
  const freeFor = (lines: readonly HunkLine[]) => freeAmong(placements, lines);
  let cursor = 0;
  let drift = 0;
  hunks.forEach((hunk, hunkIndex) => {
    // Where the header puts the old lines (0-based); a count of 0 means "after line oldStart".
    const headerIndex =
      hunk.oldStart === undefined ? undefined : hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const expected = headerIndex === undefined ? undefined : headerIndex + drift;
    const found = placeHunk(index, hunk, { expected, cursor, freeFor });
    const sought = oldSide(hunk.lines);
    if (!found.located.found) {
      const around = expected ?? cursor;
      const { candidates } = found.located;
      const applied =
        candidates.length > 0 ? undefined : alreadyApplied(index, hunk, around, cursor, freeFor);
      const closest = applied
        ? {
            line: applied.position + 1,
            lines: file.lines.slice(applied.position, applied.position + applied.length),
          }
        : candidates.length > 0
          ? {
              line: candidates[0]! + 1,
              lines: file.lines.slice(candidates[0]!, candidates[0]! + sought.length),
            }
          : closestLines(index, sought, around, rejected.length < SIMILAR_LINES_BUDGET);
      const reason = applied
        ? `${found.located.reason}, but the lines it would leave are already there (shown as closest): was this patch applied already?`
        : found.located.reason;
      rejected.push({ hunk: hunkIndex + 1, expected: sought, closest, reason });
      return;
    }
    const { position, level } = found.located;
    const print = footprint(found.lines, position);
    cursor = print.end;
    if (headerIndex !== undefined) drift = position - headerIndex;
    placements.push({ hunkIndex, position, level, lines: found.lines, hunk, footprint: print });
    placed.push({
      hunk: hunkIndex + 1,
      line: position + 1,
      offset: headerIndex === undefined ? 0 : position - headerIndex,
      match: matchKind(level, hunk.countsRepaired),
    });
  });
  if (rejected.length > 0) return { text: joinLines(file, endsWithNewline(file)), placed, rejected };
  const { text, after, edits } = writeResult(file, placements);
  return { text, placed, rejected, hint: { before: file, after, edits } };
}

/**
 * A BOM is kept out of line texts (FileLines.bom holds it), but diffs carry it on their first line:
 * strip it from hunk lines, and let a new file's first added line give the file its BOM.
 */
function withoutBom(
  hunks: readonly ParsedHunk[],
  file: FileLines,
): { hunks: readonly ParsedHunk[]; bom: boolean } {
  if (!hunks.some((hunk) => hunk.lines.some((line) => line.text.startsWith("\uFEFF")))) {
    return { hunks, bom: file.bom };
  }
  let bom = file.bom;
  const cleaned = hunks.map((hunk, h) => ({
    ...hunk,
    lines: hunk.lines.map((line, k) => {
      if (!line.text.startsWith("\uFEFF")) return line;
      if (file.lines.length === 0 && h === 0 && k === 0 && line.kind === "+") bom = true;
      return { ...line, text: line.text.slice(1) };
    }),
  }));
  return { hunks: cleaned, bom };
}

/**
 * Whether a hunk that did not apply has already been applied: its new side (context and added
 * lines) is found where the old side is not. Only asked of hunks whose new side says something
 * (an added line, or two non-blank lines), so a lone brace cannot pass for a whole hunk.
 */
function alreadyApplied(
  index: LineIndex,
  hunk: ParsedHunk,
  expected: number,
  cursor: number,
  freeFor: (lines: readonly HunkLine[]) => (position: number) => boolean,
): { position: number; length: number } | undefined {
  const newLines = hunk.lines
    .filter((line) => line.kind !== "-")
    .map((line): HunkLine => ({ kind: " ", text: line.text }));
  const newSide = newLines.map((line) => line.text);
  const telling =
    hunk.lines.some((line) => line.kind === "+") || newSide.filter((line) => line.trim() !== "").length >= 2;
  if (!telling || !hunk.lines.some((line) => line.kind !== " ")) return undefined;
  const located = locate(index, {
    sought: newSide,
    ...(hunk.oldStart === undefined ? {} : { expected }),
    anchors: hunk.anchors,
    cursor,
    atEndOfFile: hunk.atEndOfFile,
    free: freeFor(newLines),
  });
  return located.found && newSide.length > 0
    ? { position: located.position, length: newSide.length }
    : undefined;
}

function matchKind(level: MatchLevel, countsRepaired: boolean): HunkMatch {
  if (level !== "exact") return level;
  return countsRepaired ? "line_counts_repaired" : "exact";
}

export function oldSide(lines: readonly HunkLine[]): string[] {
  const out: string[] = [];
  for (const line of lines) if (line.kind !== "+") out.push(line.text);
  return out;
}

/**
 * Locates one hunk. When its lines are not found anywhere, it is tried again without the blank
 * context lines at its edges: models add or drop blank lines around a hunk more than anything else.
 */
function placeHunk(
  index: LineIndex,
  hunk: ParsedHunk,
  at: {
    expected: number | undefined;
    cursor: number;
    freeFor: (lines: readonly HunkLine[]) => (position: number) => boolean;
  },
): { located: Located; lines: readonly HunkLine[] } {
  const attempt = (lines: readonly HunkLine[]): Located =>
    locate(index, {
      sought: oldSide(lines),
      ...(at.expected === undefined ? {} : { expected: at.expected }),
      anchors: hunk.anchors,
      cursor: at.cursor,
      atEndOfFile: hunk.atEndOfFile,
      free: at.freeFor(lines),
    });
  const located = attempt(hunk.lines);
  if (located.found || located.candidates.length > 0) return { located, lines: hunk.lines };
  for (const lines of withoutBlankEdges(hunk.lines)) {
    const retry = attempt(lines);
    if (retry.found) return { located: retry, lines };
  }
  return { located, lines: hunk.lines };
}

/** The hunk without its trailing, then leading, then both blank context lines (only variants that differ). */
function withoutBlankEdges(lines: readonly HunkLine[]): HunkLine[][] {
  const isBlankContext = (line: HunkLine | undefined) => line?.kind === " " && line.text.trim() === "";
  let start = 0;
  let end = lines.length;
  while (end > 0 && isBlankContext(lines[end - 1])) end--;
  while (start < end && isBlankContext(lines[start])) start++;
  const variants: HunkLine[][] = [];
  if (end < lines.length) variants.push(lines.slice(0, end));
  if (start > 0) variants.push(lines.slice(start));
  if (start > 0 && end < lines.length) variants.push(lines.slice(start, end));
  // A variant left with no old lines would match anywhere: it tells nothing about the place.
  return variants.filter((variant) => oldSide(variant).length > 0);
}

/** One change of the old file: `removed` lines from `at` replaced by `added` (none: a pure insertion). */
interface Change {
  at: number;
  removed: number;
  added: string[];
  hunkIndex: number;
}

/**
 * Writes the new file: each placement is cut into its changes (runs of removed and added lines
 * between context lines), which are applied in file order; hunks may share context lines.
 */
function writeResult(
  file: FileLines,
  placements: Placement[],
): { text: string; after: FileLines; edits: Edit[] } {
  const changes: Change[] = [];
  let finalNewline = endsWithNewline(file);
  for (const placement of [...placements].sort((a, b) => a.hunkIndex - b.hunkIndex)) {
    const reindent = indentFix(file, placement);
    let i = placement.position;
    let run: Change | undefined;
    for (const line of placement.lines) {
      if (line.kind === " ") {
        run = undefined;
        i++;
        continue;
      }
      if (!run) {
        run = { at: i, removed: 0, added: [], hunkIndex: placement.hunkIndex };
        changes.push(run);
      }
      if (line.kind === "-") {
        run.removed++;
        i++;
      } else {
        run.added.push(reindent(line.text));
      }
    }
    // A hunk that reaches the end of the file says whether the file ends with a newline.
    if (i === file.lines.length) {
      if (placement.hunk.newNoNewline) finalNewline = false;
      else if (placement.hunk.oldNoNewline) finalNewline = true;
    }
  }
  // Stable: changes at one place keep the order of their hunks.
  changes.sort((a, b) => a.at - b.at || a.hunkIndex - b.hunkIndex);
  const lines: string[] = [];
  const eols: string[] = [];
  const edits: Edit[] = [];
  let next = 0;
  for (const change of changes) {
    for (; next < change.at; next++) {
      lines.push(file.lines[next]!);
      eols.push(file.eols[next]!);
    }
    const newStart = lines.length;
    for (const text of change.added) {
      lines.push(text);
      eols.push("");
    }
    next = Math.max(next, change.at + change.removed);
    edits.push({ oldStart: change.at, oldEnd: change.at + change.removed, newStart, newEnd: lines.length });
  }
  for (; next < file.lines.length; next++) {
    lines.push(file.lines[next]!);
    eols.push(file.eols[next]!);
  }
  const after = sealLines({ lines, eols, eol: file.eol, bom: file.bom }, finalNewline);
  return { text: joinLines(after, finalNewline), after, edits };
}

/**
 * When a hunk matched only with its indentation ignored, its added lines are re-indented the way
 * the file's lines differ from the patch's: all by the same extra prefix (or the same prefix less),
 * or spaces for tabs at one consistent width (a Go file patched with spaces, say). When the lines
 * disagree on how they differ, the added lines are left as written.
 */
function indentFix(file: FileLines, placement: Placement): (text: string) => string {
  const same = (text: string) => text;
  if (placement.level !== "whitespace" && placement.level !== "unicode") return same;
  const pairs: [string, string][] = [];
  let i = placement.position;
  for (const line of placement.lines) {
    if (line.kind === "+") continue;
    const fileLine = file.lines[i++]!;
    if (line.text.trim() === "" || fileLine.trim() === "") continue;
    const fileIndent = leadingSpace(fileLine);
    const patchIndent = leadingSpace(line.text);
    // Lines at the margin on both sides cannot show a shift (a dedent stops at column 0).
    if (fileIndent !== "" || patchIndent !== "") pairs.push([fileIndent, patchIndent]);
  }
  return prefixShift(pairs) ?? tabWidthShift(pairs) ?? same;
}

/** The same prefix added to (or taken from) every line's indentation, if that is how they differ. */
function prefixShift(pairs: readonly [string, string][]): ((text: string) => string) | undefined {
  let shift: string | undefined;
  for (const [fileIndent, patchIndent] of pairs) {
    const pair = indentShift(fileIndent, patchIndent);
    if (pair === undefined || (shift !== undefined && shift !== pair)) return undefined;
    shift = pair;
  }
  if (shift === undefined || shift === "=") return undefined;
  const prefix = shift.slice(1);
  if (shift.startsWith("+")) return (text) => (text.trim() === "" ? text : prefix + text);
  return (text) => (text.startsWith(prefix) ? text.slice(prefix.length) : text);
}

/** "+X" when the file line has X more indentation in front, "-X" when X less, "=" when equal. */
function indentShift(fileIndent: string, patchIndent: string): string | undefined {
  if (fileIndent === patchIndent) return "=";
  if (fileIndent.endsWith(patchIndent))
    return `+${fileIndent.slice(0, fileIndent.length - patchIndent.length)}`;
  if (patchIndent.endsWith(fileIndent))
    return `-${patchIndent.slice(0, patchIndent.length - fileIndent.length)}`;
  return undefined;
}

/**
 * Tabs in the file where the patch has spaces (or the reverse), at one width for every line:
 * the added lines' leading spaces become tabs at that width (or their tabs become spaces).
 */
function tabWidthShift(pairs: readonly [string, string][]): ((text: string) => string) | undefined {
  if (pairs.length === 0) return undefined;
  const tabs = (indent: string) => /^\t*$/u.test(indent);
  const spaces = (indent: string) => /^ *$/u.test(indent);
  const toTabs = pairs.every(([f, p]) => tabs(f) && spaces(p));
  const toSpaces = pairs.every(([f, p]) => spaces(f) && tabs(p));
  if (!toTabs && !toSpaces) return undefined;
  const widths = new Set(
    pairs.map(([f, p]) => {
      const [tabbed, spaced] = toTabs ? [f, p] : [p, f];
      return tabbed.length === 0 ? (spaced.length === 0 ? 0 : -1) : spaced.length / tabbed.length;
    }),
  );
  widths.delete(0);
  const [width] = [...widths];
  if (widths.size !== 1 || width === undefined || !Number.isInteger(width) || width < 1) return undefined;
  if (toTabs) {
    return (text) => {
      const lead = /^ */u.exec(text)![0].length;
      return "\t".repeat(Math.floor(lead / width)) + " ".repeat(lead % width) + text.slice(lead);
    };
  }
  return (text) => {
    const lead = /^\t*/u.exec(text)![0].length;
    return " ".repeat(lead * width) + text.slice(lead);
  };
}

function leadingSpace(text: string): string {
  return /^[ \t]*/u.exec(text)![0];
}
