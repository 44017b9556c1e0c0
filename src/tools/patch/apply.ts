import { closestLines, LineIndex, type Located, locate, type MatchLevel, type Span } from "./locate.ts";
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
  const claimed: Span[] = [];
  const placements: Placement[] = [];
  const placed: PlacedHunk[] = [];
  const rejected: Omit<RejectedHunk, "file">[] = [];
  let cursor = 0;
  let drift = 0;
  hunks.forEach((hunk, hunkIndex) => {
    // Where the header puts the old lines (0-based); a count of 0 means "after line oldStart".
    const headerIndex =
      hunk.oldStart === undefined ? undefined : hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const found = placeHunk(index, hunk, {
      expected: headerIndex === undefined ? undefined : headerIndex + drift,
      cursor,
      claimed,
    });
    const sought = oldSide(hunk.lines);
    if (!found.located.found) {
      const closest =
        found.located.candidates.length > 0
          ? {
              line: found.located.candidates[0]! + 1,
              lines: file.lines.slice(
                found.located.candidates[0]!,
                found.located.candidates[0]! + sought.length,
              ),
            }
          : closestLines(index, sought, headerIndex === undefined ? cursor : headerIndex + drift);
      rejected.push({ hunk: hunkIndex + 1, expected: sought, closest, reason: found.located.reason });
      return;
    }
    const { position, level } = found.located;
    const length = oldSide(found.lines).length;
    claimed.push({ start: position, end: position + length });
    cursor = position + length;
    if (headerIndex !== undefined) drift = position - headerIndex;
    placements.push({ hunkIndex, position, level, lines: found.lines, hunk });
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
function withoutBom(hunks: readonly ParsedHunk[], file: FileLines): { hunks: ParsedHunk[]; bom: boolean } {
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
  at: { expected: number | undefined; cursor: number; claimed: readonly Span[] },
): { located: Located; lines: readonly HunkLine[] } {
  const attempt = (lines: readonly HunkLine[]): Located =>
    locate(index, {
      sought: oldSide(lines),
      expected: at.expected,
      anchors: hunk.anchors,
      cursor: at.cursor,
      atEndOfFile: hunk.atEndOfFile,
      claimed: at.claimed,
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

function writeResult(
  file: FileLines,
  placements: Placement[],
): { text: string; after: FileLines; edits: Edit[] } {
  placements.sort((a, b) => a.position - b.position || a.hunkIndex - b.hunkIndex);
  const lines: string[] = [];
  const eols: string[] = [];
  const edits: Edit[] = [];
  let finalNewline = endsWithNewline(file);
  let next = 0;
  for (const placement of placements) {
    for (; next < placement.position; next++) {
      lines.push(file.lines[next]!);
      eols.push(file.eols[next]!);
    }
    const newStart = lines.length;
    const reindent = indentFix(file, placement);
    let i = placement.position;
    for (const line of placement.lines) {
      if (line.kind === " ") {
        lines.push(file.lines[i]!);
        eols.push(file.eols[i]!);
        i++;
      } else if (line.kind === "-") {
        i++;
      } else {
        lines.push(reindent(line.text));
        eols.push("");
      }
    }
    edits.push({ oldStart: placement.position, oldEnd: i, newStart, newEnd: lines.length });
    // A hunk that reaches the end of the file says whether the file ends with a newline.
    if (i === file.lines.length) {
      if (placement.hunk.newNoNewline) finalNewline = false;
      else if (placement.hunk.oldNoNewline) finalNewline = true;
    }
    next = i;
  }
  for (; next < file.lines.length; next++) {
    lines.push(file.lines[next]!);
    eols.push(file.eols[next]!);
  }
  const after = sealLines({ lines, eols, eol: file.eol, bom: file.bom }, finalNewline);
  return { text: joinLines(after, finalNewline), after, edits };
}

/**
 * When a hunk matched only with its indentation ignored and the file's lines are all indented by the
 * same extra prefix (or all by the same prefix less) than the patch's, the added lines are shifted
 * the same way, so they land at the indentation of the code around them.
 */
function indentFix(file: FileLines, placement: Placement): (text: string) => string {
  const same = (text: string) => text;
  if (placement.level !== "whitespace" && placement.level !== "unicode") return same;
  let shift: string | undefined;
  let i = placement.position;
  for (const line of placement.lines) {
    if (line.kind === "+") continue;
    const fileLine = file.lines[i++]!;
    if (line.text.trim() === "" || fileLine.trim() === "") continue;
    const fileIndent = leadingSpace(fileLine);
    const patchIndent = leadingSpace(line.text);
    // Lines at the margin on both sides cannot show a shift (a dedent stops at column 0).
    if (fileIndent === "" && patchIndent === "") continue;
    const pair = indentShift(fileIndent, patchIndent);
    if (pair === undefined || (shift !== undefined && shift !== pair)) return same;
    shift = pair;
  }
  if (shift === undefined || shift === "=") return same;
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

function leadingSpace(text: string): string {
  return /^[ \t]*/u.exec(text)![0];
}
