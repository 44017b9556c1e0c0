import "fake-indexeddb/auto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptedFetch, type WireFormat } from "../agent/testing/scripted-model.ts";
import { registerNodeAssets } from "../host/node-assets.ts";
import { pythonRunner } from "../sandbox/embedded/python/index.ts";
import { FIX_FAILING_TEST } from "../session/demos/scenarios.ts";
import { decodeShareFragment } from "../session/share.ts";
import { PRICING_FIX_PATCH } from "../test-support/lesson-fixtures.ts";
import { seedFromStarter } from "../ui/starters/index.ts";
import { type AgentPaneUpdate, type BootOptions, createWorkerApi, type WorkerApi } from "./api.ts";
import { WorkspaceStore } from "./store.ts";

const KEY = "sk-test-0123456789abcdefghijklmnop";
const boot: BootOptions = { sandbox: "embedded", firstWorkspace: seedFromStarter("node", "Node starter") };
let databases = 0;

async function setup(format: WireFormat = "openai", replies = FIX_FAILING_TEST.replies) {
  const database = `toolroom-agent-test-${++databases}`;
  const model = scriptedFetch(format, replies);
  const api = createWorkerApi({ database, fetch: model.fetch });
  await api.boot(boot);
  const settings =
    format === "openai"
      ? { kind: "openai" as const, baseUrl: "https://models.invalid/v1", model: "scripted", apiKey: KEY }
      : { kind: "anthropic" as const, baseUrl: "https://models.invalid", model: "scripted", apiKey: KEY };
  return { api, model, database, settings };
}

/** The Node starter's fix, as a person would type it into the console. */
const FIX_PATCH = `--- a/src/cart.js
+++ b/src/cart.js
@@ -15,3 +15,3 @@
     // Bug: the quantity is ignored.
-    return this.items.reduce((sum, item) => sum + item.priceCents, 0);
+    return this.items.reduce((sum, item) => sum + item.priceCents * item.quantity, 0);
   }
`;

const readText = async (api: WorkerApi, path: string) => (await api.readFile(path)).text ?? "";

// The Python demo runs python3 on the embedded CPython.
beforeAll(() => registerNodeAssets());
afterAll(() => pythonRunner()?.dispose());

