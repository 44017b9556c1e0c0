import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { setRuffWasm } from "../tools/quality/ruff-wasm.ts";

/**
 * Node hosts (the CLI, tests, benches) hand the in-worker tools the files a browser bundle would
 * fetch beside them: ruff's WebAssembly module from node_modules. (TypeScript finds its own lib
 * files through ts.sys in Node.) Never imported by browser code.
 */
export function registerNodeAssets(): void {
  const require = createRequire(import.meta.url);
  setRuffWasm(() => readFile(require.resolve("@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm")));
}
