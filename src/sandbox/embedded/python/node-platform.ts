import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { startTsWorker } from "../../../host/ts-worker.ts";
import type { FromWorker } from "./protocol.ts";
import type { PythonPlatform } from "./runner.ts";
import { findSignalClock } from "./signal-clock.ts";

/** just-bash ships CPython 3.13 for Emscripten (vendor/cpython-emscripten); its exports map hides the folder. */
export function cpythonFolder(): string {
  const entry = createRequire(import.meta.url).resolve("just-bash");
  return join(dirname(entry), "..", "..", "vendor", "cpython-emscripten");
}

/** Python in Node: each worker a worker_thread, CPython's files read from just-bash's package. */
export function nodePythonPlatform(): PythonPlatform {
  const folder = cpythonFolder();
  return {
    spawn() {
      const worker = startTsWorker(new URL("./node-worker.ts", import.meta.url), null);
      // A worker that is only waiting for work must not keep the CLI alive.
      worker.unref();
      return {
        post: (message, transfer) => worker.postMessage(message, transfer as never),
        onMessage: (handler) => worker.on("message", (message: FromWorker) => handler(message)),
        onError: (handler) => {
          worker.on("error", handler);
          worker.on("exit", (code) => handler(new Error(`the Python worker exited (${code})`)));
        },
        terminate: () => void worker.terminate(),
        keepAlive: (on) => (on ? worker.ref() : worker.unref()),
      };
    },
    async loadAssets() {
      const [bytes, stdlib] = await Promise.all([
        readFile(join(folder, "python.wasm")),
        readFile(join(folder, "python313.zip")),
      ]);
      const wasm = await WebAssembly.compile(bytes);
      const signalClocks = findSignalClock(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return { loaderPath: join(folder, "python.cjs"), wasm, stdlib: new Uint8Array(stdlib), signalClocks };
    },
  };
}
