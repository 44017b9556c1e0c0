import { structuredPatch } from "diff";

/** The hunks of a text change, in git's unified format, with git's function-name hunk headers. */
export interface UnifiedHunks {
  text: string;
  additions: number;
  deletions: number;
}

const CONTEXT_LINES = 3;
/** git keeps at most this many bytes of the function line it shows after a hunk header. */
const FUNCNAME_MAX_BYTES = 80;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * git's default function-name rule (xdiff's def_ff): the nearest line above the hunk that starts
 * with a letter, '_' or '$', cut to 80 bytes, trailing whitespace dropped.
 */
function functionLine(oldLines: string[], firstLine: number): string {
  for (let index = firstLine - 1; index >= 0; index--) {
    const line = oldLines[index]!;
    if (!/^[A-Za-z_$]/u.test(line)) continue;
    let bytes = encoder.encode(line);
    if (bytes.length > FUNCNAME_MAX_BYTES) bytes = bytes.subarray(0, FUNCNAME_MAX_BYTES);
    return decoder.decode(bytes).replace(/[\s\uFFFD]+$/u, "");
  }
  return "";
}

function range(start: number, count: number): string {
  const first = count === 0 ? start - 1 : start;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/** Unified hunks between two texts, 3 lines of context, exactly as `git diff` prints them. */
export function unifiedHunks(before: string, after: string): UnifiedHunks {
  const patch = structuredPatch("a", "b", before, after, undefined, undefined, { context: CONTEXT_LINES });
  const oldLines = before.split("\n");
  let text = "";
  let additions = 0;
  let deletions = 0;
  for (const hunk of patch.hunks) {
    const name = hunk.oldLines > 0 ? functionLine(oldLines, hunk.oldStart - 1) : "";
    text += `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@${name ? ` ${name}` : ""}\n`;
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
      text += `${line}\n`;
    }
  }
  return { text, additions, deletions };
}

/** git's binary test: a NUL byte in the first 8,000 bytes. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}
