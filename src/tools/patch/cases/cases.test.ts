import { describe, expect, it } from "vitest";
import { isToolFailure, type ToolFailure } from "../../../core/errors.ts";
import { EmbeddedSandbox } from "../../../sandbox/embedded/embedded-sandbox.ts";
import type { Sandbox } from "../../../sandbox/types.ts";
import { commitPatch } from "../commit.ts";
import { planPatch } from "../plan.ts";
import { sourceFromSandbox } from "../source.ts";
import { applyPlanToMap, MemorySandbox, mapSource } from "../testing/memory.ts";
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

/** The sandboxes every case is also planned and committed through: the test double and the real embedded one. */
const sandboxes: [string, (files: Record<string, string>) => Promise<Sandbox>][] = [
  ["memory", async (files) => new MemorySandbox(files)],
  [
    "embedded",
    async (files) => {
      const sandbox = await EmbeddedSandbox.create();
      for (const [path, text] of Object.entries(files)) {
        const absolute = `${sandbox.workspaceRoot}/${path}`;
        await sandbox.mkdir(absolute.slice(0, absolute.lastIndexOf("/")), { recursive: true });
        await sandbox.writeFile(absolute, text);
      }
      return sandbox;
    },
  ],
];

/** Every file of a sandbox's workspace as text, BOM kept. */
async function workspaceFiles(sandbox: Sandbox): Promise<Record<string, string>> {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const out: Record<string, string> = {};
  for (const entry of (await sandbox.snapshot()).entries) {
    if (entry.type === "file") out[entry.path] = decoder.decode(entry.data);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
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
      // Through the sandboxes too: the same failure, and the workspace as it was.
      const initial = textFiles(c.files);
      for (const [, create] of initial ? sandboxes : []) {
        const sandbox = await create(initial!);
        const again = await failureOf(planPatch(c.request, sourceFromSandbox(sandbox)));
        expect(again.code).toBe(expected.error.code);
        expect(await workspaceFiles(sandbox)).toEqual(initial);
        if (sandbox instanceof MemorySandbox) expect(sandbox.log).toEqual([]);
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

    // Planned against each sandbox and committed, the workspace ends up exactly as expected.
    const initial = textFiles(c.files);
    for (const [, create] of initial ? sandboxes : []) {
      const sandbox = await create(initial!);
      const planned = await planPatch(c.request, sourceFromSandbox(sandbox));
      await commitPatch(planned, sandbox, sandbox.workspaceRoot);
      expect(await workspaceFiles(sandbox)).toEqual(expected.files);
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
