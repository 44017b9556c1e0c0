import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import type { EarlyBoot } from "./boot/boot-runtime.ts";
import { AppModel, setModel } from "./model.ts";
import type { WorkerHost } from "./worker-host.ts";

/** The UI, loaded after the runtime's boot began: renders the app and lets its model follow the boot. */
export function mountApp(host: WorkerHost, early: EarlyBoot): AppModel {
  const model = new AppModel(host);
  setModel(model);
  createRoot(document.getElementById("root")!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
  void model.start(early);
  return model;
}
