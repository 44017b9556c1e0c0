import type { Readable, Writable } from "node:stream";
import { normalizeCall } from "../core/calls.ts";
import { asToolFailure, ToolFailure } from "../core/errors.ts";
import type { Profile } from "../core/profile.ts";
import { type HostRuntimeOptions, openHostRuntime } from "./host-runtime.ts";
import { inputLines, parseRequestLine } from "./input-lines.ts";

export interface BatchOptions extends HostRuntimeOptions {
  profile: Profile;
  writeBack: boolean;
  input: Readable;
  output: Writable;
}

/** `toolroom batch`: JSONL calls in, one JSONL envelope out per line, in order. */
export async function runBatch(options: BatchOptions): Promise<number> {
  const { runtime, finish } = await openHostRuntime(options);
  for await (const line of inputLines(options.input)) {
    let envelope: unknown;
    let requestId = "";
    try {
      const parsed = parseRequestLine(line);
      if (!parsed.ok) throw new ToolFailure("invalid_params", parsed.message);
      requestId = requestIdOf(parsed.value);
      const call = normalizeCall(options.profile, parsed.value);
      envelope = await runtime.call(options.profile.name, call);
    } catch (error) {
      // A line that is not a call still gets an answer, in the profile's own envelope.
      const now = new Date();
      envelope = options.profile.envelope.failure(
        { requestId, tool: "", params: {}, step: 0, startedAt: now, endedAt: now },
        asToolFailure(error),
      );
    }
    await write(options.output, `${serialized(options.profile, envelope, requestId)}\n`);
  }

  await finish({ writeBack: options.writeBack });
  return 0;
}

/** The envelope as one JSON line; a failure envelope if it cannot be written as JSON. */
function serialized(profile: Profile, envelope: unknown, requestId: string): string {
  try {
    return JSON.stringify(envelope);
  } catch (error) {
    const now = new Date();
    return JSON.stringify(
      profile.envelope.failure(
        { requestId, tool: "", params: {}, step: 0, startedAt: now, endedAt: now },
        new ToolFailure(
          "internal_error",
          `The answer could not be written as JSON: ${(error as Error).message}`,
        ),
      ),
    );
  }
}

/** The request_id a line that is not a valid call still names, so its error answer carries it. */
function requestIdOf(value: unknown): string {
  if (typeof value !== "object" || value === null) return "";
  const id = (value as { request_id?: unknown }).request_id;
  return typeof id === "string" || typeof id === "number" ? String(id) : "";
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (error) => (error ? reject(error) : resolve())));
}
