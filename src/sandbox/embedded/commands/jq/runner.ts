import type { JqAssetSource, JqAssets, JqResult, JqRun } from "./jq-wasm.ts";

/** Messages between a jq host and its worker. */
export type ToJqWorker =
  | { type: "init"; module: WebAssembly.Module; imports: JqAssets["imports"]; exports: JqAssets["exports"] }
  | { type: "run"; id: number; run: JqRun };
export type FromJqWorker =
  | { type: "ready" }
  | { type: "done"; id: number; result: JqResult }
  | { type: "error"; message: string };

/** A jq worker as its host sees it: a Worker in the browser, a worker_thread in Node. */
export interface JqWorkerHandle {
  post(message: ToJqWorker): void;
  onMessage(handler: (message: FromJqWorker) => void): void;
  onError(handler: (error: Error) => void): void;
  terminate(): void;
  /** Whether the worker keeps its host alive (Node): only while a filter runs. */
  keepAlive?(on: boolean): void;
}

/** How a host starts a jq worker and finds jq-wasm's loader (the module is inlined in it). */
export interface JqPlatform {
  spawn(): JqWorkerHandle;
  loadLoader(): Promise<string>;
}

export interface JqControls {
  /** The run's deadline in milliseconds from now. */
  timeoutMs: number;
  /** Polled while the filter runs: a stop request terminates the worker. */
  stopped?: () => "interrupt" | "deadline" | null;
}

export type JqOutcome = JqResult & { stopped?: "interrupt" | "deadline" };

/** The default heap cap of one filter: jq-wasm's own maximum. */
export const JQ_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;

/**
 * Runs jq filters in one worker, one at a time (a run waits for the one before it). The worker
 * keeps the compiled module between runs; a filter that must be stopped (its deadline, Ctrl-C)
 * has its worker terminated, and the next run starts a new one.
 */
export class JqRunner {
  private assets: Promise<{ module: WebAssembly.Module; source: Omit<JqAssetSource, "wasm"> }> | null = null;
  private worker: { handle: JqWorkerHandle; ready: Promise<void> } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private current: { id: number; settle: (message: FromJqWorker | Error) => void } | null = null;

  constructor(
    private readonly platform: JqPlatform,
    private readonly parse: (loader: string) => JqAssetSource,
  ) {}

  run(run: JqRun, controls: JqControls): Promise<JqOutcome> {
    const started = performance.now();
    const result = this.queue.then(() =>
      this.runNow(run, { ...controls, timeoutMs: controls.timeoutMs - (performance.now() - started) }),
    );
    this.queue = result.catch(() => undefined);
    return result;
  }

  private loadAssets() {
    this.assets ??= this.platform.loadLoader().then(async (loader) => {
      const { wasm, ...source } = this.parse(loader);
      return { module: await WebAssembly.compile(wasm as BufferSource), source };
    });
    this.assets.catch(() => {
      this.assets = null;
    });
    return this.assets;
  }

  private startWorker(): { handle: JqWorkerHandle; ready: Promise<void> } {
    const handle = this.platform.spawn();
    const ready = new Promise<void>((resolve, reject) => {
      handle.onMessage((message) => {
        if (message.type === "ready") resolve();
        else if (message.type === "error" && !this.current) reject(new Error(message.message));
        else if (this.current && (message.type === "error" || message.id === this.current.id)) {
          this.current.settle(message);
        }
      });
      handle.onError((error) => {
        reject(error);
        this.current?.settle(error);
        if (this.worker?.handle === handle) this.worker = null;
      });
    });
    const worker = { handle, ready };
    ready.catch(() => undefined);
    void this.loadAssets().then(
      ({ module, source }) => handle.post({ type: "init", module, ...source }),
      () => undefined,
    );
    return worker;
  }

  private async runNow(run: JqRun, controls: JqControls): Promise<JqOutcome> {
    await this.loadAssets();
    this.worker ??= this.startWorker();
    const worker = this.worker;
    await worker.ready;
    const id = this.nextId++;
    worker.handle.keepAlive?.(true);
    try {
      return await new Promise<JqOutcome>((resolve, reject) => {
        const stop = (reason: "interrupt" | "deadline") => {
          finish();
          worker.handle.terminate();
          if (this.worker === worker) this.worker = null;
          resolve({
            exitCode: reason === "interrupt" ? 130 : 124,
            stdout: new Uint8Array(),
            stderr: new Uint8Array(),
            stopped: reason,
          });
        };
        const deadline = setTimeout(() => stop("deadline"), Math.max(0, controls.timeoutMs));
        const poll = setInterval(() => {
          const reason = controls.stopped?.();
          if (reason) stop(reason);
        }, 20);
        const finish = () => {
          clearTimeout(deadline);
          clearInterval(poll);
          this.current = null;
        };
        this.current = {
          id,
          settle: (message) => {
            finish();
            if (message instanceof Error) reject(message);
            else if (message.type === "done") resolve(message.result);
            else if (message.type === "error") reject(new Error(message.message));
          },
        };
        worker.handle.post({ type: "run", id, run });
      });
    } finally {
      worker.handle.keepAlive?.(false);
    }
  }
}

let getRunner: (() => JqRunner) | null = null;

/** Hosts register where jq runs (Node: worker_threads; the browser: a Web Worker). */
export function setJqRunner(get: (() => JqRunner) | null): void {
  getRunner = get;
}

export function jqRunner(): JqRunner | null {
  return getRunner?.() ?? null;
}
