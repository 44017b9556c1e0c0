import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { startTsWorker } from "../../../../host/ts-worker.ts";
import type { FromJqWorker, JqPlatform } from "./runner.ts";

/** jq in Node: its worker a worker_thread, jq-wasm's loader read from node_modules. */
export function nodeJqPlatform(): JqPlatform {
  return {
    spawn() {
      const worker = startTsWorker(new URL("./node-worker.ts", import.meta.url), null);
      worker.unref();
      return {
        post: (message) => worker.postMessage(message),
        onMessage: (handler) => worker.on("message", (message: FromJqWorker) => handler(message)),
        onError: (handler) => {
          worker.on("error", handler);
          worker.on("exit", (code) => handler(new Error(`the jq worker exited (${code})`)));
        },
        terminate: () => void worker.terminate(),
        keepAlive: (on) => (on ? worker.ref() : worker.unref()),
      };
    },
    loadLoader: () => readFile(createRequire(import.meta.url).resolve("jq-wasm/dist/build/jq.js"), "utf8"),
  };
}