describe("the agent in the worker", () => {
  for (const format of ["openai", "anthropic"] as const) {
    it(`fixes the Node starter's failing test through ${format}-format tool calls, streaming as it goes`, async () => {
      const { api, settings } = await setup(format);
      const updates: AgentPaneUpdate[] = [];
      await api.agent.subscribe((update) => void updates.push(update));
      await api.agent.connect(settings);
      const summary = await api.agent.send(FIX_FAILING_TEST.task);
      expect(summary.stopReason).toBe("done");
      expect(summary.iterations).toBe(5);
      expect(await readText(api, "src/cart.js")).toContain("item.priceCents * item.quantity");
      // The last npm test passed, and the person saw it happen: text deltas and each call started.
      const state = await api.agent.state();
      const results = state.transcript.filter((entry) => entry.role === "tool");
      expect(results.map((entry) => entry.tool)).toEqual(["run", "read_file", "apply_patch", "run"]);
      expect(results.at(-1)?.content).toContain('"exit_code":0');
      expect(updates.filter((update) => update.type === "text").length).toBeGreaterThan(5);
      expect(updates.filter((update) => update.type === "tool_call_start")).toHaveLength(4);
      // The calls are in the workspace's log like any other.
      const events = await api.events();
      expect(events.filter((event) => event.type === "tool_call_finished")).toHaveLength(4);
      expect(state.provider).not.toHaveProperty("apiKey");
      expect(JSON.stringify(state)).not.toContain(KEY);
    });
  }

  it("exports the run without the key, and the export replays in a fresh workspace with no divergence", async () => {
    const { api, settings } = await setup();
    await api.agent.connect(settings);
    await api.agent.send(`${FIX_FAILING_TEST.task} (my key is ${KEY}, do not leak it)`);
    const text = await api.agent.exportSession();
    expect(text).not.toContain(KEY);
    const { boot: opened, replay } = await api.sessions.open(text);
    expect(opened.workspace.name).toMatch(/^Replay: /u);
    expect(replay.steps.map((step) => step.label)).toEqual(["run", "read_file", "apply_patch", "run"]);
    expect(await readText(api, "src/cart.js")).not.toContain("* item.quantity");
    const seen: number[] = [];
    const done = await api.sessions.play((status) => void seen.push(status.done));
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(done).toMatchObject({ done: 4, matched: 4, diverged: 0 });
    expect(await readText(api, "src/cart.js")).toContain("item.priceCents * item.quantity");
  });

  it("shares the run as a link whose session holds no key and replays to the same results", async () => {
    const { api, settings } = await setup();
    await api.agent.connect(settings);
    await api.agent.send(FIX_FAILING_TEST.task);
    const shared = await api.agent.share("http://localhost:5173/");
    expect(shared.kind).toBe("link");
    if (shared.kind !== "link") return;
    expect(shared.url).not.toContain(KEY);
    const session = decodeShareFragment(new URL(shared.url).hash.slice("#s=".length));
    expect(JSON.stringify(session)).not.toContain(KEY);
    await api.sessions.open(session);
    let status = await api.sessions.step();
    expect(status.steps[0]).toMatchObject({ label: "run", verdict: "match" });
    status = await api.sessions.play();
    expect(status.diverged).toBe(0);
  });

  it("shows a divergence when the replayed workspace differs from the recorded one", async () => {
    const { api, settings } = await setup();
    await api.agent.connect(settings);
    await api.agent.send(FIX_FAILING_TEST.task);
    const session = JSON.parse(await api.agent.exportSession());
    // Someone edits the initial workspace: the first npm test now fails differently.
    session.workspace.files["test/cart.test.js"] = "throw new Error('edited');\n";
    await api.sessions.open(JSON.stringify(session));
    const status = await api.sessions.play();
    expect(status.diverged).toBeGreaterThan(0);
    expect(status.steps[0]?.verdict).toBe("diverged");
    expect(status.steps[0]?.divergences.join("\n")).toMatch(/stdout|stderr|exit_code/u);
    expect(status.summary).toMatch(/diverged/u);
  });

  it("refuses a damaged session file with a message that says what is wrong", async () => {
    const { api } = await setup();
    await expect(api.sessions.open("{not json")).rejects.toThrow(/session/iu);
    await expect(
      api.sessions.open(JSON.stringify({ format: "toolroom-session", version: 1, profile: "nope" })),
    ).rejects.toThrow(/profile|workspace|events/iu);
  });

  it("plays a built-in demo with no divergence", async () => {
    const { api } = await setup();
    const demos = await api.sessions.demos();
    expect(demos.map((demo) => demo.id)).toEqual(["fix-failing-test", "change-a-setting", "fix-python-test"]);
    for (const demo of demos) {
      await api.sessions.openDemo(demo.id);
      const status = await api.sessions.play();
      expect(status.diverged, status.summary).toBe(0);
      expect(status.done).toBeGreaterThan(2);
    }
  }, 120_000);

  it("plays at a pace and pauses; the playhead goes back (the workspace with it) and forward; a finished replay plays again", async () => {
    const { api } = await setup();
    await api.sessions.openDemo("fix-failing-test");
    const seen: number[] = [];
    // Five steps a second: the pause lands while the replay waits between two steps.
    const playing = api.sessions.play((status) => void seen.push(status.done), 5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const paused = await api.sessions.pause();
    const stopped = await playing;
    expect(stopped.done).toBe(paused?.done);
    expect(stopped.done).toBeLessThan(4);
    expect(seen.at(-1)).toBe(stopped.done);

    const end = await api.sessions.seek(4);
    expect(end).toMatchObject({ done: 4, matched: 4, diverged: 0 });
    expect(await readText(api, "src/cart.js")).toContain("item.priceCents * item.quantity");
    // Back before the patch: the file is as it was, and the steps after are pending again.
    const back = await api.sessions.seek(2);
    expect(back.done).toBe(2);
    expect(back.steps.slice(2).map((step) => step.verdict)).toEqual(["pending", "pending"]);
    expect(await readText(api, "src/cart.js")).not.toContain("* item.quantity");
    const forward = await api.sessions.play();
    expect(forward).toMatchObject({ done: 4, matched: 4, diverged: 0 });
    // Played again from the start: the same verdicts, from the initial files.
    const again = await api.sessions.play();
    expect(again).toMatchObject({ done: 4, matched: 4, diverged: 0 });
    expect(await readText(api, "src/cart.js")).toContain("item.priceCents * item.quantity");
  });

  it("goes on with a replay after a reload where it stood, and forgets it once closed", async () => {
    const { api, database } = await setup();
    await api.sessions.openDemo("fix-failing-test");
    await api.sessions.step();
    await api.sessions.step();
    const reloaded = createWorkerApi({ database });
    await reloaded.boot(boot);
    const resumed = await reloaded.sessions.status();
    expect(resumed).toMatchObject({ done: 2, matched: 2, title: "Fix a failing test" });
    const done = await reloaded.sessions.play();
    expect(done).toMatchObject({ done: 4, matched: 4, diverged: 0 });
    await reloaded.sessions.close();
    const again = createWorkerApi({ database });
    await again.boot(boot);
    expect(await again.sessions.status()).toBeNull();
  });

  it("keeps the conversation across a reload, and refuses to run before a model is connected", async () => {
    const { api, settings, database } = await setup();
    await expect(api.agent.send("hello")).rejects.toThrow(/Connect a model first/u);
    await api.agent.connect(settings);
    await api.agent.send(FIX_FAILING_TEST.task);
    const before = await api.agent.state();
    // Let the conversation's last save land, then "reload the page".
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reloaded = createWorkerApi({ database });
    await reloaded.boot(boot);
    const after = await reloaded.agent.state();
    expect(after.transcript).toEqual(before.transcript);
    expect(after.connected).toBe(false);
    // The recording came back too: the conversation still exports.
    expect(JSON.parse(await reloaded.agent.exportSession()).events.length).toBeGreaterThan(0);
  });

  it("asks the person before the model's commands when the tool is set to ask, and a refusal reaches the model", async () => {
    const { api, settings } = await setup("openai", [
      { toolCalls: [{ name: "run", arguments: { command: "echo hacked > README.md" } }] },
      { text: "The command was refused; I stop here." },
    ]);
    const asked: string[] = [];
    await api.approvals.setPrompt(async (request) => {
      asked.push(`${request.profile}/${request.tool}`);
      return "deny";
    });
    await api.approvals.set("agentbench", "run", "ask");
    await api.agent.connect(settings);
    const summary = await api.agent.send("Change the README");
    expect(summary.stopReason).toBe("done");
    expect(asked).toEqual(["agentbench/run"]);
    const result = (await api.agent.state()).transcript.find((entry) => entry.role === "tool");
    expect(result).toMatchObject({ tool: "run", isError: true });
    expect(result?.role === "tool" && result.content).toMatch(/approval_denied|denied/u);
    expect(await readText(api, "README.md")).not.toContain("hacked");
  });

  it("tells the pane when the conversation cannot be stored, and the run goes on", async () => {
    const { api, settings } = await setup();
    const updates: AgentPaneUpdate[] = [];
    await api.agent.subscribe((update) => void updates.push(update));
    await api.agent.connect(settings);
    const setSetting = WorkspaceStore.prototype.setSetting;
    WorkspaceStore.prototype.setSetting = async function (key: string, value: unknown) {
      if (key.startsWith("agent:")) throw new Error("QuotaExceededError");
      return setSetting.call(this, key, value);
    };
    try {
      const summary = await api.agent.send(FIX_FAILING_TEST.task);
      expect(summary.stopReason).toBe("done");
    } finally {
      WorkspaceStore.prototype.setSetting = setSetting;
    }
    expect(updates).toContainEqual({ type: "save_failed", message: "QuotaExceededError" });
  });

  it("turns malformed tool calls into tool errors the model sees, and goes on", async () => {
    const { api, settings } = await setup("openai", [
      {
        toolCalls: [
          { name: "read_file", arguments: "{not json" },
          { name: "no_such_tool", arguments: {} },
          { name: "file_read", arguments: { path: "README.md" } },
        ],
      },
      { text: "I see my mistakes." },
    ]);
    await api.agent.connect(settings);
    const summary = await api.agent.send("Read the README");
    expect(summary.stopReason).toBe("done");
    const errors = (await api.agent.state()).transcript.filter(
      (entry) => entry.role === "tool" && entry.isError,
    );
    expect(errors).toHaveLength(3);
  });
});

describe("a lesson handed to the model", () => {
  it("runs in a workspace of its own with the lesson's tools only, and compares with the learner's calls", async () => {
    const { api, settings, model } = await setup("openai", [
      { toolCalls: [{ name: "search", arguments: { query: "percent > 1000" } }] },
      {
        toolCalls: [{ name: "read_file", arguments: { path: "src/pricing.js", start_line: 5, end_line: 9 } }],
      },
      // run is agentbench's, but not this lesson's: the model is told, and nothing runs.
      { toolCalls: [{ name: "run", arguments: { command: "echo hi" } }] },
      { toolCalls: [{ name: "apply_patch", arguments: { unified_diff: PRICING_FIX_PATCH } }] },
      { text: "Fixed the bound." },
    ]);
    const { readingAndSearching } = await import("../lessons/builtin/reading-and-searching.ts");
    await api.lessons.open(readingAndSearching);
    // The learner tries by hand first: one call.
    await api.call("agentbench", { tool: "list_files", params: {} });
    await api.lessons.check();

    await api.agent.connect(settings);
    const handed = await api.lessons.handToAgent();
    expect(handed.boot.workspace.name).toBe(`Agent: ${readingAndSearching.title}`);
    expect(handed.status.byAgent).toBe(true);
    expect(handed.profile).toBe("agentbench");
    const summary = await api.agent.send(handed.task);
    expect(summary.stopReason).toBe("done");
    const status = await api.lessons.check();
    expect(status.results?.find((result) => result.id === "bound-fixed")?.passed).toBe(true);

    const comparison = await api.lessons.compare();
    expect(comparison.learner?.calls.map((call) => call.tool)).toEqual(["list_files"]);
    expect(comparison.agent?.calls.map((call) => call.tool)).toEqual(["search", "read_file", "apply_patch"]);
    expect(comparison.agent?.results?.find((result) => result.id === "patched")?.passed).toBe(true);
    // The model's tools were the lesson's four, and a call outside them was refused before running.
    const offered = (model.requests[0]!.body.tools as { function: { name: string } }[]).map(
      (tool) => tool.function.name,
    );
    expect(offered.sort()).toEqual(["apply_patch", "list_files", "read_file", "search"]);
    const state = await api.agent.state();

    const refused = state.transcript.find((entry) => entry.role === "tool" && entry.tool === "run");
    expect(refused).toMatchObject({ isError: true });
    // The model's success is not the learner's progress.
    const progress = await api.lessons.progress();
    expect(progress[readingAndSearching.id]?.completed).toBe(false);

    // "Let the model try again", from its own attempt: a fresh workspace replaces the old one.
    const again = await api.lessons.handToAgent();
    expect(again.status.results).toBeNull();
    expect(await readText(api, "src/pricing.js")).toContain("percent > 1000");
    const attempts = (await api.workspaces.list()).filter((info) => info.name.startsWith("Agent: "));
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.current).toBe(true);
  });
});

