import { afterEach, describe, expect, it } from "vitest";
import type { Profile } from "../core/profile.ts";
import { Runtime, type RuntimeOptions } from "../core/runtime.ts";
import { createEmbeddedRuntime, loadFiles } from "../host/create-runtime.ts";
import { agentbench } from "../profiles/agentbench.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { writePng } from "../test-support/images.ts";
import { createProvider } from "./create-provider.ts";
import { type AgentOptions, runAgent } from "./loop.ts";
import type { RecordedRequest, Script, WireFormat } from "./testing/scripted-model.ts";
import { type ScriptedServer, startScriptedServer } from "./testing/scripted-server.ts";
import { unansweredToolCalls } from "./transcript.ts";

/** A second dialect with a tool agentbench lacks, and one whose result injects an image. */
const viewer: Profile = {
  name: "viewer",
  title: "Viewer",
  spec: "test",
  description: "test profile",
  symlinks: "block",
  approval: { write: "auto", command: "auto" },
  tools: [
    {
      name: "view_image",
      description: "Shows an image to the model.",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      kind: "read",
      deadlineMs: 1000,
      async run(params: { path: string }) {
        return {
          path: params.path,
          inject_content: [{ type: "image", media_type: "image/png", data: "iVBORw0KGgo=" }],
        };
      },
    },
  ],
  envelope: {
    failed: (envelope) => (envelope as { success: boolean }).success === false,
    success: (_call, data) => ({ success: true, ...(data as object) }),
    failure: (_call, failure) => ({ success: false, error: failure.message }),
  },
};

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setup(
  format: WireFormat,
  script: Script,
  runtimeOptions: Partial<RuntimeOptions> = {},
  chunkSize?: number,
) {
  const server = await startScriptedServer({ format, script, ...(chunkSize ? { chunkSize } : {}) });
  servers.push(server);
  const sandbox = await EmbeddedSandbox.create();
  await loadFiles(sandbox, { "a.txt": "alpha\n", "b.txt": "beta\n" });
  const runtime = new Runtime({ sandbox, profiles: [agentbench, viewer], ...runtimeOptions });
  const provider = createProvider({ kind: format, baseUrl: server.baseUrl, model: "m" }, globalThis.fetch);
  const run = (options: Partial<AgentOptions> = {}) =>
    runAgent({ runtime, profile: "agentbench", provider, task: "Do the thing.", ...options });
  return { server, runtime, provider, run };
}

/** The tool results the model was sent in a request, in either wire format, as text. */
function toolResultsSent(format: WireFormat, request: RecordedRequest): string[] {
  const messages = request.body.messages as Record<string, unknown>[];
  if (format === "openai") {
    return messages.filter((message) => message.role === "tool").map((message) => String(message.content));
  }
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Record<string, unknown>[])
          .filter((block) => block.type === "tool_result")
          .map((block) => String((block.content as { text?: string }[])[0]?.text))
      : [],
  );
}

const FORMATS: WireFormat[] = ["openai", "anthropic"];

