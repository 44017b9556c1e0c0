import type { FetchLike, Profile } from "../core/profile.ts";
import type { FinishReason, TokenUsage, TranscriptEntry, TranscriptToolCall } from "./transcript.ts";

/** The two wire formats Toolroom speaks; "openai" covers OpenAI, OpenRouter, Ollama, LM Studio, vLLM. */
export type ProviderKind = "openai" | "anthropic";

/** How to reach a model. The key lives here, in memory, and nowhere else. */
export interface ProviderSettings {
  kind: ProviderKind;
  /** e.g. https://api.openai.com/v1, http://localhost:11434/v1, https://api.anthropic.com */
  baseUrl: string;
  /** Optional for local servers (Ollama, LM Studio, vLLM) that need none. */
  apiKey?: string;
  model: string;
  /** Anthropic requires a cap on each answer; OpenAI-compatible servers get it only when set. */
  maxTokens?: number;
  temperature?: number;
  /** Send images (view_image results) to the model; off for text-only local models. Default true. */
  vision?: boolean;
  /**
   * OpenAI-compatible: ask for usage in the last chunk (stream_options). Unset: ask, and stop asking
   * if the server refuses it; false: never ask; true: always ask.
   */
  streamUsage?: boolean;
  /** Extra request headers (OpenRouter's HTTP-Referer and X-Title, a proxy's own). */
  headers?: Record<string, string>;
}

/** One streamed model answer, assembled. */
export interface ModelTurn {
  text: string;
  toolCalls: TranscriptToolCall[];
  finish: FinishReason;
  /** The provider's own word for why it stopped (stop, tool_calls, end_turn, tool_use, ...). */
  rawFinish: string | null;
  usage: TokenUsage | null;
}

export interface ModelRequest {
  system: string;
  /** The conversation without its system entry. */
  messages: readonly TranscriptEntry[];
  /** The profile whose tools the model may call; they go out in the provider's format. */
  profile: Profile;
  signal?: AbortSignal;
}

/** Called while an answer streams in, for a live view. */
export interface StreamHandlers {
  onText?(delta: string): void;
  /** A tool call has started (its name is known); arguments follow. */
  onToolCallStart?(call: { index: number; id: string; name: string }): void;
  onToolCallDelta?(call: { index: number; argumentsDelta: string }): void;
}

export interface Provider {
  readonly kind: ProviderKind;
  readonly model: string;
  /** A name for messages: "OpenAI", "Ollama", "Anthropic", or the host. */
  readonly label: string;
  /** Streams one answer; throws a ProviderError (never anything else) when it cannot. */
  stream(request: ModelRequest, handlers?: StreamHandlers): Promise<ModelTurn>;
}

export interface ProviderPreset {
  id: string;
  label: string;
  kind: ProviderKind;
  baseUrl: string;
  /** Whether the service needs a key (local servers do not). */
  needsKey: boolean;
  /** A model name to start from; the person picks theirs. */
  exampleModel: string;
}

/** Where the settings form starts: a base URL and kind per known service. */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    id: "openai",
    label: "OpenAI",
    kind: "openai",
    baseUrl: "https://api.openai.com/v1",
    needsKey: true,
    exampleModel: "gpt-4.1-mini",
  },
  {
    id: "anthropic",
    label: "Anthropic",
    kind: "anthropic",
    baseUrl: "https://api.anthropic.com",
    needsKey: true,
    exampleModel: "claude-sonnet-4-5",
  },
  {
    id: "openrouter",
    label: "OpenRouter",
    kind: "openai",
    baseUrl: "https://openrouter.ai/api/v1",
    needsKey: true,
    exampleModel: "openai/gpt-4.1-mini",
  },
  {
    id: "ollama",
    label: "Ollama",
    kind: "openai",
    baseUrl: "http://localhost:11434/v1",
    needsKey: false,
    exampleModel: "qwen2.5-coder:7b",
  },
  {
    id: "lmstudio",
    label: "LM Studio",
    kind: "openai",
    baseUrl: "http://localhost:1234/v1",
    needsKey: false,
    exampleModel: "qwen2.5-coder-7b-instruct",
  },
  {
    id: "vllm",
    label: "vLLM",
    kind: "openai",
    baseUrl: "http://localhost:8000/v1",
    needsKey: false,
    exampleModel: "Qwen/Qwen2.5-Coder-7B-Instruct",
  },
];

/** A readable name for the service behind a base URL, for error messages. */
export function providerLabel(settings: Pick<ProviderSettings, "kind" | "baseUrl">): string {
  const base = trimSlash(settings.baseUrl);
  const preset = PROVIDER_PRESETS.find((candidate) => trimSlash(candidate.baseUrl) === base);
  if (preset) return preset.label;
  if (settings.kind === "anthropic") return "Anthropic";
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}

export function trimSlash(url: string): string {
  return url.trim().replace(/\/+$/u, "");
}

/** Checks settings before any request, so a missing model or bad URL is said plainly. */
export function settingsProblems(settings: ProviderSettings): string[] {
  const problems: string[] = [];
  if (settings.kind !== "openai" && settings.kind !== "anthropic") {
    problems.push(`Unknown provider kind "${String(settings.kind)}": use "openai" or "anthropic".`);
  }
  try {
    const url = new URL(settings.baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      problems.push(
        `The base URL "${settings.baseUrl}" must start with http:// or https:// (e.g. http://${settings.baseUrl.replace(/^[a-z]+:\/\//u, "")}).`,
      );
    }
  } catch {
    problems.push(`The base URL "${settings.baseUrl}" is not a URL (e.g. https://api.openai.com/v1).`);
  }
  if (!settings.model?.trim()) problems.push("Choose a model name.");
  return problems;
}

export type { FetchLike };
