/**
 * A session's terminal as the stdin of a Python program, read as it is typed. CPython reads stdin
 * synchronously (a `read` syscall inside WebAssembly), so the Python worker blocks on shared memory
 * while the runtime's thread, which is never blocked, waits for what is typed and hands it over:
 *
 * - the worker's stdin device, out of bytes, posts a "stdin" message and Atomics.waits on SEQ;
 * - the host takes the next chunk typed (a line, what Ctrl-D sent, or end of input), copies it into
 *   the buffer, sets STATE and bumps SEQ; a stop request (Ctrl-C, Cancel) bumps SEQ too, so a read
 *   blocked on input wakes, fails with EINTR, and CPython raises KeyboardInterrupt;
 * - a chunk longer than the buffer goes over in several reads, as a long line does through a pipe.
 */

/** Int32 cells: SEQ is bumped on every event (so a wait never misses one), STATE says what is there. */
const SEQ = 0;
const STATE = 1;
const LENGTH = 2;
const HEADER_BYTES = 16;
/** The most one hand-over carries; a longer chunk takes several reads. */
export const LIVE_STDIN_CHUNK = 64 * 1024;

const EMPTY = 0;
const DATA = 1;
const END = 2;

/** Emscripten's (WASI's) errno for an interrupted call: CPython then checks for signals. */
export const EINTR = 27;
/** Emscripten's (WASI's) errno for an I/O error: a terminal this host cannot read. */
export const EIO = 29;

export function createLiveStdinBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + LIVE_STDIN_CHUNK);
}

/** The host's end: answers the worker's requests with what is typed, and wakes it on a stop. */
export class LiveStdinHost {
  private readonly cells: Int32Array;
  private readonly bytes: Uint8Array;
  /** What was typed and not yet handed over (the rest of a chunk longer than the buffer). */
  private rest: Uint8Array | null = null;
  private pumping = false;

  constructor(
    buffer: SharedArrayBuffer,
    /** The next chunk typed; null at end of input (Ctrl-D), undefined when the run stopped first. */
    private readonly next: () => Promise<Uint8Array | null | undefined>,
  ) {
    this.cells = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  /** The worker asked for input (it posts once per read that found nothing buffered). */
  async requested(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      let chunk: Uint8Array | null | undefined = this.rest;
      this.rest = null;
      if (!chunk) chunk = await this.next();
      if (chunk === undefined) return;
      if (chunk === null) {
        Atomics.store(this.cells, STATE, END);
      } else {
        const count = Math.min(chunk.length, LIVE_STDIN_CHUNK);
        this.bytes.set(chunk.subarray(0, count));
        if (count < chunk.length) this.rest = chunk.slice(count);
        Atomics.store(this.cells, LENGTH, count);
        Atomics.store(this.cells, STATE, DATA);
      }
      this.wake();
    } finally {
      this.pumping = false;
    }
  }

  /** Wakes a read blocked on input, to see a stop request. */
  wake(): void {
    Atomics.add(this.cells, SEQ, 1);
    Atomics.notify(this.cells, SEQ);
  }

  /** What was handed over to no read when the run ended (the rest of a long chunk). */
  unread(): Uint8Array | null {
    return this.rest;
  }
}

export interface LiveStdinReaderOptions {
  /** Tells the host this read needs input (a message to the runtime's thread). */
  request(): void;
  /** True when a stop request or the deadline is due: the read fails with EINTR so CPython sees it. */
  stopPending(): boolean;
  /** Epoch ms at which a blocked read wakes to let the deadline interrupt it. */
  deadline: number;
}

/** The worker's end: a blocking `read` for Emscripten's stdin device. */
export class LiveStdinReader {
  private readonly cells: Int32Array;
  private readonly bytes: Uint8Array;
  private held = new Uint8Array(0);
  private heldOffset = 0;
  private asked = false;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly options: LiveStdinReaderOptions,
  ) {
    this.cells = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  /** Copies up to `length` typed bytes into `buffer`; 0 at end of input; throws EINTR on a stop. */
  read(buffer: Uint8Array, offset: number, length: number): number {
    // read(2) of nothing answers at once: musl's stdio asks for 0 bytes first, and after end of
    // input that must not wait for more (a bare `python3` never ran its program after Ctrl-D).
    if (length === 0) return 0;
    if (this.heldOffset >= this.held.length) this.fill();
    if (this.held.length === 0) return 0;
    const count = Math.min(length, this.held.length - this.heldOffset);
    buffer.set(this.held.subarray(this.heldOffset, this.heldOffset + count), offset);
    this.heldOffset += count;
    return count;
  }

  /** Blocks until the host hands a chunk over (held) or says end of input (held empty). */
  private fill(): void {
    this.held = new Uint8Array(0);
    this.heldOffset = 0;
    // A read interrupted before its answer came keeps its request: the answer serves the next read.
    if (!this.asked) {
      this.asked = true;
      this.options.request();
    }
    for (;;) {
      const seq = Atomics.load(this.cells, SEQ);
      const state = Atomics.load(this.cells, STATE);
      if (state !== EMPTY) {
        this.asked = false;
        Atomics.store(this.cells, STATE, EMPTY);
        if (state === DATA) this.held = this.bytes.slice(0, Atomics.load(this.cells, LENGTH));
        return;
      }
      if (this.options.stopPending()) throw errno(EINTR);
      const left = this.options.deadline - Date.now();
      Atomics.wait(this.cells, SEQ, seq, Number.isFinite(left) ? Math.max(0, left) + 1 : undefined);
    }
  }
}

/** An error Emscripten's syscall layer turns into `-errno` for the C code. */
export function errno(code: number): Error {
  return Object.assign(new Error(`errno ${code}`), { name: "ErrnoError", errno: code });
}
