/**
 * Unified diff parser, lenient the way models need it: prose and ``` fences around the diff, git
 * extended headers, -pN, /dev/null, `\ No newline at end of file`, `@@` counts that do not match
 * the body (recounted when the body is unambiguous), and `@@` headers without numbers.
 */
import { ToolFailure } from "../../core/errors.ts";
import { clip, MAX_ECHOED_CHARS, parseError } from "./failures.ts";
import type { FileOperation, HunkLine, ParsedHunk, ParsedPatch } from "./types.ts";

export interface UnifiedOptions {
  /** patch's -pN. When absent, git-style a/ b/ prefixes are stripped and plain names kept. */
  strip?: number;
  /** With `strip`: a name whose -pN reading names no existing file is tried as written (-p0) too. */
  asWrittenFallback?: boolean;
  /** Keep a CR before the newline of hunk lines as part of the line (GNU patch --binary reads them so). */
  keepCarriageReturns?: boolean;
}

/** Lines of a patch text without terminators; a final newline does not make an extra empty line. */
export function patchLines(text: string): string[] {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Lines of a patch text without their newlines, CRs kept. */
function rawPatchLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** True when the line starts a file section of a unified diff. */
export function startsFileSection(lines: readonly string[], i: number): boolean {
  const line = lines[i];
  if (line === undefined) return false;
  return (
    line.startsWith("diff --git ") || (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ "))
  );
}

export function parseUnified(text: string, options: UnifiedOptions = {}): ParsedPatch {
  if (options.strip !== undefined && !(Number.isInteger(options.strip) && options.strip >= 0)) {
    throw new ToolFailure(
      "invalid_params",
      `strip must be a whole number (patch's -pN); got ${options.strip}.`,
    );
  }
  const raw = options.keepCarriageReturns ? rawPatchLines(text) : undefined;
  const parser = new UnifiedParser(patchLines(text), options.strip, raw, options.asWrittenFallback ?? false);
  return { format: "unified", operations: parser.parse() };
}

interface HunkHeader {
  oldStart?: number;
  oldCount?: number;
  newCount?: number;
  heading: string;
}

/** Parses a `@@ -a,b +c,d @@ heading` line; the numbers may be missing (`@@ @@`, `@@`, `@@ def foo():`). */
export function parseHunkHeader(line: string, lineNumber: number): HunkHeader {
  if (line.startsWith("@@@")) {
    throw parseError(
      lineNumber,
      "a two-way '@@ -l,n +l,n @@' hunk header (combined diffs are not supported)",
      line,
    );
  }
  const rest = line.replace(/^@@/u, "");
  const numbered = /^\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*(?:@@(.*))?$/u.exec(rest);
  if (numbered) {
    return {
      oldStart: Number(numbered[1]),
      oldCount: numbered[2] === undefined ? 1 : Number(numbered[2]),
      newCount: numbered[4] === undefined ? 1 : Number(numbered[4]),
      heading: (numbered[5] ?? "").trim(),
    };
  }
  if (/^\s*-\S*\s+\+/u.test(rest)) {
    throw parseError(lineNumber, "a hunk header like '@@ -12,7 +12,8 @@'", line);
  }
  // Text after a number-less @@ is used as an anchor, as in the envelope ("@@ def foo():").
  let heading = rest.trim().replace(/\s*@@.*$/u, "");
  if (/^(\.\.\.|…)$/u.test(heading)) heading = "";
  return { heading };
}

const GIT_HEADER =
  /^(old mode|new mode|deleted file mode|new file mode|similarity index|dissimilarity index|rename from|rename to|rename old|rename new|copy from|copy to|index) ?(.*)$/u;

interface BodyLine extends HunkLine {
  /** Blank or without a diff prefix: read as context, but dropped from the end of a hunk. */
  loose: boolean;
  /** A `\ No newline at end of file` line. */
  marker: boolean;
}

class UnifiedParser {
  private i = 0;
  constructor(
    private readonly lines: readonly string[],
    private readonly strip: number | undefined,
    /** The same lines with their CRs, when hunk lines keep them. */
    private readonly raw: readonly string[] | undefined,
    private readonly asWrittenFallback: boolean,
  ) {}

  /** Hunk line k; with `raw`, a changed or context line keeps its CR. */
  private bodyAt(k: number): BodyLine {
    const parsed = bodyLine(this.lines[k]!);
    const raw = this.raw?.[k];
    if (raw === undefined || parsed.loose || parsed.marker) return parsed;
    return { ...parsed, text: raw.slice(1) };
  }

  parse(): FileOperation[] {
    const operations: FileOperation[] = [];
    let sections = 0;
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!;
      if (line.startsWith("diff --git ")) {
        sections++;
        const op = this.gitSection();
        if (op) operations.push(op);
      } else if (startsFileSection(this.lines, this.i)) {
        sections++;
        operations.push(this.plainSection());
      } else if (line.startsWith("@@")) {
        throw parseError(
          this.i + 1,
          "a '--- a/path' line and a '+++ b/path' line before the first @@ hunk",
          line,
        );
      } else if (isBinaryMarker(line)) {
        throw binaryPatch(this.i + 1, line);
      } else {
        this.i++; // prose, fences, Index: lines and the like around the diff
      }
    }
    if (sections === 0) {
      throw parseError(
        1,
        "a unified diff: a '--- a/path' line, a '+++ b/path' line, then '@@ -l,n +l,n @@' hunks",
        this.lines[0],
      );
    }
    return operations;
  }

  private gitSection(): FileOperation | undefined {
    const start = this.i;
    const gitLine = this.lines[this.i++]!;
    const meta = new Map<string, string>();
    while (this.i < this.lines.length) {
      const header = GIT_HEADER.exec(this.lines[this.i]!);
      if (!header) break;
      meta.set(header[1]!, header[2]!);
      this.i++;
    }
    if (this.i < this.lines.length && isBinaryMarker(this.lines[this.i]!)) {
      throw binaryPatch(this.i + 1, this.lines[this.i]!);
    }
    let oldName: string | null | undefined;
    let newName: string | null | undefined;
    if (startsFileSection(this.lines, this.i) && this.lines[this.i]!.startsWith("--- ")) {
      oldName = headerName(this.lines[this.i]!.slice(4));
      newName = headerName(this.lines[this.i + 1]!.slice(4));
      this.i += 2;
    }
    const hunks = this.hunks();
    const renameFrom = meta.get("rename from") ?? meta.get("rename old");
    const renameTo = meta.get("rename to") ?? meta.get("rename new");
    const copyFrom = meta.get("copy from");
    const copyTo = meta.get("copy to");
    if (renameFrom !== undefined && renameTo !== undefined) {
      return {
        kind: "update",
        paths: [unquote(renameFrom)],
        moveTo: unquote(renameTo),
        hunks,
        patchLine: start + 1,
      };
    }
    if (copyFrom !== undefined && copyTo !== undefined) {
      return {
        kind: "update",
        paths: [unquote(copyFrom)],
        moveTo: unquote(copyTo),
        copy: true,
        hunks,
        patchLine: start + 1,
      };
    }
    if (oldName === undefined || newName === undefined) {
      const names = gitLineNames(gitLine);
      if (!names) throw parseError(start + 1, "'diff --git a/path b/path'", gitLine);
      oldName = meta.has("new file mode") ? null : names[0];
      newName = meta.has("deleted file mode") ? null : names[1];
    }
    if (meta.has("new file mode")) oldName = null;
    if (meta.has("deleted file mode")) newName = null;
    // A section with no hunks that neither creates nor deletes only changes the mode: nothing to do.
    if (hunks.length === 0 && oldName !== null && newName !== null) return undefined;
    return this.operation(oldName, newName, hunks, start + 1);
  }

  private plainSection(): FileOperation {
    const start = this.i;
    const oldName = headerName(this.lines[this.i]!.slice(4));
    const newName = headerName(this.lines[this.i + 1]!.slice(4));
    this.i += 2;
    const hunks = this.hunks();
    if (hunks.length === 0 && oldName !== null && newName !== null) {
      throw parseError(this.i + 1, "an '@@ -l,n +l,n @@' hunk header", this.lines[this.i]);
    }
    return this.operation(oldName, newName, hunks, start + 1);
  }

  private operation(
    oldName: string | null,
    newName: string | null,
    hunks: ParsedHunk[],
    patchLine: number,
  ): FileOperation {
    if (oldName === null && newName === null) {
      throw parseError(patchLine, "a file name on the '---' or '+++' line (both are /dev/null)", undefined);
    }
    const strips = this.stripLevels(oldName, newName);
    const candidates = (names: (string | null)[]): string[] => {
      const out: string[] = [];
      for (const level of strips) {
        for (const name of names) {
          if (name === null) continue;
          const path = stripPath(name, level);
          if (path !== "" && !out.includes(path)) out.push(path);
        }
      }
      return out;
    };
    if (oldName === null) return { kind: "add", paths: candidates([newName]).slice(0, 1), hunks, patchLine };
    if (newName === null) return { kind: "delete", paths: candidates([oldName]), hunks, patchLine };
    return { kind: "update", paths: candidates([oldName, newName]), hunks, patchLine };
  }

  /** The -p levels to try, best first: the explicit one, or a guess from the names and its alternative. */
  private stripLevels(oldName: string | null, newName: string | null): number[] {
    if (this.strip !== undefined) {
      return this.asWrittenFallback && this.strip !== 0 ? [this.strip, 0] : [this.strip];
    }
    const first = (name: string) => (name.includes("/") ? name.slice(0, name.indexOf("/")) : undefined);
    const prefixed =
      oldName !== null && newName !== null
        ? (oldName.startsWith("a/") && newName.startsWith("b/")) ||
          (first(oldName) !== undefined && first(newName) !== undefined && first(oldName) !== first(newName))
        : /^[ab]\//u.test(oldName ?? newName ?? "");
    return prefixed ? [1, 0] : [0, 1];
  }

  private hunks(): ParsedHunk[] {
    const hunks: ParsedHunk[] = [];
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!;
      if (line.startsWith("@@")) {
        const header = parseHunkHeader(line, this.i + 1);
        const patchLine = this.i + 1;
        this.i++;
        hunks.push(this.hunkBody(header, patchLine));
      } else if (hunks.length === 0 && /^[-+ ]/u.test(line) && !startsFileSection(this.lines, this.i)) {
        // Hunk lines right after the file header with no @@ line: one hunk located by its context.
        hunks.push(this.hunkBody({ heading: "" }, this.i + 1));
      } else {
        break;
      }
    }
    return hunks;
  }

  /**
   * Reads a hunk body. With counts, lines are taken until the counts are met; if changed lines
   * follow before the next header, the counts were wrong and the body runs to the next header.
   * Without counts (or when they run past a header), the body runs to the next header, and blank
   * or unprefixed lines at its end are dropped as the prose or padding they usually are.
   */
  private hunkBody(header: HunkHeader, patchLine: number): ParsedHunk {
    const start = this.i;
    const hasCounts = header.oldStart !== undefined;
    let body: BodyLine[] | undefined;
    if (hasCounts) {
      const counted = this.countedBody(header.oldCount!, header.newCount!);
      if (counted) body = counted;
    }
    if (!body) {
      this.i = start;
      body = [];
      while (this.i < this.lines.length && !this.atBoundary(this.i, false)) {
        body.push(this.bodyAt(this.i));
        this.i++;
      }
      // Trailing blank or unprefixed lines say nothing about the place and are often prose.
      let end = body.length;
      while (end > 0 && body[end - 1]!.loose) end--;
      body = body.slice(0, end);
    }
    return this.finishHunk(header, body, patchLine);
  }

  /** The body by the header's counts, or undefined when the counts do not fit the text. */
  private countedBody(oldCount: number, newCount: number): BodyLine[] | undefined {
    const body: BodyLine[] = [];
    let oldSeen = 0;
    let newSeen = 0;
    while (this.i < this.lines.length && (oldSeen < oldCount || newSeen < newCount)) {
      const line = this.lines[this.i]!;
      if (this.atBoundary(this.i, true)) return undefined;
      if (line.startsWith("\\")) {
        body.push(bodyLine(line));
        this.i++;
        continue;
      }
      const parsed = this.bodyAt(this.i);
      // An unprefixed, non-blank line inside counted lines is not a diff line: the counts are off.
      if (parsed.loose && line !== "") return undefined;
      body.push(parsed);
      if (parsed.kind !== "+") oldSeen++;
      if (parsed.kind !== "-") newSeen++;
      this.i++;
    }
    if (oldSeen !== oldCount || newSeen !== newCount) return undefined;
    while (this.i < this.lines.length && this.lines[this.i]!.startsWith("\\")) {
      body.push(bodyLine(this.lines[this.i]!));
      this.i++;
    }
    // Changed lines before the next header or prose mean the counts were too small.
    for (let k = this.i; k < this.lines.length && !this.atBoundary(k, false); k++) {
      const line = this.lines[k]!;
      if (/^[-+]/u.test(line)) return undefined;
      if (line !== "" && !line.startsWith(" ") && !line.startsWith("\\")) break;
    }
    return body;
  }

  /** Lines that end a hunk whatever the counts say; with counts pending, `--- `/`+++ ` may be body. */
  private atBoundary(k: number, countsPending: boolean): boolean {
    const line = this.lines[k]!;
    if (line.startsWith("@@") || line.startsWith("diff --git ") || line.startsWith("Index: ")) return true;
    if (line.startsWith("```") || line.startsWith("*** End Patch")) return true;
    return !countsPending && startsFileSection(this.lines, k);
  }

  private finishHunk(header: HunkHeader, body: BodyLine[], patchLine: number): ParsedHunk {
    const lines: HunkLine[] = [];
    let oldNoNewline = false;
    let newNoNewline = false;
    for (const line of body) {
      if (line.marker) {
        const previous = lines[lines.length - 1];
        if (previous?.kind !== "+") oldNoNewline = true;
        if (previous?.kind !== "-") newNoNewline = true;
        continue;
      }
      lines.push({ kind: line.kind, text: line.text });
      // A marker only counts for the last line of its side; later lines of that side cancel it.
      if (line.kind !== "+") oldNoNewline = false;
      if (line.kind !== "-") newNoNewline = false;
    }
    const oldCount = lines.filter((line) => line.kind !== "+").length;
    const newCount = lines.filter((line) => line.kind !== "-").length;
    const hasCounts = header.oldStart !== undefined;
    return {
      patchLine,
      ...(hasCounts ? { oldStart: header.oldStart!, oldCount } : {}),
      countsRepaired: hasCounts && (oldCount !== header.oldCount || newCount !== header.newCount),
      anchors: !hasCounts && header.heading !== "" ? [header.heading] : [],
      lines,
      atEndOfFile: false,
      oldNoNewline,
      newNoNewline,
    };
  }
}

