import { describe, expect, it } from "vitest";
import { type InputLine, inputLines, MAX_NESTING, nestingDepth, parseRequestLine } from "./input-lines.ts";

async function read(chunks: (string | Buffer)[], maxBytes?: number): Promise<InputLine[]> {
  const lines: InputLine[] = [];
  for await (const line of inputLines(
    (async function* () {
      yield* chunks;
    })(),
    maxBytes,
  ))
    lines.push(line);
  return lines;
}

const texts = (lines: InputLine[]) => lines.map((line) => line.text);

describe("input lines", () => {
  it("ends a line at \\n only: a CR inside stays, a CR before the newline goes", async () => {
    expect(texts(await read(['{"a":\r1}\r\n', "x\ry\n", "last"]))).toEqual(['{"a":\r1}', "x\ry", "last"]);
  });

  it("hands on every line, blank ones included, across chunk boundaries", async () => {
    const lines = await read(["a", "b\n\n  \n", "\u00a0\n\ufeff", "\nc"]);
    expect(texts(lines)).toEqual(["ab", "", "  ", "\u00a0", "\ufeff", "c"]);
    expect(lines.map((line) => line.number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(texts(await read(["a\n"]))).toEqual(["a"]);
    expect(texts(await read([]))).toEqual([]);
  });

  it("skips a line past the limit without keeping it, and reads on", async () => {
    const lines = await read(["ok\n", "x".repeat(40), "y".repeat(40), "\nnext\n"], 64);
    expect(lines).toEqual([
      { number: 1, text: "ok", bytes: 2 },
      { number: 2, text: null, bytes: 80 },
      { number: 3, text: "next", bytes: 4 },
    ]);
  });

  it("keeps UTF-8 split across chunks", async () => {
    const bytes = Buffer.from('{"t":"é€😀"}\n');
    expect(texts(await read([bytes.subarray(0, 7), bytes.subarray(7, 9), bytes.subarray(9)]))).toEqual([
      '{"t":"é€😀"}',
    ]);
  });
});

describe("request lines", () => {
  const line = (text: string | null, number = 2, bytes = 0): InputLine => ({ number, text, bytes });

  it("says why a line is not a request", () => {
    const message = (text: string | null, number = 2, bytes = 0) => {
      const parsed = parseRequestLine(line(text, number, bytes));
      if (parsed.ok) throw new Error("expected a refusal");
      return parsed.message;
    };
    expect(message("")).toMatch(/^Line 2 is empty; each line must be one JSON request/u);
    expect(message("   \t")).toMatch(/^Line 2 is blank/u);
    expect(message("\u00a0")).toMatch(/not valid JSON.*no-break space/u);
    expect(message("\ufeff")).toMatch(/not valid JSON.*byte order mark/u);
    expect(message('{"tool": "a\rb"}')).toMatch(/not valid JSON.*carriage return/u);
    expect(message(null, 7, 600 * 1024 * 1024)).toBe(
      "Line 7 is 600 MB long; a request line may be at most 64 MB. Put large content in a file in the workspace and name it instead.",
    );
    expect(message(`${"[".repeat(5000)}${"]".repeat(5000)}`)).toBe(
      `Line 2 nests 5000 levels deep; a request may nest at most ${MAX_NESTING} levels.`,
    );
  });

  it("takes a byte order mark at the very start of the input as an encoding mark", () => {
    expect(parseRequestLine(line('\ufeff{"tool":"x"}', 1))).toEqual({ ok: true, value: { tool: "x" } });
    expect(parseRequestLine(line('\ufeff{"tool":"x"}', 2)).ok).toBe(false);
  });

  it("counts nesting outside strings only", () => {
    expect(nestingDepth('{"a": "[[[{{{", "b": [{"c": "\\"["}]}')).toBe(3);
    expect(nestingDepth("[]")).toBe(1);
  });
});
