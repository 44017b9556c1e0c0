import { parentPort } from "node:worker_threads";
import type { ToJqWorker } from "./runner.ts";
import { serveJqWorker } from "./worker-loop.ts";

const port = parentPort;
if (!port) throw new Error("node-worker.ts runs as a worker_thread");
serveJqWorker({
  post: (message) => port.postMessage(message),
  listen: (handler) => port.on("message", (message: ToJqWorker) => handler(message)),
});
