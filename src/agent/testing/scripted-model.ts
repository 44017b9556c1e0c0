/**
 * A scripted model: each request gets the next reply of a script, streamed exactly as OpenAI's
 * chat completions or Anthropic's Messages API stream it. Browser-safe: `scriptedFetch` serves it
 * in-process; ./scripted-server.ts serves the same bytes over HTTP for tests and the web app's e2e.
 */

export type WireFormat = "openai" | "anthropic";

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as its JSON; a string is sent as is (malformed JSON included). */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export type ScriptedReply =
  /** A normal answer: text, then tool calls, then a finish reason and usage. */
  | {
      text?: string;
      toolCalls?: ScriptedToolCall[];
      usage?: { input: number; output: number };
      /** The provider's own finish reason; by default stop/end_turn or tool_calls/tool_use. */
      finish?: string;
    }
  /** An HTTP error instead of a stream. */
  | { error: { status: number; body: unknown; headers?: Record<string, string> } }
  /** Some text, then an error inside the stream. */
  | { streamError: unknown; text?: string }
  /** Some text, then nothing: the stream stays open until the client goes away. */
  | { hang: true; text?: string }
  /** Some text, then the connection closes without the end of the answer. */
  | { drop: true; text?: string };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
}

export type Script = readonly ScriptedReply[] | ((request: RecordedRequest, index: number) => ScriptedReply);

/** What the server streams for one reply: SSE text, an HTTP error, or a stream that ends oddly. */
export interface Rendered {
  status: number;
  headers: Record<string, string>;
  /** The body; SSE text for a stream. */
  body: string;
  /** After the body: keep the connection open (hang) or close it abruptly (drop). */
  end: "normal" | "hang" | "drop";
}

export function replyFor(script: Script, request: RecordedRequest, index: number): ScriptedReply {
  if (typeof script === "function") return script(request, index);
  const reply = script[index];
  if (!reply) {
    return {
      error: {
        status: 500,
        body: { error: { message: `The script has no reply ${index + 1} (it has ${script.length}).` } },
      },
    };
  }
  return reply;
}

/** Splits text into a few pieces, so deltas really arrive in parts. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

function argumentsText(call: ScriptedToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

/** A token count that depends only on the request, so runs are repeatable. */
function estimatedInput(request: RecordedRequest): number {
  return Math.ceil(JSON.stringify(request.body).length / 4);
}

export function render(
  format: WireFormat,
  reply: ScriptedReply,
  request: RecordedRequest,
  index: number,
): Rendered {
  const sseHeaders = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };
  if ("error" in reply) {
    return {
      status: reply.error.status,
      headers: { "content-type": "application/json", ...reply.error.headers },
      body: typeof reply.error.body === "string" ? reply.error.body : JSON.stringify(reply.error.body),
      end: "normal",
    };
  }
  const model = String(request.body.model ?? "scripted");
  const stream = format === "openai" ? openAiStream : anthropicStream;
  if ("streamError" in reply) {
    const start = stream({ text: reply.text ?? "" }, model, request, index, "open");
    const error =
      format === "openai"
        ? sse({ error: reply.streamError })
        : sse({ type: "error", error: reply.streamError }, "error");
    return { status: 200, headers: sseHeaders, body: start + error, end: "normal" };
  }
  if ("hang" in reply || "drop" in reply) {
    return {
      status: 200,
      headers: sseHeaders,
      body: stream({ text: reply.text ?? "" }, model, request, index, "open"),
      end: "hang" in reply ? "hang" : "drop",
    };
  }
  return {
    status: 200,
    headers: sseHeaders,
    body: stream(reply, model, request, index, "closed"),
    end: "normal",
  };
}

type NormalReply = Extract<ScriptedReply, { toolCalls?: ScriptedToolCall[] }>;

function openAiStream(
  reply: NormalReply,
  model: string,
  request: RecordedRequest,
  index: number,
  state: "open" | "closed",
): string {
  const id = `chatcmpl-scripted-${index + 1}`;
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({
      id,
      object: "chat.completion.chunk",
      created: 1_700_000_000 + index,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  let out = chunk({ role: "assistant", content: "" });
  for (const piece of pieces(reply.text ?? "", 5)) out += chunk({ content: piece });
  if (state === "open") return out;
  (reply.toolCalls ?? []).forEach((call, i) => {
    out += chunk({
      tool_calls: [
        {
          index: i,
          id: call.id ?? `call_${index + 1}_${i + 1}`,
          type: "function",
          function: { name: call.name, arguments: "" },
        },
      ],
    });
    for (const piece of pieces(argumentsText(call), 9)) {
      out += chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] });
    }
  });
  const finish = reply.finish ?? ((reply.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
  out += chunk({}, finish);
  const streamOptions = request.body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage) {
    const usage = reply.usage ?? { input: estimatedInput(request), output: 20 };
    out += sse({
      id,
      object: "chat.completion.chunk",
      created: 1_700_000_000 + index,
      model,
      choices: [],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
      },
    });
  }
  return `${out}data: [DONE]\n\n`;
}

