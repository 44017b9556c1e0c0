import type { Readable, Writable } from "node:stream";
import { normalizeCall } from "../core/calls.ts";
import { asToolFailure, ToolFailure } from "../core/errors.ts";
import type { Profile } from "../core/profile.ts";
import { type HostRuntimeOptions, openHostRuntime } from "./host-runtime.ts";
import { inputLines, parseRequestLine } from "./input-lines.ts";
import { STDOUT_CLOSED, STOPPED } from "./run-end.ts";

export interface BatchOptions extends HostRuntimeOptions {
  profile: Profile;
  input: Readable;
  output: Writable;
}

/**
 * `toolroom batch`: JSONL calls in, one JSONL envelope out per line, in order. Asked to stop (a
 * signal), it reads no further line, gives the running call a short grace, else stops it and
 * undoes its changes (its answer says it was cancelled). Each answered call is written back
 * before its answer is printed.
 */
export async function runBatch(options: BatchOptions): Promise<number> {
  const host = await openHostRuntime(options);
  const { runtime, end } = host;
  const lines = inputLines(options.input)[Symbol.asyncIterator]();
  let answered = 0;
  let crash: unknown;
  try {
    for (;;) {
      const next = await end.until(lines.next());
      if (next === STOPPED || next.done) break;
      const line = next.value;
      let envelope: unknown;
      let requestId = "";
      let abandoned = false;
      try {
        const parsed = parseRequestLine(line);
        if (!parsed.ok) throw new ToolFailure("invalid_params", parsed.message);
        requestId = requestIdOf(parsed.value);
        const call = normalizeCall(options.profile, parsed.value);
        let stopped = false;
        const running = host.invoke(options.profile.name, call, () =>
          stopped ? "it was still running when the run was stopped" : null,
        );
        if ((await end.until(running)) === STOPPED && !(await end.grace(running))) {
          stopped = true;
          runtime.cancelAll();
        }
        // Written back (when asked) before it is answered; a stopped call is undone and answered as cancelled.
        const settled = await running;
        abandoned = !settled.answer;
        envelope = settled.outcome.envelope;
      } catch (error) {
        // A line that is not a call still gets an answer, in the profile's own envelope.
        const now = new Date();
        envelope = options.profile.envelope.failure(
          { requestId, tool: "", params: {}, step: 0, startedAt: now, endedAt: now },
          asToolFailure(error),
        );
      }
      await write(options.output, `${serialized(options.profile, envelope, requestId)}\n`);
      if (abandoned) break;
      answered++;
    }
  } catch (error) {
    // Whatever broke, what the answered calls did still reaches the disk.
    if ((error as NodeJS.ErrnoException).code === "EPIPE") end.stop(STDOUT_CLOSED);
    else {
      crash = error;
      end.stop("an internal error");
    }
  }
  // Stopped: the pending read is dropped (it settles into nothing) and stdin is let go.
  if (end.stopped) options.input.destroy?.();
  const code = await host.finish({ answered });
  if (crash !== undefined) throw crash;
  return code;
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
