import { providerSchemas } from "../core/provider-schemas.ts";
import { classifyFetchFailure, classifyStreamError, isProviderError, ProviderError } from "./errors.ts";
import {
  argumentsObject,
  bodyOf,
  generatedCallId,
  IMAGES_WITHHELD,
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
import type { FinishReason, ImagePart, TokenUsage, TranscriptEntry } from "./transcript.ts";

export const ANTHROPIC_VERSION = "2023-06-01";
/** Anthropic requires max_tokens on every request; this leaves room for a long patch. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

type ImageBlock = { type: "image"; source: { type: "base64"; media_type: string; data: string } };
type TextBlock = { type: "text"; text: string };
type Block =
  | TextBlock
  | ImageBlock
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: (TextBlock | ImageBlock)[]; is_error?: boolean };

interface AnthropicMessage {
  role: "user" | "assistant";
  content: Block[];
}

function imageBlock(image: ImagePart): ImageBlock {
  return { type: "image", source: { type: "base64", media_type: image.mediaType, data: image.data } };
}

/**
 * The transcript as Messages API turns: tool results ride in user turns, consecutive turns of one
 * role are merged (the API wants them alternating), and empty text blocks are left out (it refuses them).
 */
export function toAnthropicMessages(
  entries: readonly TranscriptEntry[],
  vision: boolean,
): { system: string; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const add = (role: AnthropicMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) {
      // Tool results must come first in a user turn.
      if (role === "user" && blocks[0]?.type === "tool_result") {
        const firstOther = last.content.findIndex((block) => block.type !== "tool_result");
        if (firstOther !== -1) {
          last.content.splice(firstOther, 0, ...blocks);
          return;
        }
      }
      last.content.push(...blocks);
    } else {
      messages.push({ role, content: blocks });
    }
  };
  for (const entry of entries) {
    switch (entry.role) {
      case "system":
        system.push(entry.text);
        break;
      case "user": {
        const blocks: Block[] = entry.text.trim() ? [{ type: "text", text: entry.text }] : [];
        if (vision) blocks.push(...(entry.images ?? []).map(imageBlock));
        add("user", blocks);
        break;
      }
      case "assistant": {
        const blocks: Block[] = entry.text.trim() ? [{ type: "text", text: entry.text }] : [];
        for (const call of entry.toolCalls) {
          blocks.push({
            type: "tool_use",
            id: call.id,
            name: call.name,
            input: argumentsObject(call.arguments) ?? {},
          });
        }
        add("assistant", blocks);
        break;
      }
      case "tool": {
        const images = entry.images ?? [];
        const text = images.length > 0 && !vision ? entry.content + IMAGES_WITHHELD : entry.content;
        const content: (TextBlock | ImageBlock)[] = [{ type: "text", text }];
        if (vision) content.push(...images.map(imageBlock));
        add("user", [
          {
            type: "tool_result",
            tool_use_id: entry.callId,
            content,
            ...(entry.isError ? { is_error: true } : {}),
          },
        ]);
        break;
      }
    }
  }
  return { system: system.join("\n\n"), messages };
}

function finishOf(raw: string | null): FinishReason {
  switch (raw) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "other";
  }
}

interface StreamedBlock {
  type: string;
  id: string;
  name: string;
  json: string;
  /** The input a content_block_start already carried (some compatible servers send it whole). */
  initialInput: unknown;
}

/** Anthropic Messages, streamed, called straight from the browser with the person's key. */
export class AnthropicProvider implements Provider {
  readonly kind = "anthropic" as const;
  readonly model: string;
  readonly label: string;
  private readonly settings: ProviderSettings;
  private readonly fetch: FetchLike;

  constructor(settings: ProviderSettings, fetch: FetchLike) {
    this.settings = settings;
    this.fetch = fetch;
    this.model = settings.model;
    this.label = providerLabel(settings);
  }

  /** The endpoint, whether the base URL was given with or without its /v1. */
  url(): string {
    const base = trimSlash(this.settings.baseUrl);
    return /\/v1$/u.test(base) ? `${base}/messages` : `${base}/v1/messages`;
  }

