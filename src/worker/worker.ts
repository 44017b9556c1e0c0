import { expose } from "comlink";
import type { WorkerApi } from "./api.ts";
import { WorkspaceStore } from "./store.ts";
import { whenLoaded } from "./when-loaded.ts";

/**
 * The dedicated module Worker: the runtime, the sandbox (or its port) and the store live here.
 * This first module is small: it opens the store and answers messages at once, while the runtime
 * (2 MB of the shell, the tools and the profiles) downloads and compiles; calls wait for it.
 */
performance.mark("toolroom:worker");
const store = WorkspaceStore.open();
store.catch(() => undefined);
// The shell's 1.2 MB bundle is fetched now, beside the runtime, not once the runtime is parsed and asks for it.
import("just-bash").catch(() => undefined);
const api = Promise.all([
  import("./api.ts"),
  import("../sandbox/embedded/python/index.ts"),
  import("../sandbox/embedded/python/browser-platform.ts"),
  import("../sandbox/embedded/commands/jq/index.ts"),
  import("../sandbox/embedded/commands/jq/browser-platform.ts"),
]).then(
  ([
    { createWorkerApi },
    { PythonRunner, setPythonRunner },
    { browserPythonPlatform },
    jq,
    { browserJqPlatform },
  ]) => {
    // python3 runs in Web Workers of its own, started (and CPython fetched) on the first run only.
    let python: InstanceType<typeof PythonRunner> | null = null;
    setPythonRunner(() => {
      python ??= new PythonRunner(browserPythonPlatform());
      return python;
    });
    // jq runs in a Web Worker of its own (so a runaway filter can be stopped), started on first use.
    let jqRunner: InstanceType<typeof jq.JqRunner> | null = null;
    jq.setJqRunner(() => {
      jqRunner ??= new jq.JqRunner(browserJqPlatform(), jq.parseJqLoader);
      return jqRunner;
    });
    performance.mark("toolroom:runtime-loaded");
    return createWorkerApi({ eager: true, store });
  },
);
expose(whenLoaded<WorkerApi>(api));
