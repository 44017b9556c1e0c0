import { ToolFailure } from "../../core/errors.ts";
import type { WorkspacePath } from "../../core/workspace-path.ts";
import { type AppliedHunks, applyHunks, type DiffHint, oldSide } from "./apply.ts";
import { renderPlanDiff } from "./diff.ts";
import { alreadyExists, fileNotFound, hunkFailure, parseError } from "./failures.ts";
import { applyHunksGnu } from "./gnu.ts";
import { normalizeFileHash, sha256Hex } from "./hash.ts";
import { parsePatchText } from "./parse.ts";
import { applyStructuredHunks, validateStructuredPatches } from "./structured.ts";
import { decodeText, splitLines } from "./text.ts";
import type {
  FileOperation,
  HunkOutcome,
  PatchPlan,
  PatchRequest,
  PatchSource,
  PlannedFile,
  RejectedHunk,
  StructuredHunk,
  TextPatchFormat,
} from "./types.ts";

/**
 * Parses a patch and checks every hunk of every file against the workspace, writing nothing.
 * Operations run in order on the planned content (a file named twice is patched twice; Delete then
 * Add replaces; an Update after a Delete finds no file). Hunks are placed against the file's
 * original lines: numbered ones nearest their header, number-less ones by unique context or after
 * their @@ anchors, with context compared exactly, then ignoring trailing whitespace, then all
 * surrounding whitespace, then common Unicode punctuation. Context lines keep the file's text and
 * line endings; added lines take the file's dominant ending; a file keeps whether it ends with a
 * newline unless a `\ No newline at end of file` marker says otherwise (new envelope files end with
 * one). File-level problems (file_not_found, already_exists, binary_file, not_a_file, path_escape,
 * symlink_blocked, hash_mismatch, patch_parse_error) throw at once; hunks that do not apply are
 * collected over all files and thrown together as patch_hunk_fail. Hunk numbers count from 1 within
 * each file section of the patch.
 */
export async function planPatch(request: PatchRequest, source: PatchSource): Promise<PatchPlan> {
  const planner = new Planner(source);
  if (request.kind === "structured") {
    validateStructuredPatches(request.patches);
    if (request.fileHash !== undefined) {
      await planner.checkHash(
        request.fileHash,
        request.patches.map((patch) => [patch.path]),
      );
    }
    for (const patch of request.patches) await planner.structured(patch.path, patch.hunks);
    return planner.finish("structured");
  }
  if (request.kind !== "text" || typeof request.text !== "string") {
    throw new ToolFailure(
      "invalid_params",
      "A patch request is {kind: 'text', text} or {kind: 'structured', patches}.",
    );
  }
  const gnu = request.mode === "gnu-patch";
  const parsed = parsePatchText(request.text, {
    ...(request.strip === undefined ? {} : { strip: request.strip }),
    ...(request.formats === undefined ? {} : { formats: request.formats }),
    // patch -p1 reads names its way first; a name that only exists as written is still found.
    ...(gnu ? { strip: request.strip ?? 1, keepCarriageReturns: true, asWrittenFallback: true } : {}),
  });
  if (gnu) {
    planner.gnu = true;
    checkGnuHunks(parsed.operations);
  }
  if (request.relativePaths) checkRelativePaths(parsed.operations);
  planner.envelope = parsed.format === "envelope";
  if (request.fileHash !== undefined) {
    await planner.checkHash(
      request.fileHash,
      parsed.operations.map((op) => op.paths),
    );
  }
  for (const op of parsed.operations) await planner.operation(op, parsed.format);
  return planner.finish(parsed.format);
}

/** One path of the workspace as the plan sees it: as it was, and as the patch leaves it so far. */
interface Entry {
  path: WorkspacePath;
  bytes: Uint8Array | null;
  before: string | null;
  current: string | null;
  movedFrom?: string;
  /** How many operations changed it; the diff can reuse `hint` only when exactly one did. */
  changes: number;
  hint?: DiffHint | undefined;
}

class Planner {
  private readonly entries = new Map<string, Entry>();
  private readonly outcomes: HunkOutcome[] = [];
  private readonly rejected: RejectedHunk[] = [];
  /** Hunks are placed and written as GNU patch does (src/tools/patch/gnu.ts). */
  gnu = false;
  /** An envelope reads files as Codex does: a lone CR ends a line too. */
  envelope = false;

  constructor(private readonly source: PatchSource) {}

