import { PythonEngine } from "./engine.ts";
import type { FromWorker, PythonAssets, ToWorker } from "./protocol.ts";

/** The two ends a Python worker talks through, whatever the platform. */
export interface WorkerPort {
  post(message: FromWorker, transfer?: Transferable[]): void;
  listen(handler: (message: ToWorker) => void): void;
}

/** Makes Emscripten's module factory from the interpreter's loader (python.cjs). */
export type LoaderFactory = (assets: PythonAssets) => ConstructorParameters<typeof PythonEngine>[0];

/**
 * The Python worker's message loop: "init" once, "packages" when they change, then one "run" at a
 * time, each answered by its output as it comes and one "done".
 */
export function servePythonWorker(port: WorkerPort, loader: LoaderFactory): void {
  let engine: PythonEngine | null = null;
  let queue = Promise.resolve();
  port.listen((message) => {
    queue = queue.then(async () => {
      try {
        if (message.type === "init") {
          engine = new PythonEngine(loader(message.assets), message.assets, message.interrupt);
          port.post({ type: "ready" });
        } else if (message.type === "packages") {
          engine?.setPackages(message.files);
        } else if (message.type === "run") {
          if (!engine) throw new Error("the Python worker got a run before init");
          const id = message.id;
          const result = await engine.run(message, {
            output: (fd, data) => port.post({ type: "output", id, fd, data }, [data.buffer as ArrayBuffer]),
            requestInput: () => port.post({ type: "stdin", id }),
          });
          port.post({ type: "done", id, ...result });
        }
      } catch (error) {
        port.post({ type: "error", message: (error as Error).stack ?? String(error) });
      }
    });
  });
}
