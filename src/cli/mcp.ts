import { resolve as resolvePath } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { Profile } from "../core/profile.ts";
import { type HostRuntimeOptions, openHostRuntime } from "./host-runtime.ts";
import { inputLines, parseRequestLine } from "./input-lines.ts";
import { INTERNAL_ERROR, INVALID_REQUEST, McpServer, PARSE_ERROR } from "./mcp-server.ts";
import { STOPPED } from "./run-end.ts";

export interface McpOptions extends HostRuntimeOptions {
  profile: Profile;
  input: Readable;
  output: Writable;
  version: string;
  /** How often a call sent with a progress token reports that it runs (ms). */
  progressIntervalMs?: number;
}

/**
 * `toolroom mcp`: the profile's tools as a Model Context Protocol server on stdin/stdout (one JSON-RPC
 * message per line), so a desktop agent can work in a folder through a published tool API. Each
 * tools/call goes through the runtime and answers with the dialect's own envelope as text, flagged
 * isError when the tool failed. Every line that is not a message gets a JSON-RPC error. With
 * --write-back each call's changes are written back before it is answered; a call the client
 * cancels is undone.
 */
export async function runMcp(options: McpOptions): Promise<number> {
  const host = await openHostRuntime(options);
  const { runtime, end } = host;
  const send = (message: unknown): void => {
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      const id = (message as { id?: unknown } | null)?.id ?? null;
      line = JSON.stringify({
        jsonrpc: "2.0",
        id,
        error: {
          code: INTERNAL_ERROR,
          message: `The answer could not be written as JSON: ${(error as Error).message}`,
        },
      });
    }
    options.output.write(`${line}\n`);
  };
  const server = new McpServer({
    profile: options.profile,
    folder: resolvePath(options.workspace),
    workspaceRoot: runtime.sandbox.workspaceRoot,
    version: options.version,
    writeBack: options.writeBack,
    invoke: (profile, call, unwanted) => host.invoke(profile, call, unwanted),
    cancel: (requestId) => runtime.cancel(requestId),
    send,
    ...(options.progressIntervalMs !== undefined ? { progressIntervalMs: options.progressIntervalMs } : {}),
  });
  const lines = inputLines(options.input)[Symbol.asyncIterator]();
  let crash: unknown;
  try {
    for (;;) {
      const next = await end.until(lines.next());
      if (next === STOPPED || next.done) break;
      const parsed = parseRequestLine(next.value);
      if (parsed.ok) server.receive(parsed.value);
      else
        server.refuse(
          parsed.message.includes("not valid JSON") ? PARSE_ERROR : INVALID_REQUEST,
          parsed.message,
        );
    }
    // Input closed: the calls already sent are answered, unless the run is asked to stop meanwhile.
    const idle = server.idle();
    if ((await end.until(idle)) === STOPPED && !(await end.grace(idle))) {
      // Stopped calls are undone as they settle, and get no answer.
      server.abandon();
      await server.idle();
    }
  } catch (error) {
    crash = error;
    end.stop("an internal error");
  }
  // Stopped: the pending read is dropped (it settles into nothing) and stdin is let go.
  if (end.stopped) options.input.destroy?.();
  const code = await host.finish({ answered: server.answeredCalls });
  if (crash !== undefined) throw crash;
  return code;
}
