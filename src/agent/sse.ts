/**
 * Server-sent events (https://html.spec.whatwg.org/multipage/server-sent-events.html), parsed from
 * a byte stream that may be cut anywhere: inside a line, between \r and \n, inside a UTF-8 character.
 */

export interface SseMessage {
  /** The `event:` field; "message" when the server sent none (OpenAI never does). */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  id?: string;
}

/** Splits text into SSE messages as bytes arrive; `push` returns the messages each chunk completed. */
export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private buffer = "";
  private started = false;
  private pendingCr = false;
  private event = "";
  private data: string[] = [];
  private id: string | undefined;

  push(chunk: Uint8Array | string): SseMessage[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return this.consume(text, false);
  }

  /** Flushes what is left when the stream ends: a last message without its blank line still counts. */
  end(): SseMessage[] {
    const messages = this.consume(this.decoder.decode(), true);
    if (this.data.length > 0) messages.push(this.dispatchPending()!);
    return messages;
  }

  private consume(text: string, final: boolean): SseMessage[] {
    const messages: SseMessage[] = [];
    let input = text;
    // A \r at the end of the previous chunk already ended its line: drop the \n that pairs with it.
    if (this.pendingCr && input.startsWith("\n")) input = input.slice(1);
    this.pendingCr = false;
    this.buffer += input;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const char = this.buffer[i];
      if (char !== "\n" && char !== "\r") continue;
      const line = this.buffer.slice(start, i);
      if (char === "\r") {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === "\n") i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
      const message = this.line(line);
      if (message) messages.push(message);
    }
    this.buffer = this.buffer.slice(start);
    if (final && this.buffer.length > 0) {
      const message = this.line(this.buffer);
      this.buffer = "";
      if (message) messages.push(message);
    }
    return messages;
  }

  private line(line: string): SseMessage | undefined {
    if (line === "") return this.data.length > 0 ? this.dispatchPending() : this.reset();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id") this.id = value;
    return undefined;
  }

  private dispatchPending(): SseMessage | undefined {
    const message: SseMessage = { event: this.event || "message", data: this.data.join("\n") };
    if (this.id !== undefined) message.id = this.id;
    this.reset();
    return message;
  }

  private reset(): undefined {
    this.event = "";
    this.data = [];
    return undefined;
  }
}

/**
 * Reads SSE messages from a response body as they arrive. Cancelling the reader when the caller
 * stops early (or `signal` aborts) closes the connection instead of draining it.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseMessage, void, undefined> {
  const reader = body.getReader();
  const parser = new SseParser();
  const onAbort = () => {
    reader.cancel(signal?.reason).catch(() => undefined);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      if (signal?.aborted) throw signal.reason ?? new DOMException("Aborted", "AbortError");
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason ?? new DOMException("Aborted", "AbortError");
      if (done) break;
      yield* parser.push(value);
    }
    yield* parser.end();
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
