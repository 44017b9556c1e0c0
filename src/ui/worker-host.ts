import { proxy, type Remote, wrap } from "comlink";
import type { ToolEvent } from "../core/events.ts";
import type { ApprovalDecision, ApprovalRequest, CallOutcome } from "../core/runtime.ts";
import type { SandboxPort } from "../sandbox/port.ts";
import { CALLS_CHANNEL, StopBoard } from "../sandbox/stop-signal.ts";
import type {
  AgentPaneUpdate,
  BootOptions,
  BootResult,
  CallRequest,
  WatchNotice,
  WorkerApi,
} from "../worker/api.ts";

/** The runtime's own grace past a tool's deadline (Runtime's default deadlineGraceMs). */
const RUNTIME_GRACE_MS = 1000;
/** Ours on top: the runtime gets its chance to answer with its own timeout first. */
export const WATCHDOG_GRACE_MS = 2000;
const HEARTBEAT_EVERY_MS = 5000;
const HEARTBEAT_TIMEOUT_MS = 20_000;

export interface Restart {
  reason: string;
  boot: BootResult;
}

interface InFlight {
  profile: string;
  request: CallRequest & { request_id: string };
  startedAt: string;
  resolve(outcome: CallOutcome): void;
  reject(error: Error): void;
  timer?: ReturnType<typeof setTimeout>;
  /** Armed: the tool is running against its deadline (not queued, not waiting for approval). */
  running: boolean;
  cutOff: boolean;
  /** Made in the worker, not through call(): nobody here waits for its outcome. */
  foreign?: boolean;
  /** The stop-board job its tool runs as, once it started: what Cancel stops. */
  job?: number;
}

export class WorkerRestartedError extends Error {
  constructor(reason: string) {
    super(
      `The worker was restarted (${reason}). The workspace is as it was after the last completed call; try again.`,
    );
    this.name = "WorkerRestartedError";
  }
}

/**
 * The main thread's side of the worker, and its watchdog. A JavaScript thread cannot interrupt
 * itself: when a call runs past its deadline plus grace, or the worker stops answering pings, the
 * worker is terminated and a new one boots from the last stored state. The cut-off call gets the
 * timeout envelope of its dialect; other pending requests fail with WorkerRestartedError.
 */
export class WorkerHost {
  private worker!: Worker;
  private remote!: Remote<WorkerApi>;
  private guarded!: Remote<WorkerApi>;
  private abortGeneration: (error: Error) => void = () => undefined;
  private bootOptions: BootOptions | undefined;
  private port: SandboxPort | undefined;
  private readonly inflight = new Map<string, InFlight>();
  private readonly eventListeners = new Set<(event: ToolEvent) => void>();
  private readonly restartListeners = new Set<(restart: Restart) => void>();
  private readonly agentListeners = new Set<(update: AgentPaneUpdate) => void>();
  private prompt: ((request: ApprovalRequest) => Promise<ApprovalDecision>) | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private restarting: Promise<BootResult> | undefined;
  private nextRequest = 1;
  /**
   * Shared with every worker this host starts: Cancel and a terminal's Ctrl-C are written here and
   * seen by the running code at its next poll, even when a busy loop keeps the worker from messages.
   */
  readonly stops = StopBoard.create();
  restarts = 0;

  constructor(private readonly createWorker: () => Worker) {
    this.spawn();
  }

  /** The worker API; calls made while the worker is restarted fail instead of hanging. */
  get api(): Remote<WorkerApi> {
    return this.guarded;
  }

