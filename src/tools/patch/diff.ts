import { formatPatch, type StructuredPatch, type StructuredPatchHunk, structuredPatch } from "diff";
import type { DiffHint, Edit } from "./apply.ts";
import { type FileLines, splitLines } from "./text.ts";
import type { PlannedFile } from "./types.ts";

/** Git's abbreviated hash of the empty blob. */
const EMPTY_BLOB = "e69de29";

/** Lines of context around each change, as git and GNU diff use. */
const CONTEXT = 3;

/**
 * The hunks turning `before` into `after`. When the changed stretches are known (a hint from
 * applying the patch) only windows around them are diffed, which keeps a 200-hunk patch of a
 * 20,000-line file fast; otherwise the whole texts are. One empty side needs no diff at all.
 */
export function diffHunks(before: string, after: string, hint?: DiffHint): StructuredPatchHunk[] {
  if (before === after) return [];
  if (before === "" || after === "") return [wholeFileHunk(before === "" ? after : before, before === "")];
  const windowed = hint && windowedHunks(hint);
  return windowed ?? structuredPatch("", "", before, after, undefined, undefined, { context: CONTEXT }).hunks;
}

/** Margins tried around the edits; past the last one the whole files are diffed instead. */
const MARGINS = [CONTEXT, 4 * CONTEXT, 16 * CONTEXT, 64 * CONTEXT];

/**
 * Diffs each window (edits widened by a margin, merged where they meet). Among repeated lines the
 * diff may slide a change towards a window's edge, leaving it short of context; then the next,
 * wider margin is tried. Undefined when even the widest falls short.
 */
export function windowedHunks(
  hint: DiffHint,
  margins: readonly number[] = MARGINS,
): StructuredPatchHunk[] | undefined {
  const { before: old, after: now, edits } = hint;
  for (const margin of margins) {
    const hunks: StructuredPatchHunk[] = [];
    let short = false;
    for (const window of windows(edits, old.lines.length, margin)) {
      const oldText = slice(old, window.oldStart, window.oldEnd);
      const newText = slice(now, window.newStart, window.newEnd);
      if (oldText === newText) continue;
      const part = structuredPatch("", "", oldText, newText, undefined, undefined, {
        context: CONTEXT,
      }).hunks;
      const first = part[0];
      const last = part[part.length - 1];
      if (first && window.oldStart > 0 && first.oldStart === 1 && leadingContext(first) < CONTEXT)
        short = true;
      if (
        last &&
        window.oldEnd < old.lines.length &&
        last.oldStart - 1 + last.oldLines === window.oldEnd - window.oldStart &&
        trailingContext(last) < CONTEXT
      ) {
        short = true;
      }
      if (short) break;
      for (const hunk of part) {
        hunks.push({
          ...hunk,
          oldStart: hunk.oldStart + window.oldStart,
          newStart: hunk.newStart + window.newStart,
        });
      }
    }
    if (!short) return hunks;
  }
  return undefined;
}

function leadingContext(hunk: StructuredPatchHunk): number {
  let count = 0;
  while (count < hunk.lines.length && hunk.lines[count]!.startsWith(" ")) count++;
  return count;
}

function trailingContext(hunk: StructuredPatchHunk): number {
  let count = 0;
  for (let i = hunk.lines.length - 1; i >= 0; i--) {
    const line = hunk.lines[i]!;
    if (line.startsWith("\\")) continue;
    if (!line.startsWith(" ")) break;
    count++;
  }
  return count;
}

/** The edits widened by `margin` unchanged lines on both sides, merged where they meet. */
function windows(edits: readonly Edit[], oldLength: number, margin: number): Edit[] {
  const out: Edit[] = [];
  for (const edit of [...edits].sort((a, b) => a.oldStart - b.oldStart)) {
    const before = Math.min(margin, edit.oldStart);
    const after = Math.min(margin, oldLength - edit.oldEnd);
    const window = {
      oldStart: edit.oldStart - before,
      oldEnd: edit.oldEnd + after,
      newStart: edit.newStart - before,
      newEnd: edit.newEnd + after,
    };
    const last = out[out.length - 1];
    if (last && window.oldStart <= last.oldEnd) {
      last.oldEnd = Math.max(last.oldEnd, window.oldEnd);
      last.newEnd = Math.max(last.newEnd, window.newEnd);
    } else {
      out.push(window);
    }
  }
  return out;
}

