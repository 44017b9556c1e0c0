import { expose } from "comlink";
import type { WorkerApi } from "./api.ts";
import { workspaceToOpen } from "./first-workspace.ts";
import { type WorkspaceMeta, WorkspaceStore } from "./store.ts";
import type { WorkspaceSeed } from "./types.ts";
import { whenLoaded } from "./when-loaded.ts";

/**
 * The dedicated module Worker: the runtime, the sandbox (or its port) and the store live here.
 * This first module is small: it opens the store and answers messages at once, while the runtime
 * (the tools and the profiles) downloads and compiles; calls wait for it. The page's prepare()
 * starts choosing the first workspace (on a first visit, making its repository) in that time too.
 * The shell (just-bash, 1.3 MB) loads after the first answers: a call that only reads the workspace
 * does not wait for it (see DeferredSandbox).
 */
performance.mark("toolroom:worker");
const store = WorkspaceStore.open();
store.catch(() => undefined);
const runtime = import("./browser-runtime.ts");
let chosen: Promise<WorkspaceMeta> | undefined;
const chooseFirstWorkspace = (seed: WorkspaceSeed): Promise<WorkspaceMeta> => {
  chosen ??= store.then(async (opened) => {
    const meta = await workspaceToOpen(opened, seed, async () => (await runtime).embedded());
    opened.preload(meta.id);
    return meta;
  });
  return chosen;
};
const api = runtime.then(({ startRuntime }) => startRuntime(store, chooseFirstWorkspace));
expose(
  whenLoaded<WorkerApi>(api, [], {
    prepare: (seed) => void chooseFirstWorkspace(seed as WorkspaceSeed).catch(() => undefined),
  }),
);
