import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { createProvider } from "./create-provider.ts";
import { type ProviderErrorKind, parseRetryAfter } from "./errors.ts";
import { runAgent } from "./loop.ts";
import type { ProviderSettings } from "./provider.ts";
import type { ScriptedReply, WireFormat } from "./testing/scripted-model.ts";
import { type ScriptedServer, startScriptedServer } from "./testing/scripted-server.ts";

const KEY = "sk-test-errors-1234567890abcdef";
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function runAgainst(
  format: WireFormat,
  replies: ScriptedReply[],
  settings: Partial<ProviderSettings> = {},
  requireKey?: string,
) {
  const server = await startScriptedServer({
    format,
    script: replies,
    ...(requireKey ? { requireKey } : {}),
  });
  servers.push(server);
  const runtime = await createEmbeddedRuntime({ files: { "a.txt": "a\n" } });
  const provider = createProvider(
    { kind: format, baseUrl: server.baseUrl, apiKey: KEY, model: "m", ...settings },
    globalThis.fetch,
  );
  const result = await runAgent({ runtime, profile: "agentbench", provider, task: "Do it." });
  return { result, runtime, server };
}

const FORMATS: WireFormat[] = ["openai", "anthropic"];

describe.each(FORMATS)("provider errors (%s)", (format) => {
  it("reports a refused key as auth, with the provider's words, and keeps the transcript", async () => {
    const { result, runtime } = await runAgainst(
      format,
      [{ text: "never sent" }],
      { apiKey: "sk-wrong-key-00000000000000" },
      KEY,
    );
    expect(result.stopReason).toBe("error");
    expect(result.error?.kind).toBe("auth");
    expect(result.error?.status).toBe(401);
    expect(result.error?.message).toMatch(/API key was refused \(401\)\. Check the key/u);
    expect(result.error?.providerMessage).toMatch(/Incorrect API key|invalid x-api-key/u);
    expect(result.transcript.map((entry) => entry.role)).toEqual(["system", "user"]);
    const error = runtime.events.all().find((event) => event.type === "agent_error");
    expect(error?.data).toMatchObject({ during: "model", kind: "auth", status: 401 });
  });

  it("reports 429 as a rate limit with the server's retry-after", async () => {
    const body =
      format === "openai"
        ? {
            error: {
              message: "Rate limit reached for requests",
              type: "requests",
              code: "rate_limit_exceeded",
            },
          }
        : {
            type: "error",
            error: {
              type: "rate_limit_error",
              message: "Number of request tokens has exceeded your per-minute rate limit",
            },
          };
    const { result } = await runAgainst(format, [
      { error: { status: 429, body, headers: { "retry-after": "7" } } },
    ]);
    expect(result.error).toMatchObject({ kind: "rate_limit", status: 429, retryAfterSec: 7 });
    expect(result.error?.message).toMatch(
      /Rate limited .*\(429\): wait 7 s, then press Continue; nothing was lost/u,
    );
  });

  it("reports a conversation too long for the model as context_length", async () => {
    const body =
      format === "openai"
        ? {
            error: {
              message:
                "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
              type: "invalid_request_error",
              code: "context_length_exceeded",
            },
          }
        : {
            type: "error",
            error: {
              type: "invalid_request_error",
              message: "prompt is too long: 210000 tokens > 200000 maximum",
            },
          };
    const { result } = await runAgainst(format, [{ error: { status: 400, body } }]);
    expect(result.error?.kind).toBe("context_length");
    expect(result.error?.message).toMatch(
      /longer than m can read \(400\)\. Start a new task, or pick a model with a longer context window/u,
    );
  });

  it("reports an unreachable server as a network failure that names CORS", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const runtime = await createEmbeddedRuntime();
    const provider = createProvider(
      { kind: format, baseUrl: `http://127.0.0.1:${port}/v1`, model: "m" },
      globalThis.fetch,
    );
    const result = await runAgent({ runtime, profile: "agentbench", provider, task: "Do it." });
    expect(result.stopReason).toBe("error");
    expect(result.error?.kind).toBe("network");
    expect(result.error?.message).toMatch(
      new RegExp(`Could not reach http://127.0.0.1:${port} \\(.*ECONNREFUSED`, "u"),
    );
    expect(result.error?.message).toMatch(/CORS/u);
  });

  it("reports a server error, and an error inside the stream, keeping the text already streamed", async () => {
    const first = await runAgainst(format, [
      { error: { status: 503, body: "<html>Service Unavailable</html>" } },
    ]);
    expect(first.result.error).toMatchObject({ kind: "server", status: 503 });
    expect(first.result.error?.message).toMatch(/server error \(503\)\. Try again in a moment/u);

    const overloaded = { type: "overloaded_error", message: "Overloaded" };
    const second = await runAgainst(format, [{ text: "Half an answ", streamError: overloaded }]);
    expect(second.result.error?.kind).toBe("server");
    expect(second.result.error?.providerMessage).toBe("Overloaded");
    expect(second.result.transcript.at(-1)).toEqual({
      role: "assistant",
      text: "Half an answ",
      toolCalls: [],
      incomplete: true,
    });
  });

  it("reports a connection dropped mid-answer as network, the partial text kept", async () => {
    const { result } = await runAgainst(format, [{ text: "Partial text that", drop: true }]);
    expect(result.error?.kind).toBe("network");
    expect(result.transcript.at(-1)).toMatchObject({
      role: "assistant",
      text: "Partial text that",
      incomplete: true,
    });
  });

  it("reports a wrong base URL or model as not_found", async () => {
    const { result } = await runAgainst(format, [
      { error: { status: 404, body: { error: { message: "model 'm' not found" } } } },
    ]);
    expect(result.error?.kind).toBe("not_found" satisfies ProviderErrorKind);
    expect(result.error?.message).toMatch(/check the base URL .* and the model name “m”/u);
  });
});

describe("error details", () => {
  it("tells an empty account from a rate limit", async () => {
    const { result } = await runAgainst("openai", [
      {
        error: {
          status: 429,
          body: {
            error: {
              message: "You exceeded your current quota",
              type: "insufficient_quota",
              code: "insufficient_quota",
            },
          },
        },
      },
    ]);
    expect(result.error?.kind).toBe("quota");
    expect(result.error?.message).toMatch(/no credit left/u);
  });

  it("reads retry-after as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("12")).toBe(12);
    expect(parseRetryAfter("0.2")).toBe(1);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it("refuses settings without a model or with a base URL that is not one, before any request", () => {
    expect(() =>
      createProvider({ kind: "openai", baseUrl: "localhost:11434", model: "" }, globalThis.fetch),
    ).toThrow(
      /"localhost:11434" must start with http:\/\/ or https:\/\/ \(e\.g\. http:\/\/localhost:11434\)\. Choose a model name\./u,
    );
    expect(() =>
      createProvider({ kind: "openai", baseUrl: "api.openai.com/v1", model: "x" }, globalThis.fetch),
    ).toThrow(/"api\.openai\.com\/v1" is not a URL/u);
  });
});
