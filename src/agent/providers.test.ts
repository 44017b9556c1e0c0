import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { providerSchemas } from "../core/provider-schemas.ts";
import { agentbench } from "../profiles/agentbench.ts";
import { referenceSuitePath } from "../test-support/reference-suites.ts";
import { toAnthropicMessages } from "./anthropic.ts";
import { createProvider } from "./create-provider.ts";
import { toOpenAiMessages } from "./openai.ts";
import type { FetchLike, ProviderSettings } from "./provider.ts";
import { scriptedFetch } from "./testing/scripted-model.ts";
import { toolResultForModel } from "./tool-results.ts";
import type { TranscriptEntry } from "./transcript.ts";

const OPENAI: ProviderSettings = {
  kind: "openai",
  baseUrl: "https://example.test/v1/",
  apiKey: "sk-test-openai-0000000000000000",
  model: "gpt-test",
};
const ANTHROPIC: ProviderSettings = {
  kind: "anthropic",
  baseUrl: "https://example.test",
  apiKey: "sk-ant-test-000000000000000000",
  model: "claude-test",
};

const CONVERSATION: TranscriptEntry[] = [
  { role: "user", text: "Fix it" },
  {
    role: "assistant",
    text: "Looking.",
    toolCalls: [
      { id: "c1", name: "read_file", arguments: '{"path":"a.txt"}' },
      { id: "c2", name: "run", arguments: "{not json" },
    ],
  },
  { role: "tool", callId: "c1", tool: "read_file", content: '{"status":"success"}', isError: false },
  {
    role: "tool",
    callId: "c2",
    tool: "run",
    content: '{"status":"error"}',
    isError: true,
    images: [{ mediaType: "image/png", data: "iVBORw0KGgo=" }],
  },
  { role: "user", text: "And then?" },
];

/** A fetch that streams exactly the given SSE text, recording the request. */
function rawSse(text: string, contentType = "text/event-stream"): { fetch: FetchLike; bodies: unknown[] } {
  const bodies: unknown[] = [];
  return {
    bodies,
    fetch: async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return new Response(text, { status: 200, headers: { "content-type": contentType } });
    },
  };
}

