import { createLiveStdinBuffer, LiveStdinHost } from "./live-stdin.ts";
import type { DoneMessage, FromWorker, PackageFile, PythonAssets, RunRequest, ToWorker } from "./protocol.ts";

/** A Python worker as its host sees it: a Worker in the browser, a worker_thread in Node. */
export interface WorkerHandle {
  post(message: ToWorker, transfer?: Transferable[]): void;
  onMessage(handler: (message: FromWorker) => void): void;
  /** The worker died (an uncaught error in it, or it could not start). */
  onError(handler: (error: Error) => void): void;
  terminate(): void;
  /** Whether the worker keeps its host alive (Node): yes while a program runs, no while idle. */
  keepAlive?(on: boolean): void;
}

/** What a host provides: how to start a worker and where the interpreter's files are. */
export interface PythonPlatform {
  spawn(): WorkerHandle;
  /** Loaded once per host and shared by every worker (the compiled module is ~6 MB of code). */
  loadAssets(): Promise<PythonAssets>;
}

export type RunInput = Omit<RunRequest, "type" | "id">;

export interface RunOutcome {
  exitCode: number;
  changes: DoneMessage["changes"];
  /** Why it stopped early: at the deadline or on a stop request; `killed` when it had to be terminated. */
  stopped?: "deadline" | "interrupt";
  killed?: boolean;
  memoryExhausted?: boolean;
  /** The program printed past the output cap; what it printed after was refused. */
  outputLimited?: boolean;
  crash?: string;
}

export interface RunControls {
  output(fd: 1 | 2, data: Uint8Array): void;
  /** Ctrl-C / Cancel: a KeyboardInterrupt first, termination if the program ignores it. */
  signal?: AbortSignal | undefined;
  /**
   * A session's terminal as stdin (instead of `input.stdin`): the next chunk typed, null at end of
   * input (Ctrl-D), undefined once `stopped` aborted (the run ended or was stopped first).
   */
  input?: ((stopped: AbortSignal) => Promise<Uint8Array | null | undefined>) | undefined;
  /** What was taken from the terminal but reached no read when the run ended (the rest of a long line). */
  unread?: ((bytes: Uint8Array) => void) | undefined;
}

/** How long a program may take to stop after its KeyboardInterrupt before its worker is terminated. */
export const STOP_GRACE_MS = 2000;
/** Workers kept running at once; runs past this wait for one to be free. */
const MAX_WORKERS = 4;

interface Slot {
  handle: WorkerHandle;
  ready: Promise<void>;
  interrupt: Int32Array | null;
  busy: boolean;
  packagesVersion: number;
  /** The run in progress: its message handler. */
  current: ((message: FromWorker) => void) | null;
  fail: ((error: Error) => void) | null;
}

/**
 * Runs Python programs in workers, one program at a time per worker, each on a fresh interpreter.
 * A worker is kept warm between runs (its compiled module and the packages' bytecode stay), and
 * is replaced when a program had to be terminated.
 */
export class PythonRunner {
  private readonly platform: PythonPlatform;
  private assets: Promise<PythonAssets> | null = null;
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<() => void> = [];
  private packages: PackageFile[] = [];
  private packagesVersion = 0;
  private loadPackages: (() => Promise<PackageFile[]>) | null = null;
  private packagesLoading: Promise<void> | null = null;
  private nextId = 1;

  constructor(platform: PythonPlatform) {
    this.platform = platform;
  }

  /** The packages (site-packages) every later run sees. */
  setPackages(files: PackageFile[]): void {
    this.packages = files;
    this.packagesVersion++;
    this.loadPackages = null;
  }

  /** Where the packages are kept (e.g. IndexedDB): read on the first run, not before. */
  setPackagesLoader(loader: () => Promise<PackageFile[]>): void {
    this.loadPackages = loader;
  }

  /** Reads the kept packages once; a failed read leaves site-packages empty rather than failing runs. */
  async packagesReady(): Promise<void> {
    const loader = this.loadPackages;
    if (loader) {
      this.loadPackages = null;
      this.packagesLoading = loader().then(
        (files) => this.setPackages(files),
        () => undefined,
      );
    }
    await this.packagesLoading;
  }

  /** Top-level names in site-packages ("pytest", "_pytest", "py.py", "pytest-7.2.1.dist-info"…). */
  packageRoots(): string[] {
    return [...new Set(this.packages.map((file) => file.path.split("/")[0]!))];
  }

  /** Starts a worker ahead of the first run (e.g. while the user types). */
  async warm(): Promise<void> {
    if (this.slots.length === 0) await this.startSlot().ready;
  }

  async run(input: RunInput, controls: RunControls): Promise<RunOutcome> {
    await this.packagesReady();
    const slot = await this.acquire();
    slot.handle.keepAlive?.(true);
    try {
      return await this.runOn(slot, input, controls);
    } finally {
      slot.busy = false;
      slot.handle.keepAlive?.(false);
      // Keep one idle worker; more were only for runs at the same time.
      const idle = this.slots.filter((other) => !other.busy);
      if (idle.length > 1 && this.waiting.length === 0) this.drop(slot);
      this.waiting.shift()?.();
    }
  }