function bodyLine(line: string): BodyLine {
  if (line.startsWith("\\")) return { kind: " ", text: line, loose: false, marker: true };
  const first = line[0];
  if (first === " " || first === "-" || first === "+") {
    return { kind: first, text: line.slice(1), loose: false, marker: false };
  }
  // A blank line is a context line whose space was trimmed; other lines lost their prefix.
  return { kind: " ", text: line, loose: true, marker: false };
}

function isBinaryMarker(line: string): boolean {
  return line === "GIT binary patch" || /^Binary files .* differ$/u.test(line);
}

function binaryPatch(line: number, text: string): ToolFailure {
  return new ToolFailure(
    "patch_parse_error",
    `Patch line ${line}: binary patches are not supported; found ${JSON.stringify(clip(text, 120))}. Patch text files only.`,
    { line, got: clip(text, MAX_ECHOED_CHARS) },
  );
}

/** The file name of a ---/+++ line: quotes undone, a tab-separated or trailing timestamp dropped. Null for /dev/null. */
export function headerName(raw: string): string | null {
  let name = raw.trim();
  if (name.startsWith('"')) {
    const end = closingQuote(name);
    name = end === -1 ? name : unquote(name.slice(0, end + 1));
  } else {
    name = name.split("\t")[0]!;
    name = name
      .replace(/\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?(\s*[+-]\d{4})?$/u, "")
      .replace(/\s+\((revision \d+|working copy|nonexistent)\)$/u, "")
      .trim();
  }
  return name === "/dev/null" ? null : name;
}

