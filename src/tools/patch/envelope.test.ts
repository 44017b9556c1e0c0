import { describe, expect, it } from "vitest";
import { parseEnvelope } from "./envelope.ts";

const body =
  "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch";

function lines(text: string) {
  return parseEnvelope(text).operations.map((op) => ({
    kind: op.kind,
    paths: op.paths,
    hunks: op.hunks.map((hunk) => ({ anchors: hunk.anchors, lines: hunk.lines, eof: hunk.atEndOfFile })),
  }));
}

describe("parseEnvelope", () => {
  const expected = [
    {
      kind: "update",
      paths: ["a.py"],
      hunks: [
        {
          anchors: ["def f():"],
          lines: [
            { kind: "-", text: "    return 1" },
            { kind: "+", text: "    return 2" },
          ],
          eof: false,
        },
      ],
    },
  ];

  const wrappers: [string, string][] = [
    ["bare", body],
    ["with a final newline", `${body}\n`],
    ["heredoc 'EOF'", `apply_patch <<'EOF'\n${body}\nEOF\n`],
    ['heredoc "EOF"', `apply_patch <<"EOF"\n${body}\nEOF`],
    ["heredoc EOF", `apply_patch <<EOF\n${body}\nEOF\n`],
    ["heredoc <<-", `apply_patch <<-'EOF'\n${body}\nEOF\n`],
    ["bash -lc", `bash -lc 'apply_patch <<"EOF"\n${body}\nEOF\n'`],
    ["JSON argv", JSON.stringify(["bash", "-lc", `apply_patch <<'EOF'\n${body}\nEOF\n`])],
    ["JSON argv without the shell", JSON.stringify(["apply_patch", body])],
    ["without End Patch", body.replace("\n*** End Patch", "")],
    ["without End Patch in a heredoc", `apply_patch <<'EOF'\n${body.replace("\n*** End Patch", "")}\nEOF`],
    ["indented and padded", `\n  ${body}  \n\n`],
  ];
  for (const [name, text] of wrappers) {
    it(`reads the same patch ${name}`, () => {
      expect(lines(text)).toEqual(expected);
    });
  }

  it("undoes the escaping of a double-quoted bash -lc", () => {
    const text =
      'bash -lc "apply_patch <<\'EOF\'\n*** Begin Patch\n*** Add File: a.sh\n+echo \\"\\$HOME\\"\n*** End Patch\nEOF"';
    expect(lines(text)[0]!.hunks[0]!.lines).toEqual([{ kind: "+", text: 'echo "$HOME"' }]);
  });

  it("nests consecutive @@ lines as anchors", () => {
    const text =
      "*** Begin Patch\n*** Update File: m.py\n@@ class A:\n@@     def f(self):\n-x\n+y\n*** End Patch";
    expect(lines(text)[0]!.hunks[0]!.anchors).toEqual(["class A:", "def f(self):"]);
  });

  it("marks *** End of File on its hunk", () => {
    const text = "*** Begin Patch\n*** Update File: f\n-x\n+y\n*** End of File\n*** End Patch";
    expect(lines(text)[0]!.hunks[0]!.eof).toBe(true);
  });

  it("records Move to on the update", () => {
    const [op] = parseEnvelope(
      "*** Begin Patch\n*** Update File: a\n*** Move to: b\n-x\n+y\n*** End Patch",
    ).operations;
    expect(op).toMatchObject({ kind: "update", paths: ["a"], moveTo: "b" });
  });

  it("counts error lines from the first line of the text, wrapper included", () => {
    const text = "apply_patch <<'EOF'\n*** Begin Patch\n*** Frobnicate File: x\n*** End Patch\nEOF\n";
    expect(() => parseEnvelope(text)).toThrow(
      expect.objectContaining({ code: "patch_parse_error", details: expect.objectContaining({ line: 3 }) }),
    );
  });

  it("refuses text with no envelope", () => {
    expect(() => parseEnvelope("just some words")).toThrow(/Patch line 1: expected '\*\*\* Begin Patch'/u);
  });
});
