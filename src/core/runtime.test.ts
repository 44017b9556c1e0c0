import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { CALLS_CHANNEL } from "../sandbox/stop-signal.ts";
import { stopLater } from "../sandbox/testing/stop-later.ts";
import { writeTextFile } from "../tools/write-text.ts";
import { ToolFailure } from "./errors.ts";
import type { Profile, ToolSpec } from "./profile.ts";
import { type ApprovalDecision, Runtime, type RuntimeOptions } from "./runtime.ts";

/** A tiny dialect that exercises the pipeline without depending on any real profile. */
function testProfile(overrides: Partial<Profile> = {}): Profile {
  const echo: ToolSpec<{ text: string }> = {
    name: "echo",
    description: "Echo text back.",
    inputSchema: {
      type: "object",
      properties: {
        text: { type: "string", description: "What to echo." },
        loud: { type: "boolean", default: false },
      },
      required: ["text", "loud"],
      additionalProperties: false,
    },
    kind: "read",
    deadlineMs: 1000,
    async run(params) {
      return { echoed: params.text };
    },
  };
  const write: ToolSpec<{ path: string; content: string }> = {
    name: "write",
    description: "Write a file.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
    kind: "write",
    deadlineMs: 1000,
    pathParams: ["path"],
    async run(params, context) {
      const written = await writeTextFile(context, params.path, params.content);
      return { written: written.path.relative };
    },
  };
  const hang: ToolSpec<Record<string, never>> = {
    name: "hang",
    description: "Never finishes on its own.",
    inputSchema: { type: "object", properties: {} },
    kind: "command",
    deadlineMs: 100,
    run: (_params, context) =>
      new Promise((_, reject) => {
        context.signal.addEventListener("abort", () => reject(new Error("aborted")));
      }),
  };
  const spin: ToolSpec<Record<string, never>> = {
    name: "spin",
    description: "A busy synchronous loop that polls its signal, as a regex or glob match does.",
    inputSchema: { type: "object", properties: {} },
    kind: "read",
    deadlineMs: 60_000,
    async run(_params, context) {
      let spins = 0;
      while (!context.signal.aborted) spins++;
      return { spins };
    },
  };
  const boom: ToolSpec<Record<string, never>> = {
    name: "boom",
    description: "Throws something unexpected.",
    inputSchema: { type: "object", properties: {} },
    kind: "read",
    deadlineMs: 1000,
    async run() {
      throw new TypeError("cannot read properties of undefined");
    },
  };
  return {
    name: "test",
    title: "Test",
    spec: "none",
    description: "A test dialect.",
    tools: [echo, write, hang, spin, boom],
    symlinks: "block",
    approval: { write: "ask", command: "auto" },
    envelope: {
      failed: (envelope) => (envelope as { ok: boolean }).ok === false,
      success: (call, data) => ({ ok: true, id: call.requestId, data }),
      failure: (call, failure) => ({
        ok: false,
        id: call.requestId,
        code: failure.code,
        message: failure.message,
      }),
    },
    ...overrides,
  };
}

async function setup(options: Partial<RuntimeOptions> = {}, profile = testProfile()) {
  const sandbox = await EmbeddedSandbox.create();
  const runtime = new Runtime({
    sandbox,
    profiles: [profile],
    session: "s",
    deadlineGraceMs: 50,
    ...options,
  });
  return { runtime, sandbox };
}

const read = async (sandbox: EmbeddedSandbox, path: string) =>
  new TextDecoder().decode(await sandbox.readFile(`/workspace/${path}`));

