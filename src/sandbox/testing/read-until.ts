import type { PtyRead, PtySession } from "../types.ts";

/**
 * Reads a terminal session until `done` holds for all it printed, it exits, or `timeoutMs` passes
 * (tests then assert on what came); gives what it printed in all and how it stands.
 */
export async function readUntil(
  session: PtySession,
  done: (output: string, exited: boolean) => boolean,
  timeoutMs = 30_000,
): Promise<PtyRead> {
  const deadline = Date.now() + timeoutMs;
  let output = "";
  for (;;) {
    const read = await session.read({ yieldMs: 200 });
    output += read.output;
    if (done(output, read.exited) || read.exited || Date.now() > deadline)
      return { output, exited: read.exited, exitCode: read.exitCode };
  }
}
