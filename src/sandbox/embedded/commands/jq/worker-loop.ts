import { type JqAssets, runJqOnce } from "./jq-wasm.ts";
import type { FromJqWorker, ToJqWorker } from "./runner.ts";

/** The jq worker's message loop: "init" once with the compiled module, then one "run" at a time. */
export function serveJqWorker(port: {
  post(message: FromJqWorker): void;
  listen(handler: (message: ToJqWorker) => void): void;
}): void {
  let assets: JqAssets | null = null;
  port.listen((message) => {
    try {
      if (message.type === "init") {
        assets = { module: message.module, imports: message.imports, exports: message.exports };
        port.post({ type: "ready" });
      } else {
        if (!assets) throw new Error("the jq worker got a run before init");
        port.post({ type: "done", id: message.id, result: runJqOnce(assets, message.run) });
      }
    } catch (error) {
      port.post({ type: "error", message: (error as Error).stack ?? String(error) });
    }
  });
}
