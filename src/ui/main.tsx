import { WorkerHost } from "./worker-host.ts";

/**
 * The page's first script, kept small: it starts the tool worker before anything else of the page
 * is fetched, then the runtime's boot, and only then the UI (React, the panes, later Monaco and the
 * terminal), so the first tool call waits for the worker and the workspace only.
 */
performance.mark("toolroom:main");
const host = new WorkerHost(
  () =>
    new Worker(new URL("../worker/worker.ts", import.meta.url), { type: "module", name: "toolroom-runtime" }),
);
// For the end-to-end tests and the bench, which drive the same worker API the UI uses.
const page = window as unknown as { toolroom: { host: WorkerHost; model?: unknown } };
page.toolroom = { host };

const { EarlyBoot } = await import("./boot/boot-runtime.ts");
const early = new EarlyBoot(host);
await early.uiMayLoad;
const { mountApp } = await import("./mount.tsx");
page.toolroom.model = mountApp(host, early);