describe("OpenAI-compatible provider", () => {
  it("streams text and tool calls with partial arguments, reports usage and the finish reason", async () => {
    const served = scriptedFetch("openai", [
      {
        text: "Let me look — ünïcode ✓.",
        toolCalls: [
          { name: "read_file", arguments: { path: "src/ä.ts", start_line: 1 } },
          { name: "run", arguments: { command: "npm test -- --grep 'x y'" } },
        ],
        usage: { input: 321, output: 45 },
      },
    ]);
    const deltas: string[] = [];
    const starts: string[] = [];
    const turn = await createProvider(OPENAI, served.fetch).stream(
      { system: "sys", messages: [{ role: "user", text: "hi" }], profile: agentbench },
      { onText: (delta) => deltas.push(delta), onToolCallStart: (call) => starts.push(call.name) },
    );
    expect(turn.text).toBe("Let me look — ünïcode ✓.");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(turn.text);
    expect(starts).toEqual(["read_file", "run"]);
    expect(turn.toolCalls).toEqual([
      { id: "call_1_1", name: "read_file", arguments: '{"path":"src/ä.ts","start_line":1}' },
      { id: "call_1_2", name: "run", arguments: '{"command":"npm test -- --grep \'x y\'"}' },
    ]);
    expect(turn.finish).toBe("tool_calls");
    expect(turn.usage).toEqual({ input: 321, output: 45 });

    const request = served.requests[0]!;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe(`Bearer ${OPENAI.apiKey}`);
    expect(request.body.stream).toBe(true);
    expect(request.body.stream_options).toEqual({ include_usage: true });
    expect(request.body.tools).toEqual(providerSchemas(agentbench, "openai"));
    expect(request.body.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "hi" },
    ]);
  });

  it("calls fetch unbound, as a browser's window.fetch requires", async () => {
    for (const settings of [OPENAI, ANTHROPIC]) {
      const served = scriptedFetch(settings.kind, [{ text: "ok" }]);
      const strict = function (this: unknown, url: string, init?: RequestInit) {
        if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
        return served.fetch(url, init);
      } as FetchLike;
      const turn = await createProvider(settings, strict).stream({
        system: "",
        messages: [],
        profile: agentbench,
      });
      expect(turn.text).toBe("ok");
    }
  });

  it("sends no authorization header when there is no key (local servers)", async () => {
    const served = scriptedFetch("openai", [{ text: "ok" }]);
    const { apiKey: _key, ...local } = OPENAI;
    await createProvider(local, served.fetch).stream({ system: "", messages: [], profile: agentbench });
    expect(served.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("asks again without stream_options when a server refuses them, and stops asking", async () => {
    const served = scriptedFetch("openai", (request) =>
      request.body.stream_options
        ? {
            error: {
              status: 400,
              body: { error: { message: "Unrecognized request argument supplied: stream_options" } },
            },
          }
        : { text: "ok" },
    );
    const provider = createProvider(OPENAI, served.fetch);
    const turn = await provider.stream({ system: "", messages: [], profile: agentbench });
    expect(turn).toMatchObject({ text: "ok", usage: null });
    await provider.stream({ system: "", messages: [], profile: agentbench });
    expect(served.requests.map((request) => "stream_options" in request.body)).toEqual([true, false, false]);

    const strict = scriptedFetch("openai", (request) =>
      request.body.stream_options
        ? {
            error: {
              status: 400,
              body: { error: { message: "Unrecognized request argument supplied: stream_options" } },
            },
          }
        : { text: "ok" },
    );
    await expect(
      createProvider({ ...OPENAI, streamUsage: true }, strict.fetch).stream({
        system: "",
        messages: [],
        profile: agentbench,
      }),
    ).rejects.toMatchObject({ kind: "bad_request" });
  });

  it("assembles interleaved parallel tool calls by index", async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const text =
      chunk({
        tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "read_file", arguments: "" } }],
      }) +
      chunk({
        tool_calls: [
          { index: 1, id: "b", type: "function", function: { name: "search", arguments: '{"qu' } },
        ],
      }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }) +
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'ery":"x"}' } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"a"}' } }] }) +
      chunk({}, "tool_calls") +
      "data: [DONE]\n\n";
    const turn = await createProvider(OPENAI, rawSse(text).fetch).stream({
      system: "",
      messages: [],
      profile: agentbench,
    });
    expect(turn.toolCalls).toEqual([
      { id: "a", name: "read_file", arguments: '{"path":"a"}' },
      { id: "b", name: "search", arguments: '{"query":"x"}' },
    ]);
    expect(turn.usage).toBeNull();
  });

  it("takes Ollama-style whole tool calls without index or id, ended with finish_reason stop", async () => {
    const text =
      `data: ${JSON.stringify({
        choices: [
          {
            index: 0,
            delta: {
              role: "assistant",
              tool_calls: [{ function: { name: "run", arguments: { command: "ls" } } }],
            },
            finish_reason: null,
          },
        ],
      })}\n\n` +
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n` +
      "data: [DONE]\n\n";
    const turn = await createProvider(OPENAI, rawSse(text).fetch).stream({
      system: "",
      messages: [],
      profile: agentbench,
    });
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0]).toMatchObject({ name: "run", arguments: '{"command":"ls"}' });
    expect(turn.toolCalls[0]!.id).toMatch(/^call_[0-9a-f]{12}$/u);
    expect(turn.finish).toBe("tool_calls");
  });

  it("accepts a usage chunk whose choices is null (vLLM) and a server that answers with one JSON document", async () => {
    const usageNull =
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] })}\n\n` +
      `data: ${JSON.stringify({ choices: null, usage: { prompt_tokens: 5, completion_tokens: 1 } })}\n\n` +
      "data: [DONE]\n\n";
    const first = await createProvider(OPENAI, rawSse(usageNull).fetch).stream({
      system: "",
      messages: [],
      profile: agentbench,
    });
    expect(first).toMatchObject({ text: "hi", usage: { input: 5, output: 1 }, finish: "stop" });

    const whole = JSON.stringify({
      choices: [
        {
          message: {
            content: "done",
            tool_calls: [
              { id: "x", type: "function", function: { name: "run", arguments: '{"command":"ls"}' } },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 9, completion_tokens: 3 },
    });
    const second = await createProvider(OPENAI, rawSse(whole, "application/json").fetch).stream({
      system: "",
      messages: [],
      profile: agentbench,
    });
    expect(second).toMatchObject({
      text: "done",
      toolCalls: [{ id: "x", name: "run", arguments: '{"command":"ls"}' }],
      usage: { input: 9, output: 3 },
    });
  });

  it("shows a refusal as the answer's text (a recorded gpt-4o refusal stream)", async () => {
    const raw = readFileSync(
      referenceSuitePath(
        "provider-streams",
        "fixtures",
        "openai-raw",
        "0a00cd46c61030ff70241d432dcf4aa41fc428937c231e17c3460f3237f6a018.bin",
      ),
      "utf8",
    );
    const shown: string[] = [];
    const turn = await createProvider(OPENAI, rawSse(raw).fetch).stream(
      { system: "", messages: [{ role: "user", text: "hi" }], profile: agentbench },
      { onText: (delta) => shown.push(delta) },
    );
    expect(turn.text).toBe("I'm sorry, I cannot assist with that request.");
    expect(shown.join("")).toBe(turn.text);
  });

  it("ends the turn with the error of an {object: error} chunk mid-stream (vLLM and other compatible servers)", async () => {
    const stream = [
      'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Par"},"finish_reason":null}]}',
      'data: {"object":"error","message":"The model has crashed: CUDA out of memory","type":"InternalServerError","param":null,"code":500}',
      "",
    ].join("\n\n");
    await expect(
      createProvider(OPENAI, rawSse(stream).fetch).stream({
        system: "",
        messages: [{ role: "user", text: "hi" }],
        profile: agentbench,
      }),
    ).rejects.toMatchObject({
      kind: "server",
      partialText: "Par",
      message: expect.stringContaining("CUDA out of memory"),
    });
  });

  it("sends a tool call whose arguments were empty back as {}", () => {
    const messages = toOpenAiMessages(
      "",
      [
        { role: "user", text: "go" },
        { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "list_files", arguments: "" }] },
        { role: "tool", callId: "c1", tool: "list_files", content: "{}", isError: false },
      ],
      true,
    );
    expect(messages[1]).toMatchObject({
      tool_calls: [{ function: { name: "list_files", arguments: "{}" } }],
    });
  });

  it("turns the transcript into chat messages: tool results as tool messages, their images in a user message after", () => {
    expect(toOpenAiMessages("sys", CONVERSATION, true)).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "Fix it" },
      {
        role: "assistant",
        content: "Looking.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
          // Malformed arguments go back as {}: servers that parse them would refuse the whole request.
          { id: "c2", type: "function", function: { name: "run", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: '{"status":"success"}' },
      { role: "tool", tool_call_id: "c2", content: '{"status":"error"}' },
      {
        role: "user",
        content: [
          { type: "text", text: "The images the tool results above refer to:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
      { role: "user", content: "And then?" },
    ]);
  });

  it("withholds images from a model set to take none, and says so in the tool result", () => {
    const messages = toOpenAiMessages("", CONVERSATION, false);
    expect(messages.filter((m) => Array.isArray(m.content))).toEqual([]);
    expect(messages.find((m) => m.role === "tool" && m.tool_call_id === "c2")?.content).toMatch(/not sent/u);
  });
});

describe("Anthropic provider", () => {
  it("streams text and tool_use blocks with input_json_delta, usage and stop reason", async () => {
    const served = scriptedFetch("anthropic", [
      {
        text: "I’ll read it ✓",
        toolCalls: [
          { name: "read_file", arguments: { path: "src/ä.ts" } },
          { name: "list_files", arguments: {} },
        ],
        usage: { input: 1200, output: 77 },
      },
    ]);
    const deltas: string[] = [];
    const turn = await createProvider(ANTHROPIC, served.fetch).stream(
      { system: "sys", messages: [{ role: "user", text: "hi" }], profile: agentbench },
      { onText: (delta) => deltas.push(delta) },
    );
    expect(turn.text).toBe("I’ll read it ✓");
    expect(deltas.join("")).toBe(turn.text);
    expect(turn.toolCalls).toEqual([
      { id: "toolu_1_1", name: "read_file", arguments: '{"path":"src/ä.ts"}' },
      { id: "toolu_1_2", name: "list_files", arguments: "{}" },
    ]);
    expect(turn.finish).toBe("tool_calls");
    expect(turn.rawFinish).toBe("tool_use");
    expect(turn.usage).toEqual({ input: 1200, output: 77 });

    const request = served.requests[0]!;
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe(ANTHROPIC.apiKey);
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.headers["anthropic-dangerous-direct-browser-access"]).toBe("true");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toMatchObject({
      model: "claude-test",
      max_tokens: 8192,
      system: "sys",
      stream: true,
    });
    expect(request.body.tools).toEqual(providerSchemas(agentbench, "anthropic"));
    expect(request.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });

  it("counts cached input tokens and keeps a base URL that already ends in /v1", async () => {
    const events = [
      {
        type: "message_start",
        message: {
          usage: { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 5 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
      { type: "message_stop" },
    ];
    const raw = rawSse(
      events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(""),
    );
    let url = "";
    const fetch: FetchLike = (input, init) => {
      url = input;
      return raw.fetch(input, init);
    };
    const turn = await createProvider(
      { ...ANTHROPIC, baseUrl: "https://proxy.test/anthropic/v1/" },
      fetch,
    ).stream({
      system: "",
      messages: [],
      profile: agentbench,
    });
    expect(url).toBe("https://proxy.test/anthropic/v1/messages");
    expect(turn).toMatchObject({ text: "ok", finish: "stop", usage: { input: 1015, output: 2 } });
  });

  it("merges tool results into one user turn, images inside the tool_result, and leaves out empty text", () => {
    const { system, messages } = toAnthropicMessages(
      [{ role: "system", text: "sys" }, ...CONVERSATION, { role: "assistant", text: "", toolCalls: [] }],
      true,
    );
    expect(system).toBe("sys");
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Fix it" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking." },
          { type: "tool_use", id: "c1", name: "read_file", input: { path: "a.txt" } },
          { type: "tool_use", id: "c2", name: "run", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "c1",
            content: [{ type: "text", text: '{"status":"success"}' }],
          },
          {
            type: "tool_result",
            tool_use_id: "c2",
            is_error: true,
            content: [
              { type: "text", text: '{"status":"error"}' },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            ],
          },
          { type: "text", text: "And then?" },
        ],
      },
    ]);
  });
});

