import { describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { FIX_FAILING_TEST } from "../session/demos/scenarios.ts";
import { parseSession } from "../session/format.ts";
import type { RecordingState } from "../session/record.ts";
import { replaySession } from "../session/replay.ts";
import { loadSessionFromUrl } from "../session/share.ts";
import { projectFiles } from "../test-support/project-files.ts";
import { AgentController, type AgentUpdate, type ConversationState } from "./controller.ts";
import type { ProviderSettings } from "./provider.ts";
import { type Script, scriptedFetch } from "./testing/scripted-model.ts";

const STARTER = projectFiles(FIX_FAILING_TEST.fixture!);
const KEY = "sk-ant-api03-controllerTestKey-0123456789";
const SETTINGS: ProviderSettings = {
  kind: "anthropic",
  baseUrl: "https://api.anthropic.com",
  apiKey: KEY,
  model: "claude-test",
};

async function setup(script: Script) {
  const runtime = await createEmbeddedRuntime({ files: STARTER });
  const served = scriptedFetch("anthropic", script);
  const controller = new AgentController({ runtime, fetch: served.fetch, profile: "agentbench" });
  const updates: AgentUpdate[] = [];
  controller.subscribe((update) => updates.push(update));
  return { runtime, served, controller, updates };
}

describe("AgentController", () => {
  it("asks for a model before anything else, and refuses bad settings", async () => {
    const { controller } = await setup([]);
    await expect(controller.send("hi")).rejects.toThrow(/Connect a model first/u);
    expect(() => controller.configure({ ...SETTINGS, model: " " })).toThrow("Choose a model name.");
    expect(controller.configured).toBe(false);
    controller.configure(SETTINGS);
    await expect(controller.continue()).rejects.toThrow(/nothing to continue/u);
  });

  it("runs a task with live updates, then saves it as a session that replays and never holds the key", async () => {
    const { controller, updates, runtime } = await setup(FIX_FAILING_TEST.replies);
    controller.configure(SETTINGS);
    const summary = await controller.send(FIX_FAILING_TEST.task);
    expect(summary).toMatchObject({ stopReason: "done", iterations: 5 });
    expect(summary.finalText).toMatch(/^Fixed\./u);
    expect(summary.usage.total).toEqual(summary.conversationUsage);
    expect((await runtime.sandbox.exec("npm test")).exitCode).toBe(0);

    const kinds = updates.map((update) => update.type);
    expect(kinds[0]).toBe("status");
    expect(kinds.at(-2)).toBe("finished");
    expect(updates.at(-1)).toEqual({ type: "status", status: "idle" });
    expect(updates.filter((update) => update.type === "turn")).toHaveLength(5);
    expect(
      updates
        .filter((update) => update.type === "tool_call_start")
        .map((u) => u.type === "tool_call_start" && u.name),
    ).toEqual(["run", "read_file", "apply_patch", "run"]);
    const streamed = updates.map((update) => (update.type === "text" ? update.delta : "")).join("");
    expect(streamed).toContain("Let me run the tests first.");
    expect(updates.filter((update) => update.type === "entry")).toHaveLength(controller.transcript.length);

    const session = controller.session();
    expect(session.meta).toMatchObject({
      title: "npm test fails. Find out why and fix the code (not the test).",
      task: FIX_FAILING_TEST.task,
      agent: {
        provider: "anthropic",
        model: "claude-test",
        baseUrl: "https://api.anthropic.com",
        stopReason: "done",
      },
    });
    expect(session.workspace.files).toEqual(STARTER);
    const exported = controller.exportSession();
    expect(exported.text).not.toContain(KEY);
    expect((await replaySession(parseSession(exported.text))).diverged).toBe(0);
    const shared = controller.share("https://toolroom.test/");
    if (shared.kind !== "link") throw new Error("expected a link");
    expect(shared.url).not.toContain(KEY);
    expect(await loadSessionFromUrl(shared.url)).toEqual(session);
  });

  it("stops a running agent, refuses a second run meanwhile, and continues afterwards", async () => {
    const { controller, updates } = await setup([
      { text: "Let me think about this for a very long while", hang: true },
      { text: "Done now." },
    ]);
    controller.configure(SETTINGS);
    const stopOnText = controller.subscribe((update) => {
      if (update.type === "text") controller.stop();
    });
    const running = controller.send("Take your time.");
    await expect(controller.send("Another")).rejects.toThrow(/The agent is running: stop it first/u);
    const stopped = await running;
    expect(stopped.stopReason).toBe("stopped");
    expect(
      updates.filter((update) => update.type === "status").map((u) => u.type === "status" && u.status),
    ).toEqual(["running", "stopping", "idle"]);
    expect(controller.transcript.at(-1)).toMatchObject({ role: "assistant", incomplete: true });

    stopOnText();
    const resumed = await controller.continue();
    expect(resumed).toMatchObject({ stopReason: "done", finalText: "Done now." });
    expect(controller.transcript.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("reports a provider error as data and keeps the conversation for Continue", async () => {
    const { controller } = await setup([
      {
        error: {
          status: 429,
          body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
          headers: { "retry-after": "3" },
        },
      },
      { text: "Back." },
    ]);
    controller.configure(SETTINGS);
    const failed = await controller.send("Go.");
    expect(failed.error).toEqual({
      kind: "rate_limit",
      status: 429,
      retryAfterSec: 3,
      providerMessage: "slow down",
      message: expect.stringMatching(/wait 3 s, then press Continue/u),
    });
    expect(JSON.parse(JSON.stringify(failed))).toEqual(failed);
    const resumed = await controller.continue();
    expect(resumed.finalText).toBe("Back.");
  });

  it("starts a new conversation when the profile changes", async () => {
    const { controller, updates } = await setup([{ text: "One." }]);
    controller.configure(SETTINGS);
    await controller.send("First.");
    expect(controller.transcript.length).toBeGreaterThan(0);
    expect(() => controller.setProfile("nonexistent")).toThrow(/Unknown profile/u);
    controller.newConversation();
    expect(controller.transcript).toEqual([]);
    expect(() => controller.session()).toThrow(/no conversation to save yet/u);
    expect(updates.at(-1)).toEqual({ type: "reset" });
  });

  it("keeps the conversation in its store as it grows, and a new controller goes on from it", async () => {
    const runtime = await createEmbeddedRuntime({ files: STARTER });
    const served = scriptedFetch("anthropic", [
      ...FIX_FAILING_TEST.replies.slice(0, 2),
      { text: "Paused here." },
      ...FIX_FAILING_TEST.replies.slice(2),
    ]);
    const saved: { conversation: ConversationState | null; recordings: (RecordingState | null)[] } = {
      conversation: null,
      recordings: [],
    };
    const store = {
      saveConversation: async (state: ConversationState) => {
        saved.conversation = state;
      },
      saveRecording: async (recording: RecordingState | null) => {
        saved.recordings.push(recording);
      },
    };
    const invoked: string[] = [];
    const invoke = (profile: string, call: { tool: string; params: Record<string, unknown> }) => {
      invoked.push(call.tool);
      return runtime.invoke(profile, call);
    };
    const first = new AgentController({ runtime, fetch: served.fetch, profile: "agentbench", store, invoke });
    first.configure(SETTINGS);
    await first.send(FIX_FAILING_TEST.task);
    await first.saved();
    expect(invoked).toEqual(["run", "read_file"]);
    expect(saved.recordings).toHaveLength(1);
    expect(saved.recordings[0]?.workspace.files).toEqual(STARTER);
    expect(saved.conversation).toEqual(first.conversationState());
    expect(JSON.stringify(saved)).not.toContain(KEY);

    // As after a reload: a new controller over the same runtime, from what was saved.
    const second = new AgentController({
      runtime,
      fetch: served.fetch,
      profile: "baseagent",
      store,
      invoke,
      restore: { conversation: saved.conversation!, recording: saved.recordings.at(-1)! },
    });
    expect(second.profile).toBe("agentbench");
    expect(second.transcript).toEqual(first.transcript);
    second.configure(SETTINGS);
    const resumed = await second.send("Go on and fix it.");
    expect(resumed.stopReason).toBe("done");
    expect(invoked).toEqual(["run", "read_file", "apply_patch", "run"]);
    const session = second.session();
    expect(session.events.filter((event) => event.type === "tool_call_finished")).toHaveLength(4);
    expect(session.meta.task).toBe(FIX_FAILING_TEST.task);
    expect((await replaySession(session)).diverged).toBe(0);

    second.newConversation();
    await second.saved();
    expect(saved.recordings.at(-1)).toBeNull();
    expect(saved.conversation?.transcript).toEqual([]);
  });
});