describe("validate", () => {
  it("fills defaults, and lets a defaulted param be omitted even if the schema lists it as required", async () => {
    const { runtime } = await setup();
    const outcome = await runtime.invoke("test", { tool: "echo", params: { text: "hi" } });
    expect(outcome.envelope).toEqual({ ok: true, id: "req-1", data: { echoed: "hi" } });
    const started = runtime.events.all().find((event) => event.type === "tool_call_started");
    expect(started?.params).toEqual({ text: "hi" });
  });

  it("rejects unknown keys where the schema says additionalProperties false, naming the allowed ones", async () => {
    const { runtime } = await setup();
    const envelope = await runtime.call("test", { tool: "echo", params: { text: "hi", txet: 1 } });
    expect(envelope).toMatchObject({ ok: false, code: "invalid_params" });
    expect((envelope as { message: string }).message).toContain(
      "unknown parameter 'txet' (allowed: text, loud)",
    );
  });

  it("reports every problem at once", async () => {
    const { runtime } = await setup();
    const envelope = (await runtime.call("test", { tool: "write", params: { path: 3 } })) as {
      message: string;
    };
    expect(envelope.message).toContain("missing required parameter 'content'");
    expect(envelope.message).toContain("'path' must be string");
  });

  it("answers an unknown tool and an unknown profile in an envelope", async () => {
    const { runtime } = await setup();
    expect(await runtime.call("test", { tool: "nope", params: {} })).toMatchObject({
      ok: false,
      code: "unknown_tool",
    });
    const other = (await runtime.call("nope", { tool: "echo", params: {} })) as {
      status: string;
      error: { error_type: string };
    };
    expect(other.error.error_type).toBe("unknown_tool");
  });
});

describe("guard", () => {
  it("refuses an escaping path param before asking for approval", async () => {
    const asked: string[] = [];
    const { runtime } = await setup({
      approver: async (request) => {
        asked.push(request.tool);
        return "allow";
      },
    });
    const envelope = await runtime.call("test", { tool: "write", params: { path: "../x", content: "y" } });
    expect(envelope).toMatchObject({ ok: false, code: "path_escape" });
    expect(asked).toEqual([]);
  });

  it("runs the runtime's guards, which can refuse a call", async () => {
    const { runtime } = await setup({ approver: async () => "allow" });
    runtime.guards.push(({ tool, params }) => {
      if (tool.name === "write" && String(params.path).startsWith("tests/")) {
        throw new ToolFailure("read_only_path", "tests/ is read-only in this lesson.");
      }
    });
    expect(
      await runtime.call("test", { tool: "write", params: { path: "tests/a.txt", content: "x" } }),
    ).toMatchObject({
      ok: false,
      code: "read_only_path",
    });
    expect(
      await runtime.call("test", { tool: "write", params: { path: "src/a.txt", content: "x" } }),
    ).toMatchObject({
      ok: true,
    });
  });

  it("runs a tool's own guard after the runtime's guards and before approval", async () => {
    const asked: string[] = [];
    const { runtime } = await setup({
      approver: async (request) => {
        asked.push(request.tool);
        return "allow";
      },
    });
    const profile = runtime.profile("test");
    const write = profile.tools.find((tool) => tool.name === "write")!;
    write.guard = (params: Record<string, unknown>) => {
      if (String(params.content).includes("secret"))
        throw new ToolFailure("command_blocked", "No secrets here.");
    };
    expect(
      await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "a secret" } }),
    ).toMatchObject({ ok: false, code: "command_blocked" });
    expect(asked).toEqual([]);
    expect(
      await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "plain" } }),
    ).toMatchObject({ ok: true });
    expect(asked).toEqual(["write"]);
  });
});

describe("change guards", () => {
  it("undoes and refuses a call whose changes a change guard rejects, whatever the tool", async () => {
    const { runtime, sandbox } = await setup({ approver: async () => "allow" });
    await runtime.call("test", { tool: "write", params: { path: "tests/a.txt", content: "original" } });
    runtime.changeGuards.push(({ changes }) => {
      const touched = changes.find((change) => change.path.startsWith("tests/"));
      if (touched) throw new ToolFailure("read_only_path", `${touched.path} is read-only.`);
    });
    const refused = await runtime.invoke("test", {
      tool: "write",
      params: { path: "tests/a.txt", content: "changed" },
    });
    expect(refused.envelope).toMatchObject({ ok: false, code: "read_only_path" });
    expect(refused.changes).toEqual([]);
    expect(await read(sandbox, "tests/a.txt")).toBe("original");
    expect(
      await runtime.call("test", { tool: "write", params: { path: "src/b.txt", content: "fine" } }),
    ).toMatchObject({ ok: true });
    expect(runtime.checkpoints.map((checkpoint) => checkpoint.step)).toEqual([1, 3]);
  });
});

