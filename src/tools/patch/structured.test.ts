import { describe, expect, it } from "vitest";
import { applyStructuredHunks, replacementLines, validateStructuredPatches } from "./structured.ts";
import { splitLines } from "./text.ts";

describe("replacementLines", () => {
  it("reads replace_with as lines, a final newline or not", () => {
    expect(replacementLines("")).toEqual([]);
    expect(replacementLines("\n")).toEqual([""]);
    expect(replacementLines("a")).toEqual(["a"]);
    expect(replacementLines("a\nb\n")).toEqual(["a", "b"]);
    expect(replacementLines("a\r\nb")).toEqual(["a", "b"]);
    expect(replacementLines("a\n\n")).toEqual(["a", ""]);
  });
});

describe("validateStructuredPatches", () => {
  const bad: [string, unknown, string][] = [
    ["not a list", { path: "x" }, "patches must be a non-empty list"],
    ["an entry that is not an object", [3], "patches[0] must be an object"],
    [
      "a blank path",
      [{ path: " ", hunks: [{ start: 1, end: 1, replace_with: "" }] }],
      "patches[0].path must be",
    ],
    ["a missing hunks list", [{ path: "a" }], "patches[0].hunks must be a non-empty list"],
    [
      "a string line number",
      [{ path: "a", hunks: [{ start: "1", end: 1, replace_with: "" }] }],
      "start must be an integer",
    ],
    [
      "a missing end",
      [{ path: "a", hunks: [{ start: 1, replace_with: "" }] }],
      "patches[0].hunks[0].end must be an integer",
    ],
    [
      "a replace_with that is not text",
      [{ path: "a", hunks: [{ start: 1, end: 1, replace_with: 5 }] }],
      "replace_with must be a string",
    ],
  ];
  for (const [name, patches, message] of bad) {
    it(`refuses ${name}`, () => {
      expect(() => validateStructuredPatches(patches)).toThrow(
        expect.objectContaining({ code: "patch_parse_error", message: expect.stringContaining(message) }),
      );
    });
  }
});

describe("applyStructuredHunks", () => {
  it("reports where each hunk applied, in the order given, and the changed stretches", () => {
    const result = applyStructuredHunks(splitLines("a\nb\nc\n"), [
      { start: 3, end: 3, replace_with: "C" },
      { start: 1, end: 0, replace_with: "zero" },
    ]);
    expect(result.text).toBe("zero\na\nb\nC\n");
    expect(result.placed.map((p) => [p.hunk, p.line])).toEqual([
      [1, 3],
      [2, 1],
    ]);
    expect(result.hint?.edits).toEqual([
      { oldStart: 0, oldEnd: 0, newStart: 0, newEnd: 1 },
      { oldStart: 2, oldEnd: 3, newStart: 3, newEnd: 4 },
    ]);
  });

  it("lists every bad hunk and changes nothing", () => {
    const result = applyStructuredHunks(splitLines("a\nb\n"), [
      { start: 1, end: 2, replace_with: "x" },
      { start: 2, end: 2, replace_with: "y" },
      { start: 4, end: 4, replace_with: "z" },
    ]);
    expect(result.text).toBe("a\nb\n");
    expect(result.rejected.map((r) => r.hunk)).toEqual([2, 3]);
  });
});
