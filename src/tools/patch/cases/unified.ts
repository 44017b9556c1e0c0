import { bare, crlf, numbered, type PatchCase, patch, text } from "./case.ts";

const main = text("def add(a, b):", "    return a - b", "", "print(add(1, 2))");
const fixedMain = text("def add(a, b):", "    return a + b", "", "print(add(1, 2))");
const twenty = text(...numbered(20));

/** Unified diffs, mostly as models write them. */
export const unifiedCases: PatchCase[] = [
  {
    name: "the agentbench example: @@ counts say 4 lines, the body has 2",
    files: { "src/main.py": main },
    request: patch(
      text(
        "--- a/src/main.py",
        "+++ b/src/main.py",
        "@@ -1,4 +1,4 @@",
        " def add(a, b):",
        "-    return a - b",
        "+    return a + b",
      ),
    ),
    expect: {
      files: { "src/main.py": fixedMain },
      hunks: [{ file: "src/main.py", hunk: 1, line: 1, offset: 0, match: "line_counts_repaired" }],
    },
  },
  {
    name: "a well-formed hunk with exact counts",
    files: { "src/main.py": main },
    request: patch(
      text(
        "--- a/src/main.py",
        "+++ b/src/main.py",
        "@@ -1,4 +1,4 @@",
        " def add(a, b):",
        "-    return a - b",
        "+    return a + b",
        " ",
        " print(add(1, 2))",
      ),
    ),
    expect: { files: { "src/main.py": fixedMain }, hunks: [{ line: 1, offset: 0, match: "exact" }] },
  },
  {
    name: "two hunks in one file",
    files: { "f.txt": twenty },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -2,3 +2,3 @@",
        " line 2",
        "-line 3",
        "+line three",
        " line 4",
        "@@ -15,3 +15,4 @@",
        " line 15",
        " line 16",
        "+line 16.5",
        " line 17",
      ),
    ),
    expect: {
      files: {
        "f.txt": text(
          ...numbered(20)
            .map((line) => (line === "line 3" ? "line three" : line))
            .flatMap((line) => (line === "line 16" ? [line, "line 16.5"] : [line])),
        ),
      },
      hunks: [
        { hunk: 1, line: 2, offset: 0 },
        { hunk: 2, line: 15, offset: 0 },
      ],
    },
  },
  {
    name: "several files in one diff",
    files: { "a.txt": text("alpha", "beta"), "b.txt": text("one", "two") },
    request: patch(
      text(
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1,2 +1,2 @@",
        " alpha",
        "-beta",
        "+BETA",
        "--- a/b.txt",
        "+++ b/b.txt",
        "@@ -1,2 +1,2 @@",
        "-one",
        "+ONE",
        " two",
      ),
    ),
    expect: { files: { "a.txt": text("alpha", "BETA"), "b.txt": text("ONE", "two") } },
  },
  {
    name: "creation from /dev/null",
    files: {},
    request: patch(
      text("--- /dev/null", "+++ b/src/new.py", "@@ -0,0 +1,2 @@", "+print('hi')", "+print('bye')"),
    ),
    expect: { files: { "src/new.py": text("print('hi')", "print('bye')") }, hunks: [{ line: 1, offset: 0 }] },
  },
  {
    name: "deletion to /dev/null with the whole file in the hunk",
    files: { "old.txt": text("x", "y"), "keep.txt": "k\n" },
    request: patch(text("--- a/old.txt", "+++ /dev/null", "@@ -1,2 +0,0 @@", "-x", "-y")),
    expect: { files: { "keep.txt": "k\n" } },
  },
  {
    name: "git deletion with no hunk (deleted file mode)",
    files: { "gone.txt": "" },
    request: patch(
      text("diff --git a/gone.txt b/gone.txt", "deleted file mode 100644", "index e69de29..0000000"),
    ),
    expect: { files: {} },
  },
  {
    name: "deletion without hunks by ---/+++ /dev/null alone",
    files: { "gone.txt": text("whatever", "is here") },
    request: patch(text("--- a/gone.txt", "+++ /dev/null")),
    expect: { files: {} },
  },
  {
    name: "a full git diff: diff --git, index, mode lines",
    files: { "src/app.ts": text("export const a = 1;", "export const b = 2;") },
    request: patch(
      text(
        "diff --git a/src/app.ts b/src/app.ts",
        "index 3b18e51..a8d9f0c 100644",
        "--- a/src/app.ts",
        "+++ b/src/app.ts",
        "@@ -1,2 +1,2 @@",
        " export const a = 1;",
        "-export const b = 2;",
        "+export const b = 3;",
      ),
    ),
    expect: { files: { "src/app.ts": text("export const a = 1;", "export const b = 3;") } },
  },
  {
    name: "git new file mode with a hunk",
    files: {},
    request: patch(
      text(
        "diff --git a/docs/README.md b/docs/README.md",
        "new file mode 100644",
        "index 0000000..e69de29",
        "--- /dev/null",
        "+++ b/docs/README.md",
        "@@ -0,0 +1 @@",
        "+# Title",
      ),
    ),
    expect: { files: { "docs/README.md": "# Title\n" } },
  },
  {
    name: "git new empty file (new file mode, no hunk)",
    files: {},
    request: patch(
      text("diff --git a/empty.txt b/empty.txt", "new file mode 100644", "index 0000000..e69de29"),
    ),
    expect: { files: { "empty.txt": "" } },
  },
  {
    name: "git rename without changes (similarity index 100%)",
    files: { "old/name.txt": text("same") },
    request: patch(
      text(
        "diff --git a/old/name.txt b/new/name.txt",
        "similarity index 100%",
        "rename from old/name.txt",
        "rename to new/name.txt",
      ),
    ),
    expect: { files: { "new/name.txt": "same\n" } },
  },
  {
    name: "git rename with a change",
    files: { "a.py": text("x = 1", "y = 2", "z = 3") },
    request: patch(
      text(
        "diff --git a/a.py b/b.py",
        "similarity index 70%",
        "rename from a.py",
        "rename to b.py",
        "index 1111111..2222222 100644",
        "--- a/a.py",
        "+++ b/b.py",
        "@@ -1,3 +1,3 @@",
        " x = 1",
        "-y = 2",
        "+y = 20",
        " z = 3",
      ),
    ),
    expect: { files: { "b.py": text("x = 1", "y = 20", "z = 3") } },
  },
  {
    name: "git copy keeps the source",
    files: { "base.cfg": text("a=1") },
    request: patch(
      text(
        "diff --git a/base.cfg b/copy.cfg",
        "similarity index 100%",
        "copy from base.cfg",
        "copy to copy.cfg",
      ),
    ),
    expect: { files: { "base.cfg": "a=1\n", "copy.cfg": "a=1\n" } },
  },
  {
    name: "a mode-only change does nothing",
    files: { "run.sh": text("echo hi") },
    request: patch(text("diff --git a/run.sh b/run.sh", "old mode 100644", "new mode 100755")),
    expect: { files: { "run.sh": "echo hi\n" } },
  },
  {
    name: "explicit -p0",
    files: { "a/x.txt": text("old") },
    request: patch(text("--- a/x.txt", "+++ a/x.txt", "@@ -1 +1 @@", "-old", "+new"), { strip: 0 }),
    expect: { files: { "a/x.txt": "new\n" } },
  },
  {
    name: "explicit -p2",
    files: { "x.txt": text("old") },
    request: patch(text("--- foo/bar/x.txt", "+++ foo/bar/x.txt", "@@ -1 +1 @@", "-old", "+new"), {
      strip: 2,
    }),
    expect: { files: { "x.txt": "new\n" } },
  },
  {
    name: "names without a/ b/ prefixes are kept as they are",
    files: { "src/x.py": text("old") },
    request: patch(text("--- src/x.py", "+++ src/x.py", "@@ -1 +1 @@", "-old", "+new")),
    expect: { files: { "src/x.py": "new\n" } },
  },
  {
    name: "a/ b/ names where only the unstripped path exists fall back to it",
    files: { "a/x.txt": text("old") },
    request: patch(text("--- a/x.txt", "+++ b/x.txt", "@@ -1 +1 @@", "-old", "+new")),
    expect: { files: { "a/x.txt": "new\n" } },
  },
  {
    name: "timestamps after the names (diff -u output)",
    files: { "notes.txt": text("one", "two") },
    request: patch(
      text(
        "--- notes.txt\t2024-05-01 10:00:00.000000000 +0200",
        "+++ notes.txt\t2024-05-02 11:30:00.000000000 +0200",
        "@@ -1,2 +1,2 @@",
        " one",
        "-two",
        "+TWO",
      ),
    ),
    expect: { files: { "notes.txt": text("one", "TWO") } },
  },
  {
    name: "git-quoted names with spaces and octal UTF-8",
    files: { "my file ö.txt": text("a") },
    request: patch(
      text(
        'diff --git "a/my file \\303\\266.txt" "b/my file \\303\\266.txt"',
        "index 1..2 100644",
        '--- "a/my file \\303\\266.txt"',
        '+++ "b/my file \\303\\266.txt"',
        "@@ -1 +1 @@",
        "-a",
        "+b",
      ),
    ),
    expect: { files: { "my file ö.txt": "b\n" } },
  },
  {
    name: "\\ No newline on the old side: the patch adds the final newline",
    files: { "f.txt": bare("a", "b") },
    request: patch(
      text("--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file", "+b"),
    ),
    expect: { files: { "f.txt": text("a", "b") } },
  },
  {
    name: "\\ No newline on the new side: the patch removes the final newline",
    files: { "f.txt": text("a", "b") },
    request: patch(
      text("--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+c", "\\ No newline at end of file"),
    ),
    expect: { files: { "f.txt": bare("a", "c") } },
  },
  {
    name: "\\ No newline on both sides: the last line changes, still without newline",
    files: { "f.txt": bare("a", "b") },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -1,2 +1,2 @@",
        " a",
        "-b",
        "\\ No newline at end of file",
        "+c",
        "\\ No newline at end of file",
      ),
    ),
    expect: { files: { "f.txt": bare("a", "c") } },
  },
  {
    name: "a file without final newline keeps it when the patch does not say",
    files: { "f.txt": bare("a", "b") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+c")),
    expect: { files: { "f.txt": bare("a", "c") } },
  },
  {
    name: "a patch text without final newline",
    files: { "f.txt": text("a", "b") },
    request: patch(bare("--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+c")),
    expect: { files: { "f.txt": text("a", "c") } },
  },
  {
    name: "a CRLF file patched by an LF diff stays CRLF",
    files: { "win.txt": crlf("one", "two", "three") },
    request: patch(
      text("--- a/win.txt", "+++ b/win.txt", "@@ -1,3 +1,4 @@", " one", "-two", "+2", "+2.5", " three"),
    ),
    expect: { files: { "win.txt": crlf("one", "2", "2.5", "three") } },
  },
  {
    name: "a CRLF diff on a CRLF file",
    files: { "win.txt": crlf("one", "two") },
    request: patch(crlf("--- a/win.txt", "+++ b/win.txt", "@@ -1,2 +1,2 @@", " one", "-two", "+TWO")),
    expect: { files: { "win.txt": crlf("one", "TWO") } },
  },
  {
    name: "a CRLF diff on an LF file keeps LF",
    files: { "unix.txt": text("one", "two") },
    request: patch(crlf("--- a/unix.txt", "+++ b/unix.txt", "@@ -1,2 +1,2 @@", " one", "-two", "+TWO")),
    expect: { files: { "unix.txt": text("one", "TWO") } },
  },
  {
    name: "a mixed-ending file keeps each line's ending",
    files: { "mixed.txt": "a\r\nb\nc\r\nd\n" },
    request: patch(text("--- a/mixed.txt", "+++ b/mixed.txt", "@@ -2,2 +2,2 @@", " b", "-c", "+C")),
    expect: { files: { "mixed.txt": "a\r\nb\nC\nd\n" } },
  },
  {
    name: "a UTF-8 BOM is kept",
    files: { "bom.txt": "\uFEFFfirst\nsecond\n" },
    request: patch(text("--- a/bom.txt", "+++ b/bom.txt", "@@ -1,2 +1,2 @@", " first", "-second", "+2nd")),
    expect: { files: { "bom.txt": "\uFEFFfirst\n2nd\n" } },
  },
  {
    name: "context moved down 5 lines: applied at an offset",
    files: { "f.txt": twenty },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -5,3 +5,3 @@",
        " line 10",
        "-line 11",
        "+line eleven",
        " line 12",
      ),
    ),
    expect: {
      files: { "f.txt": text(...numbered(20).map((l) => (l === "line 11" ? "line eleven" : l))) },
      hunks: [{ line: 10, offset: 5, match: "exact" }],
    },
  },
  {
    name: "context moved up: a negative offset",
    files: { "f.txt": twenty },
    request: patch(
      text("--- a/f.txt", "+++ b/f.txt", "@@ -12,3 +12,3 @@", " line 2", "-line 3", "+line three", " line 4"),
    ),
    expect: {
      files: { "f.txt": text(...numbered(20).map((l) => (l === "line 3" ? "line three" : l))) },
      hunks: [{ line: 2, offset: -10 }],
    },
  },
  {
    name: "the first hunk's offset carries to the next",
    files: { "f.txt": text("new 1", "new 2", ...numbered(20)) },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -1,2 +1,2 @@",
        "-line 1",
        "+LINE 1",
        " line 2",
        "@@ -18,2 +18,2 @@",
        " line 18",
        "-line 19",
        "+LINE 19",
      ),
    ),
    expect: {
      files: {
        "f.txt": text(
          "new 1",
          "new 2",
          ...numbered(20).map((l) => (l === "line 1" || l === "line 19" ? l.toUpperCase() : l)),
        ),
      },
      hunks: [
        { hunk: 1, line: 3, offset: 2 },
        { hunk: 2, line: 20, offset: 2 },
      ],
    },
  },
  {
    name: "with two matching places the one nearest the header wins",
    files: { "f.txt": text("x", "return 0", "x", "x", "x", "x", "x", "x", "return 0", "x") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -8,1 +8,1 @@", "-return 0", "+return 1")),
    expect: {
      files: { "f.txt": text("x", "return 0", "x", "x", "x", "x", "x", "x", "return 1", "x") },
      hunks: [{ line: 9, offset: 1 }],
    },
  },
  {
    name: "counts larger than the body (trailing context dropped by the model)",
    files: { "f.txt": text("a", "b", "c", "d") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -1,7 +1,7 @@", " a", "-b", "+B")),
    expect: { files: { "f.txt": text("a", "B", "c", "d") }, hunks: [{ match: "line_counts_repaired" }] },
  },
  {
    name: "counts smaller than the body: the changes after them still apply",
    files: { "f.txt": text("a", "b", "c", "d") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+B", " c", "-d", "+D")),
    expect: { files: { "f.txt": text("a", "B", "c", "D") }, hunks: [{ match: "line_counts_repaired" }] },
  },
  {
    name: "@@ @@ without numbers, located by context",
    files: { "f.txt": twenty },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ @@", " line 7", "-line 8", "+line eight")),
    expect: {
      files: { "f.txt": text(...numbered(20).map((l) => (l === "line 8" ? "line eight" : l))) },
      hunks: [{ line: 7, offset: 0, match: "exact" }],
    },
  },
  {
    name: "a bare @@ line",
    files: { "f.txt": twenty },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@", "-line 20", "+the end")),
    expect: { files: { "f.txt": text(...numbered(19), "the end") } },
  },
  {
    name: "@@ def name(): with no numbers anchors like the envelope",
    files: {
      "m.py": text("def a():", "    return 0", "", "def b():", "    return 0"),
    },
    request: patch(text("--- a/m.py", "+++ b/m.py", "@@ def b():", "-    return 0", "+    return 2")),
    expect: { files: { "m.py": text("def a():", "    return 0", "", "def b():", "    return 2") } },
  },
  {
    name: "hunk lines straight after +++ with no @@ line",
    files: { "f.txt": text("keep", "old") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", " keep", "-old", "+new")),
    expect: { files: { "f.txt": text("keep", "new") } },
  },
  {
    name: "prose and a ```diff fence around the diff",
    files: { "src/main.py": main },
    request: patch(
      text(
        "Here is the patch:",
        "",
        "```diff",
        "--- a/src/main.py",
        "+++ b/src/main.py",
        "@@ -1,2 +1,2 @@",
        " def add(a, b):",
        "-    return a - b",
        "+    return a + b",
        "```",
        "",
        "This fixes the subtraction bug.",
      ),
    ),
    expect: { files: { "src/main.py": fixedMain } },
  },
  {
    name: "an explanation with bullet points after a blank line and a sentence is ignored",
    files: { "f.txt": text("a", "b") },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -1,2 +1,2 @@",
        " a",
        "-b",
        "+c",
        "",
        "Changes:",
        "- replaced b with c",
      ),
    ),
    expect: { files: { "f.txt": text("a", "c") } },
  },
  {
    name: "svn-style Index: and ===== lines before the headers",
    files: { "f.txt": text("a") },
    request: patch(
      text(
        "Index: f.txt",
        "===================================================================",
        "--- f.txt",
        "+++ f.txt",
        "@@ -1 +1 @@",
        "-a",
        "+b",
      ),
    ),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "trailing whitespace in the file that the patch lacks",
    files: { "f.py": text("def f():   ", "    x = 1\t", "    return x") },
    request: patch(
      text(
        "--- a/f.py",
        "+++ b/f.py",
        "@@ -1,3 +1,3 @@",
        " def f():",
        "     x = 1",
        "-    return x",
        "+    return x + 1",
      ),
    ),
    expect: {
      files: { "f.py": text("def f():   ", "    x = 1\t", "    return x + 1") },
      hunks: [{ match: "trailing_whitespace" }],
    },
  },
  {
    name: "indentation drift: matched ignoring it, added lines shifted to the file's indentation",
    files: { "c.py": text("class C:", "    def f(self):", "        x = 1", "        return x") },
    request: patch(
      text(
        "--- a/c.py",
        "+++ b/c.py",
        "@@ -2,3 +2,4 @@",
        " def f(self):",
        "     x = 1",
        "+    y = 2",
        "-    return x",
        "+    return x + y",
      ),
    ),
    expect: {
      files: {
        "c.py": text(
          "class C:",
          "    def f(self):",
          "        x = 1",
          "        y = 2",
          "        return x + y",
        ),
      },
      hunks: [{ match: "whitespace" }],
    },
  },
  {
    name: "an en dash in the patch where the file has a hyphen",
    files: { "r.md": text("Range: 1-10", "Done") },
    request: patch(
      text("--- a/r.md", "+++ b/r.md", "@@ -1,2 +1,2 @@", " Range: 1\u201310", "-Done", "+Done!"),
    ),
    expect: { files: { "r.md": text("Range: 1-10", "Done!") }, hunks: [{ match: "unicode" }] },
  },
  {
    name: "curly quotes in the patch where the file has straight ones",
    files: { "q.py": text('print("hello")', "x = 'a'") },
    request: patch(
      text(
        "--- a/q.py",
        "+++ b/q.py",
        "@@ -1,2 +1,2 @@",
        " print(\u201chello\u201d)",
        "-x = \u2018a\u2019",
        "+x = 'b'",
      ),
    ),
    expect: { files: { "q.py": text('print("hello")', "x = 'b'") }, hunks: [{ match: "unicode" }] },
  },
  {
    name: "a non-breaking space in the file",
    files: { "n.txt": text("price:\u00a010", "end") },
    request: patch(text("--- a/n.txt", "+++ b/n.txt", "@@ -1,2 +1,2 @@", " price: 10", "-end", "+END")),
    expect: { files: { "n.txt": text("price:\u00a010", "END") }, hunks: [{ match: "unicode" }] },
  },
  {
    name: "a blank context line whose leading space was trimmed",
    files: { "f.py": text("import os", "", "def main():", "    pass") },
    request: patch(
      text(
        "--- a/f.py",
        "+++ b/f.py",
        "@@ -1,4 +1,4 @@",
        " import os",
        "",
        " def main():",
        "-    pass",
        "+    print(os.getcwd())",
      ),
    ),
    expect: {
      files: { "f.py": text("import os", "", "def main():", "    print(os.getcwd())") },
      hunks: [{ match: "exact" }],
    },
  },
  {
    name: "a context line that lost its leading space in the middle of a hunk",
    files: { "f.txt": text("one", "two", "three") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -1,3 +1,3 @@", "one", "-two", "+2", " three")),
    expect: { files: { "f.txt": text("one", "2", "three") } },
  },
  {
    name: "an extra blank context line that is not in the file is dropped when that makes it match",
    files: { "f.txt": text("a", "b", "c") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -1,4 +1,4 @@", " a", "-b", "+B", " c", " ")),
    expect: { files: { "f.txt": text("a", "B", "c") } },
  },
  {
    name: "pure insertion after a given line (-3,0)",
    files: { "f.txt": text("1", "2", "3", "4") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -3,0 +4,2 @@", "+3.1", "+3.2")),
    expect: { files: { "f.txt": text("1", "2", "3", "3.1", "3.2", "4") }, hunks: [{ line: 4, offset: 0 }] },
  },
  {
    name: "insertion at the top of an existing file (-0,0)",
    files: { "f.txt": text("body") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -0,0 +1,1 @@", "+// header")),
    expect: { files: { "f.txt": text("// header", "body") } },
  },
  {
    name: "a -0,0 hunk against a missing file creates it, as GNU patch does",
    files: {},
    request: patch(text("--- a/new.txt", "+++ b/new.txt", "@@ -0,0 +1,2 @@", "+hello", "+world")),
    expect: { files: { "new.txt": text("hello", "world") } },
  },
  {
    name: "the same file in two sections is patched twice, in order",
    files: { "f.txt": text("a", "b", "c") },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -1,3 +1,3 @@",
        " a",
        "-b",
        "+B",
        " c",
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -1,3 +1,3 @@",
        " a",
        " B",
        "-c",
        "+C",
      ),
    ),
    expect: { files: { "f.txt": text("a", "B", "C") } },
  },
  {
    name: "numbered hunks given in reverse order still apply",
    files: { "f.txt": twenty },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -15,1 +15,1 @@",
        "-line 15",
        "+fifteen",
        "@@ -3,1 +3,1 @@",
        "-line 3",
        "+three",
      ),
    ),
    expect: {
      files: {
        "f.txt": text(
          ...numbered(20).map((l) => (l === "line 15" ? "fifteen" : l === "line 3" ? "three" : l)),
        ),
      },
    },
  },
  {
    name: "a whole Windows (CRLF) patch with git headers",
    files: { "w.txt": text("x", "y") },
    request: patch(
      crlf(
        "diff --git a/w.txt b/w.txt",
        "index 1..2 100644",
        "--- a/w.txt",
        "+++ b/w.txt",
        "@@ -1,2 +1,2 @@",
        " x",
        "-y",
        "+z",
      ),
    ),
    expect: { files: { "w.txt": text("x", "z") } },
  },
  {
    name: "a text file next to a binary one that the patch does not touch",
    files: { "t.txt": text("a"), "img.bin": new Uint8Array([0xff, 0xd8, 0x00, 0x10]) },
    request: patch(text("--- a/t.txt", "+++ b/t.txt", "@@ -1 +1 @@", "-a", "+b")),
    expect: { files: { "t.txt": "b\n", "img.bin": "<4 bytes>" } },
  },
  {
    name: "a diff that changes nothing plans no file",
    files: { "f.txt": text("a", "b") },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+b")),
    expect: { files: { "f.txt": text("a", "b") } },
  },
  {
    name: "neighbouring hunks whose context overlaps apply like GNU patch applies them",
    files: { "f.txt": text("1", "2", "3", "4", "5", "6", "7") },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -1,4 +1,4 @@",
        " 1",
        "-2",
        "+two",
        " 3",
        " 4",
        "@@ -3,4 +3,4 @@",
        " 3",
        " 4",
        "-5",
        "+five",
        " 6",
      ),
    ),
    expect: {
      files: { "f.txt": text("1", "two", "3", "4", "five", "6", "7") },
      hunks: [{ line: 1 }, { line: 3 }],
    },
  },
  {
    name: "removing SQL comments: '--- ' lines inside a counted hunk are body, not a file header",
    files: { "q.sql": text("-- old comment", "-- another", "select 1;") },
    request: patch(
      text(
        "--- a/q.sql",
        "+++ b/q.sql",
        "@@ -1,3 +1,2 @@",
        "--- old comment",
        "--- another",
        "+-- new comment",
        " select 1;",
      ),
    ),
    expect: { files: { "q.sql": text("-- new comment", "select 1;") } },
  },
  {
    name: "tabs in the file, spaces in the patch: added lines get tabs",
    files: { "main.go": text("func main() {", "\tx := 1", "\tif x > 0 {", "\t\tprintln(x)", "\t}", "}") },
    request: patch(
      text(
        "--- a/main.go",
        "+++ b/main.go",
        "@@ -2,4 +2,5 @@",
        "     x := 1",
        "     if x > 0 {",
        "-        println(x)",
        "+        println(x + 1)",
        '+        println("done")',
        "     }",
      ),
    ),
    expect: {
      files: {
        "main.go": text(
          "func main() {",
          "\tx := 1",
          "\tif x > 0 {",
          "\t\tprintln(x + 1)",
          '\t\tprintln("done")',
          "\t}",
          "}",
        ),
      },
      hunks: [{ match: "whitespace" }],
    },
  },
  {
    name: "spaces in the file, tabs in the patch: added lines get spaces",
    files: { "m.py": text("def f():", "    if True:", "        return 1") },
    request: patch(
      text(
        "--- a/m.py",
        "+++ b/m.py",
        "@@ -2,2 +2,3 @@",
        " \tif True:",
        "-\t\treturn 1",
        "+\t\tx = 2",
        "+\t\treturn x",
      ),
    ),
    expect: { files: { "m.py": text("def f():", "    if True:", "        x = 2", "        return x") } },
  },
  // ---- failures ----
  {
    name: "context that is not in the file: rejected with the closest lines",
    files: { "src/main.py": main },
    request: patch(
      text(
        "--- a/src/main.py",
        "+++ b/src/main.py",
        "@@ -1,2 +1,2 @@",
        " def add(a, b, c):",
        "-    return a - b - c",
        "+    return a + b + c",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["src/main.py hunk 1", "def add(a, b, c):", "Closest (line 1)", "no file was changed"],
        details: {
          rejected_hunks: [
            {
              file: "src/main.py",
              hunk: 1,
              expected: ["def add(a, b, c):", "    return a - b - c"],
              closest: { line: 1, lines: ["def add(a, b):", "    return a - b"] },
            },
          ],
        },
      },
    },
  },
  {
    name: "every failing hunk is listed, not just the first",
    files: { "f.txt": twenty },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -2,1 +2,1 @@",
        "-line two",
        "+2",
        "@@ -10,1 +10,1 @@",
        "-line 10",
        "+10",
        "@@ -15,1 +15,1 @@",
        "-line fifteen",
        "+15",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["2 hunks did not apply", "f.txt hunk 1", "f.txt hunk 3"],
        details: {
          rejected_hunks: [
            { file: "f.txt", hunk: 1, expected: ["line two"], closest: { line: 2, lines: ["line 2"] } },
            { file: "f.txt", hunk: 3, expected: ["line fifteen"], closest: { line: 15, lines: ["line 15"] } },
          ],
        },
      },
    },
  },
  {
    name: "two files where the second fails: nothing changes",
    files: { "a.txt": text("alpha"), "b.txt": text("beta") },
    request: patch(
      text(
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1 +1 @@",
        "-alpha",
        "+ALPHA",
        "--- a/b.txt",
        "+++ b/b.txt",
        "@@ -1 +1 @@",
        "-gamma",
        "+GAMMA",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["1 hunk did not apply", "b.txt hunk 1", "gamma"],
        details: { rejected_hunks: [{ file: "b.txt", hunk: 1, expected: ["gamma"] }] },
      },
    },
  },
  {
    name: "an update of a file that does not exist",
    files: { "src/app.py": "x\n" },
    request: patch(text("--- a/src/ap.py", "+++ b/src/ap.py", "@@ -1 +1 @@", "-x", "+y")),
    expect: {
      error: {
        code: "file_not_found",
        message: ["src/ap.py does not exist"],
        details: { path: "src/ap.py" },
      },
    },
  },
  {
    name: "a creation over an existing file",
    files: { "exists.txt": "already\n" },
    request: patch(text("--- /dev/null", "+++ b/exists.txt", "@@ -0,0 +1 @@", "+new")),
    expect: {
      error: {
        code: "already_exists",
        message: ["exists.txt already exists"],
        details: { path: "exists.txt" },
      },
    },
  },
  {
    name: "a deletion of a missing file",
    files: {},
    request: patch(text("--- a/ghost.txt", "+++ /dev/null", "@@ -1 +0,0 @@", "-boo")),
    expect: { error: { code: "file_not_found", message: ["ghost.txt does not exist", "nothing to delete"] } },
  },
  {
    name: "a deletion whose hunk leaves lines behind",
    files: { "d.txt": text("a", "b", "c") },
    request: patch(text("--- a/d.txt", "+++ /dev/null", "@@ -1,2 +0,0 @@", "-a", "-b")),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["a deletion must remove every line"],
        details: { rejected_hunks: [{ file: "d.txt", hunk: 1, closest: { line: 1, lines: ["c"] } }] },
      },
    },
  },
  {
    name: "a file that is not UTF-8",
    files: { "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]) },
    request: patch(text("--- a/latin1.txt", "+++ b/latin1.txt", "@@ -1 +1 @@", "-café", "+cafe")),
    expect: {
      error: {
        code: "binary_file",
        message: ["latin1.txt is not valid UTF-8"],
        details: { path: "latin1.txt" },
      },
    },
  },
  {
    name: "a file with NUL bytes",
    files: { "blob.dat": new Uint8Array([0x61, 0x00, 0x62, 0x0a]) },
    request: patch(text("--- a/blob.dat", "+++ b/blob.dat", "@@ -1 +1 @@", "-a", "+b")),
    expect: { error: { code: "binary_file", message: ["blob.dat contains NUL bytes"] } },
  },
  {
    name: "a git binary patch",
    files: { "i.png": "x" },
    request: patch(
      text("diff --git a/i.png b/i.png", "index 1..2 100644", "GIT binary patch", "literal 5", "abcde"),
    ),
    expect: {
      error: { code: "patch_parse_error", message: ["Patch line 3", "binary patches are not supported"] },
    },
  },
  {
    name: "a hunk before any file header",
    files: {},
    request: patch(text("Some text", "@@ -1 +1 @@", "-a", "+b")),
    expect: {
      error: {
        code: "patch_parse_error",
        message: ["Patch line 2", "'--- a/path'"],
        details: { line: 2, got: "@@ -1 +1 @@" },
      },
    },
  },
  {
    name: "text that is not a patch at all",
    files: {},
    request: patch(text("I think you should change line 3 to return a + b.")),
    expect: {
      error: { code: "patch_parse_error", message: ["Patch line 1", "unified diff", "*** Begin Patch"] },
    },
  },
  {
    name: "a malformed @@ header",
    files: { "f.txt": "a\n" },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -x,1 +1 @@", "-a", "+b")),
    expect: { error: { code: "patch_parse_error", message: ["Patch line 3", "'@@ -12,7 +12,8 @@'"] } },
  },
  {
    name: "a combined diff (@@@)",
    files: { "f.txt": "a\n" },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@@ -1,1 -1,1 +1,1 @@@", "- a", "+ b")),
    expect: { error: { code: "patch_parse_error", message: ["Patch line 3", "combined diffs"] } },
  },
  {
    name: "a path that climbs out of the workspace",
    files: {},
    request: patch(text("--- a/../../etc/passwd", "+++ b/../../etc/passwd", "@@ -1 +1 @@", "-root", "+toor")),
    expect: { error: { code: "path_escape", message: ["outside the workspace"] } },
  },
  {
    name: "an absolute path outside the workspace",
    files: {},
    request: patch(text("--- /etc/hosts", "+++ /etc/hosts", "@@ -1 +1 @@", "-a", "+b")),
    expect: { error: { code: "path_escape" } },
  },
  {
    name: "without numbers, context found in two places is ambiguous",
    files: { "f.py": text("def a():", "    return None", "def b():", "    return None") },
    request: patch(text("--- a/f.py", "+++ b/f.py", "@@ @@", "-    return None", "+    return 0")),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["f.py hunk 1", "occur 2 times (at lines 2, 4)", "    |    return None"],
        details: {
          rejected_hunks: [{ file: "f.py", hunk: 1, closest: { line: 2, lines: ["    return None"] } }],
        },
      },
    },
  },
  {
    name: "a diff sent a second time says it looks applied already",
    files: { "src/main.py": fixedMain },
    request: patch(
      text(
        "--- a/src/main.py",
        "+++ b/src/main.py",
        "@@ -1,2 +1,2 @@",
        " def add(a, b):",
        "-    return a - b",
        "+    return a + b",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["src/main.py hunk 1", "was this patch applied already?", "Closest (line 1)"],
        details: {
          rejected_hunks: [
            {
              file: "src/main.py",
              hunk: 1,
              expected: ["def add(a, b):", "    return a - b"],
              closest: { line: 1, lines: ["def add(a, b):", "    return a + b"] },
            },
          ],
        },
      },
    },
  },
  {
    name: "a second hunk that needs a line the first one removes",
    files: { "f.txt": text("a", "b", "c", "d") },
    request: patch(
      text(
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -1,3 +1,2 @@",
        " a",
        "-b",
        " c",
        "@@ -2,2 +2,2 @@",
        " b",
        "-c",
        "+C",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["f.txt hunk 2"],
        details: { rejected_hunks: [{ file: "f.txt", hunk: 2, expected: ["b", "c"] }] },
      },
    },
  },
  {
    name: "a git rename onto an existing file",
    files: { "a.txt": "a\n", "b.txt": "b\n" },
    request: patch(
      text("diff --git a/a.txt b/b.txt", "similarity index 100%", "rename from a.txt", "rename to b.txt"),
    ),
    expect: { error: { code: "already_exists", message: ["b.txt already exists", "Moving a.txt there"] } },
  },
  {
    name: "an invalid -p value",
    files: {},
    request: patch(text("--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b"), { strip: -1 }),
    expect: { error: { code: "invalid_params", message: ["strip must be a whole number"] } },
  },
  {
    name: "a unified diff where only the envelope is accepted",
    files: { "f.txt": "a\n" },
    request: patch(text("--- a/f.txt", "+++ b/f.txt", "@@ -1 +1 @@", "-a", "+b"), { formats: ["envelope"] }),
    expect: { error: { code: "patch_parse_error", message: ["Patch line 1", "*** Begin Patch"] } },
  },
  {
    name: "prose right after a counted hunk, then a bulleted line, is left out",
    files: { "f.txt": text("a", "b") },
    request: patch(
      text("--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+c", "Note:", "-b was wrong"),
    ),
    expect: { files: { "f.txt": text("a", "c") } },
  },
];