describe("approve", () => {
  it("asks for write tools when the policy says ask, and records the answer", async () => {
    const answers: ApprovalDecision[] = ["allow", "deny"];
    const { runtime, sandbox } = await setup({ approver: async () => answers.shift() ?? "deny" });
    expect(
      await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "1" } }),
    ).toMatchObject({ ok: true });
    const denied = await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "2" } });
    expect(denied).toMatchObject({ ok: false, code: "approval_denied" });
    expect(await read(sandbox, "a.txt")).toBe("1");
    const types = runtime.events.all().map((event) => event.type);
    expect(types.filter((type) => type.startsWith("approval_"))).toEqual([
      "approval_requested",
      "approval_granted",
      "approval_requested",
      "approval_denied",
    ]);
  });

  it("times the call without the wait for the person's answer, and records the wait apart", async () => {
    const { runtime } = await setup({
      approver: () => new Promise((resolve) => setTimeout(() => resolve("allow"), 400)),
    });
    const before = performance.now();
    const outcome = await runtime.invoke("test", { tool: "write", params: { path: "a.txt", content: "1" } });
    const elapsedSec = (performance.now() - before) / 1000;
    expect(outcome.approvalWaitSec).toBeGreaterThanOrEqual(0.39);
    expect(outcome.durationSec + outcome.approvalWaitSec!).toBeLessThanOrEqual(elapsedSec + 0.001);
    expect(outcome.durationSec).toBeLessThanOrEqual(elapsedSec - 0.39);
    const finished = runtime.events.all().find((event) => event.type === "tool_call_finished");
    expect(finished).toMatchObject({
      duration_sec: outcome.durationSec,
      approval_wait_sec: outcome.approvalWaitSec,
    });
    // A call that asked nobody has no wait to report.
    const read = await runtime.invoke("test", { tool: "echo", params: { text: "x" } });
    expect(read.approvalWaitSec).toBeUndefined();
    expect(runtime.events.all().at(-1)).not.toHaveProperty("approval_wait_sec");
  });

  it("remembers 'always for this tool'", async () => {
    let asked = 0;
    const { runtime } = await setup({
      approver: async () => {
        asked++;
        return "allow_always";
      },
    });
    await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "1" } });
    await runtime.call("test", { tool: "write", params: { path: "b.txt", content: "2" } });
    expect(asked).toBe(1);
    expect(runtime.approvalMode(runtime.profile("test"), runtime.profile("test").tools[1]!)).toBe("auto");
  });

  it("denies without asking when the policy is deny, and when nobody can answer", async () => {
    const { runtime } = await setup({ approvalOverrides: { test: { write: "deny" } } });
    expect(
      await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "1" } }),
    ).toMatchObject({
      code: "approval_denied",
    });
    const { runtime: unattended } = await setup();
    expect(
      await unattended.call("test", { tool: "write", params: { path: "a.txt", content: "1" } }),
    ).toMatchObject({
      code: "approval_denied",
    });
  });

  it("never asks for read-only tools", async () => {
    let asked = 0;
    const { runtime } = await setup({
      approver: async () => {
        asked++;
        return "deny";
      },
    });
    expect(await runtime.call("test", { tool: "echo", params: { text: "x" } })).toMatchObject({ ok: true });
    expect(asked).toBe(0);
  });
});

describe("run with deadline", () => {
  it("gives up on a tool past its deadline, aborts it, and keeps serving calls", async () => {
    const { runtime } = await setup();
    const started = Date.now();
    const envelope = await runtime.call("test", { tool: "hang", params: {} });
    expect(envelope).toMatchObject({ ok: false, code: "timeout" });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await runtime.call("test", { tool: "echo", params: { text: "next" } })).toMatchObject({
      ok: true,
    });
  });

  it("turns an unexpected exception into an internal_error envelope", async () => {
    const { runtime } = await setup();
    const envelope = (await runtime.call("test", { tool: "boom", params: {} })) as {
      code: string;
      message: string;
    };
    expect(envelope.code).toBe("internal_error");
    expect(envelope.message).toContain("cannot read properties of undefined");
  });

  it("runs calls one at a time, in order", async () => {
    const { runtime } = await setup({ approver: async () => "allow" });
    const outcomes = await Promise.all([
      runtime.invoke("test", { tool: "write", params: { path: "a.txt", content: "1" } }),
      runtime.invoke("test", { tool: "echo", params: { text: "x" } }),
      runtime.invoke("test", { tool: "write", params: { path: "a.txt", content: "2" } }),
    ]);
    expect(outcomes.map((outcome) => outcome.step)).toEqual([1, 2, 3]);
    const starts = runtime.events.all().filter((event) => event.type === "tool_call_started");
    expect(starts.map((event) => event.request_id)).toEqual(["req-1", "req-2", "req-3"]);
  });
});

