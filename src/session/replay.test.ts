import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { registerNodeAssets } from "../host/node-assets.ts";
import { pythonRunner } from "../sandbox/embedded/python/index.ts";
import { projectFiles } from "../test-support/project-files.ts";
import { compareValues, formatDivergence } from "./compare.ts";
import { DEMO_SESSIONS } from "./demos/index.ts";
import { FIX_FAILING_TEST } from "./demos/scenarios.ts";
import type { SessionFile } from "./format.ts";
import { SessionRecorder } from "./record.ts";
import { replayPlan, replaySession, SessionReplay } from "./replay.ts";

// The Python demo runs python3 on the embedded CPython.
beforeAll(() => registerNodeAssets());
afterAll(() => pythonRunner()?.dispose());

const demo = DEMO_SESSIONS.find((candidate) => candidate.id === "fix-failing-test")!.session;

function recordedEnvelope(session: SessionFile, requestId: string): Record<string, unknown> {
  const event = session.events.find(
    (candidate) => candidate.type === "tool_call_finished" && candidate.request_id === requestId,
  )!;
  return event.data!.envelope as Record<string, unknown>;
}

describe("built-in demo sessions", () => {
  it.each(DEMO_SESSIONS.map((entry) => [entry.id, entry] as const))(
    "%s replays with zero divergences",
    async (_id, entry) => {
      expect(entry.session.meta.demo).toBe(true);
      expect(entry.title).not.toBe("");
      const report = await replaySession(entry.session);
      expect(report.summary).toBe(`All ${report.steps.length} replayed steps matched the recording.`);
      expect(report.diverged).toBe(0);
      expect(report.matched).toBeGreaterThanOrEqual(4);
    },
    // The Python demo starts interpreters.
    120_000,
  );

  it("are the scripted runs of the scenarios, with an agent that finished", () => {
    for (const entry of DEMO_SESSIONS) {
      expect(entry.session.meta.agent).toMatchObject({
        provider: "openai",
        model: "scripted-demo",
        stopReason: "done",
      });
      expect(entry.session.transcript.at(-1)).toMatchObject({ role: "assistant", toolCalls: [] });
    }
    expect(demo.workspace.files).toEqual(projectFiles(FIX_FAILING_TEST.fixture!));
  });
});

