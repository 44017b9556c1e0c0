import { describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../host/create-runtime.ts";
import { checkLesson, type Lesson } from "../lesson.ts";
import { LessonRun } from "../lesson-run.ts";
import { BUILTIN_LESSONS } from "./index.ts";
import { readingAndSearching } from "./reading-and-searching.ts";

async function open(lesson: Lesson) {
  const run = await LessonRun.open(lesson, await createEmbeddedRuntime());
  const call = (tool: string, params: Record<string, unknown>, profile = lesson.profiles[0]!.profile) =>
    run.call(profile, { tool, params });
  const failing = async () =>
    (await run.check()).filter((result) => !result.passed).map((result) => result.id);
  return { run, call, failing };
}

describe("built-in lessons", () => {
  it("are valid lesson files with unique ids", () => {
    for (const lesson of BUILTIN_LESSONS)
      expect(checkLesson(JSON.parse(JSON.stringify(lesson)))).toEqual(lesson);
    expect(new Set(BUILTIN_LESSONS.map((lesson) => lesson.id)).size).toBe(BUILTIN_LESSONS.length);
  });

  it("start with their content checks failing", async () => {
    for (const lesson of BUILTIN_LESSONS) {
      const { failing } = await open(lesson);
      expect((await failing()).length, lesson.id).toBeGreaterThan(0);
    }
  });
});

describe(readingAndSearching.title, () => {
  const PATCH = `--- a/src/pricing.js
+++ b/src/pricing.js
@@ -6,3 +6,3 @@
 export function applyDiscount(total, percent) {
-  if (percent < 0 || percent > 1000) {
+  if (percent < 0 || percent > 100) {
     throw new RangeError(\`discount must be between 0 and 100, got \${percent}\`);
`;

  it("is solved by search, a ranged read and one patch", async () => {
    const { call, failing } = await open(readingAndSearching);
    expect((await call("search", { query: "discount must be" })).status).toBe("success");
    expect((await call("read_file", { path: "src/pricing.js", start_line: 6, end_line: 11 })).status).toBe(
      "success",
    );
    expect((await call("apply_patch", { unified_diff: PATCH })).status).toBe("success");
    expect(await failing()).toEqual([]);
  });

  it("fails when the learner reads whole files instead of searching, and patches the wrong bound", async () => {
    const { call, failing } = await open(readingAndSearching);
    await call("list_files", {});
    await call("read_file", { path: "src/pricing.js" });
    await call("apply_patch", { unified_diff: PATCH.replace("percent > 100)", "percent > 200)") });
    expect(await failing()).toEqual(["searched", "read-a-range", "bound-fixed"]);
  });

  it("refuses a change to the read-only README", async () => {
    const { call } = await open(readingAndSearching);
    const outcome = await call("apply_patch", {
      unified_diff: "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# Shop\n+# Free shop\n",
    });
    expect(outcome.failure?.code).toBe("read_only_path");
  });
});