describe.each(FORMATS)("agent loop (%s)", (format) => {
  it("turns malformed tool calls into tool errors the model sees, listing the valid tools", async () => {
    const { run, server, runtime } = await setup(format, [
      {
        text: "Trying things.",
        toolCalls: [
          { name: "run", arguments: '{"command": "ls' },
          { name: "read_file", arguments: "[1, 2]" },
          { name: "view_image", arguments: { path: "x.png" } },
          { name: "teleport", arguments: {} },
          { name: "read_file", arguments: { path: "a.txt" } },
        ],
      },
      { text: "Understood; done." },
    ]);
    const result = await run();
    expect(result.stopReason).toBe("done");
    expect(result.finalText).toBe("Understood; done.");

    const sent = toolResultsSent(format, server.requests[1]!);
    expect(sent).toHaveLength(5);
    const valid = "Valid tools: list_files, read_file, search, apply_patch, run.";
    expect(sent[0]).toMatch(/The arguments of run could not be read: they are not valid JSON/u);
    expect(sent[0]).toContain(valid);
    expect(sent[1]).toMatch(/they are not a JSON object\. Received: \[1, 2\]/u);
    expect(sent[2]).toMatch(
      /There is no tool \\"view_image\\" in the agentbench profile\. It belongs to the viewer profile, not this one\./u,
    );
    expect(sent[2]).toContain(valid);
    expect(sent[3]).toMatch(/There is no tool \\"teleport\\" in the agentbench profile\. Valid tools/u);
    // The malformed ones are told in the dialect's own error envelope; the good one ran.
    expect(JSON.parse(sent[0]!).error.error_type).toBe("invalid_params");
    expect(sent[4]).toContain("alpha");

    const calls = runtime.events.all().filter((event) => event.type === "tool_call_started");
    expect(calls.map((event) => event.tool)).toEqual(["read_file"]);
    const errors = runtime.events.all().filter((event) => event.type === "agent_error");
    expect(errors.map((event) => event.data?.kind)).toEqual([
      "invalid_params",
      "invalid_params",
      "unknown_tool",
      "unknown_tool",
    ]);
    expect(unansweredToolCalls(result.transcript)).toEqual([]);
  });

  it("tells a tool call cut by the token limit as such, and stops when the cut repeats", async () => {
    const cut = {
      text: "Writing it.",
      toolCalls: [{ name: "run", arguments: '{"command": "echo ' }],
      finish: format === "openai" ? "length" : "max_tokens",
    };
    const { run, server, runtime } = await setup(format, [cut, cut, { text: "never asked" }]);
    const result = await run();
    expect(server.requests).toHaveLength(2);
    const told = toolResultsSent(format, server.requests[1]!);
    expect(told[0]).toMatch(/hit the token limit/u);
    expect(told[0]).not.toMatch(/not valid JSON/u);
    expect(result.stopReason).toBe("error");
    expect(result.error?.message).toMatch(/token limit.*twice in a row/u);
    expect(unansweredToolCalls(result.transcript)).toEqual([]);
    expect(runtime.events.all().filter((event) => event.type === "tool_call_started")).toEqual([]);
  });

  it("stops at the max-iterations guard with every call answered, and can continue from there", async () => {
    const { run, server } = await setup(format, (_request, index) => ({
      text: `Turn ${index + 1}.`,
      toolCalls: [{ name: "run", arguments: { command: `echo ${index + 1}` } }],
    }));
    const first = await run({ maxIterations: 3 });
    expect(first.stopReason).toBe("max_iterations");
    expect(first.iterations).toBe(3);
    expect(server.requests).toHaveLength(3);
    expect(unansweredToolCalls(first.transcript)).toEqual([]);
    expect(first.transcript.at(-1)).toMatchObject({ role: "tool", isError: false });
    expect(first.usage.turns).toHaveLength(3);

    const second = await run({ transcript: first.transcript, task: undefined, maxIterations: 1 });
    expect(second.stopReason).toBe("max_iterations");
    expect(server.requests).toHaveLength(4);
    expect(second.transcript.slice(0, first.transcript.length)).toEqual(first.transcript);
    expect(second.transcript.filter((entry) => entry.role === "system")).toHaveLength(1);
  });

  it("answers a call an earlier run left without a result before asking the model again", async () => {
    const { run, server } = await setup(format, [{ text: "I will check the workspace first." }]);
    const result = await run({
      task: undefined,
      transcript: [
        { role: "system", text: "sys" },
        { role: "user", text: "Do it." },
        {
          role: "assistant",
          text: "",
          toolCalls: [{ id: "lost", name: "run", arguments: '{"command":"sleep 999"}' }],
        },
      ],
    });
    expect(result.stopReason).toBe("done");
    expect(result.transcript[3]).toMatchObject({ role: "tool", callId: "lost", isError: true });
    expect(toolResultsSent(format, server.requests[0]!)[0]).toMatch(
      /No result: the run ended before this call's result was recorded/u,
    );
  });

  it("defaults the guard to 30 turns", async () => {
    const { run, server } = await setup(
      format,
      () => ({ toolCalls: [{ name: "list_files", arguments: {} }] }),
      {},
      4096,
    );
    const result = await run();
    expect(result.stopReason).toBe("max_iterations");
    expect(server.requests).toHaveLength(30);
  });

  it("stops mid-stream on abort: the connection closes and the partial text stays, marked incomplete", async () => {
    const { run, server, runtime } = await setup(format, [
      { text: "Thinking about this carefully", hang: true },
    ]);
    const controller = new AbortController();
    let streamed = "";
    const result = await run({
      signal: controller.signal,
      handlers: {
        onText: (delta) => {
          streamed += delta;
          if (streamed.length >= 10) controller.abort();
        },
      },
    });
    expect(result.stopReason).toBe("stopped");
    expect(result.error).toBeUndefined();
    const last = result.transcript.at(-1);
    expect(last).toMatchObject({ role: "assistant", incomplete: true, toolCalls: [] });
    expect(last?.role === "assistant" && last.text).toBe(streamed);
    expect(runtime.events.all().at(-1)?.data).toMatchObject({ stop_reason: "stopped" });
    await expect.poll(() => server.openStreams()).toBe(0);
  });

  it("stops between tool calls: the running call finishes, the rest are answered as not run", async () => {
    const { run, runtime } = await setup(format, [
      {
        toolCalls: [
          { name: "run", arguments: { command: "echo one > one.txt" } },
          { name: "run", arguments: { command: "echo two > two.txt" } },
        ],
      },
      { text: "never asked" },
    ]);
    const controller = new AbortController();
    const result = await run({
      signal: controller.signal,
      handlers: { onToolOutcome: () => controller.abort() },
    });
    expect(result.stopReason).toBe("stopped");
    expect(result.iterations).toBe(1);
    expect(unansweredToolCalls(result.transcript)).toEqual([]);
    const results = result.transcript.filter((entry) => entry.role === "tool");
    expect(results[0]).toMatchObject({ isError: false, step: 1 });
    expect(results[1]).toMatchObject({ isError: true });
    expect(results[1]?.role === "tool" && results[1].content).toMatch(
      /Not run: the person stopped the agent/u,
    );
    expect(await runtime.sandbox.exec("cat one.txt; ls")).toMatchObject({
      stdout: expect.stringContaining("one"),
    });
    expect((await runtime.sandbox.exec("ls")).stdout).not.toContain("two.txt");
  });

  it("runs tool calls through the runtime's approvals: a denial is a result the model reads", async () => {
    const asked: string[] = [];
    const { run, server } = await setup(
      format,
      [{ toolCalls: [{ name: "run", arguments: { command: "rm -rf ." } }] }, { text: "OK, I will not." }],
      {
        approvalOverrides: { agentbench: { run: "ask" } },
        approver: async (request) => {
          asked.push(`${request.tool}: ${String(request.params.command)}`);
          return "deny";
        },
      },
    );
    const result = await run();
    expect(asked).toEqual(["run: rm -rf ."]);
    expect(result.stopReason).toBe("done");
    expect(toolResultsSent(format, server.requests[1]!)[0]).toMatch(/approval_denied.*The user denied run/u);
  });

  it("counts tokens per turn and in total", async () => {
    const { run } = await setup(format, [
      { toolCalls: [{ name: "list_files", arguments: {} }], usage: { input: 100, output: 10 } },
      { text: "Done.", usage: { input: 150, output: 5 } },
    ]);
    const result = await run();
    expect(result.usage.turns).toEqual([
      { input: 100, output: 10 },
      { input: 150, output: 5 },
    ]);
    expect(result.usage.total).toEqual({ input: 250, output: 15 });
    expect(
      result.transcript
        .filter((entry) => entry.role === "assistant")
        .map((entry) => entry.role === "assistant" && entry.usage),
    ).toEqual([
      { input: 100, output: 10 },
      { input: 150, output: 5 },
    ]);
  });

  it("sends the images a result injects as image content, not as base64 text", async () => {
    const { runtime, server } = await setup(format, [
      { toolCalls: [{ name: "view_image", arguments: { path: "shot.png" } }] },
      { text: "I see it." },
    ]);
    const provider = createProvider({ kind: format, baseUrl: server.baseUrl, model: "m" }, globalThis.fetch);
    const result = await runAgent({ runtime, profile: "viewer", provider, task: "Look." });
    expect(result.stopReason).toBe("done");
    const tool = result.transcript.find((entry) => entry.role === "tool");
    expect(tool).toMatchObject({ images: [{ mediaType: "image/png", data: "iVBORw0KGgo=" }] });
    const body = JSON.stringify(server.requests[1]!.body.messages);
    if (format === "openai")
      expect(body).toContain('"image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}');
    else
      expect(body).toContain(
        '"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}',
      );
    expect(body.match(/iVBORw0KGgo=/gu)).toHaveLength(1);
  });
});

