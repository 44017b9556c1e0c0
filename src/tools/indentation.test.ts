import { describe, expect, it } from "vitest";
import { detectIndentUnit, indentationBlock, renderIndentation } from "./indentation.ts";

const PY = `import os

@decorator
def outer(x):
    """Doc."""
    if x:
        return 1

    return 2


class Thing:
    # A comment about run
    def run(self):
        value = 3
        return value

    def stop(self):
        pass
CONSTANT = 4
`.split("\n");

const block = (lines: string[], anchor: number, limit = 400) => {
  const found = indentationBlock(lines, anchor, limit);
  return { ...found, text: lines.slice(found.start, found.end) };
};

describe("indentationBlock", () => {
  it("returns the block a header opens, with its decorators, blank lines inside and not after", () => {
    const found = block(PY, 3);
    expect(found.text).toEqual([
      "@decorator",
      "def outer(x):",
      '    """Doc."""',
      "    if x:",
      "        return 1",
      "",
      "    return 2",
    ]);
    expect(found).toMatchObject({ anchor: 3, truncated: false, unit: 4 });
  });

  it("returns the innermost enclosing block for a line inside a body", () => {
    expect(block(PY, 6).text).toEqual(["    if x:", "        return 1"]);
    expect(block(PY, 14).text).toEqual([
      "    # A comment about run",
      "    def run(self):",
      "        value = 3",
      "        return value",
    ]);
    expect(block(PY, 18).text).toEqual(["    def stop(self):", "        pass"]);
  });

  it("moves a blank anchor to the next non-blank line", () => {
    expect(block(PY, 10)).toMatchObject({ anchor: 11, text: expect.arrayContaining(["class Thing:"]) });
  });

  it("returns the paragraph around a top-level line that opens nothing", () => {
    expect(block(PY, 0).text).toEqual(["import os"]);
    expect(block(PY, 19).text).toEqual(["CONSTANT = 4"]);
    expect(block(["a = 1", "b = 2", "", "c = 3"], 1).text).toEqual(["a = 1", "b = 2"]);
  });

  it("takes a brace language's closing line", () => {
    const ts = ["function f() {", "  if (a) {", "    b();", "  }", "  return 1;", "}", "", "f();"];
    expect(block(ts, 0).text).toEqual(ts.slice(0, 6));
    expect(block(ts, 2).text).toEqual(["  if (a) {", "    b();", "  }"]);
    const jsdoc = ["/**", " * Adds.", " */", "function add() {", "  return 1;", "}"];
    expect(block(jsdoc, 3).text).toEqual(jsdoc);
  });

  it("keeps to the limit, starting at the block or centred on the anchor", () => {
    const long = ["def f():", ...Array.from({ length: 50 }, (_, i) => `    x${i} = ${i}`)];
    expect(block(long, 0, 10)).toMatchObject({ start: 0, end: 10, truncated: true });
    expect(block(long, 40, 10)).toMatchObject({ start: 35, end: 45, truncated: true });
    expect(block(long, 50, 10)).toMatchObject({ start: 41, end: 51 });
  });

  it("counts a tab as one level", () => {
    const go = ["func main() {", "\tif x {", "\t\ty()", "\t}", "}"];
    expect(block(go, 2).text).toEqual(["\tif x {", "\t\ty()", "\t}"]);
  });
});

describe("detectIndentUnit", () => {
  it("finds the file's step, ignoring alignment noise", () => {
    expect(detectIndentUnit(PY)).toBe(4);
    expect(detectIndentUnit(["a:", "  b:", "    c: 1", "  d:", "    e: 2", "       aligned"])).toBe(2);
    expect(detectIndentUnit(["no indentation"])).toBe(4);
  });
});

describe("renderIndentation", () => {
  it("renders each level with the indent given and keeps alignment columns", () => {
    const yaml = ["a:", "  b:", "    c: 1", "     odd", "", "\t tabbed"];
    expect(renderIndentation(yaml, "\t", 2)).toEqual(["a:", "\tb:", "\t\tc: 1", "\t\t odd", "", "\t tabbed"]);
    expect(renderIndentation(["    x", "        y"], "  ", 4)).toEqual(["  x", "    y"]);
  });
});