function slice(file: FileLines, start: number, end: number): string {
  const parts: string[] = [];
  for (let i = start; i < end; i++) parts.push(file.lines[i]!, file.eols[i]!);
  // The BOM belongs to the first line's text, as jsdiff would see it in the whole file.
  if (start === 0 && end > 0 && file.bom) parts[0] = `\uFEFF${parts[0]}`;
  return parts.join("");
}

/** A hunk adding (or removing) every line of `text`, written the way jsdiff writes its hunks. */
function wholeFileHunk(text: string, added: boolean): StructuredPatchHunk {
  const file = splitLines(text);
  const sign = added ? "+" : "-";
  const lines = file.lines.map(
    (line, i) => `${sign}${i === 0 && file.bom ? "\uFEFF" : ""}${line}${file.eols[i] === "\r\n" ? "\r" : ""}`,
  );
  if (file.eols[file.eols.length - 1] === "") lines.push("\\ No newline at end of file");
  const count = file.lines.length;
  return added
    ? { oldStart: 1, oldLines: 0, newStart: 1, newLines: count, lines }
    : { oldStart: 1, oldLines: count, newStart: 1, newLines: 0, lines };
}

/**
 * The plan's diff: one git-style section per changed file, a/ and b/ prefixes, `new file mode` /
 * `deleted file mode` for creations and deletions, `rename from/to` when a file moved (its old
 * path deleted). Applying it with `git apply` or `patch -p1` to the files before gives the files after.
 */
export function renderPlanDiff(files: readonly PlannedFile[], hints: ReadonlyMap<string, DiffHint>): string {
  const renamedAway = new Set<string>();
  for (const file of files) {
    const source = file.movedFrom === undefined ? undefined : files.find((f) => f.path === file.movedFrom);
    if (file.before === null && source?.after === null) renamedAway.add(source.path);
  }
  const sections: string[] = [];
  for (const file of files) {
    if (renamedAway.has(file.path)) continue;
    const source = file.movedFrom === undefined ? undefined : files.find((f) => f.path === file.movedFrom);
    const rename = file.before === null && source !== undefined && renamedAway.has(source.path);
    const oldPath = rename ? source.path : file.path;
    const before = rename ? source.before : file.before;
    const patch: StructuredPatch = {
      oldFileName: before === null ? "/dev/null" : `a/${oldPath}`,
      newFileName: file.after === null ? "/dev/null" : `b/${file.path}`,
      oldHeader: undefined,
      newHeader: undefined,
      hunks: diffHunks(before ?? "", file.after ?? "", hints.get(file.path)),
      isGit: true,
      ...(before === null ? { isCreate: true } : {}),
      ...(file.after === null ? { isDelete: true } : {}),
      ...(rename ? { isRename: true } : {}),
    };
    let section = withTabbedNames(formatPatch(patch));
    // An empty file's creation or deletion has no hunk; GNU patch needs the index line to read it right.
    if (patch.hunks.length === 0 && (before === null || file.after === null)) {
      const index = before === null ? `index 0000000..${EMPTY_BLOB}` : `index ${EMPTY_BLOB}..0000000`;
      section = section.replace(/^(new|deleted) file mode 100644\n/mu, `$&${index}\n`);
    }
    sections.push(section);
  }
  return sections.join("");
}

/**
 * Git ends a ---/+++ name that contains a space with a tab, so that GNU patch knows where the
 * name stops; jsdiff does not, so the header lines (those before the first hunk) get one here.
 */
function withTabbedNames(section: string): string {
  const firstHunk = section.indexOf("\n@@ ");
  const head = firstHunk === -1 ? section : section.slice(0, firstHunk);
  const fixed = head.replace(/^(---|\+\+\+) ([^"\n]* [^"\n]*)$/gmu, "$1 $2\t");
  return firstHunk === -1 ? fixed : fixed + section.slice(firstHunk);
}
