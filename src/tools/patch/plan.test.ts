import { describe, expect, it } from "vitest";
import { ToolFailure } from "../../core/errors.ts";
import type { WorkspacePath } from "../../core/workspace-path.ts";
import { planPatch } from "./plan.ts";
import { mapSource } from "./testing/memory.ts";
import type { PatchSource } from "./types.ts";

/** A map source that records every call, to check what planning asks for. */
function recordingSource(files: Record<string, string>): { source: PatchSource; calls: string[] } {
  const inner = mapSource(new Map(Object.entries(files)));
  const calls: string[] = [];
  return {
    calls,
    source: {
      resolve: (path) => {
        calls.push(`resolve ${path}`);
        return inner.resolve(path);
      },
      read: (path: WorkspacePath) => {
        calls.push(`read ${path.relative}`);
        return inner.read(path);
      },
    },
  };
}

describe("planPatch", () => {
  it("returns the files, where each hunk landed, and the diff of what changes", async () => {
    const plan = await planPatch(
      { kind: "text", text: "--- a/a.txt\n+++ b/a.txt\n@@ -2,1 +2,1 @@\n-two\n+TWO\n" },
      mapSource(new Map([["a.txt", "one\ntwo\nthree\n"]])),
    );
    expect(plan).toEqual({
      format: "unified",
      files: [{ path: "a.txt", before: "one\ntwo\nthree\n", after: "one\nTWO\nthree\n" }],
      hunks: [{ file: "a.txt", hunk: 1, line: 2, offset: 0, match: "exact" }],
      diff: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
    });
  });

  it("resolves every path it names, Move to included, and reads each file once", async () => {
    const { source, calls } = recordingSource({ "a.txt": "x\n" });
    await planPatch(
      {
        kind: "text",
        text: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n-x\n+y\n*** Update File: b.txt\n-y\n+z\n*** End Patch\n",
      },
      source,
    );
    expect(calls).toEqual(["resolve a.txt", "read a.txt", "resolve b.txt", "read b.txt", "resolve b.txt"]);
  });

  it("plans a move as the old path deleted and the new path created from it", async () => {
    const plan = await planPatch(
      {
        kind: "text",
        text: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n-x\n+y\n*** End Patch",
      },
      mapSource(new Map([["a.txt", "x\n"]])),
    );
    expect(plan.files).toEqual([
      { path: "a.txt", before: "x\n", after: null },
      { path: "b.txt", before: null, after: "y\n", movedFrom: "a.txt" },
    ]);
    expect(plan.diff).toBe(
      "diff --git a/a.txt b/b.txt\nrename from a.txt\nrename to b.txt\n--- a/a.txt\n+++ b/b.txt\n@@ -1,1 +1,1 @@\n-x\n+y\n",
    );
  });

  it("plans a git copy as a new file and leaves the source alone", async () => {
    const plan = await planPatch(
      { kind: "text", text: "diff --git a/a b/c\ncopy from a\ncopy to c\n" },
      mapSource(new Map([["a", "x\n"]])),
    );
    expect(plan.files).toEqual([{ path: "c", before: null, after: "x\n", movedFrom: "a" }]);
  });

  it("lists hunk outcomes file by file, in patch order", async () => {
    const plan = await planPatch(
      {
        kind: "text",
        text: "*** Begin Patch\n*** Update File: b\n-1\n+one\n*** Add File: c\n+new\n*** Update File: a\n@@\n-x\n+X\n@@\n-z\n+Z\n*** End Patch",
      },
      mapSource(
        new Map([
          ["a", "x\ny\nz\n"],
          ["b", "1\n"],
        ]),
      ),
    );
    expect(plan.hunks.map((h) => `${h.file}#${h.hunk}@${h.line}`)).toEqual([
      "b#1@1",
      "c#1@1",
      "a#1@1",
      "a#2@3",
    ]);
  });

  it("stops at the first path that escapes, even when hunks would fail too", async () => {
    await expect(
      planPatch(
        {
          kind: "text",
          text: "*** Begin Patch\n*** Update File: a\n*** Move to: ../b\n-nope\n+x\n*** End Patch",
        },
        mapSource(new Map([["a", "a\n"]])),
      ),
    ).rejects.toMatchObject({ code: "path_escape" });
  });

  it("passes on the resolver's symlink_blocked", async () => {
    const source: PatchSource = {
      resolve: async (path) => {
        throw new ToolFailure("symlink_blocked", `${path} goes through a symlink`);
      },
      read: async () => null,
    };
    await expect(
      planPatch({ kind: "text", text: "--- a/l\n+++ b/l\n@@ -1 +1 @@\n-a\n+b\n" }, source),
    ).rejects.toMatchObject({
      code: "symlink_blocked",
    });
  });

  it("refuses a path that is the workspace folder itself", async () => {
    await expect(
      planPatch(
        { kind: "text", text: "*** Begin Patch\n*** Add File: .\n+x\n*** End Patch" },
        mapSource(new Map()),
      ),
    ).rejects.toMatchObject({ code: "not_a_file" });
  });

  it("refuses file_hash on a text patch that touches two files", async () => {
    await expect(
      planPatch(
        {
          kind: "text",
          text: "*** Begin Patch\n*** Delete File: a\n*** Delete File: b\n*** End Patch",
          fileHash: "0".repeat(64),
        },
        mapSource(
          new Map([
            ["a", ""],
            ["b", ""],
          ]),
        ),
      ),
    ).rejects.toMatchObject({ code: "invalid_params", details: { paths: ["a", "b"] } });
  });

  it("honours formats: an envelope is refused where only unified diffs are accepted", async () => {
    await expect(
      planPatch(
        { kind: "text", text: "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch", formats: ["unified"] },
        mapSource(new Map()),
      ),
    ).rejects.toMatchObject({ code: "patch_parse_error" });
  });

  it("refuses a request of an unknown kind", async () => {
    await expect(planPatch({ kind: "json" } as never, mapSource(new Map()))).rejects.toMatchObject({
      code: "invalid_params",
    });
  });

  it("never writes: the source is only resolved and read", async () => {
    const { source, calls } = recordingSource({ "a.txt": "x\n" });
    await planPatch({ kind: "text", text: "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch" }, source);
    expect(calls.every((call) => call.startsWith("resolve ") || call.startsWith("read "))).toBe(true);
  });

  it("reports 500 failing hunks of a 50,000-line file, every one, in well under the 10 s patch deadline", async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) =>
      i % 4 === 3 ? "}" : `value_${i} = compute(${i})`,
    );
    const hunks: string[] = [];
    for (let k = 0; k < 500; k++)
      hunks.push(`@@ -${k * 100 + 1},2 +${k * 100 + 1},2 @@`, ` nothing_like_${k}`, `-gone ${k}`, "+x");
    const started = performance.now();
    const failure = await planPatch(
      { kind: "text", text: `--- a/big.py\n+++ b/big.py\n${hunks.join("\n")}\n` },
      mapSource(new Map([["big.py", `${lines.join("\n")}\n`]])),
    ).catch((error: unknown) => error);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(failure).toMatchObject({
      code: "patch_hunk_fail",
      message: expect.stringContaining("500 hunks did not apply"),
    });
    expect((failure as ToolFailure).details?.rejected_hunks).toHaveLength(500);
  });
});
