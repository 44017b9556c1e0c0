import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { readingAndSearching } from "../lessons/builtin/reading-and-searching.ts";
import { PRICING_FIX_PATCH } from "../test-support/lesson-fixtures.ts";
import { type BootOptions, createWorkerApi } from "./api.ts";

let databases = 0;
const embedded: BootOptions = {
  sandbox: "embedded",
  firstWorkspace: { name: "Starter", origin: "test", files: { files: { "README.md": "# mine\n" } } },
};

async function setup() {
  const database = `toolroom-lessons-${++databases}`;
  const api = createWorkerApi({ database });
  await api.boot(embedded);
  return {
    api,
    reload: async () => {
      const next = createWorkerApi({ database });
      await next.boot(embedded);
      return next;
    },
  };
}

describe("lessons in the worker", () => {
  it("opens a lesson in a workspace of its own, leaving the learner's workspace alone", async () => {
    const { api } = await setup();
    const { boot, status } = await api.lessons.open(readingAndSearching);
    expect(boot.workspace.name).toBe("Lesson: Reading and searching a codebase");
    expect(status.results).toBeNull();
    expect((await api.listFiles()).map((file) => file.path)).toContain("src/pricing.js");
    const workspaces = await api.workspaces.list();
    expect(workspaces.map((workspace) => workspace.name)).toEqual(
      expect.arrayContaining(["Starter", boot.workspace.name]),
    );
  });

  it("enforces the lesson's controls on calls from the console", async () => {
    const { api } = await setup();
    await api.lessons.open(readingAndSearching);
    const refused = await api.call("agentbench", { tool: "run", params: { command: "ls" } });
    expect(refused.failure?.code).toBe("tool_not_allowed");
  });

  it("checks go from failing to passing, and progress and hints survive a reload", async () => {
    const { api, reload } = await setup();
    await api.lessons.open(readingAndSearching);
    const before = await api.lessons.check();
    expect(before.results?.filter((result) => result.passed).map((result) => result.id)).toEqual([
      "readme-untouched",
      "few-calls",
    ]);
    await api.lessons.hint();
    await api.call("agentbench", { tool: "search", params: { query: "discount must be" } });
    await api.call("agentbench", {
      tool: "read_file",
      params: { path: "src/pricing.js", start_line: 6, end_line: 11 },
    });
    await api.call("agentbench", { tool: "apply_patch", params: { unified_diff: PRICING_FIX_PATCH } });
    const after = await api.lessons.check();
    expect(after.results?.every((result) => result.passed)).toBe(true);
    expect(after.progress.completed).toBe(true);

    const again = await reload();
    const status = await again.lessons.status();
    expect(status?.hints).toEqual([readingAndSearching.hints[0]]);
    expect(status?.progress).toMatchObject({ lessonId: "reading-and-searching", completed: true, total: 7 });
    expect((await again.lessons.check()).results?.every((result) => result.passed)).toBe(true);
    expect((await again.call("agentbench", { tool: "run", params: { command: "ls" } })).failure?.code).toBe(
      "tool_not_allowed",
    );
  });

  it("Reset restores the starting files, and the restore is stored", async () => {
    const { api, reload } = await setup();
    await api.lessons.open(readingAndSearching);
    await api.call("agentbench", { tool: "apply_patch", params: { unified_diff: PRICING_FIX_PATCH } });
    await api.lessons.reset();
    expect((await api.readFile("src/pricing.js")).text).toContain("percent > 1000");
    const again = await reload();
    expect((await again.readFile("src/pricing.js")).text).toContain("percent > 1000");
    expect((await again.lessons.check()).results?.find((result) => result.id === "patched")?.passed).toBe(
      false,
    );
  });

  it("opening the same lesson again takes it up where the learner left it", async () => {
    const { api } = await setup();
    await api.lessons.open(readingAndSearching);
    await api.call("agentbench", { tool: "apply_patch", params: { unified_diff: PRICING_FIX_PATCH } });
    const first = (await api.workspaces.list()).find((workspace) => workspace.name === "Starter")!;
    await api.workspaces.switch(first.id);
    expect(await api.lessons.status()).toBeNull();
    await api.lessons.open(readingAndSearching);
    expect((await api.readFile("src/pricing.js")).text).toContain("percent > 100)");
  });
});