  async stream(request: ModelRequest, handlers: StreamHandlers = {}): Promise<ModelTurn> {
    const settings = this.settings;
    const where: Where = { provider: this.label, baseUrl: settings.baseUrl, model: settings.model };
    const converted = toAnthropicMessages(request.messages, settings.vision !== false);
    const system = [request.system, converted.system].filter(Boolean).join("\n\n");
    const tools = providerSchemas(request.profile, "anthropic");
    const body = {
      model: settings.model,
      max_tokens: settings.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      ...(system ? { system } : {}),
      messages: converted.messages,
      ...(tools.length > 0 ? { tools } : {}),
      stream: true,
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    };
    const headers: Record<string, string> = {
      "anthropic-version": ANTHROPIC_VERSION,
      // Without it the API refuses calls from a browser page (CORS); the key is the person's own.
      "anthropic-dangerous-direct-browser-access": "true",
      ...settings.headers,
    };
    if (settings.apiKey) headers["x-api-key"] = settings.apiKey;
    const response = await postJson(this.fetch, this.url(), headers, body, request.signal, where);

    let text = "";
    const blocks: StreamedBlock[] = [];
    let rawFinish: string | null = null;
    let input = 0;
    let output = 0;
    let sawUsage = false;
    let stopped = false;
    try {
      for await (const message of readSse(bodyOf(response, where), request.signal)) {
        const event = parseJsonEvent(message.data, where, text) as Record<string, unknown>;
        const type = typeof event.type === "string" ? event.type : message.event;
        if (type === "error") throw classifyStreamError(event.error, where, text);
        if (type === "message_start") {
          const usage = ((event.message as Record<string, unknown> | undefined)?.usage ?? {}) as Record<
            string,
            unknown
          >;
          input = inputTokens(usage);
          output = Number(usage.output_tokens ?? 0) || 0;
          sawUsage = "input_tokens" in usage;
        } else if (type === "content_block_start") {
          const block = (event.content_block ?? {}) as Record<string, unknown>;
          const index = Number(event.index ?? blocks.length);
          const entry: StreamedBlock = {
            type: String(block.type ?? ""),
            id: typeof block.id === "string" ? block.id : "",
            name: typeof block.name === "string" ? block.name : "",
            json: "",
            initialInput: block.input,
          };
          blocks[index] = entry;
          if (entry.type === "text" && typeof block.text === "string" && block.text !== "") {
            text += block.text;
            handlers.onText?.(block.text);
          }
          if (entry.type === "tool_use")
            handlers.onToolCallStart?.({ index, id: entry.id, name: entry.name });
        } else if (type === "content_block_delta") {
          const index = Number(event.index ?? 0);
          const delta = (event.delta ?? {}) as Record<string, unknown>;
          if (delta.type === "text_delta" && typeof delta.text === "string") {
            text += delta.text;
            handlers.onText?.(delta.text);
          } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
            const block = blocks[index];
            if (block) block.json += delta.partial_json;
            handlers.onToolCallDelta?.({ index, argumentsDelta: delta.partial_json });
          }
        } else if (type === "message_delta") {
          const delta = (event.delta ?? {}) as Record<string, unknown>;
          if (typeof delta.stop_reason === "string") rawFinish = delta.stop_reason;
          const usage = (event.usage ?? {}) as Record<string, unknown>;
          // output_tokens here is the running total for the message, not an increment.
          if (typeof usage.output_tokens === "number") output = usage.output_tokens;
          if (typeof usage.input_tokens === "number") input = inputTokens(usage);
          if ("output_tokens" in usage) sawUsage = true;
        } else if (type === "message_stop") {
          stopped = true;
          break;
        }
      }
    } catch (error) {
      if (isProviderError(error)) {
        error.partialText ??= text;
        throw error;
      }
      throw classifyFetchFailure(error, where, request.signal, text);
    }
    if (!stopped && rawFinish === null) {
      throw new ProviderError({
        kind: "network",
        partialText: text,
        message: `The connection to ${where.provider} closed before the answer was complete. Press Continue to try again; the text so far is kept.`,
      });
    }
    const toolCalls = blocks
      .filter((block) => block?.type === "tool_use")
      .map((block) => ({
        id: block.id || generatedCallId(),
        name: block.name,
        arguments: block.json !== "" ? block.json : JSON.stringify(block.initialInput ?? {}),
      }));
    const usage: TokenUsage | null = sawUsage ? { input, output } : null;
    return { text, toolCalls, finish: finishOf(rawFinish), rawFinish, usage };
  }
}

/** Everything the model read: uncached input plus what was written to and read from the cache. */
function inputTokens(usage: Record<string, unknown>): number {
  const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  return count("input_tokens") + count("cache_creation_input_tokens") + count("cache_read_input_tokens");
}
