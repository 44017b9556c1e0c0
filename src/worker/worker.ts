import { expose } from "comlink";
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
const api = import("./browser-runtime.ts").then(({ startRuntime }) => startRuntime(store));
expose(whenLoaded<WorkerApi>(api));
