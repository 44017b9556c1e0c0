import loaderUrl from "cpython-emscripten/python.cjs?url";
import wasmUrl from "cpython-emscripten/python.wasm?url";
import stdlibUrl from "cpython-emscripten/python313.zip?url";
import type { FromWorker } from "./protocol.ts";
import type { PythonPlatform } from "./runner.ts";
import { findSignalClock } from "./signal-clock.ts";

async function fetchOk(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url}: HTTP ${response.status}`);
  return response;
}

/**
 * Python in the browser: each Python worker a module Web Worker started by the runtime's worker,
 * CPython's files (10 MB) served by our own origin as build assets and fetched on the first run only.
 */
export function browserPythonPlatform(): PythonPlatform {
  return {
    spawn() {
      const worker = new Worker(new URL("./browser-worker.ts", import.meta.url), {
        type: "module",
        name: "python",
      });
      return {
        post: (message, transfer) => worker.postMessage(message, transfer ?? []),
        onMessage: (handler) =>
          worker.addEventListener("message", (event: MessageEvent<FromWorker>) => handler(event.data)),
        onError: (handler) =>
          worker.addEventListener("error", (event) => {
            event.preventDefault();
            handler(new Error(event.message || "the Python worker failed to start"));
          }),
        terminate: () => worker.terminate(),
      };
    },
    async loadAssets() {
      const [loaderSource, [wasm, signalClocks], stdlib] = await Promise.all([
        fetchOk(loaderUrl).then((response) => response.text()),
        // Compiled as it streams in; its bytes are read too, for where the signal clock is.
        fetchOk(wasmUrl).then((response) =>
          Promise.all([
            WebAssembly.compileStreaming(response.clone()),
            response.arrayBuffer().then((bytes) => findSignalClock(new Uint8Array(bytes))),
          ]),
        ),
        fetchOk(stdlibUrl).then(async (response) => new Uint8Array(await response.arrayBuffer())),
      ]);
      return { loaderSource, wasm, stdlib, signalClocks };
    },
  };
}
