import { describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { commandAllowed } from "./controls.ts";
import { checkLesson, type Lesson, parseLesson, serializeLesson } from "./lesson.ts";
import { LessonRun } from "./lesson-run.ts";

const LESSON: Lesson = {
  format: "toolroom-lesson",
  version: 1,
  id: "engine-test",
  title: "Engine test",
  instructions: "Make `count.txt` say 3, using `run`, without touching `tests/`.",
  profiles: [{ profile: "agentbench", tools: ["read_file", "run"] }],
  files: { "count.txt": "1\n", "tests/expected.txt": "3\n" },
  hints: ["Read count.txt first.", "echo 3 > count.txt"],
  solution: { files: { "count.txt": "3\n" } },
  controls: { allowedCommands: ["echo", "cat"], readOnlyPaths: ["tests/**"], maxCalls: 5 },
  checks: [
    { id: "value", title: "count.txt says 3", kind: "file_equals", path: "count.txt", content: "3\n" },
    { id: "read-first", title: "You read the file", kind: "tool_used", tool: "read_file" },
    {
      id: "with-run",
      title: "The change was made with run",
      kind: "changed_with",
      path: "count.txt",
      tools: ["run"],
    },
    {
      id: "tests-untouched",
      title: "tests/ is untouched",
      kind: "file_unchanged",
      path: "tests/expected.txt",
    },
    { id: "few", title: "At most 3 calls", kind: "call_count", max: 3 },
    {
      id: "matches",
      title: "The command check agrees",
      kind: "command_succeeds",
      command: "diff count.txt tests/expected.txt",
    },
  ],
};

async function open(lesson: Lesson = LESSON) {
  const runtime = await createEmbeddedRuntime();
  const run = await LessonRun.open(lesson, runtime);
  const call = (tool: string, params: Record<string, unknown>) => run.call("agentbench", { tool, params });
  const passed = async () =>
    Object.fromEntries((await run.check()).map((result) => [result.id, result.passed]));
  return { run, call, passed };
}

describe("a lesson run", () => {
  it("goes from failing to passing as the learner solves it", async () => {
    const { call, passed } = await open();
    expect(await passed()).toEqual({
      value: false,
      "read-first": false,
      "with-run": false,
      "tests-untouched": true,
      few: true,
      matches: false,
    });
    await call("read_file", { path: "count.txt" });
    expect((await passed())["read-first"]).toBe(true);
    await call("run", { command: "echo 3 > count.txt" });
    expect(Object.values(await passed()).every(Boolean)).toBe(true);
  });

  it("says in each failing check what to look at", async () => {
    const { run } = await open();
    const results = await run.check();
    expect(results.find((result) => result.id === "value")?.detail).toBe("count.txt is not as expected yet.");
    expect(results.find((result) => result.id === "read-first")?.detail).toBe(
      "read_file was used 0 times; at least 1 expected.",
    );
  });

  it("refuses tools outside the lesson's subset", async () => {
    const { call } = await open();
    const outcome = await call("list_files", {});
    expect(outcome.failure?.code).toBe("tool_not_allowed");
    expect(outcome.failure?.message).toContain("agentbench: read_file, run");
  });

  it("refuses commands the teacher did not allow, and chained ones", async () => {
    const { call } = await open();
    expect((await call("run", { command: "rm count.txt" })).failure?.code).toBe("command_blocked");
    expect((await call("run", { command: "echo 3 > count.txt; rm -rf tests" })).failure?.code).toBe(
      "command_blocked",
    );
    expect((await call("run", { command: "cat count.txt" })).status).toBe("success");
  });

  it("undoes a call that changes a read-only path, even through an allowed command", async () => {
    const { call, run } = await open();
    const outcome = await call("run", { command: "echo 4 > tests/expected.txt" });
    expect(outcome.failure?.code).toBe("read_only_path");
    expect(
      new TextDecoder().decode(await run.runtime.sandbox.readFile("/workspace/tests/expected.txt")),
    ).toBe("3\n");
  });

  it("stops at the call limit until Reset", async () => {
    const { call, run } = await open();
    for (let i = 0; i < 5; i++) await call("read_file", { path: "count.txt" });
    expect((await call("read_file", { path: "count.txt" })).failure?.code).toBe("limit_exceeded");
    await run.reset();
    expect((await call("read_file", { path: "count.txt" })).status).toBe("success");
  });

  it("refuses the call the limit forbids before it runs, counting every call the check counts", async () => {
    const { call, run, passed } = await open({ ...LESSON, controls: { maxCalls: 3 } });
    // A call refused by validation is a call all the same, for the limit as for the check.
    expect((await call("read_file", {})).failure?.code).toBe("invalid_params");
    await call("read_file", { path: "count.txt" });
    await call("run", { command: "echo 2 > count.txt" });
    const fourth = await call("run", { command: "echo 3 > count.txt" });
    expect(fourth.failure?.code).toBe("limit_exceeded");
    expect(fourth.failure?.message).toContain("was not run");
    // Not run: the file is as the third call left it, and the refusal does not fail the count.
    expect(new TextDecoder().decode(await run.runtime.sandbox.readFile("/workspace/count.txt"))).toBe("2\n");
    expect((await passed()).few).toBe(true);
  });

  it("says what is wrong without giving the expected text away", async () => {
    const { run } = await open({
      ...LESSON,
      checks: [
        { id: "has", title: "It says 3", kind: "file_contains", path: "count.txt", text: "SECRET-3" },
        {
          id: "prints",
          title: "It prints 3",
          kind: "command_succeeds",
          command: "cat count.txt",
          stdoutContains: "SECRET-3",
        },
        {
          id: "equals",
          title: "It prints exactly 3",
          kind: "command_succeeds",
          command: "cat count.txt",
          stdoutEquals: "SECRET-3\n",
        },
      ],
    });
    const results = await run.check();
    expect(results.every((result) => !result.passed)).toBe(true);
    for (const result of results) {
      expect(result.detail).not.toContain("SECRET");
      expect(result.detail).toMatch(/count\.txt/u);
    }
  });

  it("a patch undone for touching a read-only path logs no PATCH_APPLIED", async () => {
    const runtime = await createEmbeddedRuntime();
    const run = await LessonRun.open(
      {
        ...LESSON,
        profiles: [{ profile: "agentbench", tools: ["apply_patch"] }],
        controls: { readOnlyPaths: ["tests/**"] },
      },
      runtime,
    );
    const patch = "--- a/tests/expected.txt\n+++ b/tests/expected.txt\n@@ -1 +1 @@\n-3\n+4\n";
    const outcome = await run.call("agentbench", { tool: "apply_patch", params: { unified_diff: patch } });
    expect(outcome.failure?.code).toBe("read_only_path");
    expect(run.events().map((event) => event.type)).not.toContain("PATCH_APPLIED");
    const allowed = "--- a/count.txt\n+++ b/count.txt\n@@ -1 +1 @@\n-1\n+3\n";
    expect(
      (await run.call("agentbench", { tool: "apply_patch", params: { unified_diff: allowed } })).status,
    ).toBe("success");
    expect(run.events().map((event) => event.type)).toContain("PATCH_APPLIED");
  });

  it("Reset restores the starting files and forgets the calls", async () => {
    const { call, run, passed } = await open();
    await call("read_file", { path: "count.txt" });
    await call("run", { command: "echo 3 > count.txt" });
    await run.reset();
    expect(new TextDecoder().decode(await run.runtime.sandbox.readFile("/workspace/count.txt"))).toBe("1\n");
    expect(run.events()).toEqual([]);
    expect((await passed())["read-first"]).toBe(false);
  });

  it("gives hints one at a time", async () => {
    const { run } = await open();
    expect(run.nextHint()).toBe("Read count.txt first.");
    expect(run.nextHint()).toBe("echo 3 > count.txt");
    expect(run.nextHint()).toBeNull();
    expect(run.hintsRevealed()).toHaveLength(2);
  });

  it("lifts its controls when closed", async () => {
    const { call, run } = await open();
    run.close();
    expect((await call("list_files", {})).status).toBe("success");
  });
});

describe("lesson files", () => {
  it("round-trip through JSON", () => {
    expect(parseLesson(serializeLesson(LESSON))).toEqual(LESSON);
  });

  it("are refused with a clear error when malformed", () => {
    expect(() => parseLesson("{")).toThrow(/not JSON/u);
    expect(() => parseLesson(JSON.stringify({ format: "toolroom-session" }))).toThrow(
      /not a Toolroom lesson/u,
    );
    expect(() => checkLesson({ ...LESSON, checks: [] })).toThrow(/checks/u);
    expect(() => checkLesson({ ...LESSON, checks: [LESSON.checks[0], LESSON.checks[0]] })).toThrow(
      /two checks have the id "value"/u,
    );
    expect(() => checkLesson({ ...LESSON, controls: { deleteEverything: true } })).toThrow(/invalid/u);
  });
});

describe("allowed commands", () => {
  it("match by prefix on a word boundary, or as a whole-line regex", () => {
    expect(commandAllowed("npm test", ["npm test"])).toBe(true);
    expect(commandAllowed("npm test -- --watch", ["npm test"])).toBe(true);
    expect(commandAllowed("npm testing", ["npm test"])).toBe(false);
    expect(commandAllowed("npm test && rm -rf .", ["npm test"])).toBe(false);
    expect(commandAllowed("npm test | tee log", ["npm test"])).toBe(false);
    expect(commandAllowed("echo $(whoami)", ["echo"])).toBe(false);
    expect(commandAllowed("git status", ["/git (status|diff)/"])).toBe(true);
    expect(commandAllowed("git push", ["/git (status|diff)/"])).toBe(false);
  });
});

describe("taking a lesson up again", () => {
  it("keeps the files, the hints shown and the call count, and puts the controls back", async () => {
    const runtime = await createEmbeddedRuntime();
    const first = await LessonRun.open(LESSON, runtime);
    await first.call("agentbench", { tool: "read_file", params: { path: "count.txt" } });
    await first.call("agentbench", { tool: "run", params: { command: "echo 3 > count.txt" } });
    first.nextHint();
    const saved = first.state();
    first.close();

    const again = LessonRun.attach(LESSON, runtime, saved);
    expect(again.hintsRevealed()).toEqual(["Read count.txt first."]);
    expect((await again.check()).every((result) => result.passed)).toBe(true);
    expect((await again.call("agentbench", { tool: "list_files", params: {} })).failure?.code).toBe(
      "tool_not_allowed",
    );
    for (let i = 0; i < 3; i++)
      await again.call("agentbench", { tool: "read_file", params: { path: "count.txt" } });
    expect(
      (await again.call("agentbench", { tool: "read_file", params: { path: "count.txt" } })).failure?.code,
    ).toBe("limit_exceeded");
  });
});
