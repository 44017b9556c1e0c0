import { browserJqPlatform } from "../sandbox/embedded/commands/jq/browser-platform.ts";
import { parseJqLoader } from "../sandbox/embedded/commands/jq/jq-wasm.ts";
import { JqRunner, setJqRunner } from "../sandbox/embedded/commands/jq/runner.ts";
import { browserPythonPlatform } from "../sandbox/embedded/python/browser-platform.ts";
import { setPythonRunner } from "../sandbox/embedded/python/registry.ts";
import { PythonRunner } from "../sandbox/embedded/python/runner.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { createWorkerApi, type WorkerApi } from "./api.ts";
import type { WorkspaceMeta, WorkspaceStore } from "./store.ts";
import type { WorkspaceSeed } from "./types.ts";

/**
 * The runtime as the browser's worker runs it, in one chunk the worker's first module imports: the
 * API, with python3 and jq wired to Web Workers of their own. One chunk, not a chain of them: on a
 * loaded machine each level of imports fetched one after the other cost a round trip.
 */
export function startRuntime(
  store: Promise<WorkspaceStore>,
  chooseFirstWorkspace: (seed: WorkspaceSeed) => Promise<WorkspaceMeta>,
): WorkerApi {
  // python3 runs in Web Workers of its own, started (and CPython fetched) on the first run only.
  let python: PythonRunner | null = null;
  setPythonRunner(() => {
    python ??= new PythonRunner(browserPythonPlatform());
    return python;
  });
  // jq runs in a Web Worker of its own (so a runaway filter can be stopped), started on first use.
  let jq: JqRunner | null = null;
  setJqRunner(() => {
    jq ??= new JqRunner(browserJqPlatform(), parseJqLoader);
    return jq;
  });
  performance.mark("toolroom:runtime-loaded");
  return createWorkerApi({ eager: true, store, embedded, chooseFirstWorkspace });
}

/** The shell, loaded when the runtime asks: after the first calls, or by the first that needs it. */
export async function embedded(): Promise<Sandbox> {
  const { createEmbeddedSandbox } = await import("../host/create-runtime.ts");
  performance.mark("toolroom:shell-loaded");
  return createEmbeddedSandbox();
}
