import { expose } from "comlink";
import type { Sandbox } from "../sandbox/types.ts";
import type { WorkerApi } from "./api.ts";
import { WorkspaceStore } from "./store.ts";
import { whenLoaded } from "./when-loaded.ts";

/**
 * The dedicated module Worker: the runtime, the sandbox (or its port) and the store live here.
 * This first module is small: it opens the store and answers messages at once, while the runtime
 * (the tools and the profiles) downloads and compiles; calls wait for it. The shell (just-bash,
 * 1.3 MB) loads after the first answers: a call that only reads the workspace does not wait for
 * it (see DeferredSandbox).
 */
performance.mark("toolroom:worker");
const store = WorkspaceStore.open();
store.catch(() => undefined);
/** The shell, loaded when the runtime asks: after the first calls, or by the first that needs it. */
const embedded = async (): Promise<Sandbox> => {
  const { createEmbeddedSandbox } = await import("../host/create-runtime.ts");
  performance.mark("toolroom:shell-loaded");
  return createEmbeddedSandbox();
};

const api = Promise.all([
  import("./api.ts"),
  import("../sandbox/embedded/python/registry.ts"),
  import("../sandbox/embedded/python/runner.ts"),
  import("../sandbox/embedded/python/browser-platform.ts"),
  import("../sandbox/embedded/commands/jq/runner.ts"),
  import("../sandbox/embedded/commands/jq/jq-wasm.ts"),
  import("../sandbox/embedded/commands/jq/browser-platform.ts"),
]).then(
  ([
    { createWorkerApi },
    { setPythonRunner },
    { PythonRunner },
    { browserPythonPlatform },
    { JqRunner, setJqRunner },
    { parseJqLoader },
    { browserJqPlatform },
  ]) => {
    // python3 runs in Web Workers of its own, started (and CPython fetched) on the first run only.
    let python: InstanceType<typeof PythonRunner> | null = null;
    setPythonRunner(() => {
      python ??= new PythonRunner(browserPythonPlatform());
      return python;
    });
    // jq runs in a Web Worker of its own (so a runaway filter can be stopped), started on first use.
    let jq: InstanceType<typeof JqRunner> | null = null;
    setJqRunner(() => {
      jq ??= new JqRunner(browserJqPlatform(), parseJqLoader);
      return jq;
    });
    performance.mark("toolroom:runtime-loaded");
    return createWorkerApi({ eager: true, store, embedded });
  },
);
expose(whenLoaded<WorkerApi>(api));
