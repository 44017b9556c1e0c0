/**
 * Stopping a call: one mechanism for the browser's runtime worker and Node's worker_threads.
 *
 * A busy synchronous loop (a bash `while true`, an awk program, a regex, QuickJS running a guest)
 * never returns to the event loop, so it never sees an AbortSignal's event or a message. A stop
 * request therefore travels through shared memory: the thread that asks for work (the page, the
 * CLI's main thread) writes into a SharedArrayBuffer, and the signal the running code holds reads
 * it synchronously whenever `aborted` is read (just-bash's throwIfAborted, QuickJS's interrupt
 * handler, a tool's poll every ~1,000 iterations). The first read that sees the request aborts the
 * signal for real, so every listener and every signal derived from it follows at once; code that
 * is waiting (sleep, a read of stdin) is woken by Atomics.waitAsync on the same memory.
 *
 * The board is a row of channels. Each channel runs one job at a time (the runtime's calls, one
 * terminal's command lines) and holds three cells: the job running now, the job to stop, and the
 * last job number handed out. A stop names a job, so a late request never stops the next one.
 */

/**
 * Where a board's stop for one job lives: enough for another thread to watch the same job
 * (a SharedArrayBuffer crosses postMessage shared, not copied).
 */
export interface StopAddress {
  buffer: SharedArrayBuffer;
  channel: number;
  job: number;
}

/** The shared-memory address each board signal answers to, for passing a stop across threads. */
const addresses = new WeakMap<AbortSignal, StopAddress>();

/** Where `signal`'s stop lives, when it reads shared memory (a board signal, or one derived from it). */
export function stopAddress(signal: AbortSignal | undefined): StopAddress | undefined {
  return signal ? addresses.get(signal) : undefined;
}

/** Boards seen from this thread, one per buffer, so every signal on a buffer shares its waits. */
const attached = new WeakMap<SharedArrayBuffer, StopBoard>();

/** Why work was stopped: someone asked (Ctrl-C, Cancel, a client's cancel), or its deadline passed. */
export type StopReason = "interrupt" | "deadline";

/** The exit status a shell gives a command stopped for each reason (SIGINT's 128 + 2, timeout's 124). */
export const STOP_EXIT_CODES: Record<StopReason, number> = { interrupt: 130, deadline: 124 };

/** Where a channel's cells are: channel * cellsPerChannel + running | stop | lastJob (Int32 cells). */
export const STOP_CELL_LAYOUT = { cellsPerChannel: 3, running: 0, stop: 1, lastJob: 2 } as const;
const CELLS_PER_CHANNEL = STOP_CELL_LAYOUT.cellsPerChannel;
const RUNNING = STOP_CELL_LAYOUT.running;
const STOP = STOP_CELL_LAYOUT.stop;
const LAST_JOB = STOP_CELL_LAYOUT.lastJob;
/** Channel 0 is the runtime's calls; the rest are handed out to sessions (terminals, PTYs). */
export const CALLS_CHANNEL = 0;
const DEFAULT_CHANNELS = 64;

// Captured when the module loads: just-bash's defense-in-depth hides these globals while a script
// runs, and the signal is read from inside running scripts.
const SharedArrayBufferCtor: typeof SharedArrayBuffer | undefined =
  typeof SharedArrayBuffer === "function" ? SharedArrayBuffer : undefined;
const atomics: typeof Atomics = Atomics;
const atomicLoad = atomics.load.bind(atomics) as (array: Int32Array, index: number) => number;
const atomicStore = atomics.store.bind(atomics) as (
  array: Int32Array,
  index: number,
  value: number,
) => number;
const atomicAdd = atomics.add.bind(atomics) as (array: Int32Array, index: number, value: number) => number;
const atomicNotify = atomics.notify.bind(atomics) as (array: Int32Array, index: number) => number;
const waitAsync = (
  atomics as unknown as {
    waitAsync?: (
      array: Int32Array,
      index: number,
      value: number,
    ) => { async: boolean; value: Promise<string> | string };
  }
).waitAsync?.bind(atomics);
const nativeAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, "aborted")!.get!;
const now = Date.now.bind(Date);

/** A stop that arrives while nothing is reading the flag is noticed within this long anyway. */
const POLL_WITHOUT_WAIT_ASYNC_MS = 50;

/** What running code holds: a real AbortSignal whose `aborted` also reads shared memory and the clock. */
export interface StopHandle {
  readonly signal: AbortSignal;
  /** Stops the timers and waits behind the signal; call when the job is over. */
  dispose(): void;
}

export interface SignalOptions {
  /** Epoch ms past which the signal is aborted with reason "deadline". */
  deadlineAt?: number | undefined;
  /**
   * Aborted with reason "deadline" once this thread has run none of its timers for this long: the
   * job holds the thread in a loop that never yields, so no message (Ctrl-C, a write) can reach it.
   * For work with no deadline of its own (a session's command) on a thread nobody else can stop.
   */
  stallMs?: number | undefined;
  /** Signals whose abort (for their own reason) aborts this one too. */
  parents?: readonly (AbortSignal | undefined)[];
}

