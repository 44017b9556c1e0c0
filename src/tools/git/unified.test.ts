import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, tempDir } from "./native-git.test-helpers.ts";
import { unifiedHunks } from "./unified.ts";

/** `git diff --no-index` of two texts: the hunks only (from the first @@). */
function nativeHunks(root: string, before: string, after: string): string {
  writeFileSync(join(root, "a"), before);
  writeFileSync(join(root, "b"), after);
  try {
    git(root, "diff", "--no-index", "a", "b");
    return "";
  } catch (error) {
    const out = (error as { stdout: string }).stdout;
    return out.slice(out.indexOf("@@"));
  }
}

const BEFORE = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";

describe("unifiedHunks agrees with native git diff", () => {
  it.each([
    [
      "an insertion between two functions (a blank-line slider)",
      "def a():\n    return 1\n\n\ndef new():\n    return 3\n\n\ndef b():\n    return 2\n",
    ],
    ["a block appended after a blank line", `${BEFORE}\n\ndef c():\n    return 3\n`],
    [
      "an if block inserted in a function",
      "def a():\n    if x:\n        return 1\n    return 1\n\n\ndef b():\n    return 2\n",
    ],
    ["a removed final newline", BEFORE.slice(0, -1)],
    ["a whole-file rewrite", "x\ny\n"],
    ["everything removed", ""],
  ])("%s", (_name, after) => {
    const root = tempDir();
    expect(unifiedHunks(BEFORE, after).text).toBe(nativeHunks(root, BEFORE, after));
  });

  it("bounds a huge rewrite: 30,000 lines all replaced, in well under the runtime's deadline", () => {
    const before = Array.from({ length: 30_000 }, (_, i) => `old ${i}\n`).join("");
    const after = `${Array.from({ length: 30_000 }, (_, i) => `new ${i}\n`).join("")}`;
    const started = performance.now();
    const result = unifiedHunks(`head\n${before}tail\n`, `head\n${after}tail\n`);
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(result).toMatchObject({ additions: 30_000, deletions: 30_000 });
    expect(result.text.startsWith("@@ -1,30002 +1,30002 @@\n head\n-old 0\n")).toBe(true);
  });

  /** Random edits of a real source file: lines removed, blank lines and braces inserted, lines edited and repeated. */
  function randomEdits(rounds: number, maxEdits: number) {
    const source = readFileSync(join(import.meta.dirname, "diff.ts"), "utf8")
      .split("\n")
      .slice(0, 200);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const root = tempDir();
    let textMismatches = 0;
    let countMismatches = 0;
    for (let round = 0; round < rounds; round++) {
      const lines = [...source];
      for (let edit = 1 + random(maxEdits); edit > 0; edit--) {
        const at = random(lines.length);
        const kind = random(4);
        if (kind === 0) lines.splice(at, 1 + random(3));
        else if (kind === 1)
          lines.splice(at, 0, ...["", "  }", `  const x${round} = ${edit};`, "  return x;"].slice(random(3)));
        else if (kind === 2) lines[at] = `${lines[at]} // edited`;
        else lines.splice(at, 0, lines[random(lines.length)]!, "");
      }
      const before = `${source.join("\n")}\n`;
      const after = `${lines.join("\n")}\n`;
      const native = nativeHunks(root, before, after);
      const ours = unifiedHunks(before, after);
      if (ours.text !== native) textMismatches++;
      const added = native.split("\n").filter((line) => line.startsWith("+")).length;
      const removed = native.split("\n").filter((line) => line.startsWith("-")).length;
      if (added !== ours.additions || removed !== ours.deletions) countMismatches++;
    }
    return { textMismatches, countMismatches };
  }

  it("on 150 files with a few random edits each, byte for byte", () => {
    expect(randomEdits(150, 6)).toEqual({ textMismatches: 0, countMismatches: 0 });
  });

  it("on 300 files with up to 15 random edits each: counts always, text in at least 99% (git's own Myers variant pairs a few repeated lines differently)", () => {
    const result = randomEdits(300, 15);
    expect(result.countMismatches).toBe(0);
    expect(result.textMismatches).toBeLessThanOrEqual(3);
  });
});
