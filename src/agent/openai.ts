import { providerSchemas } from "../core/provider-schemas.ts";
import { classifyFetchFailure, classifyStreamError, isProviderError, ProviderError } from "./errors.ts";
import {
  argumentsObject,
  bodyOf,
  generatedCallId,
  IMAGES_WITHHELD,
  isJsonResponse,
  parseJsonEvent,
  postJson,
  type Where,
} from "./http.ts";
import {
  type FetchLike,
  type ModelRequest,
  type ModelTurn,
  type Provider,
  type ProviderSettings,
  providerLabel,
  type StreamHandlers,
  trimSlash,
} from "./provider.ts";
import { readSse } from "./sse.ts";
import type {
  FinishReason,
  ImagePart,
  TokenUsage,
  TranscriptEntry,
  TranscriptToolCall,
} from "./transcript.ts";

type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

function imagePart(image: ImagePart): ChatContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mediaType};base64,${image.data}` } };
}

/**
 * The transcript as chat-completions messages. Tool messages take text only, so a result's images
 * follow the tool messages of that turn in one user message.
 */
export function toOpenAiMessages(system: string, entries: readonly TranscriptEntry[], vision: boolean) {
  const messages: ChatMessage[] = [];
  if (system) messages.push({ role: "system", content: system });
  let pendingImages: ImagePart[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    messages.push({
      role: "user",
      content: [
        { type: "text", text: "The images the tool results above refer to:" },
        ...pendingImages.map(imagePart),
      ],
    });
    pendingImages = [];
  };
  for (const entry of entries) {
    if (entry.role !== "tool") flushImages();
    switch (entry.role) {
      case "system":
        messages.push({ role: "system", content: entry.text });
        break;
      case "user":
        messages.push({
          role: "user",
          content:
            entry.images?.length && vision
              ? [{ type: "text", text: entry.text }, ...entry.images.map(imagePart)]
              : entry.text,
        });
        break;
      case "assistant": {
        if (entry.text === "" && entry.toolCalls.length === 0) break;
        messages.push({
          role: "assistant",
          content: entry.text === "" && entry.toolCalls.length > 0 ? null : entry.text,
          ...(entry.toolCalls.length > 0
            ? {
                tool_calls: entry.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function" as const,
                  // Servers that parse arguments (Ollama, vLLM) reject malformed JSON; the result says what it was.
                  // Empty arguments ("", as some servers stream a call without parameters) are sent as {}.
                  function: {
                    name: call.name,
                    arguments:
                      call.arguments.trim() !== "" && argumentsObject(call.arguments) ? call.arguments : "{}",
                  },
                })),
              }
            : {}),
        });
        break;
      }
      case "tool": {
        const images = entry.images ?? [];
        messages.push({
          role: "tool",
          tool_call_id: entry.callId,
          content: images.length > 0 && !vision ? entry.content + IMAGES_WITHHELD : entry.content,
        });
        if (vision) pendingImages.push(...images);
        break;
      }
    }
  }
  flushImages();
  return messages;
}

function finishOf(raw: string | null, hasToolCalls: boolean): FinishReason {
  // Ollama and some others end a tool-calling turn with "stop": the calls decide.
  if (hasToolCalls && (raw === "stop" || raw === null)) return "tool_calls";
  switch (raw) {
    case "stop":
      return "stop";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    default:
      return "other";
  }
}

function usageOf(usage: unknown): TokenUsage | null {
  if (typeof usage !== "object" || usage === null) return null;
  const record = usage as Record<string, unknown>;
  const input = Number(record.prompt_tokens ?? record.input_tokens);
  const output = Number(record.completion_tokens ?? record.output_tokens);
  return Number.isFinite(input) && Number.isFinite(output) ? { input, output } : null;
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/** OpenAI-compatible chat completions, streamed: OpenAI, OpenRouter, Ollama, LM Studio, vLLM. */
export class OpenAiProvider implements Provider {
  readonly kind = "openai" as const;
  readonly model: string;
  readonly label: string;
  private readonly settings: ProviderSettings;
  private readonly fetch: FetchLike;

  constructor(settings: ProviderSettings, fetch: FetchLike) {
    this.settings = settings;
    this.fetch = fetch;
    this.model = settings.model;
    this.label = providerLabel(settings);
    this.askUsage = settings.streamUsage !== false;
  }

  /** Whether to ask for usage in the stream; off after a server refused stream_options once. */
  private askUsage: boolean;

  async stream(request: ModelRequest, handlers: StreamHandlers = {}): Promise<ModelTurn> {
    const settings = this.settings;
    const where: Where = { provider: this.label, baseUrl: settings.baseUrl, model: settings.model };
    const tools = providerSchemas(request.profile, "openai");
    const send = (withUsage: boolean) => {
      const body = {
        model: settings.model,
        messages: toOpenAiMessages(request.system, request.messages, settings.vision !== false),
        ...(tools.length > 0 ? { tools } : {}),
        stream: true,
        ...(withUsage ? { stream_options: { include_usage: true } } : {}),
        ...(settings.maxTokens !== undefined ? { max_tokens: settings.maxTokens } : {}),
        ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      };
      const headers: Record<string, string> = { ...settings.headers };
      if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
      return postJson(
        this.fetch,
        `${trimSlash(settings.baseUrl)}/chat/completions`,
        headers,
        body,
        request.signal,
        where,
      );
    };
    let response: Response;
    try {
      response = await send(this.askUsage);
    } catch (error) {
      // Some compatible servers refuse stream_options outright; without it they still stream, uncounted.
      const refusedUsage =
        this.askUsage &&
        settings.streamUsage === undefined &&
        isProviderError(error) &&
        error.kind === "bad_request" &&
        /stream_options|include_usage/iu.test(error.providerMessage ?? "");
      if (!refusedUsage) throw error;
      this.askUsage = false;
      response = await send(false);
    }
    if (isJsonResponse(response)) return this.whole(response, where, handlers, request.signal);

    let text = "";
    const calls: PartialCall[] = [];
    let rawFinish: string | null = null;
    let usage: TokenUsage | null = null;
    let done = false;
    try {
      for await (const message of readSse(bodyOf(response, where), request.signal)) {
        if (message.data === "[DONE]") {
          done = true;
          break;
        }
        const chunk = parseJsonEvent(message.data, where, text) as Record<string, unknown>;
        if (chunk.error) throw classifyStreamError(chunk.error, where, text);
        // vLLM and other compatible servers send an error as a chunk of its own: {"object": "error", …}.
        if (chunk.object === "error") throw classifyStreamError(chunk, where, text);
        usage = usageOf(chunk.usage) ?? usage;
        const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
        const choice = choices[0] as Record<string, unknown> | undefined;
        if (!choice) continue;
        const delta = (choice.delta ?? {}) as Record<string, unknown>;
        if (typeof delta.content === "string" && delta.content !== "") {
          text += delta.content;
          handlers.onText?.(delta.content);
        }
        // A refusal comes instead of content: it is the answer, shown as such.
        if (typeof delta.refusal === "string" && delta.refusal !== "") {
          text += delta.refusal;
          handlers.onText?.(delta.refusal);
        }
        if (Array.isArray(delta.tool_calls)) {
          delta.tool_calls.forEach((raw: Record<string, unknown>, position: number) => {
            this.mergeToolCall(calls, raw, position, handlers);
          });
        }
        if (typeof choice.finish_reason === "string") rawFinish = choice.finish_reason;
      }
    } catch (error) {
      if (isProviderError(error)) {
        error.partialText ??= text;
        throw error;
      }
      throw classifyFetchFailure(error, where, request.signal, text);
    }
    if (!done && rawFinish === null) {
      throw new ProviderError({
        kind: "network",
        partialText: text,
        message: `The connection to ${where.provider} closed before the answer was complete. Press Continue to try again; the text so far is kept.`,
      });
    }
    const toolCalls = calls.filter(Boolean).map((call) => ({ ...call, id: call.id || generatedCallId() }));
    return { text, toolCalls, finish: finishOf(rawFinish, toolCalls.length > 0), rawFinish, usage };
  }

  private mergeToolCall(
    calls: PartialCall[],
    raw: Record<string, unknown>,
    position: number,
    handlers: StreamHandlers,
  ): void {
    const index = typeof raw.index === "number" ? raw.index : position;
    const fn = (raw.function ?? {}) as Record<string, unknown>;
    let call = calls[index];
    if (!call) {
      call = { id: "", name: "", arguments: "" };
      calls[index] = call;
    }
    if (typeof raw.id === "string" && raw.id !== "") call.id = raw.id;
    if (typeof fn.name === "string" && fn.name !== "" && fn.name !== call.name) {
      const started = call.name === "";
      call.name = started ? fn.name : call.name + fn.name;
      if (started) handlers.onToolCallStart?.({ index, id: call.id, name: call.name });
    }
    // Most servers stream a string; a few send the whole object at once.
    const args = fn.arguments;
    if (typeof args === "string" && args !== "") {
      call.arguments += args;
      handlers.onToolCallDelta?.({ index, argumentsDelta: args });
    } else if (typeof args === "object" && args !== null) {
      call.arguments = JSON.stringify(args);
      handlers.onToolCallDelta?.({ index, argumentsDelta: call.arguments });
    }
  }

  /** A server that answered with one JSON document although a stream was asked for. */
  private async whole(
    response: Response,
    where: Where,
    handlers: StreamHandlers,
    signal: AbortSignal | undefined,
  ): Promise<ModelTurn> {
    let document: Record<string, unknown>;
    try {
      document = parseJsonEvent(await response.text(), where, "") as Record<string, unknown>;
    } catch (error) {
      if (isProviderError(error)) throw error;
      throw classifyFetchFailure(error, where, signal);
    }
    if (document.error) throw classifyStreamError(document.error, where, "");
    if (document.object === "error") throw classifyStreamError(document, where, "");
    const choice = ((document.choices as unknown[] | undefined)?.[0] ?? {}) as Record<string, unknown>;
    const message = (choice.message ?? {}) as Record<string, unknown>;
    const text =
      typeof message.content === "string" && message.content !== ""
        ? message.content
        : typeof message.refusal === "string"
          ? message.refusal
          : "";
    if (text) handlers.onText?.(text);
    const calls: PartialCall[] = [];
    if (Array.isArray(message.tool_calls)) {
      message.tool_calls.forEach((raw: Record<string, unknown>, position: number) => {
        this.mergeToolCall(calls, { ...raw, index: position }, position, handlers);
      });
    }
    const toolCalls: TranscriptToolCall[] = calls.map((call) => ({
      ...call,
      id: call.id || generatedCallId(),
    }));
    const rawFinish = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
    return {
      text,
      toolCalls,
      finish: finishOf(rawFinish, toolCalls.length > 0),
      rawFinish,
      usage: usageOf(document.usage),
    };
  }
}
