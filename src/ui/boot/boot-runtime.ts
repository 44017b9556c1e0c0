import { proxy } from "comlink";
import type { ApprovalDecision, ApprovalRequest } from "../../core/runtime.ts";
import { sandboxPort } from "../../sandbox/port.ts";
import { bootWebContainer } from "../../sandbox/webcontainer/boot.ts";
import type { BackendChoice, BootResult, Settings } from "../../worker/api.ts";
import { seedFromStarter } from "../starters/index.ts";
import type { WorkerHost } from "../worker-host.ts";
import { planBoot } from "./boot-plan.ts";
import { describeSupport, detectBrowserSupport, type SupportLine } from "./browser-support.ts";

/** The longest the UI waits for the runtime's boot before it loads anyway, to show its progress. */
const UI_WAIT_MS = 1500;

export type StepTone = "info" | "ok" | "warn" | "error";

export interface RuntimeBoot {
  settings: Settings;
  backend: { reason: string; choice: BackendChoice };
  boot: BootResult;
}

/** What the boot panel shows while this runs (replayed to the page once it has loaded). */
export interface BootReport {
  step(text: string, tone: StepTone, ms: number): void;
  support(lines: SupportLine[]): void;
  waiting(msLeft: number | null): void;
}

/**
 * The runtime's boot, begun by the page's first script before the UI loads, so the first tool
 * call waits for the worker and the workspace only, never for React, the editor or the terminal:
 * check the browser, read the settings, pick a sandbox (a WebContainer with a deadline when it may
 * boot), and open the workspace. What it reports is kept until the page attaches its boot panel.
 */
export class EarlyBoot {
  readonly result: Promise<RuntimeBoot>;
  /**
   * When the UI may load: once the workspace is open (prepare() opens it before the boot ends, which
   * waits for the shell), or the boot ended or failed, as soon as the boot
   * waits on a WebContainer (whose countdown the boot panel shows), or after UI_WAIT_MS at most. On
   * a busy 2-core machine React and the panes compiling beside the worker delayed the first tool
   * call by a third, and the UI shows nothing but the boot panel before the workspace is open.
   */
  readonly uiMayLoad: Promise<void>;
  private letUiLoad: () => void = () => undefined;
  private readonly log: { kind: "step" | "support" | "waiting"; args: unknown[] }[] = [];
  private report: BootReport | undefined;
  private asker: ((request: ApprovalRequest) => Promise<ApprovalDecision>) | undefined;
  private readonly askers: ((ask: (request: ApprovalRequest) => Promise<ApprovalDecision>) => void)[] = [];

  constructor(private readonly host: WorkerHost) {
    this.uiMayLoad = new Promise((resolve) => {
      this.letUiLoad = resolve;
    });
    const timer = setTimeout(this.letUiLoad, UI_WAIT_MS);
    this.result = this.run();
    this.result.then(this.letUiLoad, this.letUiLoad).finally(() => clearTimeout(timer));
  }

  /** The page's boot panel: hears what was reported so far, then the rest as it comes. */
  attach(report: BootReport): void {
    this.report = report;
    for (const entry of this.log.splice(0))
      (report[entry.kind] as (...args: unknown[]) => void)(...entry.args);
  }

  /** The page's approval dialog; a call that asks before the page is there waits for it. */
  setAsker(ask: (request: ApprovalRequest) => Promise<ApprovalDecision>): void {
    this.asker = ask;
    for (const waiting of this.askers.splice(0)) waiting(ask);
  }

  private emit(kind: "step" | "support" | "waiting", ...args: unknown[]): void {
    if (this.report) (this.report[kind] as (...args: unknown[]) => void)(...args);
    else this.log.push({ kind, args });
  }

  private step(text: string, tone: StepTone = "info"): void {
    this.emit("step", text, tone, Math.round(performance.now()));
  }

  private async run(): Promise<RuntimeBoot> {
    const host = this.host;
    const firstWorkspace = seedFromStarter("node", "Node starter");
    // The worker chooses (on a first visit, makes) and opens the workspace while the sandbox is picked
    // here: reads are answered from its stored files meanwhile, stoppable through the page's stop board.
    const stops = host.stops.shared ? (host.stops.buffer as SharedArrayBuffer) : undefined;
    // Once it is open the first calls are being answered: the UI loads beside the shell, not after it.
    host.api.prepare(firstWorkspace, stops).then(this.letUiLoad, () => undefined);
    this.step("Checking what this browser offers");
    const support = detectBrowserSupport();
    this.emit("support", describeSupport(support));
    await host.setApprovalPrompt(
      (request) =>
        this.asker?.(request) ??
        new Promise<(request: ApprovalRequest) => Promise<ApprovalDecision>>((resolve) =>
          this.askers.push(resolve),
        ).then((ask) => ask(request)),
    );
    this.step("Tool worker started");
    const settings = await host.api.settings.get();
    const plan = planBoot(settings.backend, support);
    let port: ReturnType<typeof sandboxPort> | undefined;
    let reason: string;
    if (plan.tryWebContainer) {
      this.step(`Booting a WebContainer (giving it ${(settings.webcontainerTimeoutMs / 1000).toFixed(0)} s)`);
      const result = await bootWebContainer({
        timeoutMs: settings.webcontainerTimeoutMs,
        onWaiting: (msLeft) => {
          this.letUiLoad();
          this.emit("waiting", msLeft);
        },
      });
      this.emit("waiting", null);
      if (result.ok) {
        port = proxy(sandboxPort(result.sandbox));
        reason = `WebContainer booted in ${(result.ms / 1000).toFixed(1)} s`;
        this.step(reason, "ok");
      } else {
        reason = result.reason;
        this.step(`Falling back to the embedded sandbox: ${reason}`, "warn");
      }
    } else {
      reason = plan.reason;
      this.step(`Using the embedded sandbox: ${reason}`, settings.backend === "embedded" ? "info" : "warn");
    }
    this.step("Loading the workspace from this browser's storage");
    const boot = await host.boot({ sandbox: port ? "remote" : "embedded", firstWorkspace }, port);
    performance.mark("toolroom:booted");
    return { settings, backend: { reason, choice: settings.backend }, boot };
  }
}