  dispose(): void {
    for (const slot of [...this.slots]) this.drop(slot);
  }

  private async acquire(): Promise<Slot> {
    for (;;) {
      const idle = this.slots.find((slot) => !slot.busy);
      if (idle) {
        idle.busy = true;
        try {
          await idle.ready;
        } catch (error) {
          this.drop(idle);
          throw error;
        }
        return idle;
      }
      if (this.slots.length < MAX_WORKERS) {
        this.startSlot();
        continue;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private startSlot(): Slot {
    const handle = this.platform.spawn();
    const shared = typeof SharedArrayBuffer === "function" && globalThis.crossOriginIsolated !== false;
    const buffer = shared ? new SharedArrayBuffer(4) : null;
    const slot: Slot = {
      handle,
      ready: Promise.resolve(),
      interrupt: buffer ? new Int32Array(buffer) : null,
      busy: false,
      packagesVersion: 0,
      current: null,
      fail: null,
    };
    slot.ready = new Promise<void>((resolve, reject) => {
      slot.current = (message) => {
        if (message.type === "ready") resolve();
        else if (message.type === "error") reject(new Error(message.message));
      };
      slot.fail = reject;
    });
    handle.onMessage((message) => slot.current?.(message));
    handle.onError((error) => {
      this.drop(slot);
      slot.fail?.(error);
    });
    this.assets ??= this.platform.loadAssets().catch((error) => {
      this.assets = null;
      throw error;
    });
    this.assets.then(
      (assets) => handle.post({ type: "init", assets, interrupt: buffer }),
      (error) => slot.fail?.(error),
    );
    this.slots.push(slot);
    return slot;
  }

  private drop(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    slot.handle.terminate();
  }

  private runOn(slot: Slot, input: RunInput, controls: RunControls): Promise<RunOutcome> {
    if (slot.packagesVersion !== this.packagesVersion) {
      slot.handle.post({ type: "packages", files: this.packages });
      slot.packagesVersion = this.packagesVersion;
    }
    const id = this.nextId++;
    const ended = new AbortController();
    const liveBuffer = controls.input && slot.interrupt ? createLiveStdinBuffer() : null;
    const live =
      controls.input && liveBuffer
        ? new LiveStdinHost(liveBuffer, () =>
            controls.input!(AbortSignal.any([ended.signal, ...(controls.signal ? [controls.signal] : [])])),
          )
        : null;
    return new Promise<RunOutcome>((resolve) => {
      let settled = false;
      let stopRequested: "deadline" | "interrupt" | undefined;
      let killTimer: ReturnType<typeof setTimeout> | undefined;
      const finish = (outcome: RunOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadlineTimer);
        clearTimeout(killTimer);
        controls.signal?.removeEventListener("abort", onAbort);
        slot.current = null;
        slot.fail = null;
        ended.abort();
        const unread = live?.unread();
        if (unread) controls.unread?.(unread);
        resolve(outcome);
      };
      const kill = () => {
        this.drop(slot);
        finish({
          exitCode: stopRequested === "deadline" ? 124 : 130,
          changes: [],
          stopped: stopRequested ?? "interrupt",
          killed: true,
        });
      };
      const stop = (why: "deadline" | "interrupt") => {
        if (settled || stopRequested) return;
        stopRequested = why;
        if (slot.interrupt && why === "interrupt") {
          Atomics.store(slot.interrupt, 0, 2);
          // A sleeping program waits on this cell (engine.ts's sleepClock): it wakes now.
          Atomics.notify(slot.interrupt, 0);
        }
        // A read blocked on what is typed wakes to see it (the deadline it sees by itself).
        live?.wake();
        // Without shared memory the program cannot be asked; with it, it gets a moment to unwind.
        killTimer = setTimeout(kill, slot.interrupt ? STOP_GRACE_MS : 0);
      };
      const onAbort = () => stop("interrupt");
      // The worker raises KeyboardInterrupt itself at the deadline; this is the backstop.
      // A session's program may wait for a person with no deadline at all (Infinity).
      const deadlineTimer = Number.isFinite(input.deadline)
        ? setTimeout(() => stop("deadline"), Math.max(0, input.deadline - Date.now()))
        : undefined;
      slot.current = (message) => {
        if (message.type === "output" && message.id === id) controls.output(message.fd, message.data);
        else if (message.type === "stdin" && message.id === id) void live?.requested();
        else if (message.type === "done" && message.id === id) {
          const { type: _type, id: _id, ...rest } = message;
          finish(rest);
        } else if (message.type === "error") {
          this.drop(slot);
          finish({ exitCode: 1, changes: [], crash: message.message });
        }
      };
      slot.fail = (error) => finish({ exitCode: 1, changes: [], crash: error.message });
      controls.signal?.addEventListener("abort", onAbort, { once: true });
      const buffers = new Set<ArrayBuffer>();
      for (const entry of input.tree)
        if (entry.kind === "file") buffers.add(entry.data.buffer as ArrayBuffer);
      const request = controls.input ? { ...input, liveStdin: liveBuffer } : input;
      slot.handle.post({ type: "run", id, ...request }, [...buffers]);
      if (controls.signal?.aborted) onAbort();
    });
  }
}
