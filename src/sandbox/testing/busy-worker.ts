import { parentPort, workerData } from "node:worker_threads";
import { StopBoard } from "../stop-signal.ts";

/** A worker that spins in a synchronous loop (or waits on a timer) until its stop signal says so. */
const { buffer, channel, job, mode } = (workerData as { data: Record<string, unknown> }).data as {
  buffer: SharedArrayBuffer;
  channel: number;
  job: number;
  mode: "busy" | "waiting";
};
const board = StopBoard.attach(buffer);
const { signal } = board.signal(channel, job);
const started = Date.now();
if (mode === "busy") {
  let spins = 0;
  // Marked running from inside the loop, so the stop always finds it spinning.
  while (!signal.aborted) if (++spins === 1) board.begin(channel, job);
  parentPort!.postMessage({
    stoppedAfterMs: Date.now() - started,
    reason: (signal.reason as Error).name,
    spins,
  });
} else {
  board.begin(channel, job);
  parentPort!.postMessage({ waiting: true });
  const timer = setTimeout(() => parentPort!.postMessage({ timedOut: true }), 60_000);
  signal.addEventListener("abort", () => {
    clearTimeout(timer);
    parentPort!.postMessage({ stoppedAfterMs: Date.now() - started, reason: (signal.reason as Error).name });
  });
}
