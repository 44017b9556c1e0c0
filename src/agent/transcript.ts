/**
 * The conversation, provider-neutral: what a session stores and what each provider adapter turns
 * into its own messages. It never holds a key or provider settings, only what was said and done.
 */

/** An image sent to the model, base64-encoded. */
export interface ImagePart {
  mediaType: string;
  data: string;
}

export interface TokenUsage {
  /** Tokens the model read: the prompt (OpenAI prompt_tokens, Anthropic input_tokens + cache). */
  input: number;
  /** Tokens the model wrote (completion_tokens, output_tokens). */
  output: number;
}

/** Why a model turn ended, in one vocabulary for every provider. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other";

export interface TranscriptToolCall {
  /** The provider's id for the call (generated when a server sends none). */
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them: JSON text, possibly malformed. */
  arguments: string;
}

export interface SystemEntry {
  role: "system";
  text: string;
}

export interface UserEntry {
  role: "user";
  text: string;
  images?: ImagePart[];
}

export interface AssistantEntry {
  role: "assistant";
  text: string;
  toolCalls: TranscriptToolCall[];
  finish?: FinishReason;
  usage?: TokenUsage;
  /** The turn was cut short (the person stopped it, or the connection broke): text is partial. */
  incomplete?: boolean;
}

export interface ToolEntry {
  role: "tool";
  callId: string;
  tool: string;
  /** What the model reads: the envelope as compact JSON, or the explanation of a malformed call. */
  content: string;
  isError: boolean;
  images?: ImagePart[];
  /** The runtime call that produced it; absent when the call never reached the runtime. */
  requestId?: string;
  step?: number;
}

export type TranscriptEntry = SystemEntry | UserEntry | AssistantEntry | ToolEntry;

/** Sum of the usage of every assistant turn that reported one. */
export function totalUsage(transcript: readonly TranscriptEntry[]): TokenUsage {
  const total: TokenUsage = { input: 0, output: 0 };
  for (const entry of transcript) {
    if (entry.role === "assistant" && entry.usage) {
      total.input += entry.usage.input;
      total.output += entry.usage.output;
    }
  }
  return total;
}

/**
 * The tool calls of assistant turns that have no result yet. A consistent transcript has none:
 * every provider refuses a conversation with an unanswered tool call.
 */
export function unansweredToolCalls(transcript: readonly TranscriptEntry[]): TranscriptToolCall[] {
  const answered = new Set<string>();
  for (const entry of transcript) if (entry.role === "tool") answered.add(entry.callId);
  const open: TranscriptToolCall[] = [];
  for (const entry of transcript) {
    if (entry.role === "assistant") {
      for (const call of entry.toolCalls) if (!answered.has(call.id)) open.push(call);
    }
  }
  return open;
}