/**
 * Shared memory of stop requests. The side that asks for work creates it (`StopBoard.create()`)
 * and hands `buffer` to the side that runs the work (`StopBoard.attach(buffer)`); both then name
 * channels and jobs. Without SharedArrayBuffer (a page that is not cross-origin isolated) the
 * board is private to one thread: stops still work, but only once the running code yields.
 */
export class StopBoard {
  readonly buffer: SharedArrayBuffer | ArrayBuffer;
  /** True when the buffer is shared memory, so a stop reaches a busy loop on another thread. */
  readonly shared: boolean;
  private readonly cells: Int32Array;
  private readonly channels: number;
  private readonly taken = new Set<number>([CALLS_CHANNEL]);
  private readonly watchers = new Map<number, Set<() => void>>();
  private readonly armed = new Set<number>();
  private readonly pollers = new Map<number, ReturnType<typeof setInterval>>();

  private constructor(buffer: SharedArrayBuffer | ArrayBuffer) {
    this.buffer = buffer;
    this.shared = SharedArrayBufferCtor !== undefined && buffer instanceof SharedArrayBufferCtor;
    this.cells = new Int32Array(buffer);
    this.channels = Math.floor(this.cells.length / CELLS_PER_CHANNEL);
  }

  /** A fresh board, in shared memory when this thread can make some. */
  static create(channels = DEFAULT_CHANNELS): StopBoard {
    const bytes = channels * CELLS_PER_CHANNEL * Int32Array.BYTES_PER_ELEMENT;
    return new StopBoard(SharedArrayBufferCtor ? new SharedArrayBufferCtor(bytes) : new ArrayBuffer(bytes));
  }

  /** The same board seen from another thread (the buffer came through postMessage or workerData). */
  static attach(buffer: SharedArrayBuffer | ArrayBuffer): StopBoard {
    if (!(SharedArrayBufferCtor && buffer instanceof SharedArrayBufferCtor)) return new StopBoard(buffer);
    let board = attached.get(buffer);
    if (!board) {
      board = new StopBoard(buffer);
      attached.set(buffer, board);
    }
    return board;
  }

  /** A channel of its own for a session (a terminal, a PTY); undefined when all are taken. */
  openChannel(): number | undefined {
    for (let channel = 1; channel < this.channels; channel++) {
      if (this.taken.has(channel)) continue;
      this.taken.add(channel);
      return channel;
    }
    return undefined;
  }

  closeChannel(channel: number): void {
    if (channel !== CALLS_CHANNEL) this.taken.delete(channel);
  }

  /** A new job number on a channel, unique for the board's lifetime (positive, increasing). */
  nextJob(channel: number): number {
    return atomicAdd(this.cells, this.index(channel, LAST_JOB), 1) + 1;
  }

  /** Marks `job` as the one running now on `channel` (what stopRunning stops). */
  begin(channel: number, job: number): void {
    atomicStore(this.cells, this.index(channel, RUNNING), job);
  }

  /** The job running on `channel`, 0 when none has begun. */
  running(channel: number): number {
    return atomicLoad(this.cells, this.index(channel, RUNNING));
  }

  /** Asks for `job` on `channel` to stop: it sees the request on its next read of `aborted`. */
  stop(channel: number, job: number): void {
    const index = this.index(channel, STOP);
    atomicStore(this.cells, index, job);
    if (this.shared) atomicNotify(this.cells, index);
    else for (const listener of [...(this.watchers.get(index) ?? [])]) listener();
  }

  /** Stops whatever runs on `channel` now (Ctrl-C: the foreground command, whichever it is). */
  stopRunning(channel: number): void {
    const job = this.running(channel);
    if (job !== 0) this.stop(channel, job);
  }

  /** Whether a stop was asked for `job` on `channel`. */
  stopped(channel: number, job: number): boolean {
    return atomicLoad(this.cells, this.index(channel, STOP)) === job;
  }

  /** The signal `job` runs under: aborted once a stop names it, its deadline passes, or its parent aborts. */
  signal(channel: number, job: number, options: SignalOptions = {}): StopHandle {
    const index = this.index(channel, STOP);
    const cells = this.cells;
    const handle = stopHandle(
      () => atomicLoad(cells, index) === job,
      options,
      (wake) => this.watch(index, wake),
    );
    if (this.shared) addresses.set(handle.signal, { buffer: this.buffer as SharedArrayBuffer, channel, job });
    return handle;
  }

  /** One wait per stop cell, shared by every signal on it: waiters hear of a stop without polling. */
  private watch(index: number, wake: () => void): () => void {
    let listeners = this.watchers.get(index);
    if (!listeners) {
      listeners = new Set();
      this.watchers.set(index, listeners);
    }
    listeners.add(wake);
    const set = listeners;
    if (!this.shared) {
      // Private memory: only this thread can write it, and stop() wakes the listeners itself.
    } else if (waitAsync) {
      if (!this.armed.has(index)) this.arm(index, set);
    } else if (!this.pollers.has(index)) {
      const poller = setInterval(() => {
        for (const listener of set) listener();
        if (set.size === 0) {
          clearInterval(poller);
          this.pollers.delete(index);
        }
      }, POLL_WITHOUT_WAIT_ASYNC_MS);
      unref(poller);
      this.pollers.set(index, poller);
    }
    return () => set.delete(wake);
  }

