import { describe, expect, it } from "vitest";
import { isToolFailure, type ToolFailure } from "../../../core/errors.ts";
import { commitPatch } from "../commit.ts";
import { planPatch } from "../plan.ts";
import { sourceFromSandbox } from "../source.ts";
import { applyPlanToMap, MemorySandbox, mapSource, ROOT } from "../testing/memory.ts";
import type { PatchCase } from "./case.ts";
import { envelopeCases } from "./envelope.ts";
import { structuredCases } from "./structured.ts";
import { unifiedCases } from "./unified.ts";

async function failureOf(promise: Promise<unknown>): Promise<ToolFailure> {
  try {
    await promise;
  } catch (error) {
    if (isToolFailure(error)) return error;
    throw error;
  }
  throw new Error("expected the patch to fail, but it planned");
}

function textFiles(files: PatchCase["files"]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [path, content] of Object.entries(files)) {
    if (typeof content !== "string") return undefined;
    out[path] = content;
  }
  return out;
}

function runCase(c: PatchCase): void {
  it(c.name, async () => {
    const files = new Map(Object.entries(c.files));
    const expected = c.expect;
    if ("error" in expected) {
      const failure = await failureOf(planPatch(c.request, mapSource(files)));
      expect({ code: failure.code, message: failure.message }).toMatchObject({ code: expected.error.code });
      for (const fragment of expected.error.message ?? []) {
        if (typeof fragment === "string") expect(failure.message).toContain(fragment);
        else expect(failure.message).toMatch(fragment);
      }
      if (expected.error.details) expect(failure.details).toMatchObject(expected.error.details);
      // Through a real sandbox too: the same failure, and not one write.
      const initial = textFiles(c.files);
      if (initial) {
        const sandbox = new MemorySandbox(initial);
        const again = await failureOf(planPatch(c.request, sourceFromSandbox(sandbox)));
        expect(again.code).toBe(expected.error.code);
        expect(sandbox.files()).toEqual(initial);
        expect(sandbox.log).toEqual([]);
      }
      return;
    }

    const plan = await planPatch(c.request, mapSource(files));
    expect(applyPlanToMap(files, plan.files)).toEqual(expected.files);
    if (expected.hunks) expect(plan.hunks).toMatchObject(expected.hunks);

    // The plan's diff, applied strictly to the files before, gives the same files after.
    if (plan.diff !== "") {
      const replay = await planPatch(
        { kind: "text", text: plan.diff, formats: ["unified"] },
        mapSource(files),
      );
      expect(applyPlanToMap(files, replay.files)).toEqual(expected.files);
      expect(replay.hunks.every((hunk) => hunk.match === "exact" && hunk.offset === 0)).toBe(true);
    } else {
      expect(plan.files).toEqual([]);
    }

    // Planned against a sandbox and committed, the workspace ends up exactly as expected.
    const initial = textFiles(c.files);
    if (initial) {
      const sandbox = new MemorySandbox(initial);
      const planned = await planPatch(c.request, sourceFromSandbox(sandbox));
      await commitPatch(planned, sandbox, ROOT);
      expect(sandbox.files()).toEqual(expected.files);
    }
  });
}

describe("unified diffs", () => {
  for (const c of unifiedCases) runCase(c);
});

describe("apply_patch envelopes", () => {
  for (const c of envelopeCases) runCase(c);
});

describe("structured hunks", () => {
  for (const c of structuredCases) runCase(c);
});

describe("the case tables", () => {
  it("hold at least 150 cases with distinct names", () => {
    const all = [...unifiedCases, ...envelopeCases, ...structuredCases];
    expect(all.length).toBeGreaterThanOrEqual(150);
    expect(new Set(all.map((c) => c.name)).size).toBe(all.length);
  });
});
