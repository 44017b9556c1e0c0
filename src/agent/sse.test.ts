import { describe, expect, it } from "vitest";
import { readSse, type SseMessage, SseParser } from "./sse.ts";

const encoder = new TextEncoder();

function parseInChunks(bytes: Uint8Array, cuts: number[]): SseMessage[] {
  const parser = new SseParser();
  const out: SseMessage[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(...parser.push(bytes.subarray(start, cut)));
    start = cut;
  }
  out.push(...parser.end());
  return out;
}

const STREAM =
  '\uFEFFevent: message_start\r\ndata: {"type":"message_start"}\r\n\r\n' +
  ": keep-alive comment\n\n" +
  'data: {"text":"héllo wörld ✓ 🎉"}\n\n' +
  "event: multi\ndata: line one\ndata: line two\nid: 7\n\n" +
  "data:no-space\r\r" +
  "data: [DONE]\n\n";

const EXPECTED: SseMessage[] = [
  { event: "message_start", data: '{"type":"message_start"}' },
  { event: "message", data: '{"text":"héllo wörld ✓ 🎉"}' },
  { event: "multi", data: "line one\nline two", id: "7" },
  { event: "message", data: "no-space", id: "7" },
  { event: "message", data: "[DONE]", id: "7" },
];

describe("SseParser", () => {
  it("reads events, comments, multi-line data, ids, BOM and all three line endings", () => {
    expect(parseInChunks(encoder.encode(STREAM), [])).toEqual(EXPECTED);
  });

  it("gives the same messages however the bytes are cut (every single cut point, and every pair)", () => {
    const bytes = encoder.encode(STREAM);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parseInChunks(bytes, [cut]), `cut at byte ${cut}`).toEqual(EXPECTED);
    }
    for (let a = 1; a < bytes.length; a += 3) {
      for (let b = a + 1; b < bytes.length; b += 5) {
        expect(parseInChunks(bytes, [a, b]), `cuts at ${a} and ${b}`).toEqual(EXPECTED);
      }
    }
  });

  it("gives the same messages byte by byte", () => {
    const bytes = encoder.encode(STREAM);
    expect(
      parseInChunks(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(EXPECTED);
  });

  it("dispatches a last message that lacks its blank line when the stream ends", () => {
    const parser = new SseParser();
    expect(parser.push('data: {"a":1}')).toEqual([]);
    expect(parser.end()).toEqual([{ event: "message", data: '{"a":1}' }]);
  });

  it("ignores blank lines with no data and unknown fields", () => {
    const parser = new SseParser();
    expect(parser.push("\n\nretry: 100\nfoo: bar\n\ndata: x\n\n")).toEqual([{ event: "message", data: "x" }]);
  });
});

describe("readSse", () => {
  function streamOf(parts: string[]): ReadableStream<Uint8Array> {
    return new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(encoder.encode(part));
        controller.close();
      },
    });
  }

  it("yields messages from a ReadableStream as they complete", async () => {
    const messages: string[] = [];
    for await (const message of readSse(streamOf(["data: a\n", "\ndata: b", "\n\n"])))
      messages.push(message.data);
    expect(messages).toEqual(["a", "b"]);
  });

  it("stops with the abort reason when the signal aborts mid-stream, and cancels the body", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("data: first\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const message of readSse(body, controller.signal)) {
        seen.push(message.data);
        controller.abort(new DOMException("stopped by test", "AbortError"));
      }
    })();
    await expect(reading).rejects.toThrow("stopped by test");
    expect(seen).toEqual(["first"]);
    expect(cancelled).toBe(true);
  });
});
