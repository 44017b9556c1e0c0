import { constants } from "node:os";

/**
 * How a batch or MCP run ends when asked to from outside: on SIGTERM, SIGINT or SIGHUP (an MCP
 * client's shutdown sends SIGTERM two seconds after closing stdin; Ctrl-C; a closed terminal) or
 * when the reader of stdout goes away, the run stops reading calls, lets the running call finish
 * within a short grace or stops it and undoes what it did, writes back what the answered calls did,
 * says so on stderr and exits with 128 + the signal's number.
 */

export const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
/** How long a running call is given to finish once a stop is asked (a second signal cuts it short). */
export const GRACE_MS = 500;
/** The reason given when the reader of stdout went away (EPIPE): a quiet end, as Unix tools do. */
export const STDOUT_CLOSED = "stdout closed";
/** What `until` answers when the run was asked to stop first. */
export const STOPPED: unique symbol = Symbol("stopped");

/** The run being served now: where main's EPIPE handler sends its stop. */
let current: RunEnd | null = null;

export function currentRunEnd(): RunEnd | null {
  return current;
}

export class RunEnd {
  /** Why the run is stopping: a signal's name, "stdout closed", or null while it runs. */
  reason: string | null = null;
  private readonly stopping = new AbortController();
  private readonly hurrying = new AbortController();
  private readonly handlers = new Map<string, () => void>();
  private writingBack = false;

  constructor(private readonly warn: (message: string) => void) {
    for (const name of STOP_SIGNALS) {
      const handler = () => this.stop(name);
      this.handlers.set(name, handler);
      process.on(name, handler);
    }
    current = this;
  }

  /** Asks the run to stop; a second ask while a call is in its grace stops that call at once. */
  stop(reason: string): void {
    if (this.writingBack)
      this.warn(`${reason}: still writing back; each file is written whole, so this ends soon`);
    if (this.reason !== null) {
      this.hurrying.abort();
      return;
    }
    this.reason = reason;
    this.stopping.abort();
  }

  get stopped(): boolean {
    return this.reason !== null;
  }

  /** `work`'s result, or STOPPED as soon as the run is asked to stop (work keeps going). */
  until<T>(work: Promise<T>): Promise<T | typeof STOPPED> {
    if (this.stopping.signal.aborted) return Promise.resolve(STOPPED);
    return new Promise((resolve, reject) => {
      const onStop = () => resolve(STOPPED);
      this.stopping.signal.addEventListener("abort", onStop, { once: true });
      work.then(resolve, reject).finally(() => this.stopping.signal.removeEventListener("abort", onStop));
    });
  }

  /** Gives `work` the grace period to finish (cut short by a second signal); true if it did. */
  async grace(work: Promise<unknown>, ms = GRACE_MS): Promise<boolean> {
    let done = false;
    const finished = work.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      this.hurrying.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await Promise.race([finished, waited]);
    clearTimeout(timer);
    return done;
  }

  /** Write-back is under way (or over): a signal meanwhile is said (each file is written whole anyway). */
  writing(on = true): void {
    this.writingBack = on;
  }

  /** The exit code a shell expects after this signal (128 + its number); 0 when none came. */
  exitCode(): number {
    if (this.reason === null || this.reason === STDOUT_CLOSED) return 0;
    const number = constants.signals[this.reason as NodeJS.Signals];
    return number === undefined ? 1 : 128 + number;
  }

  dispose(): void {
    for (const [name, handler] of this.handlers) process.off(name, handler);
    if (current === this) current = null;
  }
}
