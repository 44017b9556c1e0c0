import type { WebContainer } from "@webcontainer/api";
import { WebContainerSandbox } from "./webcontainer-sandbox.ts";

/** The COEP value the page is served with (vite.config.ts, public/_headers); WebContainer must be told. */
export const PAGE_COEP = "credentialless" as const;

export type WebContainerBoot =
  | { ok: true; sandbox: WebContainerSandbox; container: WebContainer; ms: number }
  | { ok: false; reason: string; ms: number };

export interface WebContainerBootOptions {
  timeoutMs: number;
  /** How long the reachability check of StackBlitz may take before boot is not even attempted. */
  probeTimeoutMs?: number;
  /** Called about every 250 ms while waiting, with the time left. */
  onWaiting?: (msLeft: number) => void;
}

/**
 * Boots a WebContainer, or says why not within `timeoutMs`. WebContainer.boot loads StackBlitz's
 * headless page in an iframe; when that page cannot be reached the promise never settles, so the
 * deadline is the only way out. A boot that finishes after we gave up is torn down.
 */
export async function bootWebContainer(options: WebContainerBootOptions): Promise<WebContainerBoot> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const unreachable = await probeHost(options.probeTimeoutMs ?? 2000);
  if (unreachable) return { ok: false, reason: unreachable, ms: elapsed() };
  let gaveUp = false;
  let api: typeof import("@webcontainer/api");
  try {
    // Loaded only when a WebContainer is wanted: the embedded path never pays for it.
    api = await import("@webcontainer/api");
  } catch (error) {
    return { ok: false, reason: `the WebContainer library did not load (${String(error)})`, ms: elapsed() };
  }
  const booting = api.WebContainer.boot({ coep: PAGE_COEP, workdirName: "workspace" });
  booting.then(
    (container) => {
      if (gaveUp) container.teardown();
    },
    () => undefined,
  );
  let ticker: ReturnType<typeof setInterval> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    const deadline = performance.now() + options.timeoutMs;
    ticker = setInterval(
      () => options.onWaiting?.(Math.max(0, Math.round(deadline - performance.now()))),
      250,
    );
    setTimeout(() => resolve("timeout"), options.timeoutMs);
  });
  try {
    const winner = await Promise.race([booting, timeout]);
    if (winner === "timeout") {
      gaveUp = true;
      removeBootFrames();
      return {
        ok: false,
        reason: `WebContainer did not boot within ${(options.timeoutMs / 1000).toFixed(1)} s (StackBlitz could not be reached)`,
        ms: elapsed(),
      };
    }
    return { ok: true, container: winner, sandbox: new WebContainerSandbox(winner), ms: elapsed() };
  } catch (error) {
    gaveUp = true;
    removeBootFrames();
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `WebContainer failed to boot: ${message}`, ms: elapsed() };
  } finally {
    clearInterval(ticker);
  }
}

/**
 * WebContainer.boot loads `<origin>/headless` in an iframe and waits forever when it cannot. A
 * no-cors request to the same page answers in milliseconds either way (a DNS failure, a refused
 * connection, or an opaque response), so a machine without internet falls back at once instead
 * of after the boot deadline. Returns why it is unreachable, or null.
 */
async function probeHost(timeoutMs: number): Promise<string | null> {
  const configured = (globalThis as { WEBCONTAINER_API_IFRAME_URL?: string }).WEBCONTAINER_API_IFRAME_URL;
  const origin = new URL(configured ?? "https://stackblitz.com").origin;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await fetch(`${origin}/headless`, {
      mode: "no-cors",
      credentials: "omit",
      cache: "no-store",
      signal: controller.signal,
    });
    return null;
  } catch {
    return controller.signal.aborted
      ? `${origin} did not answer within ${(timeoutMs / 1000).toFixed(1)} s`
      : `${origin} cannot be reached from this browser (no internet, or it is blocked)`;
  } finally {
    clearTimeout(timer);
  }
}

/** The frames a stalled boot left in the page keep retrying the network; they are of no use now. */
function removeBootFrames(): void {
  for (const frame of document.querySelectorAll("iframe")) {
    if (/stackblitz|webcontainer|staticblitz/iu.test(frame.src)) frame.remove();
  }
}
