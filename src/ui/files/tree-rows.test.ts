import { describe, expect, it } from "vitest";
import type { EntryType } from "../../sandbox/types.ts";
import { ancestorsOf, indexTree, visibleRows } from "./tree-rows.ts";

describe("file tree rows", () => {
  it("lists folders first, shows children of expanded folders only, and implies missing parents", () => {
    const files = new Map<string, EntryType>([
      ["b.txt", "file"],
      ["src", "directory"],
      ["src/z.ts", "file"],
      ["src/lib/a.ts", "file"],
      ["a.txt", "file"],
    ]);
    const index = indexTree(files);
    expect(visibleRows(index, new Set()).map((row) => row.path)).toEqual(["src", "a.txt", "b.txt"]);
    const open = visibleRows(index, new Set(["src", "src/lib"]));
    expect(open.map((row) => [row.path, row.depth])).toEqual([
      ["src", 0],
      ["src/lib", 1],
      ["src/lib/a.ts", 2],
      ["src/z.ts", 1],
      ["a.txt", 0],
      ["b.txt", 0],
    ]);
    expect(ancestorsOf("src/lib/a.ts")).toEqual(["src", "src/lib"]);
  });

  it("indexes 10,000 files and lays out the rows of all of them quickly", () => {
    const files = new Map<string, EntryType>();
    const expanded = new Set<string>();
    for (let folder = 0; folder < 100; folder++) {
      files.set(`pkg${folder}`, "directory");
      expanded.add(`pkg${folder}`);
      for (let file = 0; file < 100; file++) files.set(`pkg${folder}/file${file}.ts`, "file");
    }
    const started = performance.now();
    const rows = visibleRows(indexTree(files), expanded);
    const ms = performance.now() - started;
    expect(rows).toHaveLength(10_100);
    expect(ms).toBeLessThan(500);
  });
});
