import { ToolFailure } from "../../core/errors.ts";
import type { AppliedHunks, Edit, PlacedHunk } from "./apply.ts";
import { endsWithNewline, type FileLines, joinLines, sealLines } from "./text.ts";
import type { RejectedHunk, StructuredFilePatch, StructuredHunk } from "./types.ts";

/**
 * Checks the shape of a structured request (coding-agent `file_patch` `patches`): a non-empty list
 * of `{path, hunks}` whose hunks have integer `start`/`end` and a string `replace_with`. Throws
 * patch_parse_error naming the first offending field.
 */
export function validateStructuredPatches(patches: unknown): asserts patches is StructuredFilePatch[] {
  if (!Array.isArray(patches) || patches.length === 0) {
    throw shapeError("patches", "a non-empty list of {path, hunks}", patches);
  }
  patches.forEach((patch: unknown, i) => {
    const where = `patches[${i}]`;
    if (typeof patch !== "object" || patch === null)
      throw shapeError(where, "an object {path, hunks}", patch);
    const { path, hunks } = patch as { path?: unknown; hunks?: unknown };
    if (typeof path !== "string" || path.trim() === "") {
      throw shapeError(`${where}.path`, "a file path relative to the workspace", path);
    }
    if (!Array.isArray(hunks) || hunks.length === 0) {
      throw shapeError(`${where}.hunks`, "a non-empty list of {start, end, replace_with}", hunks);
    }
    hunks.forEach((hunk: unknown, j) => {
      const at = `${where}.hunks[${j}]`;
      if (typeof hunk !== "object" || hunk === null) {
        throw shapeError(at, "an object {start, end, replace_with}", hunk);
      }
      const { start, end, replace_with } = hunk as Record<string, unknown>;
      if (!Number.isInteger(start))
        throw shapeError(`${at}.start`, "an integer line number (1-based)", start);
      if (!Number.isInteger(end))
        throw shapeError(`${at}.end`, "an integer line number (1-based, inclusive)", end);
      if (typeof replace_with !== "string") throw shapeError(`${at}.replace_with`, "a string", replace_with);
    });
  });
}

function shapeError(field: string, expected: string, got: unknown): ToolFailure {
  return new ToolFailure(
    "patch_parse_error",
    `${field} must be ${expected}; got ${JSON.stringify(got) ?? String(got)}.`,
    {
      field,
      expected,
    },
  );
}

/** The lines of a `replace_with` text: "a\nb" and "a\nb\n" are both [a, b]; "" is none. */
export function replacementLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

interface Range {
  hunkIndex: number;
  /** 0-based, [from, to): the old lines replaced. */
  from: number;
  to: number;
  replacement: string[];
}

/**
 * Applies structured hunks to a file. Each hunk replaces lines `start`..`end` (1-based, inclusive,
 * numbered as in the file before this patch); `end = start - 1` inserts before `start`. Ranges
 * must lie in the file and must not overlap (two insertions at one place overlap too); every bad
 * hunk is reported. The file keeps its line endings and whether it ends with a newline.
 */
export function applyStructuredHunks(file: FileLines, hunks: readonly StructuredHunk[]): AppliedHunks {
  const n = file.lines.length;
  const rejected: Omit<RejectedHunk, "file">[] = [];
  const ranges: Range[] = [];
  hunks.forEach((hunk, hunkIndex) => {
    const reason = rangeProblem(hunk, n);
    if (reason) {
      rejected.push({
        hunk: hunkIndex + 1,
        expected: file.lines.slice(Math.max(0, hunk.start - 1), Math.max(0, Math.min(n, hunk.end))),
        closest: null,
        reason,
      });
      return;
    }
    ranges.push({
      hunkIndex,
      from: hunk.start - 1,
      to: hunk.end,
      replacement: replacementLines(hunk.replace_with),
    });
  });
  // Insertions sort before a replacement starting at the same line: they go in front of it.
  ranges.sort((a, b) => a.from - b.from || a.to - a.from - (b.to - b.from) || a.hunkIndex - b.hunkIndex);
  const accepted: Range[] = [];
  for (const range of ranges) {
    const previous = accepted[accepted.length - 1];
    const overlaps =
      previous !== undefined &&
      (range.from < previous.to ||
        (range.from === previous.from && range.to === range.from && previous.to === previous.from));
    if (overlaps) {
      rejected.push({
        hunk: range.hunkIndex + 1,
        expected: file.lines.slice(range.from, range.to),
        closest: null,
        reason: `lines ${describeRange(range)} overlap hunk ${previous.hunkIndex + 1} (lines ${describeRange(previous)}); merge them into one hunk`,
      });
      continue;
    }
    accepted.push(range);
  }
  rejected.sort((a, b) => a.hunk - b.hunk);
  const placed: PlacedHunk[] = hunks
    .map((hunk, i) => ({ hunk: i + 1, line: hunk.start, offset: 0, match: "exact" as const }))
    .filter((outcome) => !rejected.some((r) => r.hunk === outcome.hunk));
  if (rejected.length > 0) return { text: joinLines(file, endsWithNewline(file)), placed, rejected };

  const lines: string[] = [];
  const eols: string[] = [];
  const edits: Edit[] = [];
  let next = 0;
  for (const range of accepted) {
    for (; next < range.from; next++) {
      lines.push(file.lines[next]!);
      eols.push(file.eols[next]!);
    }
    const newStart = lines.length;
    for (const line of range.replacement) {
      lines.push(line);
      eols.push("");
    }
    edits.push({ oldStart: range.from, oldEnd: range.to, newStart, newEnd: lines.length });
    next = range.to;
  }
  for (; next < n; next++) {
    lines.push(file.lines[next]!);
    eols.push(file.eols[next]!);
  }
  const finalNewline = endsWithNewline(file);
  const after = sealLines({ lines, eols, eol: file.eol, bom: file.bom }, finalNewline);
  return { text: joinLines(after, finalNewline), placed, rejected, hint: { before: file, after, edits } };
}

function rangeProblem(hunk: StructuredHunk, n: number): string | undefined {
  const { start, end } = hunk;
  if (start < 1) return `start ${start} is before line 1 (lines are numbered from 1)`;
  if (start > n + 1) {
    return `start ${start} is past the end of the file, which has ${n} line${n === 1 ? "" : "s"} (use start ${n + 1}, end ${n} to append)`;
  }
  if (end < start - 1) {
    return `end ${end} is before start ${start} (end is inclusive; use end ${start - 1} to insert before line ${start})`;
  }
  if (end > n) return `end ${end} is past the end of the file, which has ${n} line${n === 1 ? "" : "s"}`;
  return undefined;
}

function describeRange(range: Range): string {
  return range.to === range.from ? `insertion before ${range.from + 1}` : `${range.from + 1}-${range.to}`;
}
