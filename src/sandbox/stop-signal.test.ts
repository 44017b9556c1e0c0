import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { startTsWorker } from "../host/ts-worker.ts";
import { CALLS_CHANNEL, deadlineSignal, StopBoard, stopReason } from "./stop-signal.ts";

describe("StopBoard", () => {
  it("stops a busy loop on another thread through shared memory", async () => {
    const board = StopBoard.create();
    expect(board.shared).toBe(true);
    const job = board.nextJob(CALLS_CHANNEL);
    const worker = startTsWorker(new URL("./testing/busy-worker.ts", import.meta.url), {
      buffer: board.buffer,
      channel: CALLS_CHANNEL,
      job,
      mode: "busy",
    });
    try {
      // The worker marks its job as running before it spins.
      const deadline = Date.now() + 20_000;
      while (board.running(CALLS_CHANNEL) !== job && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      board.stopRunning(CALLS_CHANNEL);
      const [result] = (await once(worker, "message")) as [{ reason: string; spins: number }];
      expect(result.reason).toBe("AbortError");
      expect(result.spins).toBeGreaterThan(0);
    } finally {
      await worker.terminate();
    }
  });

  it("wakes code that waits (no reads of `aborted`) on another thread", async () => {
    const board = StopBoard.create();
    const channel = board.openChannel()!;
    const job = board.nextJob(channel);
    const worker = startTsWorker(new URL("./testing/busy-worker.ts", import.meta.url), {
      buffer: board.buffer,
      channel,
      job,
      mode: "waiting",
    });
    try {
      await once(worker, "message");
      board.stop(channel, job);
      const [result] = (await once(worker, "message")) as [{ reason?: string; timedOut?: boolean }];
      expect(result.timedOut).toBeUndefined();
      expect(result.reason).toBe("AbortError");
    } finally {
      await worker.terminate();
    }
  });

  it("stops only the job it names: a late stop never reaches the next job", () => {
    const board = StopBoard.create();
    const first = board.nextJob(CALLS_CHANNEL);
    board.begin(CALLS_CHANNEL, first);
    const a = board.signal(CALLS_CHANNEL, first);
    const second = board.nextJob(CALLS_CHANNEL);
    board.begin(CALLS_CHANNEL, second);
    const b = board.signal(CALLS_CHANNEL, second);
    board.stop(CALLS_CHANNEL, first);
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(false);
    board.stopRunning(CALLS_CHANNEL);
    expect(b.signal.aborted).toBe(true);
    expect(stopReason(b.signal)).toBe("interrupt");
    a.dispose();
    b.dispose();
  });

  it("fires listeners and derived signals in the same read that sees the stop", () => {
    const board = StopBoard.create();
    const job = board.nextJob(CALLS_CHANNEL);
    const { signal } = board.signal(CALLS_CHANNEL, job);
    const derived = new AbortController();
    signal.addEventListener("abort", () => derived.abort(signal.reason));
    board.stop(CALLS_CHANNEL, job);
    // Nothing has run the event loop: only the synchronous read below can notice.
    expect(derived.signal.aborted).toBe(false);
    expect(signal.aborted).toBe(true);
    expect(derived.signal.aborted).toBe(true);
    expect(() => signal.throwIfAborted()).toThrow(/Stopped on request/u);
  });

  it("aborts at its deadline with reason deadline, both when read and for waiters", async () => {
    const reading = deadlineSignal({ deadlineAt: Date.now() + 30 });
    expect(reading.signal.aborted).toBe(false);
    const spinUntil = Date.now() + 50;
    while (Date.now() < spinUntil) {
      // a busy loop past the deadline
    }
    expect(reading.signal.aborted).toBe(true);
    expect(stopReason(reading.signal)).toBe("deadline");

    const waiting = deadlineSignal({ deadlineAt: Date.now() + 30 });
    await once(waiting.signal, "abort");
    expect(stopReason(waiting.signal)).toBe("deadline");
  });

  it("follows a parent signal, keeping its reason", () => {
    const board = StopBoard.create();
    const job = board.nextJob(CALLS_CHANNEL);
    const parent = board.signal(CALLS_CHANNEL, job);
    const child = deadlineSignal({ parents: [undefined, parent.signal], deadlineAt: Date.now() + 60_000 });
    expect(child.signal.aborted).toBe(false);
    board.stop(CALLS_CHANNEL, job);
    expect(child.signal.aborted).toBe(true);
    expect(stopReason(child.signal)).toBe("interrupt");
    child.dispose();
  });

  it("works on a private board when shared memory is missing, once the code looks", () => {
    const board = StopBoard.attach(new ArrayBuffer(64 * 12));
    expect(board.shared).toBe(false);
    const channel = board.openChannel()!;
    const job = board.nextJob(channel);
    const { signal } = board.signal(channel, job);
    let heard = false;
    signal.addEventListener("abort", () => {
      heard = true;
    });
    board.stop(channel, job);
    expect(heard).toBe(true);
    expect(signal.aborted).toBe(true);
  });

  it("hands out channels until the board is full, and takes them back", () => {
    const board = StopBoard.create(3);
    const one = board.openChannel();
    const two = board.openChannel();
    expect([one, two]).toEqual([1, 2]);
    expect(board.openChannel()).toBeUndefined();
    board.closeChannel(1);
    expect(board.openChannel()).toBe(1);
    expect(() => board.begin(3, 1)).toThrow(RangeError);
  });
});
