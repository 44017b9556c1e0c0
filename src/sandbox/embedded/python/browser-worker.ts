/// <reference lib="webworker" />
import type { FromWorker, ToWorker } from "./protocol.ts";
import { type LoaderFactory, servePythonWorker } from "./worker-loop.ts";

/** The Python worker's entry in the browser: a module Web Worker started by the runtime's worker. */
const scope = self as unknown as DedicatedWorkerGlobalScope;

/** Emscripten's loader is a CommonJS script: evaluated once, as the module it declares. */
const loader: LoaderFactory = (assets) => {
  if (assets.loaderSource === undefined)
    throw new Error("the browser Python worker needs CPython's loader source");
  const module: { exports: unknown } = { exports: {} };
  new Function("module", "exports", assets.loaderSource)(module, module.exports);
  return module.exports as ReturnType<LoaderFactory>;
};

servePythonWorker(
  {
    post: (message: FromWorker, transfer?: Transferable[]) => scope.postMessage(message, transfer ?? []),
    listen: (handler) =>
      scope.addEventListener("message", (event: MessageEvent<ToWorker>) => handler(event.data)),
  },
  loader,
);