function closingQuote(text: string): number {
  for (let k = 1; k < text.length; k++) {
    if (text[k] === "\\") k++;
    else if (text[k] === '"') return k;
  }
  return -1;
}

/** Undoes git's C-style quoting ("a/f\303\266o.txt"): escapes and octal UTF-8 bytes. */
export function unquote(name: string): string {
  if (!(name.length >= 2 && name.startsWith('"') && name.endsWith('"'))) return name;
  const bytes: number[] = [];
  const body = name.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, f: 12, v: 11, a: 7, '"': 34, "\\": 92 };
  for (let k = 0; k < body.length; k++) {
    const ch = body[k]!;
    if (ch !== "\\") {
      for (const byte of new TextEncoder().encode(ch)) bytes.push(byte);
      continue;
    }
    const next = body[k + 1] ?? "";
    const octal = /^[0-7]{3}/u.exec(body.slice(k + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      k += 3;
    } else if (next in simple) {
      bytes.push(simple[next]!);
      k += 1;
    } else {
      bytes.push(92);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The two names of a `diff --git a/x b/y` line, used when there are no ---/+++ lines. */
function gitLineNames(line: string): [string, string] | undefined {
  const rest = line.slice("diff --git ".length);
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    if (end === -1) return undefined;
    const second = rest.slice(end + 1).trim();
    return [unquote(rest.slice(0, end + 1)), unquote(second)];
  }
  // Equal names: the split is the middle space ("a/x y b/x y").
  if (rest.length % 2 === 1 && rest[(rest.length - 1) / 2] === " ") {
    const left = rest.slice(0, (rest.length - 1) / 2);
    const right = rest.slice((rest.length + 1) / 2);
    if (left.replace(/^[^/]*\//u, "") === right.replace(/^[^/]*\//u, "")) return [left, right];
  }
  const split = / (?=b\/)/u.exec(rest) ?? / (?=")/u.exec(rest) ?? / /u.exec(rest);
  if (!split) return undefined;
  return [rest.slice(0, split.index), unquote(rest.slice(split.index + 1))];
}

/** Removes `level` leading components, always keeping the last one (patch -pN). */
export function stripPath(name: string, level: number): string {
  const parts = name.split("/");
  const drop = Math.min(level, parts.length - 1);
  return parts.slice(drop).join("/");
}