describe("cancel", () => {
  it("stops a busy tool from another thread through shared memory; the next call is served", async () => {
    const runs: number[] = [];
    const { runtime } = await setup({ onRun: (run) => runs.push(run.job) });
    // The page stops whatever call runs now; this thread is stuck in the tool's loop meanwhile.
    stopLater(runtime.stops, CALLS_CHANNEL, "running", 300);
    const outcome = await runtime.invoke("test", { tool: "spin", params: {} });
    expect(runs).toHaveLength(1);
    // The tool returned what it had: a stopped call's result is kept.
    expect(outcome.envelope).toMatchObject({ ok: true, data: { spins: expect.any(Number) } });
    expect(await runtime.call("test", { tool: "echo", params: { text: "next" } })).toMatchObject({
      ok: true,
    });
  });

  it("cancels a waiting call at once, and a queued one before it runs", async () => {
    const { runtime } = await setup();
    const hanging = runtime.invoke("test", { tool: "hang", params: {}, request_id: "a" });
    const queued = runtime.invoke("test", { tool: "echo", params: { text: "x" }, request_id: "b" });
    expect(runtime.cancel("b")).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runtime.cancel("a")).toBe(true);
    expect((await hanging).failure?.code).toBe("cancelled");
    const second = await queued;
    expect(second.failure?.code).toBe("cancelled");
    expect(second.envelope).toMatchObject({ ok: false, code: "cancelled" });
  });

  it("cancels a call waiting for the person's approval", async () => {
    const { runtime } = await setup({ approver: () => new Promise(() => undefined) });
    const waiting = runtime.invoke("test", {
      tool: "write",
      params: { path: "a.txt", content: "1" },
      request_id: "w",
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    runtime.cancel("w");
    expect((await waiting).failure?.code).toBe("cancelled");
  });
});

describe("record", () => {
  it("emits file_changed for what a mutating call changed, and persists before answering", async () => {
    const order: string[] = [];
    const { runtime } = await setup({
      approver: async () => "allow",
      persist: async () => {
        order.push("persist");
      },
    });
    runtime.subscribe((event) => {
      if (event.type === "tool_call_finished") order.push("finished");
    });
    const outcome = await runtime.invoke("test", {
      tool: "write",
      params: { path: "dir/a.txt", content: "hello" },
    });
    expect(outcome.changes.map((change) => change.path)).toEqual(["dir", "dir/a.txt"]);
    expect(order).toEqual(["persist", "finished"]);
    const changed = runtime.events.all().filter((event) => event.type === "file_changed");
    expect(changed.map((event) => event.data)).toEqual([
      { path: "dir", change: "created", entry: "directory", bytes_before: null, bytes_after: null },
      { path: "dir/a.txt", change: "created", entry: "file", bytes_before: null, bytes_after: 5 },
    ]);
  });

  it("numbers events, stamps them with the session and the clock", async () => {
    let tick = 0;
    const { runtime } = await setup({ clock: { now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)) } });
    await runtime.call("test", { tool: "echo", params: { text: "x" } });
    const events = runtime.events.all();
    expect(events.map((event) => event.seq)).toEqual([1, 2]);
    expect(events.every((event) => event.session === "s")).toBe(true);
    expect(events.map((event) => event.ts)).toEqual(["2026-01-01T00:00:01.000Z", "2026-01-01T00:00:03.000Z"]);
  });
});

