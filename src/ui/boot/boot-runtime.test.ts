import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_SETTINGS } from "../../worker/types.ts";
import type { WorkerHost } from "../worker-host.ts";
import { EarlyBoot } from "./boot-runtime.ts";

/** A worker host whose boot ends when the test says (Node has no cross-origin isolation: embedded). */
function fakeHost() {
  let finish: (ok: boolean) => void = () => undefined;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const booted = new Promise<unknown>((resolve, reject) => {
    finish = (ok) => (ok ? resolve({ backend: "embedded" }) : reject(new Error("worker failed")));
  });
  const host = {
    setApprovalPrompt: async () => undefined,
    stops: { shared: false },
    api: { settings: { get: async () => DEFAULT_SETTINGS }, prepare: () => opened },
    boot: () => booted,
  } as unknown as WorkerHost;
  return { host, finish, open };
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

describe("EarlyBoot: when the UI loads", () => {
  afterEach(() => vi.useRealTimers());

  it("waits for the workspace to open, so the first tool call is not slowed by the UI", async () => {
    vi.useFakeTimers();
    const { host, finish } = fakeHost();
    const early = new EarlyBoot(host);
    await vi.advanceTimersByTimeAsync(500);
    expect(await settled(early.uiMayLoad)).toBe(false);
    finish(true);
    expect(await settled(early.uiMayLoad)).toBe(true);
    await expect(early.result).resolves.toMatchObject({ boot: { backend: "embedded" } });
  });

  it("loads the UI once the worker has opened the workspace, while the boot still waits for the shell", async () => {
    vi.useFakeTimers();
    const { host, open } = fakeHost();
    const early = new EarlyBoot(host);
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled(early.uiMayLoad)).toBe(false);
    open();
    expect(await settled(early.uiMayLoad)).toBe(true);
    expect(await settled(early.result)).toBe(false);
  });

  it("loads the UI when the boot fails, to say so", async () => {
    vi.useFakeTimers();
    const { host, finish } = fakeHost();
    const early = new EarlyBoot(host);
    finish(false);
    expect(await settled(early.uiMayLoad)).toBe(true);
    await expect(early.result).rejects.toThrow("worker failed");
  });

  it("loads the UI after a second and a half of a slow boot, to show its progress", async () => {
    vi.useFakeTimers();
    const { host } = fakeHost();
    const early = new EarlyBoot(host);
    await vi.advanceTimersByTimeAsync(1400);
    expect(await settled(early.uiMayLoad)).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(await settled(early.uiMayLoad)).toBe(true);
  });
});