  /** The entry of a path named in the patch: resolved (path_escape, symlink_blocked) and read once. */
  private async entry(name: string): Promise<Entry> {
    const path = await this.source.resolve(name);
    if (path.relative === "") {
      throw new ToolFailure(
        "not_a_file",
        `${JSON.stringify(name)} is the workspace folder itself, not a file.`,
        {
          path: name,
        },
      );
    }
    const known = this.entries.get(path.relative);
    if (known) return known;
    const bytes = await this.source.read(path);
    const text = bytes === null ? null : decodeText(bytes, path.relative);
    const entry: Entry = { path, bytes, before: text, current: text, changes: 0 };
    this.entries.set(path.relative, entry);
    return entry;
  }

  /** The first candidate name whose file exists (as planned so far), else the first one. */
  private async pick(names: readonly string[]): Promise<Entry> {
    let first: Entry | undefined;
    for (const [k, name] of names.entries()) {
      let entry: Entry;
      try {
        entry = await this.entry(name);
      } catch (error) {
        // Only the preferred reading of a name may fail the patch; alternatives are guesses.
        if (k === 0) throw error;
        continue;
      }
      first ??= entry;
      if (entry.current !== null) return entry;
    }
    if (!first) throw new ToolFailure("patch_parse_error", "A file section of the patch names no file.");
    return first;
  }

  /**
   * file_hash guards the one file the patch reads. Several files with one hash is refused rather
   * than guessing which file the hash was taken of.
   */
  async checkHash(hash: string, names: readonly (readonly string[])[]): Promise<void> {
    const expected = normalizeFileHash(hash);
    const entries = new Set<Entry>();
    for (const candidates of names) entries.add(await this.pick(candidates));
    if (entries.size !== 1) {
      const paths = [...entries].map((entry) => entry.path.relative);
      throw new ToolFailure(
        "invalid_params",
        `file_hash guards a single file, but this patch touches ${paths.length} files (${paths.join(", ")}). Send one file per patch, or leave file_hash out.`,
        { paths },
      );
    }
    const [entry] = [...entries] as [Entry];
    const actual = entry.bytes === null ? null : await sha256Hex(entry.bytes);
    if (actual !== expected) {
      const now = actual === null ? "the file does not exist" : `its SHA-256 is now ${actual}`;
      throw new ToolFailure(
        "hash_mismatch",
        `${entry.path.relative} has changed since file_hash was taken: file_hash is ${expected}, ${now}. Re-read the file and patch its current content.`,
        { path: entry.path.relative, expected, actual },
      );
    }
  }

  async operation(op: FileOperation, format: TextPatchFormat): Promise<void> {
    const entry = await this.pick(op.paths);
    const name = entry.path.relative;
    const destination = op.moveTo === undefined ? undefined : await this.entry(op.moveTo);
    if (op.kind === "add" || (op.kind === "update" && entry.current === null && createsFile(op))) {
      // Codex's Add File writes the file whether or not it exists; a unified diff from /dev/null may not.
      if (entry.current !== null && format !== "envelope") {
        throw alreadyExists(
          name,
          "Patch it with a diff against its current content ('--- a/path'), or delete it first.",
        );
      }
      const result = this.apply(name, "", op.hunks);
      if (result) this.set(entry, result.text, result.hint);
      return;
    }
    if (entry.current === null) {
      throw fileNotFound(
        name,
        op.kind === "delete"
          ? "There is nothing to delete."
          : format === "envelope"
            ? "Check the path, or use '*** Add File:' to create it."
            : "Check the path (and -p), or use '--- /dev/null' with '+++ b/path' to create it.",
      );
    }
    if (op.kind === "delete") {
      if (op.hunks.length > 0) {
        const result = this.apply(name, entry.current, op.hunks);
        if (!result) return;
        if (result.text !== "") {
          const left = splitLines(result.text).lines;
          const last = op.hunks[op.hunks.length - 1]!;
          this.rejected.push({
            file: name,
            hunk: op.hunks.length,
            expected: oldSide(last.lines),
            closest: { line: 1, lines: left.slice(0, 12) },
            reason: `the patch deletes the file but its hunks leave ${left.length} line${left.length === 1 ? "" : "s"} (shown as closest); a deletion must remove every line`,
          });
          return;
        }
      }
      this.set(entry, null);
      return;
    }
    const pristine = entry.changes === 0;
    const result: { text: string; hint?: DiffHint | undefined } | undefined =
      op.hunks.length > 0 ? this.apply(name, entry.current, op.hunks) : { text: entry.current };
    if (!result) return;
    if (destination && destination !== entry) {
      // As in Codex, an envelope's Move to replaces a file already there; a git rename does not.
      if (destination.current !== null && format !== "envelope") {
        throw alreadyExists(
          destination.path.relative,
          `Moving ${name} there would overwrite it; delete it first or choose another path.`,
        );
      }
      destination.current = result.text;
      destination.movedFrom = name;
      destination.changes++;
      destination.hint = pristine && destination.changes === 1 ? result.hint : undefined;
      if (!op.copy) this.set(entry, null);
      return;
    }
    this.set(entry, result.text, result.hint);
  }

