import { describe, expect, it } from "vitest";
import {
  closestLines,
  LineIndex,
  type LocateQuery,
  lineSimilarity,
  locate,
  normalizeUnicode,
} from "./locate.ts";

function query(sought: string[], extra: Partial<LocateQuery> = {}): LocateQuery {
  return { sought, anchors: [], cursor: 0, atEndOfFile: false, ...extra };
}

describe("normalizeUnicode", () => {
  it("maps dashes, quotes, odd spaces and the ellipsis to ASCII", () => {
    expect(normalizeUnicode("a\u2013b\u2014c\u2212d \u2018e\u2019 \u201cf\u201d g\u00a0h\u2009i\u2026")).toBe(
      "a-b-c-d 'e' \"f\" g h i...",
    );
  });

  it("drops zero-width characters and composes accents (NFC)", () => {
    expect(normalizeUnicode("ze\u200bro cafe\u0301")).toBe("zero café");
  });
});

describe("locate", () => {
  const file = new LineIndex(["alpha", "  beta  ", "gamma", "alpha", "  beta", "delta"]);

  it("prefers an exact match over looser ones", () => {
    expect(locate(file, query(["alpha", "  beta"]))).toEqual({ found: true, position: 3, level: "exact" });
  });

  it("falls back to ignoring trailing whitespace, then all surrounding whitespace", () => {
    const index = new LineIndex(["x  ", "\ty"]);
    expect(locate(index, query(["x", "\ty"]))).toMatchObject({ found: true, level: "trailing_whitespace" });
    expect(locate(index, query(["x", "y"]))).toMatchObject({ found: true, level: "whitespace" });
  });

  it("without numbers or anchors, several matches are ambiguous and listed", () => {
    const result = locate(file, query(["alpha"]));
    expect(result).toEqual({
      found: false,
      reason: expect.stringContaining("occur 2 times (at lines 1, 4)"),
      candidates: [0, 3],
    });
  });

  it("looks after the previous hunk first", () => {
    expect(locate(file, query(["alpha"], { cursor: 2 }))).toMatchObject({ found: true, position: 3 });
  });

  it("finds a hunk given out of order before the cursor", () => {
    expect(locate(file, query(["gamma"], { cursor: 4 }))).toMatchObject({ found: true, position: 2 });
  });

  it("with a header line, takes the nearest match, after before before at equal distance", () => {
    const index = new LineIndex(["x", "m", "x", "x", "x", "m", "x"]);
    expect(locate(index, query(["m"], { expected: 3 }))).toMatchObject({ found: true, position: 5 });
    expect(locate(index, query(["m"], { expected: 2 }))).toMatchObject({ found: true, position: 1 });
  });

  it("skips places where the hunk may not sit", () => {
    expect(locate(file, query(["alpha"], { free: (position) => position !== 0 }))).toMatchObject({
      position: 3,
    });
  });

  it("pins *** End of File hunks to the last lines", () => {
    expect(locate(file, query(["delta"], { atEndOfFile: true }))).toMatchObject({ found: true, position: 5 });
    expect(locate(file, query(["alpha"], { atEndOfFile: true }))).toMatchObject({ found: false });
  });

  it("seeks context after nested anchors, the nearest occurrence first", () => {
    const index = new LineIndex(["class A:", "  def f():", "    pass", "class B:", "  def f():", "    pass"]);
    const found = locate(index, query(["    pass"], { anchors: ["class B:", "def f():"] }));
    expect(found).toEqual({ found: true, position: 5, level: "exact" });
  });

  it("places a pure insertion after its anchor, or at the end", () => {
    const index = new LineIndex(["a", "b", "c"]);
    expect(locate(index, query([], { anchors: ["a"] }))).toMatchObject({ position: 1 });
    expect(locate(index, query([]))).toMatchObject({ position: 3 });
    expect(locate(index, query([], { expected: 2 }))).toMatchObject({ position: 2 });
    expect(locate(index, query([], { expected: 9 }))).toMatchObject({ found: false });
  });

  it("names a missing anchor when the context is not found either", () => {
    const result = locate(file, query(["omega"], { anchors: ["def nowhere():"] }));
    expect(result).toMatchObject({
      found: false,
      reason: 'the @@ line "def nowhere():" was not found in the file',
    });
  });

  it("uses the occurrence map once a file is searched many times, with the same answers", () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i % 50}`);
    const index = new LineIndex(lines);
    for (let round = 0; round < 6; round++) {
      expect(locate(index, query(["line 7", "line 8"], { cursor: 440 }))).toMatchObject({ position: 457 });
      expect(locate(index, query(["line 7"]))).toMatchObject({ found: false, candidates: expect.any(Array) });
    }
  });
});

describe("closestLines", () => {
  it("finds the lines most like the ones sought", () => {
    const index = new LineIndex(["def add(a, b):", "    return a - b", "", "x = 1"]);
    expect(closestLines(index, ["def add(a, b, c):", "    return a - b - c"], 0)).toEqual({
      line: 1,
      lines: ["def add(a, b):", "    return a - b"],
    });
  });

  it("prefers the place nearest where the hunk was expected among equally close ones", () => {
    const index = new LineIndex(["return x", "a", "b", "c", "return x", "d"]);
    expect(closestLines(index, ["return y"], 4)?.line).toBe(5);
    expect(closestLines(index, ["return y"], 0)?.line).toBe(1);
  });

  it("gives null when nothing looks alike", () => {
    expect(closestLines(new LineIndex(["aaaa", "bbbb"]), ["zzzz qqqq"], 0)).toBeNull();
  });

  it("scores lines by bigram similarity", () => {
    expect(lineSimilarity("abc", "abc")).toBe(1);
    expect(lineSimilarity("abcd", "wxyz")).toBe(0);
    expect(lineSimilarity("return a - b", "return a + b")).toBeGreaterThan(0.7);
  });
});
