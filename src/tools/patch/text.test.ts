import { describe, expect, it } from "vitest";
import { decodeText, encodeText, endsWithNewline, joinLines, sealLines, splitLines } from "./text.ts";

describe("splitLines / joinLines", () => {
  const samples: [string, string][] = [
    ["empty", ""],
    ["one newline", "\n"],
    ["LF", "a\nb\n"],
    ["no final newline", "a\nb"],
    ["CRLF", "a\r\nb\r\n"],
    ["mixed endings", "a\r\nb\nc\r\nd"],
    ["a lone CR stays inside its line", "a\rb\nc\n"],
    ["BOM", "\uFEFFa\nb\n"],
    ["blank lines", "\n\n\na\n\n"],
  ];
  for (const [name, text] of samples) {
    it(`gives back the same text: ${name}`, () => {
      const file = splitLines(text);
      expect(joinLines(file, endsWithNewline(file))).toBe(text);
    });
  }

  it("keeps terminators apart from the line text", () => {
    expect(splitLines("a\r\nb\nc")).toEqual({
      lines: ["a", "b", "c"],
      eols: ["\r\n", "\n", ""],
      eol: "\n",
      bom: false,
    });
  });

  it("picks CRLF for new lines when most lines use it", () => {
    expect(splitLines("a\r\nb\r\nc\n").eol).toBe("\r\n");
    expect(splitLines("a\r\nb\nc\n").eol).toBe("\n");
  });

  it("strips the BOM from the first line and remembers it", () => {
    const file = splitLines("\uFEFFx\n");
    expect(file.lines).toEqual(["x"]);
    expect(file.bom).toBe(true);
  });

  it("joins a former last line with the dominant ending when lines follow it", () => {
    const file = { lines: ["a", "b"], eols: ["", ""], eol: "\r\n" as const, bom: false };
    expect(joinLines(file, true)).toBe("a\r\nb\r\n");
    expect(joinLines(file, false)).toBe("a\r\nb");
  });

  it("sealLines makes the lines equal to what splitLines reads back", () => {
    const sealed = sealLines(
      { lines: ["a", "b", "c"], eols: ["\r\n", "", ""], eol: "\n", bom: false },
      false,
    );
    expect(sealed).toEqual(splitLines(joinLines(sealed, false)));
    expect(sealed.eols).toEqual(["\r\n", "\n", ""]);
  });
});

describe("decodeText", () => {
  it("decodes UTF-8, keeping a BOM", () => {
    expect(decodeText(encodeText("\uFEFFcafé\n"), "f.txt")).toBe("\uFEFFcafé\n");
  });

  it("refuses bytes that are not UTF-8 with binary_file naming the file", () => {
    expect(() => decodeText(new Uint8Array([0xc3, 0x28]), "bad.txt")).toThrow(
      expect.objectContaining({ code: "binary_file", details: { path: "bad.txt" } }),
    );
  });

  it("refuses NUL bytes", () => {
    expect(() => decodeText(new Uint8Array([0x61, 0x00]), "nul.bin")).toThrow(/nul\.bin contains NUL bytes/u);
  });
});
