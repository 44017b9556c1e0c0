import { describe, expect, it } from "vitest";
import { SessionState } from "./state.ts";

describe("SessionState", () => {
  it("stores JSON values and returns copies", () => {
    const state = new SessionState();
    const value = { plan: ["a", "b"], n: 1.5, ok: true, none: null };
    expect(state.set("plan.v1", value)).toMatchObject({ key: "plan.v1" });
    const got = state.get("plan.v1");
    expect(got).toEqual({ key: "plan.v1", found: true, value });
    (got.value as { plan: string[] }).plan.push("c");
    expect(state.get("plan.v1").value).toEqual(value);
    expect(state.get("other")).toEqual({ key: "other", found: false, value: null });
    state.set("plan.v1", 2);
    expect(state.get("plan.v1").value).toBe(2);
  });

  it.each(["", " x", "a b", "-x", "x".repeat(129), 5, null])("set refuses key %j as invalid_key", (key) => {
    expect(() => new SessionState().set(key, 1)).toThrow(expect.objectContaining({ code: "invalid_key" }));
  });

  it.each(["", " x", "a b", "-x", "x".repeat(129)])(
    "get of key %j finds nothing, as for any absent key",
    (key) => {
      expect(new SessionState().get(key)).toEqual({ key, found: false, value: null });
    },
  );

  it("refuses what JSON cannot carry, saying where", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const [value, where] of [
      [Number.NaN, "value is NaN"],
      [{ a: [1, Number.POSITIVE_INFINITY] }, "value.a[1] is Infinity"],
      [{ a: undefined }, "value.a is undefined"],
      [() => 1, "value is a function"],
      [10n, "value is a bigint"],
      [new Map(), "value is a Map object"],
      [cycle, "value.self refers back to itself"],
    ] as const) {
      expect(() => new SessionState().set("k", value)).toThrow(
        expect.objectContaining({ code: "not_serializable", message: expect.stringContaining(where) }),
      );
    }
  });

  it("allows the same object twice when it is not a cycle", () => {
    const shared = { x: 1 };
    expect(new SessionState().set("k", [shared, shared]).key).toBe("k");
  });
});
