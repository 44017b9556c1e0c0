import picomatch from "picomatch/posix";
import { describe, expect, it } from "vitest";
import { pathGlob, ripgrepGlob, wildcard } from "./glob.ts";

/** A small seeded generator, so a failure names its case and repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

describe("globs", () => {
  it("answer as picomatch (dot: true) on 20,000 generated globs and paths", () => {
    const next = random(7);
    const pick = (chars: string, length: number) =>
      Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join("");
    for (let i = 0; i < 20_000; i++) {
      const glob = pick("ab.*?/", 1 + Math.floor(next() * 7)).replace(/\/+/gu, "/");
      // "./" is stripped before matching (a different glob from picomatch's point of view).
      if (glob.startsWith("./")) continue;
      const segments = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
        pick("ab.", 1 + Math.floor(next() * 5)),
      );
      const path = segments.filter((name) => name !== "." && name !== "..").join("/") || "a";
      const expected = picomatch(glob, { dot: true })(path);
      expect(pathGlob(glob)(path), `${glob} on ${path}`).toBe(expected);
    }
  });

  it("keep picomatch's answers for globs with ** and other syntax", () => {
    const cases: [string, string, boolean][] = [
      ["src/**/*.ts", "src/a/b/c.ts", true],
      ["src/**/*.ts", "src/c.ts", true],
      ["src/**/*.ts", "src/c.js", false],
      ["**/c", "c", true],
      ["*.{js,ts}", "x.ts", true],
      ["[ab]*", "b.txt", true],
      ["*", ".hidden", true],
    ];
    for (const [glob, path, expected] of cases)
      expect(pathGlob(glob)(path), `${glob} on ${path}`).toBe(expected);
    expect(ripgrepGlob("*.ts")("deep/er/x.ts")).toBe(true);
  });

  it("finish at once on a glob that makes picomatch's RegExp backtrack for minutes", () => {
    const glob = `${"*a".repeat(25)}*c`;
    const name = `${"a".repeat(40)}b`;
    expect(pathGlob(glob)(name)).toBe(false);
    expect(pathGlob(`**/${glob}`)(`dir/${name}`)).toBe(false);
    expect(ripgrepGlob(glob)(`dir/${name}`)).toBe(false);
    expect(pathGlob(glob)(`${"a".repeat(40)}c`)).toBe(true);
    expect(wildcard("a*b?d", "axxbcd")).toBe(true);
  });
});
