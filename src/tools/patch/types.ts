import type { WorkspacePath } from "../../core/workspace-path.ts";

/** The two text dialects the engine reads; a text request may name which ones it accepts. */
export type TextPatchFormat = "unified" | "envelope";

/**
 * One structured hunk (coding-agent `file_patch`): lines `start`..`end` of the file, 1-based and
 * inclusive, are replaced by `replace_with`. `end = start - 1` replaces nothing, so it inserts before
 * line `start` (`start = lines + 1` appends). Line numbers always refer to the file as it was before
 * this file's hunks, whatever order they are given in. `replace_with` is text: "a\nb" and "a\nb\n"
 * are both the two lines a and b, "" removes the lines, "\n" is one empty line.
 */
export interface StructuredHunk {
  start: number;
  end: number;
  replace_with: string;
}

/** The structured hunks of one file; a path named twice is patched again on the planned result. */
export interface StructuredFilePatch {
  path: string;
  hunks: StructuredHunk[];
}

/**
 * What a patch tool hands the engine. `text` is a unified diff or a `*** Begin Patch` envelope,
 * auto-detected among `formats` (default both). `strip` is patch's -pN for unified diffs; when it is
 * left out the engine strips git-style `a/` `b/` prefixes and leaves plain names alone.
 * `mode: "gnu-patch"` applies a unified diff as GNU patch does at its default fuzz (src/tools/patch/gnu.ts; -p1 unless `strip` says otherwise)
 * instead of the engine's lenient matching.
 * `fileHash` (hex SHA-256 of the file's current bytes, "sha256:" prefix allowed) guards the single
 * file the patch touches: a patch touching several files with a hash is refused (invalid_params).
 * It is accepted on text requests too, because coding-agent's `file_patch` takes `file_hash` with
 * `diff_text` as well as with `patches`.
 */
export type PatchRequest =
  | {
      kind: "text";
      text: string;
      strip?: number;
      formats?: TextPatchFormat[];
      fileHash?: string;
      mode?: "gnu-patch";
      /** Refuse absolute paths in the patch (patch_parse_error), as a format that says "never absolute" asks. */
      relativePaths?: boolean;
    }
  | { kind: "structured"; patches: StructuredFilePatch[]; fileHash?: string };

/**
 * Where the engine reads the workspace from. `resolve` turns a path named in the patch (Move to and
 * rename targets included) into a checked WorkspacePath, throwing ToolFailure path_escape or
 * symlink_blocked; `read` returns the file's current bytes, or null when it does not exist.
 */
export interface PatchSource {
  resolve(path: string): Promise<WorkspacePath>;
  read(path: WorkspacePath): Promise<Uint8Array | null>;
}

/**
 * One file the plan changes. `before` and `after` are the whole text of `path` itself (null: it
 * does not exist before / after). A moved file is the entry of its new path with `movedFrom` set
 * to where its content came from; the old path has its own entry with `after: null`.
 */
export interface PlannedFile {
  path: string;
  before: string | null;
  after: string | null;
  movedFrom?: string;
}

/** How a hunk's lines were matched: exactly, or after one of the tolerated kinds of drift. */
export type HunkMatch =
  | "exact"
  | "trailing_whitespace"
  | "whitespace"
  | "unicode"
  | "line_counts_repaired"
  | "fuzz";

/**
 * Where one hunk applied. `line` is the 1-based line of the file (before the patch) where its first
 * old line was found (for a pure insertion: the line it was inserted before). `offset` is `line`
 * minus where the `@@` header said, 0 when the hunk has no line numbers. `match` is the matching
 * level; `line_counts_repaired` is reported when the `@@` counts were wrong and the lines matched exactly;
 * `fuzz` when GNU patch's fuzz (`fuzz` context lines left unchecked at the hunk's ends) placed it.
 */
export interface HunkOutcome {
  file: string;
  hunk: number;
  line: number;
  offset: number;
  match: HunkMatch;
  fuzz?: number;
}

/** A checked patch, ready to commit: the files it changes, where each hunk landed, and the real diff. */
export interface PatchPlan {
  format: "unified" | "envelope" | "structured";
  files: PlannedFile[];
  hunks: HunkOutcome[];
  /** Unified diff with a/ b/ prefixes and git headers of what really changes ("" when nothing does). */
  diff: string;
}

/** One hunk that could not be applied, as listed in patch_hunk_fail's `details.rejected_hunks`. */
export interface RejectedHunk {
  file: string;
  hunk: number;
  /** The old side of the hunk: the lines that were sought in the file. */
  expected: string[];
  /** The lines of the file that look most like them, or null when nothing comes close. */
  closest: { line: number; lines: string[] } | null;
  reason: string;
}

// ---- The parsed form shared by the two text parsers and the planner ----

/** A line of a hunk body: context, removed or added, its text without the prefix or line ending. */
export interface HunkLine {
  kind: " " | "-" | "+";
  text: string;
}

/**
 * One hunk as parsed, whichever dialect it came from. `oldStart` is the 1-based line the header
 * names for the old side (absent when the header has no numbers); `anchors` are envelope `@@ text`
 * lines, outermost first. `atEndOfFile` pins the old side to the file's end (`*** End of File`).
 * `oldNoNewline` / `newNoNewline` come from `\ No newline at end of file`.
 */
export interface ParsedHunk {
  patchLine: number;
  oldStart?: number;
  oldCount?: number;
  countsRepaired: boolean;
  anchors: string[];
  lines: HunkLine[];
  atEndOfFile: boolean;
  oldNoNewline: boolean;
  newNoNewline: boolean;
}

/**
 * One file operation of a text patch. `paths` are the candidate names of the file, best first (a
 * unified diff without explicit -pN may be read with or without its first component). `add`
 * applies its hunks to an empty file; `delete` checks its hunks (if any) remove everything.
 * `moveTo` renames (or, with `copy`, copies) the updated content.
 */
export interface FileOperation {
  kind: "add" | "update" | "delete";
  paths: string[];
  moveTo?: string;
  copy?: boolean;
  hunks: ParsedHunk[];
  patchLine: number;
}

/** A parsed text patch. */
export interface ParsedPatch {
  format: TextPatchFormat;
  operations: FileOperation[];
}
