import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { normalizeCall } from "../core/calls.ts";
import { asToolFailure, ToolFailure } from "../core/errors.ts";
import type { Profile } from "../core/profile.ts";
import { type HostRuntimeOptions, openHostRuntime } from "./host-runtime.ts";

export interface BatchOptions extends HostRuntimeOptions {
  profile: Profile;
  writeBack: boolean;
  input: Readable;
  output: Writable;
}

/** `toolroom batch`: JSONL calls in, one JSONL envelope out per line, in order. */
export async function runBatch(options: BatchOptions): Promise<number> {
  const { runtime, finish } = await openHostRuntime(options);
  const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === "") continue;
    let envelope: unknown;
    try {
      const call = normalizeCall(options.profile, parseJsonLine(line, lineNumber));
      envelope = await runtime.call(options.profile.name, call);
    } catch (error) {
      // A line that is not a call still gets an answer, in the profile's own envelope.
      const now = new Date();
      envelope = options.profile.envelope.failure(
        { requestId: "", tool: "", params: {}, step: 0, startedAt: now, endedAt: now },
        asToolFailure(error),
      );
    }
    await write(options.output, `${JSON.stringify(envelope)}\n`);
  }

  await finish({ writeBack: options.writeBack });
  return 0;
}

function parseJsonLine(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new ToolFailure(
      "invalid_params",
      `Line ${lineNumber} is not valid JSON: ${(error as Error).message}`,
    );
  }
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (error) => (error ? reject(error) : resolve())));
}
