import { Worker, type WorkerOptions } from "node:worker_threads";

const BOOTSTRAP = new URL("./ts-worker-bootstrap.mjs", import.meta.url);

/**
 * Starts a worker_thread on a TypeScript module (through tsx, as the CLI itself runs). The module
 * reads what it was given from `workerData.data`.
 */
export function startTsWorker(
  entry: URL,
  data: unknown,
  options: Omit<WorkerOptions, "workerData"> = {},
): Worker {
  return new Worker(BOOTSTRAP, { ...options, workerData: { entry: entry.href, data } });
}