  private arm(index: number, listeners: Set<() => void>): void {
    if (listeners.size === 0) {
      this.armed.delete(index);
      return;
    }
    this.armed.add(index);
    const result = waitAsync!(this.cells, index, atomicLoad(this.cells, index));
    const next = () => {
      for (const listener of [...listeners]) listener();
      this.arm(index, listeners);
    };
    if (result.async) void (result.value as Promise<string>).then(next);
    else queueMicrotask(next);
  }

  private index(channel: number, cell: number): number {
    if (!Number.isInteger(channel) || channel < 0 || channel >= this.channels) {
      throw new RangeError(`stop channel ${channel} is not on this board (0–${this.channels - 1})`);
    }
    return channel * CELLS_PER_CHANNEL + cell;
  }
}

/** A signal aborted only by its deadline or its parent: for work nobody else can stop. */
export function deadlineSignal(options: SignalOptions): StopHandle {
  return stopHandle(() => false, options, undefined);
}

/** Why a signal from this module was aborted; undefined while it runs (or for a foreign signal's reason). */
export function stopReason(signal: AbortSignal | undefined): StopReason | undefined {
  if (!signal?.aborted) return undefined;
  const reason = signal.reason as { name?: unknown } | undefined;
  if (reason?.name === "TimeoutError") return "deadline";
  return "interrupt";
}

function abortError(reason: StopReason): Error {
  const message = reason === "deadline" ? "The deadline passed." : "Stopped on request.";
  const name = reason === "deadline" ? "TimeoutError" : "AbortError";
  if (typeof DOMException === "function") return new DOMException(message, name);
  const error = new Error(message);
  error.name = name;
  return error;
}

/** When this thread last ran a timer (see SignalOptions.stallMs); a beat every 250 ms while any stall watch is on. */
let lastBeat = now();
let beating: ReturnType<typeof setInterval> | undefined;
let stallWatches = 0;
const BEAT_MS = 250;

function watchStalls(): () => void {
  stallWatches++;
  if (beating === undefined) {
    lastBeat = now();
    beating = setInterval(() => {
      lastBeat = now();
    }, BEAT_MS);
    unref(beating);
  }
  return () => {
    if (--stallWatches > 0 || beating === undefined) return;
    clearInterval(beating);
    beating = undefined;
  };
}

function stopHandle(
  requested: () => boolean,
  options: SignalOptions,
  watch: ((wake: () => void) => () => void) | undefined,
): StopHandle {
  const controller = new AbortController();
  const signal = controller.signal;
  const deadlineAt = options.deadlineAt;
  const stallMs = options.stallMs;
  const parents = (options.parents ?? []).filter((parent): parent is AbortSignal => parent !== undefined);
  const check = (): StopReason | undefined => {
    if (requested()) return "interrupt";
    for (const parent of parents) if (parent.aborted) return stopReason(parent) ?? "interrupt";
    if (deadlineAt !== undefined && now() >= deadlineAt) return "deadline";
    if (stallMs !== undefined && now() - lastBeat > stallMs + BEAT_MS) return "deadline";
    return undefined;
  };
  Object.defineProperty(signal, "aborted", {
    configurable: true,
    enumerable: true,
    get(): boolean {
      if (nativeAborted.call(signal)) return true;
      const reason = check();
      if (reason === undefined) return false;
      // Aborting here fires every listener now, so signals derived from this one (just-bash's
      // per-command signals) turn aborted within the same synchronous read.
      controller.abort(abortError(reason));
      return true;
    },
  });
  Object.defineProperty(signal, "throwIfAborted", {
    configurable: true,
    value(): void {
      if (signal.aborted) throw signal.reason;
    },
  });

  // Waiters (sleep, a read of stdin) hear of a stop without reading `aborted` themselves.
  let disposed = false;
  const settle = () => {
    if (!disposed) void signal.aborted;
  };
  const timer = deadlineAt === undefined ? undefined : setTimeout(settle, Math.max(0, deadlineAt - now()));
  unref(timer);
  for (const parent of parents) parent.addEventListener("abort", settle, { once: true });
  const unwatch = watch?.(settle);
  const unwatchStalls = stallMs === undefined ? undefined : watchStalls();
  const dispose = () => {
    if (!disposed) unwatchStalls?.();
    disposed = true;
    clearTimeout(timer);
    for (const parent of parents) parent.removeEventListener("abort", settle);
    unwatch?.();
  };
  signal.addEventListener("abort", dispose, { once: true });
  const inherited = parents.map((parent) => addresses.get(parent)).find((address) => address !== undefined);
  if (inherited) addresses.set(signal, inherited);
  settle();
  return { signal, dispose };
}

/** Node's timers would keep a finished CLI alive; browsers have no unref. */
function unref(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}