  async structured(path: string, hunks: readonly StructuredHunk[]): Promise<void> {
    const entry = await this.entry(path);
    const name = entry.path.relative;
    if (entry.current === null) {
      throw fileNotFound(name, "Structured hunks change existing files; create new files with a file write.");
    }
    const result = this.record(name, applyStructuredHunks(splitLines(entry.current), hunks));
    if (result) this.set(entry, result.text, result.hint);
  }

  private apply(name: string, text: string, hunks: FileOperation["hunks"]): AppliedHunks | undefined {
    if (this.gnu) return this.record(name, applyHunksGnu(text, hunks));
    return this.record(name, applyHunks(splitLines(text, this.envelope), hunks));
  }

  private record(name: string, result: AppliedHunks): AppliedHunks | undefined {
    for (const placed of result.placed) this.outcomes.push({ file: name, ...placed });
    for (const rejected of result.rejected) this.rejected.push({ file: name, ...rejected });
    return result.rejected.length > 0 ? undefined : result;
  }

  private set(entry: Entry, text: string | null, hint?: DiffHint): void {
    entry.current = text;
    entry.changes++;
    entry.hint = entry.changes === 1 ? hint : undefined;
  }

  finish(format: PatchPlan["format"]): PatchPlan {
    if (this.rejected.length > 0) throw hunkFailure(this.rejected);
    const files: PlannedFile[] = [];
    const hints = new Map<string, DiffHint>();
    for (const entry of this.entries.values()) {
      if (entry.current === entry.before && entry.movedFrom === undefined) continue;
      const file: PlannedFile = { path: entry.path.relative, before: entry.before, after: entry.current };
      if (entry.movedFrom !== undefined) file.movedFrom = entry.movedFrom;
      files.push(file);
      if (entry.hint) hints.set(file.path, entry.hint);
    }
    return { format, files, hunks: this.outcomes, diff: renderPlanDiff(files, hints) };
  }
}

/**
 * GNU patch reads a hunk by its `@@ -l,n +l,n @@` numbers and calls one without a changed line
 * malformed: such hunks are refused before anything is sought.
 */
function checkGnuHunks(operations: readonly FileOperation[]): void {
  for (const op of operations) {
    for (const hunk of op.hunks) {
      if (hunk.oldStart === undefined) {
        throw parseError(
          hunk.patchLine,
          "a hunk header with line numbers, '@@ -l,n +l,n @@' (patch -p1 places hunks by them)",
          undefined,
        );
      }
      if (hunk.lines.every((line) => line.kind === " ")) {
        throw parseError(
          hunk.patchLine,
          "a hunk with at least one '-' or '+' line (patch calls a hunk of context only malformed)",
          undefined,
        );
      }
    }
  }
}

/** Refuses absolute paths in a patch whose format asks for relative ones (baseagent: "never absolute"). */
function checkRelativePaths(operations: readonly FileOperation[]): void {
  for (const op of operations) {
    for (const path of [op.paths[0], op.moveTo]) {
      if (path === undefined || !/^(?:[/\\]|[a-z]:)/iu.test(path)) continue;
      throw new ToolFailure(
        "patch_parse_error",
        `Patch line ${op.patchLine}: paths in a patch are relative to the workspace, never absolute; found ${JSON.stringify(path)}. Write it as ${JSON.stringify(path.replace(/^(?:[a-z]:)?[/\\]+(?:workspace[/\\]+)?/iu, "") || "file.txt")}.`,
        { line: op.patchLine, path },
      );
    }
  }
}

/** A unified "update" of a missing file whose hunks only add lines at the top: GNU patch creates the file. */
function createsFile(op: FileOperation): boolean {
  return (
    op.hunks.length > 0 && op.hunks.every((hunk) => hunk.oldStart === 0 && oldSide(hunk.lines).length === 0)
  );
}