describe("checkpoints", () => {
  it("restores the workspace to just before a call, and the restore can be undone", async () => {
    const { runtime, sandbox } = await setup({ approver: async () => "allow" });
    await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "v1" } });
    await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "v2" } });
    await runtime.call("test", { tool: "write", params: { path: "new/b.txt", content: "b" } });
    const restore = await runtime.restoreBefore(2);
    expect(await read(sandbox, "a.txt")).toBe("v1");
    await expect(sandbox.stat("/workspace/new/b.txt")).rejects.toMatchObject({ code: "ENOENT" });
    expect(restore.changes.map((change) => change.path).sort()).toEqual(["a.txt", "new", "new/b.txt"]);
    await runtime.restoreBefore(restore.step);
    expect(await read(sandbox, "a.txt")).toBe("v2");
    expect(await read(sandbox, "new/b.txt")).toBe("b");
    expect(runtime.events.all().filter((event) => event.type === "checkpoint_restored")).toHaveLength(2);
  });

  it("restores to before the very first call: an empty workspace", async () => {
    const { runtime, sandbox } = await setup({ approver: async () => "allow" });
    await runtime.call("test", { tool: "write", params: { path: "a.txt", content: "v1" } });
    await runtime.restoreBefore(1);
    expect(await sandbox.readdir("/workspace")).toEqual([]);
  });
});

describe("resuming a session", () => {
  it("continues steps, event numbers and request ids after an earlier run, and can restore into it", async () => {
    const first = await setup({ approver: async () => "allow", session: "s" });
    await first.runtime.call("test", { tool: "write", params: { path: "a.txt", content: "v1" } });
    await first.runtime.call("test", { tool: "write", params: { path: "a.txt", content: "v2" } });
    const history = { events: [...first.runtime.events.all()], checkpoints: [...first.runtime.checkpoints] };

    const second = new Runtime({
      sandbox: first.sandbox,
      profiles: [testProfile()],
      session: "s",
      approver: async () => "allow",
      history,
    });
    const outcome = await second.invoke("test", { tool: "write", params: { path: "a.txt", content: "v3" } });
    expect(outcome.step).toBe(3);
    expect(outcome.requestId).not.toMatch(/^req-[12]$/u);
    const seqs = second.events.all().map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(seqs.length).toBeGreaterThan(history.events.length);

    await second.restoreBefore(2);
    expect(await read(first.sandbox, "a.txt")).toBe("v1");
  });
});

describe("dispose", () => {
  it("disposes the services calls created, after the calls already queued", async () => {
    const disposed: string[] = [];
    const open: ToolSpec<Record<string, never>> = {
      name: "open",
      description: "Opens something that must be closed.",
      inputSchema: { type: "object", properties: {} },
      kind: "read",
      deadlineMs: 1000,
      async run(_params, context) {
        context.services.get("thing", () => ({ dispose: async () => void disposed.push("thing") }));
        await new Promise((resolve) => setTimeout(resolve, 20));
        disposed.push("call finished");
        return {};
      },
    };
    const profile = testProfile();
    const { runtime } = await setup({}, { ...profile, tools: [...profile.tools, open] });
    const call = runtime.call("test", { tool: "open", params: {} });
    await runtime.dispose();
    await call;
    expect(disposed).toEqual(["call finished", "thing"]);
  });
});

describe("status", () => {
  it("follows the dialect's own notion of failure: an envelope the dialect calls failed is an error", async () => {
    const base = testProfile();
    const { runtime } = await setup(
      {},
      testProfile({
        envelope: {
          ...base.envelope,
          // A dialect that answers a tool's own "no" as a result (as baseagent does for exit 1).
          success: (call, data) => ({ ok: (data as { echoed: string }).echoed !== "no", id: call.requestId }),
        },
      }),
    );
    const yes = await runtime.invoke("test", { tool: "echo", params: { text: "yes" } });
    const no = await runtime.invoke("test", { tool: "echo", params: { text: "no" } });
    expect([yes.status, no.status]).toEqual(["success", "error"]);
    const finished = runtime.events.all().filter((event) => event.type === "tool_call_finished");
    expect(finished.map((event) => event.status)).toEqual(["success", "error"]);
  });
});
