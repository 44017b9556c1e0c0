import { formatPatch, structuredPatch } from "diff";
import { describe, expect, it } from "vitest";
import { applyHunks } from "./apply.ts";
import { diffHunks, renderPlanDiff, windowedHunks } from "./diff.ts";
import { planPatch } from "./plan.ts";
import { mapSource } from "./testing/memory.ts";
import { splitLines } from "./text.ts";
import type { ParsedHunk } from "./types.ts";

function hunk(lines: ParsedHunk["lines"], oldStart?: number): ParsedHunk {
  return {
    patchLine: 1,
    ...(oldStart === undefined ? {} : { oldStart, oldCount: lines.filter((l) => l.kind !== "+").length }),
    countsRepaired: false,
    anchors: [],
    lines,
    atEndOfFile: false,
    oldNoNewline: false,
    newNoNewline: false,
  };
}

/** A deterministic pseudo-random sequence, so the test is the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** A random file and random hunks against it (context line, some removed, some added). */
function randomEdit(next: () => number, round: number, repeated: boolean) {
  const size = 20 + Math.floor(next() * 200);
  const lines = Array.from({ length: size }, (_, i) => (repeated && next() < 0.3 ? "}" : `line ${i}`));
  const before = lines.join("\n") + (next() < 0.3 ? "" : "\n");
  const hunks: ParsedHunk[] = [];
  for (let at = Math.floor(next() * 10); at < size - 2; at += 3 + Math.floor(next() * 30)) {
    const parsedLines: ParsedHunk["lines"] = [{ kind: " ", text: lines[at]! }];
    const removed = Math.floor(next() * 3);
    for (let k = 1; k <= removed && at + k < size; k++) parsedLines.push({ kind: "-", text: lines[at + k]! });
    const added = Math.floor(next() * 3);
    for (let k = 0; k < added; k++)
      parsedLines.push({ kind: "+", text: repeated && k === 0 ? "}" : `new ${round}.${at}.${k}` });
    hunks.push(hunk(parsedLines, at + 1));
  }
  const applied = applyHunks(splitLines(before), hunks);
  expect(applied.rejected).toEqual([]);
  return { before, after: applied.text, hint: applied.hint };
}

const format = (hunks: ReturnType<typeof diffHunks>) =>
  formatPatch({ oldFileName: "a/f", newFileName: "b/f", oldHeader: undefined, newHeader: undefined, hunks });

describe("diffHunks", () => {
  it("windowed around known edits, equals the whole-file diff when lines are unique", () => {
    const next = random(7);
    for (let round = 0; round < 40; round++) {
      const { before, after, hint } = randomEdit(next, round, false);
      const whole = structuredPatch("", "", before, after, undefined, undefined, { context: 3 }).hunks;
      expect(format(diffHunks(before, after, hint))).toBe(format(whole));
    }
  });

  it("with repeated lines, gives hunks with full context that turn before into after", async () => {
    const next = random(11);
    let tooNarrow = 0;
    for (let round = 0; round < 60; round++) {
      const { before, after, hint } = randomEdit(next, round, true);
      // A margin of 3 alone is often too narrow here: it must be noticed, never give short hunks.
      const narrow = windowedHunks(hint!, [3]);
      if (narrow === undefined) tooNarrow++;
      const hunks = narrow ?? diffHunks(before, after, hint);
      const beforeLines = splitLines(before).lines.length;
      for (const h of hunks) {
        const lead = h.lines.findIndex((line) => !line.startsWith(" "));
        expect(lead === 3 || h.oldStart - 1 === 0 || lead === h.oldStart - 1).toBe(true);
        const tail = [...h.lines]
          .reverse()
          .filter((l) => !l.startsWith("\\"))
          .findIndex((line) => !line.startsWith(" "));
        expect(tail === 3 || h.oldStart - 1 + h.oldLines === beforeLines).toBe(true);
      }
      const replay = await planPatch(
        { kind: "text", text: format(hunks), formats: ["unified"] },
        mapSource(new Map([["f", before]])),
      );
      expect(replay.files[0]?.after).toBe(after);
      expect(replay.hunks.every((h) => h.match === "exact" && h.offset === 0)).toBe(true);
    }
    expect(tooNarrow).toBeGreaterThan(0);
  });

  it("writes creations and deletions without diffing, no-newline marker included", () => {
    expect(diffHunks("", "a\nb")).toEqual([
      {
        oldStart: 1,
        oldLines: 0,
        newStart: 1,
        newLines: 2,
        lines: ["+a", "+b", "\\ No newline at end of file"],
      },
    ]);
    expect(diffHunks("x\r\n", "")).toEqual([
      { oldStart: 1, oldLines: 1, newStart: 1, newLines: 0, lines: ["-x\r"] },
    ]);
  });
});

describe("renderPlanDiff", () => {
  it("writes git-style sections: change, creation, deletion, rename", () => {
    const diff = renderPlanDiff(
      [
        { path: "a.txt", before: "1\n2\n", after: "1\n3\n" },
        { path: "new.txt", before: null, after: "hello\n" },
        { path: "gone.txt", before: "bye\n", after: null },
        { path: "old.txt", before: "same\n", after: null },
        { path: "moved.txt", before: null, after: "same\n", movedFrom: "old.txt" },
      ],
      new Map(),
    );
    expect(diff).toBe(
      [
        "diff --git a/a.txt b/a.txt",
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1,2 +1,2 @@",
        " 1",
        "-2",
        "+3",
        "diff --git a/new.txt b/new.txt",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/new.txt",
        "@@ -0,0 +1,1 @@",
        "+hello",
        "diff --git a/gone.txt b/gone.txt",
        "deleted file mode 100644",
        "--- a/gone.txt",
        "+++ /dev/null",
        "@@ -1,1 +0,0 @@",
        "-bye",
        "diff --git a/old.txt b/moved.txt",
        "rename from old.txt",
        "rename to moved.txt",
        "",
      ].join("\n"),
    );
  });

  it("writes a copy (the source stays) as a creation", () => {
    const diff = renderPlanDiff(
      [{ path: "copy.txt", before: null, after: "x\n", movedFrom: "base.txt" }],
      new Map(),
    );
    expect(diff).toContain("new file mode 100644\n--- /dev/null\n+++ b/copy.txt\n@@ -0,0 +1,1 @@\n+x\n");
  });

  it("gives an empty file's creation and deletion the index line GNU patch needs", () => {
    const diff = renderPlanDiff(
      [
        { path: "new", before: null, after: "" },
        { path: "old", before: "", after: null },
      ],
      new Map(),
    );
    expect(diff).toBe(
      "diff --git a/new b/new\nnew file mode 100644\nindex 0000000..e69de29\n" +
        "diff --git a/old b/old\ndeleted file mode 100644\nindex e69de29..0000000\n",
    );
  });

  it("ends ---/+++ names that contain a space with a tab, as git does for GNU patch", () => {
    const diff = renderPlanDiff([{ path: "my dir/a b.txt", before: "x\n", after: "y\n" }], new Map());
    expect(diff).toContain("--- a/my dir/a b.txt\t\n+++ b/my dir/a b.txt\t\n@@ -1,1 +1,1 @@\n");
  });

  it("is empty when nothing changes", () => {
    expect(renderPlanDiff([], new Map())).toBe("");
  });
});