  onEvent(listener: (event: ToolEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Updates of the agent's runs (text as it streams, calls, the end); kept across worker restarts. */
  onAgentUpdate(listener: (update: AgentPaneUpdate) => void): () => void {
    this.agentListeners.add(listener);
    return () => this.agentListeners.delete(listener);
  }

  onRestart(listener: (restart: Restart) => void): () => void {
    this.restartListeners.add(listener);
    return () => this.restartListeners.delete(listener);
  }

  async setApprovalPrompt(prompt: (request: ApprovalRequest) => Promise<ApprovalDecision>): Promise<void> {
    this.prompt = prompt;
    await this.remote.approvals.setPrompt(proxy(prompt));
  }

  /** `port`: a sandbox on this thread (comlink.proxy of sandboxPort(...)) that the worker should use. */
  async boot(options: BootOptions, port?: SandboxPort): Promise<BootResult> {
    this.bootOptions = options;
    this.port = port;
    return this.connect(options);
  }

  /** A tool call under the watchdog. */
  /** A request id for a call made from the page. */
  newRequestId(): string {
    return `ui-${Date.now().toString(36)}-${this.nextRequest++}`;
  }

  call(profile: string, request: CallRequest): Promise<CallOutcome> {
    const requestId = request.request_id ?? this.newRequestId();
    const full = { ...request, request_id: requestId };
    return new Promise<CallOutcome>((resolve, reject) => {
      const entry: InFlight = {
        profile,
        request: full,
        startedAt: new Date().toISOString(),
        resolve,
        reject,
        running: false,
        cutOff: false,
      };
      this.inflight.set(requestId, entry);
      this.guarded.call(profile, full).then(
        (outcome) => {
          this.settle(entry);
          resolve(outcome);
        },
        (error: unknown) => {
          if (entry.cutOff) return;
          this.settle(entry);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /**
   * Stops a call made through call() or by the agent: its running tool at once through shared
   * memory (busy loops included), and a queued one or one waiting for approval by message. The
   * call still settles, with the dialect's cancelled envelope and the output printed so far.
   */
  cancel(requestId: string): void {
    const entry = this.inflight.get(requestId);
    if (entry?.job !== undefined) this.stops.stop(CALLS_CHANNEL, entry.job);
    void this.guarded.cancel(requestId).catch(() => undefined);
  }

  /** Stops whatever call is running now (the agent's Stop: its current tool call). */
  cancelRunning(): void {
    for (const entry of this.inflight.values()) if (entry.running) this.cancel(entry.request.request_id);
  }

  /** Ctrl-C for a terminal: stops its foreground command through shared memory (see api.terminal.channel). */
  interruptTerminal(channel: number): void {
    this.stops.stopRunning(channel);
  }

  /** Stops the worker for good (page unload, tests). */
  dispose(): void {
    clearInterval(this.heartbeat);
    this.worker.terminate();
  }

  private spawn(): void {
    this.worker = this.createWorker();
    this.remote = wrap<WorkerApi>(this.worker);
    const aborted = new Promise<never>((_, reject) => {
      this.abortGeneration = reject;
    });
    aborted.catch(() => undefined);
    this.guarded = guard(this.remote, aborted);
  }

  private async connect(options: BootOptions): Promise<BootResult> {
    const api = this.remote;
    await api.subscribe(proxy((event: ToolEvent) => this.emit(event)));
    await api.watch(proxy((notice: WatchNotice) => this.onWatch(notice)));
    await api.agent.subscribe(
      proxy((update: AgentPaneUpdate) => {
        for (const listener of this.agentListeners) listener(update);
      }),
    );
    if (this.prompt) await api.approvals.setPrompt(proxy(this.prompt));
    // The port is a comlink proxy: it must travel as a top-level argument.
    const withStops =
      this.stops.shared && !options.stops
        ? { ...options, stops: this.stops.buffer as SharedArrayBuffer }
        : options;
    const result = await api.boot(withStops, this.port as unknown as Remote<SandboxPort> | undefined);
    this.startHeartbeat();
    return result;
  }

  private emit(event: ToolEvent): void {
    for (const listener of this.eventListeners) listener(event);
  }

  private onWatch(notice: WatchNotice): void {
    let entry = this.inflight.get(notice.requestId);
    if (!entry && notice.state === "running" && notice.call) entry = this.adopt(notice.call);
    if (!entry) return;
    if (notice.state === "done" && entry.foreign) {
      this.settle(entry);
      return;
    }
    clearTimeout(entry.timer);
    entry.running = notice.state === "running";
    if (notice.state !== "running") return;
    if (notice.job !== undefined) entry.job = notice.job;
    const limit = notice.deadlineMs + RUNTIME_GRACE_MS + WATCHDOG_GRACE_MS;
    entry.timer = setTimeout(() => void this.cutOff(entry, notice.deadlineMs), limit);
  }

  private async cutOff(entry: InFlight, deadlineMs: number): Promise<void> {
    if (entry.cutOff || !this.inflight.has(entry.request.request_id)) return;
    entry.cutOff = true;
    const seconds = (deadlineMs / 1000).toFixed(deadlineMs % 1000 === 0 ? 0 : 1);
    try {
      const boot = await this.restart(`${entry.request.tool} ran past its ${seconds} s deadline`, {
        profile: entry.profile,
        request: entry.request,
        deadlineMs,
        startedAt: entry.startedAt,
      });
      this.settle(entry);
      if (boot.interrupted) entry.resolve(boot.interrupted);
      else entry.reject(new WorkerRestartedError("a call ran past its deadline"));
    } catch (error) {
      this.settle(entry);
      entry.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private restart(reason: string, interrupted?: BootOptions["interrupted"]): Promise<BootResult> {
    if (this.restarting) return this.restarting;
    this.restarting = (async () => {
      clearInterval(this.heartbeat);
      this.worker.terminate();
      this.restarts++;
      this.abortGeneration(new WorkerRestartedError(reason));
      for (const entry of this.inflight.values()) {
        if (entry.cutOff) continue;
        clearTimeout(entry.timer);
        this.inflight.delete(entry.request.request_id);
        entry.reject(new WorkerRestartedError(reason));
      }
      this.spawn();
      if (!this.bootOptions) throw new Error("The worker was never booted.");
      const boot = await this.connect({ ...this.bootOptions, ...(interrupted ? { interrupted } : {}) });
      for (const listener of this.restartListeners) listener({ reason, boot });
      return boot;
    })();
    return this.restarting.finally(() => {
      this.restarting = undefined;
    });
  }

  /**
   * A call made inside the worker (by the agent or a replay) is watched like the page's own: past its
   * deadline the worker restarts and the call is recorded with its timeout envelope.
   */
  private adopt(call: NonNullable<Extract<WatchNotice, { state: "running" }>["call"]>): InFlight {
    const requestId = call.request.request_id ?? `worker-${this.nextRequest++}`;
    const entry: InFlight = {
      profile: call.profile,
      request: { ...call.request, request_id: requestId },
      startedAt: call.startedAt,
      resolve: () => undefined,
      reject: () => undefined,
      running: false,
      cutOff: false,
      foreign: true,
    };
    this.inflight.set(requestId, entry);
    return entry;
  }

  private settle(entry: InFlight): void {
    clearTimeout(entry.timer);
    this.inflight.delete(entry.request.request_id);
  }

  /** A worker stuck outside any call (a runaway terminal command) stops answering pings. */
  private startHeartbeat(): void {
    clearInterval(this.heartbeat);
    let pinging = false;
    this.heartbeat = setInterval(() => {
      if (pinging) return;
      pinging = true;
      const remote = this.remote;
      const timer = setTimeout(() => {
        // A call running against its deadline is the watchdog's business, not the heartbeat's.
        const callRunning = [...this.inflight.values()].some((entry) => entry.running);
        if (!callRunning && remote === this.remote) {
          void this.restart(`the worker did not answer for ${HEARTBEAT_TIMEOUT_MS / 1000} s`).catch(
            () => undefined,
          );
        }
      }, HEARTBEAT_TIMEOUT_MS);
      remote
        .ping()
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(timer);
          pinging = false;
        });
    }, HEARTBEAT_EVERY_MS);
  }
}

/** Wraps a comlink remote so that every call also fails when `aborted` rejects (the worker was replaced). */
function guard<T>(target: T, aborted: Promise<never>): T {
  return new Proxy(() => undefined, {
    get(_, property) {
      if (property === "then") return undefined;
      return guard((target as Record<string | symbol, unknown>)[property], aborted);
    },
    apply(_, __, args: unknown[]) {
      return Promise.race([(target as (...values: unknown[]) => Promise<unknown>)(...args), aborted]);
    },
  }) as T;
}
