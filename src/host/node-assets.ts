import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { JqRunner, parseJqLoader, setJqRunner } from "../sandbox/embedded/commands/jq/index.ts";
import { nodeJqPlatform } from "../sandbox/embedded/commands/jq/node-platform.ts";
import { PythonRunner, setPythonRunner } from "../sandbox/embedded/python/index.ts";
import { nodePythonPlatform } from "../sandbox/embedded/python/node-platform.ts";
import { setRuffWasm } from "../tools/quality/ruff-wasm.ts";

let python: PythonRunner | null = null;
let jq: JqRunner | null = null;

/**
 * Node hosts (the CLI, tests, benches) hand the in-worker tools the files a browser bundle would
 * fetch beside them: ruff's WebAssembly module from node_modules, CPython and jq (each run in worker_threads). (TypeScript finds its own lib
 * files through ts.sys in Node.) Never imported by browser code.
 */
export function registerNodeAssets(): void {
  const require = createRequire(import.meta.url);
  setRuffWasm(() => readFile(require.resolve("@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm")));
  // Python runs in worker_threads, started on the first python3 command.
  setPythonRunner(() => {
    python ??= new PythonRunner(nodePythonPlatform());
    return python;
  });
  // jq runs in a worker_thread of its own, so a runaway filter can be stopped.
  setJqRunner(() => {
    jq ??= new JqRunner(nodeJqPlatform(), parseJqLoader);
    return jq;
  });
}
