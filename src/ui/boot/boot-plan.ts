import type { BackendChoice } from "../../worker/types.ts";
import type { BrowserSupport } from "./browser-support.ts";

export type BootPlan = { tryWebContainer: true } | { tryWebContainer: false; reason: string };

/** Whether to try a WebContainer at all, and if not, the reason the person is told. */
export function planBoot(choice: BackendChoice, support: BrowserSupport): BootPlan {
  if (choice === "embedded")
    return { tryWebContainer: false, reason: "the embedded sandbox is chosen in Settings" };
  if (!support.crossOriginIsolated || !support.sharedArrayBuffer) {
    return {
      tryWebContainer: false,
      reason:
        "the page is not cross-origin isolated (no COOP/COEP headers), which WebContainer needs — serve it with `npm run dev`/`npm run preview` or a host that sends public/_headers",
    };
  }
  if (!support.online)
    return {
      tryWebContainer: false,
      reason: "the browser is offline and WebContainer loads from StackBlitz",
    };
  return { tryWebContainer: true };
}
