import { describe, expect, it } from "vitest";
import { headerName, parseHunkHeader, parseUnified, stripPath, unquote } from "./unified.ts";

function only(text: string, strip?: number) {
  const parsed = parseUnified(text, strip === undefined ? {} : { strip });
  expect(parsed.operations).toHaveLength(1);
  return parsed.operations[0]!;
}

describe("header names", () => {
  it("drops tab-separated and trailing timestamps", () => {
    expect(headerName("a/x.py\t2024-01-01 10:00:00.000000000 +0000")).toBe("a/x.py");
    expect(headerName("x.py 2024-01-01 10:00:00 +0100")).toBe("x.py");
    expect(headerName("x.py\t(revision 42)")).toBe("x.py");
  });

  it("keeps spaces inside names", () => {
    expect(headerName("a/my file.txt")).toBe("a/my file.txt");
  });

  it("reads /dev/null as no file", () => {
    expect(headerName("/dev/null")).toBeNull();
  });

  it("undoes git quoting, octal bytes included", () => {
    expect(unquote('"a/tab\\there"')).toBe("a/tab\there");
    expect(unquote('"a/\\303\\251t\\303\\251.txt"')).toBe("a/été.txt");
    expect(headerName('"b/with \\"quotes\\".txt"\t2024-01-01')).toBe('b/with "quotes".txt');
  });

  it("strips -pN components but never the last one", () => {
    expect(stripPath("a/src/x.py", 1)).toBe("src/x.py");
    expect(stripPath("a/src/x.py", 5)).toBe("x.py");
    expect(stripPath("x.py", 0)).toBe("x.py");
  });
});

describe("hunk headers", () => {
  it("reads numbers, default counts and the section heading", () => {
    expect(parseHunkHeader("@@ -12,7 +12,8 @@ def foo():", 1)).toEqual({
      oldStart: 12,
      oldCount: 7,
      newCount: 8,
      heading: "def foo():",
    });
    expect(parseHunkHeader("@@ -3 +3 @@", 1)).toEqual({ oldStart: 3, oldCount: 1, newCount: 1, heading: "" });
    expect(parseHunkHeader("@@ -1,2 +1,3", 1)).toMatchObject({ oldStart: 1, oldCount: 2, newCount: 3 });
  });

  it("accepts headers without numbers", () => {
    expect(parseHunkHeader("@@ @@", 1)).toEqual({ heading: "" });
    expect(parseHunkHeader("@@", 1)).toEqual({ heading: "" });
    expect(parseHunkHeader("@@ ... @@", 1)).toEqual({ heading: "" });
    expect(parseHunkHeader("@@ class Foo: @@", 1)).toEqual({ heading: "class Foo:" });
  });

  it("refuses malformed numbers, naming the patch line", () => {
    expect(() => parseHunkHeader("@@ -a,b +c,d @@", 9)).toThrow(/Patch line 9: expected a hunk header/u);
  });
});

describe("parseUnified", () => {
  it("strips a/ b/ by default and offers the unstripped name as an alternative", () => {
    expect(only("--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n").paths).toEqual([
      "src/x.py",
      "a/src/x.py",
      "b/src/x.py",
    ]);
  });

  it("keeps plain names and offers the stripped one as an alternative", () => {
    expect(only("--- src/x.py\n+++ src/x.py\n@@ -1 +1 @@\n-a\n+b\n").paths).toEqual(["src/x.py", "x.py"]);
  });

  it("uses only the explicit -p level when one is given", () => {
    expect(only("--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n", 2).paths).toEqual(["x.py"]);
  });

  it("reads counts, lines and no-newline markers", () => {
    const op = only(
      "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
    );
    expect(op.hunks).toEqual([
      {
        patchLine: 3,
        oldStart: 1,
        oldCount: 2,
        countsRepaired: false,
        anchors: [],
        lines: [
          { kind: " ", text: "a" },
          { kind: "-", text: "b" },
          { kind: "+", text: "c" },
        ],
        atEndOfFile: false,
        oldNoNewline: true,
        newNoNewline: true,
      },
    ]);
  });

  it("keeps '--- ' and '+++ ' lines inside a hunk whose counts are not met yet", () => {
    const op = only(
      "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n select 1;\n",
    );
    expect(op.hunks[0]!.lines).toEqual([
      { kind: "-", text: "-- old comment" },
      { kind: "+", text: "++ new comment" },
      { kind: " ", text: "select 1;" },
    ]);
    expect(op.hunks[0]!.countsRepaired).toBe(false);
  });

  it("recounts a hunk whose counts are wrong and says so", () => {
    const op = only("--- a/f\n+++ b/f\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n");
    expect(op.hunks[0]).toMatchObject({ oldCount: 2, countsRepaired: true });
  });

  it("drops blank and unprefixed lines at the end of a recounted hunk", () => {
    const op = only("--- a/f\n+++ b/f\n@@ @@\n a\n-b\n+c\n\nThat is all.\n");
    expect(op.hunks[0]!.lines).toHaveLength(3);
  });

  it("turns git renames, copies, creations and deletions into operations", () => {
    const parsed = parseUnified(
      [
        "diff --git a/old.txt b/new.txt",
        "similarity index 100%",
        "rename from old.txt",
        "rename to new.txt",
        "diff --git a/base b/copy",
        "copy from base",
        "copy to copy",
        "diff --git a/n.txt b/n.txt",
        "new file mode 100644",
        "diff --git a/d.txt b/d.txt",
        "deleted file mode 100644",
        "diff --git a/m.sh b/m.sh",
        "old mode 100644",
        "new mode 100755",
        "",
      ].join("\n"),
    );
    expect(parsed.operations.map(({ kind, paths, moveTo, copy }) => ({ kind, paths, moveTo, copy }))).toEqual(
      [
        { kind: "update", paths: ["old.txt"], moveTo: "new.txt", copy: undefined },
        { kind: "update", paths: ["base"], moveTo: "copy", copy: true },
        { kind: "add", paths: ["n.txt"], moveTo: undefined, copy: undefined },
        { kind: "delete", paths: ["d.txt", "a/d.txt"], moveTo: undefined, copy: undefined },
      ],
    );
  });

  it("reads names from the diff --git line when they contain spaces", () => {
    const parsed = parseUnified("diff --git a/my file.txt b/my file.txt\nnew file mode 100644\n");
    expect(parsed.operations[0]!.paths).toEqual(["my file.txt"]);
  });

  it("needs a file header with at least one real name", () => {
    expect(() => parseUnified("--- /dev/null\n+++ /dev/null\n")).toThrow(/Patch line 1/u);
  });

  it("refuses a plain section with no hunk, naming the line after the headers", () => {
    expect(() => parseUnified("--- a/f\n+++ b/f\nnothing here\n")).toThrow(
      expect.objectContaining({ code: "patch_parse_error", details: expect.objectContaining({ line: 3 }) }),
    );
  });
});
