import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import type { SymbolDefinition } from "../tools/project/symbols.ts";
import { indexedDbSymbolStore } from "./symbol-store.ts";

const parse = (symbol: string): SymbolDefinition[] => [
  { symbol, kind: "function", line: 1, recovered: false },
];

describe("indexedDbSymbolStore", () => {
  it("gives back what was put, by content id, to a store opened later (a reload); unknown ids are misses", async () => {
    await indexedDbSymbolStore("symbols-a").put(
      new Map([
        ["ts:1", parse("one")],
        ["py:2", parse("two")],
      ]),
    );
    const found = await indexedDbSymbolStore("symbols-a").get(["ts:1", "py:2", "ts:3"]);
    expect([...found]).toEqual([
      ["ts:1", parse("one")],
      ["py:2", parse("two")],
    ]);
  });

  it("starts over past its limit instead of growing without end", async () => {
    const store = indexedDbSymbolStore("symbols-b", 3);
    await store.put(
      new Map([
        ["a", parse("a")],
        ["b", parse("b")],
      ]),
    );
    await store.put(
      new Map([
        ["c", parse("c")],
        ["d", parse("d")],
      ]),
    );
    expect([...(await store.get(["a", "b", "c", "d"])).keys()]).toEqual(["c", "d"]);
  });
});