describe("a person's calls recorded as a session", () => {
  it("records the calls made by hand, survives a reload, and exports a session that replays clean", async () => {
    const { api, database } = await setup();
    // Calls before recording began are not part of it.
    await api.call("agentbench", { tool: "list_files", params: {} });
    await expect(api.sessions.exportRecording()).rejects.toThrow(/Nothing is being recorded/u);
    const started = await api.sessions.record("agentbench");
    expect(started.calls).toBe(0);
    await expect(api.sessions.exportRecording()).rejects.toThrow(/no calls yet/u);
    await api.call("agentbench", { tool: "run", params: { command: "npm test" } });
    await api.call("agentbench", { tool: "apply_patch", params: { unified_diff: FIX_PATCH } });

    // A reload goes on with the recording.
    const reloaded = createWorkerApi({ database });
    await reloaded.boot(boot);
    expect((await reloaded.sessions.recording())?.calls).toBe(2);
    await reloaded.call("agentbench", { tool: "run", params: { command: "npm test" } });
    const text = await reloaded.sessions.exportRecording();
    const session = JSON.parse(text);
    expect(session.meta.title).toBe("Calls by hand in Node starter");
    expect(session.workspace.files["src/cart.js"]).not.toContain("* item.quantity");

    const { replay } = await reloaded.sessions.open(text);
    expect(replay.steps.map((step) => step.label)).toEqual(["run", "apply_patch", "run"]);
    const done = await reloaded.sessions.play();
    expect(done).toMatchObject({ matched: 3, diverged: 0 });

    // Stopped, it is gone (in the workspace it belonged to).
    const [starter] = (await reloaded.workspaces.list()).filter((info) => info.name === "Node starter");
    await reloaded.workspaces.switch(starter!.id);
    await reloaded.sessions.stopRecording();
    expect(await reloaded.sessions.recording()).toBeNull();
  });
});

