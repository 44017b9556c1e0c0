/// <reference lib="webworker" />
import type { FromJqWorker, ToJqWorker } from "./runner.ts";
import { serveJqWorker } from "./worker-loop.ts";

/** The jq worker's entry in the browser: a module Web Worker started by the runtime's worker. */
const scope = self as unknown as DedicatedWorkerGlobalScope;
serveJqWorker({
  post: (message: FromJqWorker) => scope.postMessage(message),
  listen: (handler) =>
    scope.addEventListener("message", (event: MessageEvent<ToJqWorker>) => handler(event.data)),
});
