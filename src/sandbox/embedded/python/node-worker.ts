import { createRequire } from "node:module";
import { parentPort } from "node:worker_threads";
import type { ToWorker } from "./protocol.ts";
import { servePythonWorker } from "./worker-loop.ts";

const require = createRequire(import.meta.url);
const port = parentPort;
if (!port) throw new Error("node-worker.ts runs as a worker_thread");

servePythonWorker(
  {
    post: (message, transfer) => port.postMessage(message, transfer as never),
    listen: (handler) => port.on("message", (message: ToWorker) => handler(message)),
  },
  (assets) => {
    if (!assets.loaderPath) throw new Error("the Node Python worker loads CPython's loader by path");
    return require(assets.loaderPath);
  },
);
