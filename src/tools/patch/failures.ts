import { ToolFailure } from "../../core/errors.ts";
import type { RejectedHunk } from "./types.ts";

/** Most lines of one listing in a message; details carry them all. */
const MAX_LISTED_LINES = 12;
/** Most rejected hunks described in a message; details list every one. */
const MAX_LISTED_HUNKS = 10;

/** Most of an offending patch line that details echo back. */
export const MAX_ECHOED_CHARS = 1000;

/** patch_parse_error naming the patch line, what was expected there and what was found. */
export function parseError(line: number, expected: string, got?: string): ToolFailure {
  const found = got === undefined ? "the end of the patch" : JSON.stringify(clip(got, 120));
  return new ToolFailure("patch_parse_error", `Patch line ${line}: expected ${expected}, found ${found}.`, {
    line,
    expected,
    // What was found, clipped: a 40 MB line echoed back made a 40 MB answer.
    got: got === undefined ? null : clip(got, MAX_ECHOED_CHARS),
  });
}

export function fileNotFound(path: string, advice: string): ToolFailure {
  return new ToolFailure("file_not_found", `${path} does not exist. ${advice}`, { path });
}

export function alreadyExists(path: string, advice: string): ToolFailure {
  return new ToolFailure("already_exists", `${path} already exists. ${advice}`, { path });
}

/**
 * patch_hunk_fail listing every hunk that did not apply: file, hunk number, why, the lines sought
 * and the closest lines found. Nothing has been written when this is thrown.
 */
export function hunkFailure(rejected: RejectedHunk[]): ToolFailure {
  const count = rejected.length;
  const parts = [
    `${count} hunk${count === 1 ? "" : "s"} did not apply, so no file was changed.`,
    ...rejected.slice(0, MAX_LISTED_HUNKS).map(describe),
  ];
  if (count > MAX_LISTED_HUNKS) parts.push(`…and ${count - MAX_LISTED_HUNKS} more (see rejected_hunks).`);
  parts.push(
    "Re-read the file and resend the whole patch with context and removed lines copied exactly from its current content.",
  );
  return new ToolFailure("patch_hunk_fail", parts.join("\n"), { rejected_hunks: rejected });
}

function describe(hunk: RejectedHunk): string {
  const lines = [`${hunk.file} hunk ${hunk.hunk}: ${hunk.reason}.`];
  if (hunk.expected.length > 0) lines.push("  Sought:", ...listing(hunk.expected));
  if (hunk.closest) lines.push(`  Closest (line ${hunk.closest.line}):`, ...listing(hunk.closest.lines));
  else if (hunk.expected.length > 0) lines.push("  No similar lines were found.");
  return lines.join("\n");
}

function listing(lines: readonly string[]): string[] {
  const shown = lines.slice(0, MAX_LISTED_LINES).map((line) => `    |${clip(line, 160)}`);
  if (lines.length > MAX_LISTED_LINES) shown.push(`    …(${lines.length - MAX_LISTED_LINES} more lines)`);
  return shown;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
