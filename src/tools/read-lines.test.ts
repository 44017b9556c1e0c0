import { describe, expect, it } from "vitest";
import { sliceLines } from "./read-lines.ts";

describe("sliceLines", () => {
  it("keeps each line's own ending, so a window is the exact text", () => {
    const text = "a\r\nb\nc\rd";
    expect(sliceLines(text, 0, undefined)).toEqual({ content: text, totalLines: 4, returnedLines: 4 });
    expect(sliceLines(text, 1, 2)).toEqual({ content: "b\nc\r", totalLines: 4, returnedLines: 2 });
    expect(sliceLines(text, 3, 10)).toEqual({ content: "d", totalLines: 4, returnedLines: 1 });
  });

  it("counts a final newline as ending the last line, not starting another", () => {
    expect(sliceLines("x\ny\n", 0, undefined).totalLines).toBe(2);
    expect(sliceLines("", 0, undefined)).toEqual({ content: "", totalLines: 0, returnedLines: 0 });
    expect(sliceLines("\n\n", 0, 1)).toEqual({ content: "\n", totalLines: 2, returnedLines: 1 });
  });

  it("returns nothing past the end", () => {
    expect(sliceLines("x\n", 5, 1)).toEqual({ content: "", totalLines: 1, returnedLines: 0 });
  });
});