describe("replay", () => {
  it("plans the calls in order with their recorded results", () => {
    const plan = replayPlan(demo);
    expect(plan.map((action) => action.kind === "call" && `${action.step}:${action.tool}`)).toEqual([
      "1:run",
      "2:read_file",
      "3:apply_patch",
      "4:run",
    ]);
    expect(plan.every((action) => action.kind === "call" && action.expected !== undefined)).toBe(true);
  });

  it("steps through one call at a time on the initial workspace", async () => {
    const replay = await SessionReplay.start(demo);
    const read = () => replay.runtime.sandbox.exec("cat src/cart.js").then((result) => result.stdout);
    expect(await read()).toContain("// Bug: the quantity is ignored.");
    expect(replay.next).toMatchObject({ kind: "call", tool: "run" });

    const first = await replay.step();
    expect(first?.verdict).toBe("match");
    expect(first?.outcome?.status).toBe("error");
    expect(replay.results).toHaveLength(1);
    await replay.step();
    const patch = await replay.step();
    expect(patch?.action).toMatchObject({ tool: "apply_patch" });
    expect(await read()).toContain("sum + item.priceCents * item.quantity");
    expect(replay.done).toBe(false);
    const last = await replay.step();
    expect(last?.outcome?.status).toBe("success");
    expect(replay.done).toBe(true);
    expect(await replay.step()).toBeNull();
    expect(replay.report().diverged).toBe(0);
  });

  it("reports divergences per call with a readable diff, ignoring only volatile fields", async () => {
    const tampered = structuredClone(demo);
    const firstRun = recordedEnvelope(tampered, "req-1");
    const data = firstRun.data as Record<string, unknown>;
    data.stdout = String(data.stdout).replace("# pass 4\n# fail 1", "# pass 3\n# fail 2");
    firstRun.started_at = "1999-01-01T00:00:00.000Z";
    const patch = recordedEnvelope(tampered, "req-3");
    (patch.data as Record<string, unknown>).changed_files = ["src/other.js"];

    const report = await replaySession(tampered);
    expect(report.diverged).toBe(2);
    expect(report.steps.map((step) => step.verdict)).toEqual(["diverged", "match", "diverged", "match"]);
    expect(report.steps[0]!.divergences.map((divergence) => divergence.path)).toEqual([
      "envelope.data.stdout",
    ]);
    expect(report.summary).toContain("2 of 4 replayed steps diverged.");
    expect(report.summary).toContain("Call 1 (run, req-1) diverged:");
    expect(report.summary).toContain("envelope.data.stdout: text differs (- recorded, + replayed)");
    expect(report.summary).toContain("\n    -# pass 3\n    -# fail 2\n    +# pass 4\n    +# fail 1\n");
    expect(report.summary).toContain(
      'Call 3 (apply_patch, req-3) diverged:\n  envelope.data.changed_files[0]: recorded "src/other.js", replay got "src/cart.js"',
    );
  });

  it("diverges when the initial workspace is not the one recorded", async () => {
    const moved = structuredClone(demo);
    moved.workspace.files["src/cart.js"] = String(moved.workspace.files["src/cart.js"]).replace(
      "sum + item.priceCents, 0",
      "sum + item.priceCents * item.quantity, 0",
    );
    const report = await replaySession(moved);
    expect(report.steps[0]).toMatchObject({ verdict: "diverged" });
    expect(report.steps[0]!.divergences[0]).toMatchObject({
      path: "status",
      expected: "error",
      actual: "success",
    });
  });

  it("replays restores and the recorded approval answers", async () => {
    const runtime = await createEmbeddedRuntime({
      files: { "a.txt": "one\n" },
      approvalOverrides: { agentbench: { run: "ask", apply_patch: "ask" } },
      approver: async (request) => (request.tool === "run" ? "deny" : "allow"),
    });
    const recorder = await SessionRecorder.start(runtime, { profile: "agentbench" });
    const call = (tool: string, params: Record<string, unknown>) =>
      runtime.invoke("agentbench", { tool, params });
    await call("apply_patch", { unified_diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n" });
    expect((await call("run", { command: "echo hi > b.txt" })).status).toBe("error");
    await runtime.restoreBefore(1);
    expect((await call("read_file", { path: "a.txt" })).data).toMatchObject({ content: "one" });
    const session = recorder.finish({ meta: { title: "restore" } });

    const plan = replayPlan(session);
    expect(plan.map((action) => action.kind)).toEqual(["call", "call", "restore", "call"]);
    const replay = await SessionReplay.start(session);
    const report = await replay.playAll();
    expect(report.summary).toBe("All 4 replayed steps matched the recording.");
    // The replay's runtime keeps its own policy afterwards.
    const agentbench = replay.runtime.profile("agentbench");
    const run = agentbench.tools.find((tool) => tool.name === "run")!;
    expect(replay.runtime.approvalMode(agentbench, run)).toBe("auto");
  });
});

describe("a recording that began mid-run", () => {
  it("replays on a runtime whose steps start at 1, artifact names moved along", async () => {
    const runtime = await createEmbeddedRuntime({ files: { "a.txt": "one\n" } });
    const call = (tool: string, params: Record<string, unknown>) =>
      runtime.invoke("agentbench", { tool, params });
    await call("run", { command: "echo before > before.txt" });
    await call("list_files", {});
    const recorder = await SessionRecorder.start(runtime, { profile: "agentbench" });
    await call("run", { command: "cat a.txt" });
    await call("apply_patch", { unified_diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n" });
    await runtime.restoreBefore(4);
    const session = recorder.finish({ meta: { title: "mid-run" } });
    expect(session.meta.firstStep).toBe(3);
    expect(JSON.stringify(session.events)).toContain("logs/tool_step_0003_stdout.txt");
    expect(JSON.stringify(session.events)).toContain("diffs/step_0004.patch");

    const replay = await SessionReplay.start(session);
    const report = await replay.playAll();
    expect(report.summary).toBe("All 3 replayed steps matched the recording.");
    expect(report.steps[0]!.outcome?.step).toBe(1);
    expect(await replay.runtime.sandbox.exec("cat a.txt")).toMatchObject({ stdout: "one\n" });
  });
});

describe("compare", () => {
  it("masks test runners' timings inside text, and nothing else", () => {
    const recorded = "ok 1 - a\n  duration_ms: 0.161025\n# duration_ms 256.002756\n";
    expect(
      compareValues(
        { stdout: recorded },
        { stdout: recorded.replace("0.161025", "0.2").replace("256.002756", "301") },
      ),
    ).toEqual([]);
    const changed = compareValues({ stdout: recorded }, { stdout: recorded.replace("ok 1", "not ok 1") });
    expect(changed.map((divergence) => divergence.path)).toEqual(["stdout"]);
    expect(compareValues("total 0.5", "total 0.6")).toHaveLength(1);
  });

  it("finds added, removed and changed fields at any depth, skipping volatile keys", () => {
    const divergences = compareValues(
      { a: 1, b: [1, 2], c: { started_at: "x", d: "same" }, gone: true },
      { a: 2, b: [1], c: { started_at: "y", d: "same" }, extra: null },
    );
    expect(divergences.map((divergence) => formatDivergence(divergence))).toEqual([
      "a: recorded 1, replay got 2",
      "b[1]: recorded 2, absent in the replay",
      "gone: recorded true, absent in the replay",
      "extra: absent in the recording, replay has null",
    ]);
  });
});
