import type { StructuredFilePatch } from "../types.ts";
import { bare, crlf, type PatchCase, patch, text } from "./case.ts";

const five = text("one", "two", "three", "four", "five");
/** sha256 of `five`'s bytes ("one\ntwo\nthree\nfour\nfive\n"). */
const FIVE_SHA256 = "bd730ce8302e79285f8badd523321160eee75d1023990d6a4f9f703cae7ef184";

function structured(patches: StructuredFilePatch[], fileHash?: string) {
  return { kind: "structured" as const, patches, ...(fileHash === undefined ? {} : { fileHash }) };
}

/** coding-agent `file_patch` structured hunks: 1-based inclusive start..end replaced by replace_with. */
export const structuredCases: PatchCase[] = [
  {
    name: "replace one line",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 2, end: 2, replace_with: "TWO\n" }] }]),
    expect: {
      files: { "f.txt": text("one", "TWO", "three", "four", "five") },
      hunks: [{ file: "f.txt", hunk: 1, line: 2, offset: 0, match: "exact" }],
    },
  },
  {
    name: "replace a range by more lines",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 2, end: 3, replace_with: "a\nb\nc\n" }] }]),
    expect: { files: { "f.txt": text("one", "a", "b", "c", "four", "five") } },
  },
  {
    name: "replace_with without a final newline means the same lines",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 2, end: 3, replace_with: "a\nb" }] }]),
    expect: { files: { "f.txt": text("one", "a", "b", "four", "five") } },
  },
  {
    name: "an empty replace_with deletes the lines",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 2, end: 4, replace_with: "" }] }]),
    expect: { files: { "f.txt": text("one", "five") } },
  },
  {
    name: "replace_with of a single newline is one empty line",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 3, end: 3, replace_with: "\n" }] }]),
    expect: { files: { "f.txt": text("one", "two", "", "four", "five") } },
  },
  {
    name: "end = start - 1 inserts before start",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 3, end: 2, replace_with: "2.5\n" }] }]),
    expect: { files: { "f.txt": text("one", "two", "2.5", "three", "four", "five") } },
  },
  {
    name: "start = lines + 1 appends",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 6, end: 5, replace_with: "six\n" }] }]),
    expect: { files: { "f.txt": text("one", "two", "three", "four", "five", "six") } },
  },
  {
    name: "insertion into an empty file",
    files: { "empty.txt": "" },
    request: structured([{ path: "empty.txt", hunks: [{ start: 1, end: 0, replace_with: "first\n" }] }]),
    expect: { files: { "empty.txt": "first\n" } },
  },
  {
    name: "several hunks use the original numbering (applied bottom-up)",
    files: { "f.txt": five },
    request: structured([
      {
        path: "f.txt",
        hunks: [
          { start: 1, end: 1, replace_with: "1a\n1b\n" },
          { start: 4, end: 4, replace_with: "FOUR\n" },
        ],
      },
    ]),
    expect: { files: { "f.txt": text("1a", "1b", "two", "three", "FOUR", "five") } },
  },
  {
    name: "hunks given out of order",
    files: { "f.txt": five },
    request: structured([
      {
        path: "f.txt",
        hunks: [
          { start: 5, end: 5, replace_with: "FIVE" },
          { start: 1, end: 2, replace_with: "" },
        ],
      },
    ]),
    expect: {
      files: { "f.txt": text("three", "four", "FIVE") },
      hunks: [
        { hunk: 1, line: 5 },
        { hunk: 2, line: 1 },
      ],
    },
  },
  {
    name: "adjacent hunks are fine",
    files: { "f.txt": five },
    request: structured([
      {
        path: "f.txt",
        hunks: [
          { start: 1, end: 2, replace_with: "A\n" },
          { start: 3, end: 3, replace_with: "B\n" },
        ],
      },
    ]),
    expect: { files: { "f.txt": text("A", "B", "four", "five") } },
  },
  {
    name: "an insertion before a replaced line",
    files: { "f.txt": five },
    request: structured([
      {
        path: "f.txt",
        hunks: [
          { start: 2, end: 2, replace_with: "TWO\n" },
          { start: 2, end: 1, replace_with: "1.5\n" },
        ],
      },
    ]),
    expect: { files: { "f.txt": text("one", "1.5", "TWO", "three", "four", "five") } },
  },
  {
    name: "a CRLF file gets CRLF replacement lines",
    files: { "w.txt": crlf("a", "b", "c") },
    request: structured([{ path: "w.txt", hunks: [{ start: 2, end: 2, replace_with: "x\ny\n" }] }]),
    expect: { files: { "w.txt": crlf("a", "x", "y", "c") } },
  },
  {
    name: "CRLF in replace_with on an LF file is written LF",
    files: { "u.txt": text("a", "b") },
    request: structured([{ path: "u.txt", hunks: [{ start: 1, end: 1, replace_with: "x\r\ny\r\n" }] }]),
    expect: { files: { "u.txt": text("x", "y", "b") } },
  },
  {
    name: "a file without final newline keeps it when its last line is replaced",
    files: { "f.txt": bare("a", "b") },
    request: structured([{ path: "f.txt", hunks: [{ start: 2, end: 2, replace_with: "c\n" }] }]),
    expect: { files: { "f.txt": bare("a", "c") } },
  },
  {
    name: "two patches of one path apply in order, the second on the first's result",
    files: { "f.txt": five },
    request: structured([
      { path: "f.txt", hunks: [{ start: 1, end: 1, replace_with: "zero\none\n" }] },
      { path: "f.txt", hunks: [{ start: 6, end: 6, replace_with: "FIVE\n" }] },
    ]),
    expect: { files: { "f.txt": text("zero", "one", "two", "three", "four", "FIVE") } },
  },
  {
    name: "two files in one request",
    files: { "a.txt": text("a"), "b.txt": text("b") },
    request: structured([
      { path: "a.txt", hunks: [{ start: 1, end: 1, replace_with: "A" }] },
      { path: "b.txt", hunks: [{ start: 1, end: 1, replace_with: "B" }] },
    ]),
    expect: { files: { "a.txt": "A\n", "b.txt": "B\n" } },
  },
  {
    name: "file_hash that matches",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 1, end: 1, replace_with: "ONE" }] }], FIVE_SHA256),
    expect: { files: { "f.txt": text("ONE", "two", "three", "four", "five") } },
  },
  {
    name: "file_hash in upper case with a sha256: prefix",
    files: { "f.txt": five },
    request: structured(
      [{ path: "f.txt", hunks: [{ start: 1, end: 1, replace_with: "ONE" }] }],
      `sha256:${FIVE_SHA256.toUpperCase()}`,
    ),
    expect: { files: { "f.txt": text("ONE", "two", "three", "four", "five") } },
  },
  {
    name: "file_hash on a unified diff",
    files: { "f.txt": five },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -1 +1 @@", "-one", "+ONE"), {
      fileHash: FIVE_SHA256,
    }),
    expect: { files: { "f.txt": text("ONE", "two", "three", "four", "five") } },
  },
  // ---- failures ----
  {
    name: "file_hash of an older version of the file",
    files: { "f.txt": five },
    request: structured(
      [{ path: "f.txt", hunks: [{ start: 1, end: 1, replace_with: "ONE" }] }],
      "0".repeat(64),
    ),
    expect: {
      error: {
        code: "hash_mismatch",
        message: ["f.txt has changed since file_hash was taken", `its SHA-256 is now ${FIVE_SHA256}`],
        details: { path: "f.txt", expected: "0".repeat(64), actual: FIVE_SHA256 },
      },
    },
  },
  {
    name: "file_hash on an envelope that changed since",
    files: { "f.txt": five },
    request: patch(text("*** Begin Patch", "*** Update File: f.txt", "-one", "+ONE", "*** End Patch"), {
      fileHash: "a".repeat(64),
    }),
    expect: { error: { code: "hash_mismatch", details: { actual: FIVE_SHA256 } } },
  },
  {
    name: "file_hash that is not a SHA-256",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 1, end: 1, replace_with: "x" }] }], "abc123"),
    expect: { error: { code: "invalid_params", message: ["file_hash must be the hex SHA-256", '"abc123"'] } },
  },
  {
    name: "file_hash with two files",
    files: { "a.txt": "a\n", "b.txt": "b\n" },
    request: structured(
      [
        { path: "a.txt", hunks: [{ start: 1, end: 1, replace_with: "A" }] },
        { path: "b.txt", hunks: [{ start: 1, end: 1, replace_with: "B" }] },
      ],
      FIVE_SHA256,
    ),
    expect: {
      error: {
        code: "invalid_params",
        message: ["file_hash guards a single file", "(a.txt, b.txt)"],
        details: { paths: ["a.txt", "b.txt"] },
      },
    },
  },
  {
    name: "file_hash of a file that does not exist",
    files: {},
    request: structured(
      [{ path: "ghost.txt", hunks: [{ start: 1, end: 0, replace_with: "x" }] }],
      FIVE_SHA256,
    ),
    expect: {
      error: { code: "hash_mismatch", message: ["the file does not exist"], details: { actual: null } },
    },
  },
  {
    name: "a missing file",
    files: {},
    request: structured([{ path: "nope.py", hunks: [{ start: 1, end: 1, replace_with: "x" }] }]),
    expect: { error: { code: "file_not_found", message: ["nope.py does not exist"] } },
  },
  {
    name: "overlapping hunks",
    files: { "f.txt": five },
    request: structured([
      {
        path: "f.txt",
        hunks: [
          { start: 1, end: 3, replace_with: "x" },
          { start: 3, end: 4, replace_with: "y" },
        ],
      },
    ]),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["f.txt hunk 2: lines 3-4 overlap hunk 1 (lines 1-3)"],
        details: { rejected_hunks: [{ file: "f.txt", hunk: 2, expected: ["three", "four"], closest: null }] },
      },
    },
  },
  {
    name: "two insertions at the same place",
    files: { "f.txt": five },
    request: structured([
      {
        path: "f.txt",
        hunks: [
          { start: 2, end: 1, replace_with: "x" },
          { start: 2, end: 1, replace_with: "y" },
        ],
      },
    ]),
    expect: { error: { code: "patch_hunk_fail", message: ["insertion before 2 overlap hunk 1"] } },
  },
  {
    name: "start 0",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 0, end: 1, replace_with: "x" }] }]),
    expect: { error: { code: "patch_hunk_fail", message: ["start 0 is before line 1"] } },
  },
  {
    name: "end past the end of the file",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 4, end: 9, replace_with: "x" }] }]),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["end 9 is past the end of the file, which has 5 lines"],
        details: { rejected_hunks: [{ hunk: 1, expected: ["four", "five"] }] },
      },
    },
  },
  {
    name: "start past the end of the file",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 8, end: 8, replace_with: "x" }] }]),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["start 8 is past the end", "use start 6, end 5 to append"],
      },
    },
  },
  {
    name: "end before start - 1",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 4, end: 2, replace_with: "x" }] }]),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["end 2 is before start 4", "use end 3 to insert before line 4"],
      },
    },
  },
  {
    name: "every bad hunk of every file is listed",
    files: { "a.txt": five, "b.txt": five },
    request: structured([
      {
        path: "a.txt",
        hunks: [
          { start: 0, end: 0, replace_with: "" },
          { start: 1, end: 1, replace_with: "ok" },
        ],
      },
      { path: "b.txt", hunks: [{ start: 7, end: 7, replace_with: "" }] },
    ]),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["2 hunks did not apply"],
        details: {
          rejected_hunks: [
            { file: "a.txt", hunk: 1 },
            { file: "b.txt", hunk: 1 },
          ],
        },
      },
    },
  },
  {
    name: "a non-integer start",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [{ start: 1.5, end: 2, replace_with: "x" }] }]),
    expect: {
      error: { code: "patch_parse_error", message: ["patches[0].hunks[0].start must be an integer"] },
    },
  },
  {
    name: "an empty list of patches",
    files: {},
    request: structured([]),
    expect: { error: { code: "patch_parse_error", message: ["patches must be a non-empty list"] } },
  },
  {
    name: "a file with no hunks",
    files: { "f.txt": five },
    request: structured([{ path: "f.txt", hunks: [] }]),
    expect: { error: { code: "patch_parse_error", message: ["patches[0].hunks must be a non-empty list"] } },
  },
  {
    name: "a path outside the workspace",
    files: {},
    request: structured([{ path: "../../etc/passwd", hunks: [{ start: 1, end: 1, replace_with: "x" }] }]),
    expect: { error: { code: "path_escape" } },
  },
];
