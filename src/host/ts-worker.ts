import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts a worker_thread on a .ts module named by its URL beside the caller (import.meta.url). From source, a
 * .ts entry runs through tsx (as bin/toolroom does without its bundle); in the CLI bundle the build
 * has rewritten the URL to the entry's own prebuilt .mjs, which runs as it is. The module reads what
 * it was given from `workerData.data`.
 */
export function startTsWorker(
  entry: URL,
  data: unknown,
  options: Omit<WorkerOptions, "workerData"> = {},
): Worker {
  const workerData = { entry: entry.href, data };
  if (!entry.pathname.endsWith(".ts")) return new Worker(entry, { ...options, workerData });
  return new Worker(new URL("./ts-worker-bootstrap.mjs", import.meta.url), { ...options, workerData });
}