describe("deleting a workspace", () => {
  it("deletes what was kept for it too: its conversation, replay and recording", async () => {
    const { api, settings, database } = await setup();
    await api.agent.connect(settings);
    await api.agent.send(FIX_FAILING_TEST.task);
    await api.sessions.record("agentbench");
    const starter = (await api.workspaces.list()).find((info) => info.current)!;
    await api.sessions.openDemo("fix-failing-test");
    const replayed = (await api.workspaces.list()).find((info) => info.current)!;
    await api.sessions.step();

    const store = await WorkspaceStore.open(database);
    expect(await store.getSetting(`agent:${starter.id}`)).toBeDefined();
    expect(await store.getSetting(`recording:${starter.id}`)).toBeDefined();
    expect(await store.getSetting(`replay:${replayed.id}`)).toBeDefined();
    await api.workspaces.delete(starter.id);
    await api.workspaces.delete(replayed.id);
    expect(await store.getSetting(`agent:${starter.id}`)).toBeUndefined();
    expect(await store.getSetting(`recording:${starter.id}`)).toBeUndefined();
    expect(await store.getSetting(`replay:${replayed.id}`)).toBeUndefined();
    // Settings of the browser as a whole stay.
    expect(await store.getSetting("currentWorkspace")).toBeDefined();
  });
});
