import { bare, crlf, type PatchCase, patch, text } from "./case.ts";

const utils = text(
  "import math",
  "",
  "def calculate(x):",
  "    return x",
  "",
  "def area(r):",
  "    return math.pi * r * r",
);

const twoClasses = text(
  "class Reader:",
  "    def close(self):",
  "        self.open = False",
  "",
  "class Writer:",
  "    def close(self):",
  "        self.open = False",
);

/** `*** Begin Patch` envelopes, mostly as models write them. */
export const envelopeCases: PatchCase[] = [
  {
    name: "the baseagent example: @@ anchor, one change",
    files: { "src/utils.py": utils },
    request: patch(
      "*** Begin Patch\n*** Update File: src/utils.py\n@@ def calculate(x):\n-    return x\n+    return x * 2\n*** End Patch",
    ),
    expect: {
      files: { "src/utils.py": utils.replace("    return x\n", "    return x * 2\n") },
      hunks: [{ file: "src/utils.py", hunk: 1, line: 4, offset: 0, match: "exact" }],
    },
  },
  {
    name: "Add File",
    files: {},
    request: patch(text("*** Begin Patch", "*** Add File: hello.txt", "+Hello", "+World", "*** End Patch")),
    expect: { files: { "hello.txt": text("Hello", "World") } },
  },
  {
    name: "Add File in folders that do not exist yet",
    files: {},
    request: patch(
      text("*** Begin Patch", "*** Add File: src/deep/nested/mod.py", "+x = 1", "*** End Patch"),
    ),
    expect: { files: { "src/deep/nested/mod.py": "x = 1\n" } },
  },
  {
    name: "Add File with no lines makes an empty file",
    files: {},
    request: patch(text("*** Begin Patch", "*** Add File: empty.txt", "*** End Patch")),
    expect: { files: { "empty.txt": "" } },
  },
  {
    name: "Add File with an empty '+' line and a blank line that lost its '+'",
    files: {},
    request: patch(
      text(
        "*** Begin Patch",
        "*** Add File: a.py",
        "+import os",
        "+",
        "",
        "+print(os.name)",
        "*** End Patch",
      ),
    ),
    expect: { files: { "a.py": text("import os", "", "", "print(os.name)") } },
  },
  {
    name: "Delete File",
    files: { "obsolete.py": text("x"), "keep.py": text("y") },
    request: patch(text("*** Begin Patch", "*** Delete File: obsolete.py", "*** End Patch")),
    expect: { files: { "keep.py": "y\n" } },
  },
  {
    name: "Update File without any @@ line",
    files: { "f.txt": text("a", "b", "c") },
    request: patch(
      text("*** Begin Patch", "*** Update File: f.txt", " a", "-b", "+B", " c", "*** End Patch"),
    ),
    expect: { files: { "f.txt": text("a", "B", "c") } },
  },
  {
    name: "a bare @@ line before the chunk",
    files: { "f.txt": text("a", "b", "c") },
    request: patch(
      text("*** Begin Patch", "*** Update File: f.txt", "@@", " b", "-c", "+C", "*** End Patch"),
    ),
    expect: { files: { "f.txt": text("a", "b", "C") } },
  },
  {
    name: "several chunks in one file",
    files: { "src/utils.py": utils },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: src/utils.py",
        "@@ def calculate(x):",
        "-    return x",
        "+    return x * 2",
        "@@ def area(r):",
        "-    return math.pi * r * r",
        "+    return math.pi * r ** 2",
        "*** End Patch",
      ),
    ),
    expect: {
      files: {
        "src/utils.py": text(
          "import math",
          "",
          "def calculate(x):",
          "    return x * 2",
          "",
          "def area(r):",
          "    return math.pi * r ** 2",
        ),
      },
      hunks: [
        { hunk: 1, line: 4 },
        { hunk: 2, line: 7 },
      ],
    },
  },
  {
    name: "an @@ anchor picks which of two identical bodies",
    files: { "io.py": twoClasses },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: io.py",
        "@@ class Writer:",
        "     def close(self):",
        "-        self.open = False",
        "+        self.closed = True",
        "*** End Patch",
      ),
    ),
    expect: {
      files: {
        "io.py": text(
          "class Reader:",
          "    def close(self):",
          "        self.open = False",
          "",
          "class Writer:",
          "    def close(self):",
          "        self.closed = True",
        ),
      },
      hunks: [{ line: 6 }],
    },
  },
  {
    name: "nested @@ anchors: class, then method",
    files: {
      "m.py": text(
        "class A:",
        "    def run(self):",
        "        return 1",
        "class B:",
        "    def stop(self):",
        "        return 1",
        "    def run(self):",
        "        return 1",
      ),
    },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: m.py",
        "@@ class B:",
        "@@     def run(self):",
        "-        return 1",
        "+        return 2",
        "*** End Patch",
      ),
    ),
    expect: {
      files: {
        "m.py": text(
          "class A:",
          "    def run(self):",
          "        return 1",
          "class B:",
          "    def stop(self):",
          "        return 1",
          "    def run(self):",
          "        return 2",
        ),
      },
      hunks: [{ line: 8 }],
    },
  },
  {
    name: "context repeating the anchor line",
    files: { "src/utils.py": utils },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: src/utils.py",
        "@@ def area(r):",
        " def area(r):",
        "-    return math.pi * r * r",
        "+    return math.pi * r**2",
        "*** End Patch",
      ),
    ),
    expect: { files: { "src/utils.py": utils.replace("r * r", "r**2") } },
  },
  {
    name: "an anchor that is not in the file fails, even when the lines are found once elsewhere",
    files: { "src/utils.py": utils },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: src/utils.py",
        "@@ def compute(x):",
        "-    return x",
        "+    return -x",
        "*** End Patch",
      ),
    ),
    expect: {
      error: { code: "patch_hunk_fail", message: ['the @@ line "def compute(x):" was not found'] },
    },
  },
  {
    name: "lines found only before their @@ anchor fail: the anchor says where the change is",
    files: { "m.py": text("def first():", "    x = 1", "    return x", "", "def second():", "    return 2") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: m.py",
        "@@ def second():",
        "-    x = 1",
        "+    x = 5",
        "*** End Patch",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ['the lines were not found after the @@ line "def second():"'],
      },
    },
  },
  {
    name: "an @@ anchor narrows the search to the lines after it (Codex's seek)",
    files: { "m.py": text("def first():", "    x = 1", "", "def second():", "    x = 1") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: m.py",
        "@@ def second():",
        "-    x = 1",
        "+    x = 2",
        "*** End Patch",
      ),
    ),
    expect: { files: { "m.py": text("def first():", "    x = 1", "", "def second():", "    x = 2") } },
  },
  {
    name: "Move to with a change",
    files: { "old/mod.py": text("a = 1", "b = 2") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: old/mod.py",
        "*** Move to: new/mod.py",
        "@@",
        " a = 1",
        "-b = 2",
        "+b = 3",
        "*** End Patch",
      ),
    ),
    expect: { files: { "new/mod.py": text("a = 1", "b = 3") } },
  },
  {
    name: "Move to without a change is a rename",
    files: { "a.txt": text("content") },
    request: patch(text("*** Begin Patch", "*** Update File: a.txt", "*** Move to: b.txt", "*** End Patch")),
    expect: { files: { "b.txt": "content\n" } },
  },
  {
    name: "Move to its own path is a plain update",
    files: { "a.txt": text("x") },
    request: patch(
      text("*** Begin Patch", "*** Update File: a.txt", "*** Move to: ./a.txt", "-x", "+y", "*** End Patch"),
    ),
    expect: { files: { "a.txt": "y\n" } },
  },
  {
    name: "*** End of File pins the context to the end",
    files: { "f.txt": text("end", "middle", "end") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: f.txt",
        "@@",
        "-end",
        "+END",
        "*** End of File",
        "*** End Patch",
      ),
    ),
    expect: { files: { "f.txt": text("end", "middle", "END") }, hunks: [{ line: 3 }] },
  },
  {
    name: "*** End of File with only added lines appends",
    files: { "f.txt": text("a") },
    request: patch(
      text("*** Begin Patch", "*** Update File: f.txt", "@@", "+b", "*** End of File", "*** End Patch"),
    ),
    expect: { files: { "f.txt": text("a", "b") } },
  },
  {
    name: "the heredoc form: apply_patch <<'EOF'",
    files: { "f.txt": text("a") },
    request: patch(
      text(
        "apply_patch <<'EOF'",
        "*** Begin Patch",
        "*** Update File: f.txt",
        "-a",
        "+b",
        "*** End Patch",
        "EOF",
      ),
    ),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: 'the heredoc form with <<"EOF"',
    files: { "f.txt": text("a") },
    request: patch(
      text(
        'apply_patch <<"EOF"',
        "*** Begin Patch",
        "*** Update File: f.txt",
        "-a",
        "+b",
        "*** End Patch",
        "EOF",
      ),
    ),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "the heredoc form with <<EOF",
    files: { "f.txt": text("a") },
    request: patch(
      text(
        "apply_patch <<EOF",
        "*** Begin Patch",
        "*** Update File: f.txt",
        "-a",
        "+b",
        "*** End Patch",
        "EOF",
      ),
    ),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "bash -lc '…' around a heredoc, with '\\'' escapes",
    files: { "s.py": text("print('hi')") },
    request: patch(
      text(
        'bash -lc \'apply_patch <<"EOF"',
        "*** Begin Patch",
        "*** Update File: s.py",
        "-print('\\''hi'\\'')",
        "+print('\\''bye'\\'')",
        "*** End Patch",
        "EOF",
        "'",
      ),
    ),
    expect: { files: { "s.py": text("print('bye')") } },
  },
  {
    name: "a JSON argv array as the shell tool receives it",
    files: { "f.txt": text("a") },
    request: patch(
      JSON.stringify([
        "bash",
        "-lc",
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: f.txt\n-a\n+b\n*** End Patch\nEOF\n",
      ]),
    ),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "no *** End Patch at the end",
    files: { "f.txt": text("a") },
    request: patch(text("*** Begin Patch", "*** Update File: f.txt", "-a", "+b")),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "no *** End Patch, heredoc delimiter last",
    files: { "f.txt": text("a") },
    request: patch(
      text("apply_patch <<'PATCH'", "*** Begin Patch", "*** Update File: f.txt", "-a", "+b", "PATCH"),
    ),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "no final newline after *** End Patch",
    files: { "f.txt": text("a") },
    request: patch(bare("*** Begin Patch", "*** Update File: f.txt", "-a", "+b", "*** End Patch")),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "whitespace around the envelope",
    files: { "f.txt": text("a") },
    request: patch(`\n\n   *** Begin Patch\n*** Update File: f.txt\n-a\n+b\n*** End Patch   \n\n`),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "a ``` fence and prose around the envelope",
    files: { "f.txt": text("a") },
    request: patch(
      text(
        "Apply this:",
        "```",
        "*** Begin Patch",
        "*** Update File: f.txt",
        "-a",
        "+b",
        "*** End Patch",
        "```",
      ),
    ),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "no *** Begin Patch line, file headers straight away",
    files: { "f.txt": text("a") },
    request: patch(text("*** Update File: f.txt", "-a", "+b", "*** End Patch")),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "two envelopes in one text",
    files: { "a.txt": text("a"), "b.txt": text("b") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: a.txt",
        "-a",
        "+A",
        "*** End Patch",
        "",
        "*** Begin Patch",
        "*** Update File: b.txt",
        "-b",
        "+B",
        "*** End Patch",
      ),
    ),
    expect: { files: { "a.txt": "A\n", "b.txt": "B\n" } },
  },
  {
    name: "a CRLF file updated by an envelope stays CRLF",
    files: { "w.txt": crlf("one", "two", "three") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: w.txt",
        " one",
        "-two",
        "+2",
        "+2b",
        " three",
        "*** End Patch",
      ),
    ),
    expect: { files: { "w.txt": crlf("one", "2", "2b", "three") } },
  },
  {
    name: "trailing whitespace drift",
    files: { "f.js": text("function f() {  ", "  return 1; ", "}") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: f.js",
        " function f() {",
        "-  return 1;",
        "+  return 2;",
        " }",
        "*** End Patch",
      ),
    ),
    expect: {
      files: { "f.js": text("function f() {  ", "  return 2;", "}") },
      hunks: [{ match: "trailing_whitespace" }],
    },
  },
  {
    name: "indentation drift: added lines follow the file's indentation",
    files: { "k.py": text("def f():", "        a = 1", "        return a") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: k.py",
        "@@ def f():",
        "     a = 1",
        "-    return a",
        "+    b = a + 1",
        "+    return b",
        "*** End Patch",
      ),
    ),
    expect: {
      files: { "k.py": text("def f():", "        a = 1", "        b = a + 1", "        return b") },
      hunks: [{ match: "whitespace" }],
    },
  },
  {
    name: "indentation drift the other way: the patch indents more than the file",
    files: { "k.py": text("x = [", "  1,", "  2,", "]") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: k.py",
        "     1,",
        "-    2,",
        "+    2,",
        "+    3,",
        "*** End Patch",
      ),
    ),
    expect: { files: { "k.py": text("x = [", "  1,", "  2,", "  3,", "]") } },
  },
  {
    name: "an em dash and curly quotes in the patch",
    files: { "doc.md": text("Step 1 - install", 'It\'s "fine"') },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: doc.md",
        " Step 1 \u2014 install",
        "-It\u2019s \u201cfine\u201d",
        "+It's great",
        "*** End Patch",
      ),
    ),
    expect: { files: { "doc.md": text("Step 1 - install", "It's great") }, hunks: [{ match: "unicode" }] },
  },
  {
    name: "a Unicode minus and ellipsis in the file's comment",
    files: { "c.ts": text("// range \u22121 \u2026 1", "const x = 1;") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: c.ts",
        " // range -1 ... 1",
        "-const x = 1;",
        "+const x = -1;",
        "*** End Patch",
      ),
    ),
    expect: {
      files: { "c.ts": text("// range \u22121 \u2026 1", "const x = -1;") },
      hunks: [{ match: "unicode" }],
    },
  },
  {
    name: "chunks given bottom-up still apply",
    files: { "f.txt": text("a", "b", "c", "d", "e") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: f.txt",
        "@@",
        " d",
        "-e",
        "+E",
        "@@",
        "-a",
        "+A",
        " b",
        "*** End Patch",
      ),
    ),
    expect: { files: { "f.txt": text("A", "b", "c", "d", "E") } },
  },
  {
    name: "added lines only, after an anchor",
    files: { "imports.py": text("import os", "import sys", "", "def main():", "    pass") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: imports.py",
        "@@ import sys",
        "+import json",
        "*** End Patch",
      ),
    ),
    expect: {
      files: { "imports.py": text("import os", "import sys", "import json", "", "def main():", "    pass") },
    },
  },
  {
    name: "added lines only, no anchor: appended at the end",
    files: { "list.txt": text("one") },
    request: patch(text("*** Begin Patch", "*** Update File: list.txt", "+two", "*** End Patch")),
    expect: { files: { "list.txt": text("one", "two") } },
  },
  {
    name: "a blank context line written as an empty line",
    files: { "f.py": text("a = 1", "", "b = 2") },
    request: patch(
      text("*** Begin Patch", "*** Update File: f.py", " a = 1", "", "-b = 2", "+b = 3", "*** End Patch"),
    ),
    expect: { files: { "f.py": text("a = 1", "", "b = 3") } },
  },
  {
    name: "blank lines between the last chunk and the next file header",
    files: { "a.txt": text("a", "b"), "b.txt": text("c") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: a.txt",
        " a",
        "-b",
        "+B",
        "",
        "",
        "*** Update File: b.txt",
        "-c",
        "+C",
        "*** End Patch",
      ),
    ),
    expect: { files: { "a.txt": text("a", "B"), "b.txt": "C\n" } },
  },
  {
    name: "a context line without its leading space",
    files: { "f.txt": text("alpha", "beta") },
    request: patch(
      text("*** Begin Patch", "*** Update File: f.txt", "alpha", "-beta", "+gamma", "*** End Patch"),
    ),
    expect: { files: { "f.txt": text("alpha", "gamma") } },
  },
  {
    name: "a file without final newline keeps it",
    files: { "f.txt": bare("a", "b") },
    request: patch(text("*** Begin Patch", "*** Update File: f.txt", " a", "-b", "+c", "*** End Patch")),
    expect: { files: { "f.txt": bare("a", "c") } },
  },
  {
    name: "\\ No newline lines borrowed from unified diffs are ignored",
    files: { "f.txt": text("a") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: f.txt",
        "-a",
        "\\ No newline at end of file",
        "+b",
        "*** End Patch",
      ),
    ),
    expect: { files: { "f.txt": "b\n" } },
  },
  {
    name: "a unified-style numbered @@ header in an envelope: numbers ignored, heading anchors",
    files: { "m.py": text("def a():", "    return 0", "def b():", "    return 0") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: m.py",
        "@@ -3,2 +3,2 @@ def b():",
        "-    return 0",
        "+    return 1",
        "*** End Patch",
      ),
    ),
    expect: { files: { "m.py": text("def a():", "    return 0", "def b():", "    return 1") } },
  },
  {
    name: "Add, Update and Delete in one patch",
    files: { "keep.txt": text("v1"), "drop.txt": text("bye") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Add File: new.txt",
        "+fresh",
        "*** Update File: keep.txt",
        "-v1",
        "+v2",
        "*** Delete File: drop.txt",
        "*** End Patch",
      ),
    ),
    expect: { files: { "keep.txt": "v2\n", "new.txt": "fresh\n" } },
  },
  {
    name: "the same file updated twice, in order",
    files: { "f.txt": text("a", "b") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: f.txt",
        "-a",
        "+A",
        "*** Update File: f.txt",
        " A",
        "-b",
        "+B",
        "*** End Patch",
      ),
    ),
    expect: { files: { "f.txt": text("A", "B") } },
  },
  {
    name: "Delete then Add of the same path replaces the file",
    files: { "f.txt": text("old") },
    request: patch(
      text("*** Begin Patch", "*** Delete File: f.txt", "*** Add File: f.txt", "+new", "*** End Patch"),
    ),
    expect: { files: { "f.txt": "new\n" } },
  },
  {
    name: "Add then Update of the same path",
    files: {},
    request: patch(
      text(
        "*** Begin Patch",
        "*** Add File: f.txt",
        "+one",
        "*** Update File: f.txt",
        "-one",
        "+two",
        "*** End Patch",
      ),
    ),
    expect: { files: { "f.txt": "two\n" } },
  },
  {
    name: "Update then Delete of the same path",
    files: { "f.txt": text("x") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: f.txt",
        "-x",
        "+y",
        "*** Delete File: f.txt",
        "*** End Patch",
      ),
    ),
    expect: { files: {} },
  },
  {
    name: "Move to a path another file just left",
    files: { "a.txt": text("A"), "b.txt": text("B") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Delete File: b.txt",
        "*** Update File: a.txt",
        "*** Move to: b.txt",
        "-A",
        "+A2",
        "*** End Patch",
      ),
    ),
    expect: { files: { "b.txt": "A2\n" } },
  },
  {
    name: "a quoted path in the file header",
    files: { "my dir/a.txt": text("x") },
    request: patch(text("*** Begin Patch", '*** Update File: "my dir/a.txt"', "-x", "+y", "*** End Patch")),
    expect: { files: { "my dir/a.txt": "y\n" } },
  },
  {
    name: "an absolute path inside the workspace",
    files: { "src/a.py": text("x = 1") },
    request: patch(
      text("*** Begin Patch", "*** Update File: /workspace/src/a.py", "-x = 1", "+x = 2", "*** End Patch"),
    ),
    expect: { files: { "src/a.py": "x = 2\n" } },
  },
  {
    name: "a Windows-style path with backslashes",
    files: { "src/win/a.txt": text("x") },
    request: patch(text("*** Begin Patch", "*** Update File: src\\win\\a.txt", "-x", "+y", "*** End Patch")),
    expect: { files: { "src/win/a.txt": "y\n" } },
  },
  {
    name: "a chunk of context only changes nothing",
    files: { "f.txt": text("a", "b") },
    request: patch(text("*** Begin Patch", "*** Update File: f.txt", " a", " b", "*** End Patch")),
    expect: { files: { "f.txt": text("a", "b") }, hunks: [{ line: 1, match: "exact" }] },
  },
  {
    name: "tabs in a Go file, spaces in the envelope",
    files: { "x.go": text("func f() int {", "\treturn 1", "}") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: x.go",
        "@@ func f() int {",
        "-    return 1",
        "+    y := 2",
        "+    return y",
        "*** End Patch",
      ),
    ),
    expect: { files: { "x.go": text("func f() int {", "\ty := 2", "\treturn y", "}") } },
  },
  {
    name: "chunks sharing a context line",
    files: { "f.txt": text("a", "b", "c", "d", "e") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: f.txt",
        "@@",
        " a",
        "-b",
        "+B",
        " c",
        "@@",
        " c",
        "-d",
        "+D",
        "*** End Patch",
      ),
    ),
    expect: { files: { "f.txt": text("a", "B", "c", "D", "e") } },
  },
  // ---- failures ----
  {
    name: "Update of a file that does not exist",
    files: { "src/real.py": "x\n" },
    request: patch(
      text("*** Begin Patch", "*** Update File: src/missing.py", "@@", "-x", "+y", "*** End Patch"),
    ),
    expect: {
      error: {
        code: "file_not_found",
        message: ["src/missing.py does not exist", "*** Add File:"],
        details: { path: "src/missing.py" },
      },
    },
  },
  {
    name: "Delete File of a missing file",
    files: {},
    request: patch(text("*** Begin Patch", "*** Delete File: nope.txt", "*** End Patch")),
    expect: { error: { code: "file_not_found", message: ["nope.txt does not exist"] } },
  },
  {
    name: "context not found, with the closest lines",
    files: { "src/utils.py": utils },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: src/utils.py",
        "@@",
        " def area(radius):",
        "-    return math.pi * r * r",
        "+    return 0",
        "*** End Patch",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["src/utils.py hunk 1", "def area(radius):", "Closest (line 6)"],
        details: {
          rejected_hunks: [
            {
              file: "src/utils.py",
              hunk: 1,
              expected: ["def area(radius):", "    return math.pi * r * r"],
              closest: { line: 6, lines: ["def area(r):", "    return math.pi * r * r"] },
            },
          ],
        },
      },
    },
  },
  {
    name: "context found twice with no anchor is ambiguous",
    files: { "io.py": twoClasses },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: io.py",
        "     def close(self):",
        "-        self.open = False",
        "+        pass",
        "*** End Patch",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: [
          "io.py hunk 1",
          "occur 2 times (at lines 2, 6)",
          "@@ line naming the enclosing function or class",
        ],
        details: {
          rejected_hunks: [
            { file: "io.py", hunk: 1, expected: ["    def close(self):", "        self.open = False"] },
          ],
        },
      },
    },
  },
  {
    name: "an anchor that is not in the file, with context that is not either",
    files: { "src/utils.py": utils },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: src/utils.py",
        "@@ def volume(r):",
        "-    return r ** 3",
        "+    return 0",
        "*** End Patch",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ['the @@ line "def volume(r):" was not found'],
      },
    },
  },
  {
    name: "*** End of File when the lines are not at the end",
    files: { "f.txt": text("a", "b") },
    request: patch(
      text("*** Begin Patch", "*** Update File: f.txt", "-a", "+A", "*** End of File", "*** End Patch"),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["not found at the end of the file"],
        details: { rejected_hunks: [{ hunk: 1, expected: ["a"] }] },
      },
    },
  },
  {
    name: "two Update File sections where the second fails: nothing changes",
    files: { "a.txt": text("a"), "b.txt": text("b") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: a.txt",
        "-a",
        "+A",
        "*** Update File: b.txt",
        "-x",
        "+X",
        "*** End Patch",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["b.txt hunk 1"],
        details: { rejected_hunks: [{ file: "b.txt", hunk: 1 }] },
      },
    },
  },
  {
    name: "failing hunks in two files are all reported",
    files: { "a.txt": text("a", "b"), "b.txt": text("c") },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: a.txt",
        "@@",
        "-q",
        "+Q",
        "@@",
        "-b",
        "+B",
        "@@",
        "-z",
        "+Z",
        "*** Update File: b.txt",
        "-y",
        "+Y",
        "*** End Patch",
      ),
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["3 hunks did not apply"],
        details: {
          rejected_hunks: [
            { file: "a.txt", hunk: 1, expected: ["q"] },
            { file: "a.txt", hunk: 3, expected: ["z"] },
            { file: "b.txt", hunk: 1, expected: ["y"] },
          ],
        },
      },
    },
  },
  {
    name: "an envelope sent a second time says it looks applied already",
    files: { "src/utils.py": utils.replace("    return x\n", "    return x * 2\n") },
    request: patch(
      "*** Begin Patch\n*** Update File: src/utils.py\n@@ def calculate(x):\n-    return x\n+    return x * 2\n*** End Patch",
    ),
    expect: {
      error: {
        code: "patch_hunk_fail",
        message: ["was this patch applied already?"],
        details: { rejected_hunks: [{ hunk: 1, closest: { line: 4, lines: ["    return x * 2"] } }] },
      },
    },
  },
  {
    name: "an unknown *** header",
    files: { "f.txt": "a\n" },
    request: patch(text("*** Begin Patch", "*** Modify File: f.txt", "-a", "+b", "*** End Patch")),
    expect: {
      error: {
        code: "patch_parse_error",
        message: ["Patch line 2", "*** Modify File: f.txt"],
        details: { line: 2 },
      },
    },
  },
  {
    name: "an Add File line without '+'",
    files: {},
    request: patch(text("*** Begin Patch", "*** Add File: a.txt", "+one", "two", "*** End Patch")),
    expect: {
      error: { code: "patch_parse_error", message: ["Patch line 4", "a line starting with '+'", '"two"'] },
    },
  },
  {
    name: "an Update File with no changes",
    files: { "f.txt": "a\n" },
    request: patch(text("*** Begin Patch", "*** Update File: f.txt", "*** End Patch")),
    expect: { error: { code: "patch_parse_error", message: ["Patch line 3", "changes for f.txt"] } },
  },
  {
    name: "an @@ line followed by nothing",
    files: { "f.txt": "a\n" },
    request: patch(text("*** Begin Patch", "*** Update File: f.txt", "@@ def f():", "*** End Patch")),
    expect: { error: { code: "patch_parse_error", message: ["Patch line 4", "after the @@ line"] } },
  },
  {
    name: "*** Move to after the hunk lines",
    files: { "f.txt": "a\n" },
    request: patch(
      text("*** Begin Patch", "*** Update File: f.txt", "-a", "+b", "*** Move to: g.txt", "*** End Patch"),
    ),
    expect: { error: { code: "patch_parse_error", message: ["Patch line 5", "'*** Move to:' right after"] } },
  },
  {
    name: "lines before the first file header",
    files: {},
    request: patch(text("*** Begin Patch", "-a", "*** End Patch")),
    expect: { error: { code: "patch_parse_error", message: ["Patch line 2", "'*** Add File: path'"] } },
  },
  {
    name: "a Begin Patch line with nothing after it",
    files: {},
    request: patch(text("*** Begin Patch", "*** End Patch")),
    expect: { error: { code: "patch_parse_error", message: ["Patch line 2"] } },
  },
  {
    name: "Move to a path outside the workspace",
    files: { "a.txt": "a\n" },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Update File: a.txt",
        "*** Move to: ../escaped.txt",
        "-a",
        "+b",
        "*** End Patch",
      ),
    ),
    expect: { error: { code: "path_escape", message: ["../escaped.txt"] } },
  },
  {
    name: "Add File at an absolute path outside the workspace",
    files: {},
    request: patch(text("*** Begin Patch", "*** Add File: /tmp/evil.sh", "+rm -rf /", "*** End Patch")),
    expect: { error: { code: "path_escape" } },
  },
  {
    name: "Update of a binary file",
    files: { "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]) },
    request: patch(text("*** Begin Patch", "*** Update File: logo.png", "-x", "+y", "*** End Patch")),
    expect: { error: { code: "binary_file", message: ["logo.png"] } },
  },
  {
    name: "a file header with no path",
    files: {},
    request: patch(text("*** Begin Patch", "*** Add File:", "+x", "*** End Patch")),
    expect: {
      error: { code: "patch_parse_error", message: ["Patch line 2", "a path after '*** Add File:'"] },
    },
  },
  {
    name: "an Update after a Delete of the same file",
    files: { "f.txt": "a\n" },
    request: patch(
      text(
        "*** Begin Patch",
        "*** Delete File: f.txt",
        "*** Update File: f.txt",
        "-a",
        "+b",
        "*** End Patch",
      ),
    ),
    expect: { error: { code: "file_not_found", message: ["f.txt does not exist"] } },
  },
];
