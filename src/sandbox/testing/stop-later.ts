import { Worker } from "node:worker_threads";
import { STOP_CELL_LAYOUT, type StopBoard } from "../stop-signal.ts";

/**
 * Stops `job` on `channel` from another thread after `afterMs`, as the page or the CLI's main thread
 * would: this thread may be stuck in the busy loop the stop is for.
 */
export function stopLater(
  board: StopBoard,
  channel: number,
  job: number | "running",
  afterMs: number,
): Worker {
  const worker = new Worker(
    `const { workerData } = require("node:worker_threads");
     const { buffer, index, runningIndex, job, afterMs } = workerData;
     const cells = new Int32Array(buffer);
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, afterMs);
     Atomics.store(cells, index, job === "running" ? Atomics.load(cells, runningIndex) : job);
     Atomics.notify(cells, index);`,
    {
      eval: true,
      workerData: {
        buffer: board.buffer,
        index: channel * STOP_CELL_LAYOUT.cellsPerChannel + STOP_CELL_LAYOUT.stop,
        runningIndex: channel * STOP_CELL_LAYOUT.cellsPerChannel + STOP_CELL_LAYOUT.running,
        job,
        afterMs,
      },
    },
  );
  worker.unref();
  return worker;
}