describe("tool results for the model", () => {
  it("sends the envelope as compact JSON, an empty inject_content untouched", () => {
    const envelope = { status: "success", data: { files: ["a", "b"] } };
    expect(toolResultForModel(envelope)).toEqual({ content: JSON.stringify(envelope), images: [] });
    const none = { success: true, output: "ok", inject_content: null };
    expect(toolResultForModel(none)).toEqual({ content: JSON.stringify(none), images: [] });
  });

  it("takes a single inject_content image that is not in a list", () => {
    const single = { inject_content: { type: "image_url", image_url: "data:image/gif;base64,R0lG" } };
    expect(toolResultForModel(single).images).toEqual([{ mediaType: "image/gif", data: "R0lG" }]);
  });

  it("takes inject_content images out of the JSON, in each shape a result may carry them", () => {
    const envelope = {
      success: true,
      output: "Viewed screenshots/error.png",
      inject_content: [
        { type: "image", media_type: "image/png", data: "AAAA" },
        { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "BBBB" } },
        { type: "image_url", image_url: { url: "data:image/webp;base64,CCCC" } },
        { type: "text", text: "kept as is" },
      ],
    };
    const result = toolResultForModel(envelope);
    expect(result.images).toEqual([
      { mediaType: "image/png", data: "AAAA" },
      { mediaType: "image/jpeg", data: "BBBB" },
      { mediaType: "image/webp", data: "CCCC" },
    ]);
    expect(result.content).not.toMatch(/AAAA|BBBB|CCCC/u);
    expect(result.content).toContain("kept as is");
    expect(JSON.parse(result.content).inject_content[0].note).toMatch(/image\/png image, 1 KB, attached/u);
  });
});