describe.each(FORMATS)("with every published profile (%s)", (format) => {
  it("sends baseagent's view_image picture as an image block, and names the profile of a stray tool", async () => {
    const server = await startScriptedServer({
      format,
      script: [
        {
          toolCalls: [
            { name: "view_image", arguments: { path: "shot.png" } },
            { name: "run", arguments: { command: "ls" } },
          ],
        },
        { text: "A grey picture." },
      ],
    });
    servers.push(server);
    const runtime = await createEmbeddedRuntime();
    const png = writePng({ width: 2, height: 2, colorType: 0, depth: 8, samples: [9, 9, 9, 9] });
    await runtime.sandbox.writeFile(`${runtime.sandbox.workspaceRoot}/shot.png`, png);
    const provider = createProvider({ kind: format, baseUrl: server.baseUrl, model: "m" }, globalThis.fetch);
    const result = await runAgent({ runtime, profile: "baseagent", provider, task: "What is in shot.png?" });
    expect(result.stopReason).toBe("done");

    const base64 = Buffer.from(png).toString("base64");
    const body = JSON.stringify(server.requests[1]!.body.messages);
    if (format === "openai") expect(body).toContain(`"image_url":{"url":"data:image/png;base64,${base64}"}`);
    else expect(body).toContain(`"source":{"type":"base64","media_type":"image/png","data":"${base64}"}`);
    expect(body.split(base64)).toHaveLength(2);
    const results = toolResultsSent(format, server.requests[1]!);
    expect(JSON.parse(results[0]!)).toMatchObject({ success: true, inject_content: [{ type: "image" }] });
    expect(results[1]).toMatch(
      /There is no tool \\"run\\" in the baseagent profile\. It belongs to the agentbench profile, not this one\. Valid tools: shell_command, read_file/u,
    );
  });
});

describe("agent loop events", () => {
  it("logs the task, each answer and the end of the run in the runtime's event log", async () => {
    const { run, runtime } = await setup("openai", [
      { text: "Listing.", toolCalls: [{ name: "list_files", arguments: {} }] },
      { text: "Two files." },
    ]);
    await run();
    const types = runtime.events.all().map((event) => event.type);
    expect(types).toEqual([
      "agent_started",
      "agent_message",
      "agent_message",
      "tool_call_started",
      "tool_call_finished",
      "agent_message",
      "agent_finished",
    ]);
    const finished = runtime.events.all().at(-1)!;
    expect(finished.data).toMatchObject({ stop_reason: "done", iterations: 2 });
  });
});
