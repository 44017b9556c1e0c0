import loaderUrl from "jq-wasm/dist/build/jq.js?url";
import type { FromJqWorker, JqPlatform } from "./runner.ts";

/** jq in the browser: a module Web Worker, jq-wasm's loader served by our origin and fetched on first use. */
export function browserJqPlatform(): JqPlatform {
  return {
    spawn() {
      const worker = new Worker(new URL("./browser-worker.ts", import.meta.url), {
        type: "module",
        name: "jq",
      });
      return {
        post: (message) => worker.postMessage(message),
        onMessage: (handler) =>
          worker.addEventListener("message", (event: MessageEvent<FromJqWorker>) => handler(event.data)),
        onError: (handler) =>
          worker.addEventListener("error", (event) => {
            event.preventDefault();
            handler(new Error(event.message || "the jq worker failed to start"));
          }),
        terminate: () => worker.terminate(),
      };
    },
    async loadLoader() {
      const response = await fetch(loaderUrl);
      if (!response.ok) throw new Error(`could not load jq: HTTP ${response.status}`);
      return response.text();
    },
  };
}