function anthropicStream(
  reply: NormalReply,
  model: string,
  request: RecordedRequest,
  index: number,
  state: "open" | "closed",
): string {
  const usage = reply.usage ?? { input: estimatedInput(request), output: 20 };
  let out = sse(
    {
      type: "message_start",
      message: {
        id: `msg_scripted_${index + 1}`,
        type: "message",
        role: "assistant",
        content: [],
        model,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: 1 },
      },
    },
    "message_start",
  );
  let block = 0;
  const text = reply.text ?? "";
  if (text !== "" || state === "open") {
    out += sse(
      { type: "content_block_start", index: block, content_block: { type: "text", text: "" } },
      "content_block_start",
    );
    out += sse({ type: "ping" }, "ping");
    for (const piece of pieces(text, 5)) {
      out += sse(
        { type: "content_block_delta", index: block, delta: { type: "text_delta", text: piece } },
        "content_block_delta",
      );
    }
    if (state === "open") return out;
    out += sse({ type: "content_block_stop", index: block }, "content_block_stop");
    block++;
  }
  (reply.toolCalls ?? []).forEach((call, i) => {
    out += sse(
      {
        type: "content_block_start",
        index: block,
        content_block: {
          type: "tool_use",
          id: call.id ?? `toolu_${index + 1}_${i + 1}`,
          name: call.name,
          input: {},
        },
      },
      "content_block_start",
    );
    for (const piece of pieces(argumentsText(call), 9)) {
      out += sse(
        {
          type: "content_block_delta",
          index: block,
          delta: { type: "input_json_delta", partial_json: piece },
        },
        "content_block_delta",
      );
    }
    out += sse({ type: "content_block_stop", index: block }, "content_block_stop");
    block++;
  });
  const finish = reply.finish ?? ((reply.toolCalls?.length ?? 0) > 0 ? "tool_use" : "end_turn");
  out += sse(
    {
      type: "message_delta",
      delta: { stop_reason: finish, stop_sequence: null },
      usage: { output_tokens: usage.output },
    },
    "message_delta",
  );
  out += sse({ type: "message_stop" }, "message_stop");
  return out;
}

/** Splits bytes into chunks of `size`, cutting through lines and UTF-8 characters on purpose. */
export function chunked(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

export interface ScriptedFetch {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  requests: RecordedRequest[];
}

/**
 * A fetch that answers from the script without a network: for the demo generator, unit tests and
 * pages that want a model without a server. It honours the abort signal like a real fetch.
 */
export function scriptedFetch(
  format: WireFormat,
  script: Script,
  options: { chunkSize?: number } = {},
): ScriptedFetch {
  const requests: RecordedRequest[] = [];
  const chunkSize = options.chunkSize ?? 7;
  const fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw signal.reason ?? new DOMException("Aborted", "AbortError");
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const request: RecordedRequest = {
      method: init.method ?? "GET",
      path: new URL(input).pathname,
      headers,
      body: JSON.parse(String(init.body ?? "{}")) as Record<string, unknown>,
    };
    const index = requests.length;
    requests.push(request);
    const rendered = render(format, replyFor(script, request, index), request, index);
    const parts = chunked(new TextEncoder().encode(rendered.body), chunkSize);
    let position = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        signal?.addEventListener("abort", () => {
          try {
            controller.error(signal.reason ?? new DOMException("Aborted", "AbortError"));
          } catch {
            // Already closed.
          }
        });
      },
      pull(controller) {
        const part = parts[position++];
        if (part) controller.enqueue(part);
        else if (rendered.end === "normal") controller.close();
        else if (rendered.end === "drop") controller.error(new TypeError("network error: connection reset"));
        // hang: never enqueue again; the abort above ends it.
        else return new Promise<void>(() => undefined);
        return undefined;
      },
    });
    return new Response(body, { status: rendered.status, headers: rendered.headers });
  };
  return { fetch, requests };
}
