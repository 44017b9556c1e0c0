import { describe, expect, it } from "vitest";
import { readingAndSearching } from "./builtin/reading-and-searching.ts";
import { lessonFromUrl, lessonLink } from "./share.ts";

describe("lesson links", () => {
  it("round-trip a lesson through the URL fragment", () => {
    const link = lessonLink(readingAndSearching, "https://toolroom.example/app?x=1#old");
    expect(link).toMatch(/^https:\/\/toolroom\.example\/app\?x=1#lesson=[A-Za-z0-9_-]+$/u);
    expect(lessonFromUrl(link!)).toEqual(readingAndSearching);
  });

  it("say plainly when a link carries no lesson, a damaged one, or something else", () => {
    expect(lessonFromUrl("https://toolroom.example/#s=abc")).toBeNull();
    expect(() => lessonFromUrl("https://toolroom.example/#lesson=not-deflate")).toThrow(/damaged/u);
  });

  it("refuse to make a link past the share-link limit", () => {
    const big = {
      ...readingAndSearching,
      files: { "big.txt": Array.from({ length: 20_000 }, (_, i) => `${i * 7919}`).join("\n") },
    };
    expect(lessonLink(big, "https://toolroom.example/")).toBeNull();
  });
});
