import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import { AppModel, setModel } from "./model.ts";
import { WorkerHost } from "./worker-host.ts";

const host = new WorkerHost(
  () =>
    new Worker(new URL("../worker/worker.ts", import.meta.url), { type: "module", name: "toolroom-runtime" }),
);
const model = new AppModel(host);
setModel(model);
// For the end-to-end tests and the bench, which drive the same worker API the UI uses.
(window as unknown as { toolroom: unknown }).toolroom = { model, host };

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
void model.start();
