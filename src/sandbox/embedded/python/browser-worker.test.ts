import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHROMIUM, REPO, runInBrowserWorker } from "../../../test-support/browser-worker.ts";
import { cpythonFolder } from "./node-platform.ts";

/**
 * The Python runner as the app's worker uses it — bundled by Vite, its Python worker a module Web
 * Worker started from another worker, CPython fetched as build assets — in headless Chromium on a
 * cross-origin isolated page: a program reads what is fed to it over time, a read blocked on
 * input is stopped by Cancel (130) and by its deadline (124), and a sleep wakes on Cancel.
 */
const WORKER = `import { PythonRunner } from ${JSON.stringify(join(REPO, "src/sandbox/embedded/python/runner.ts"))};
import { browserPythonPlatform } from ${JSON.stringify(join(REPO, "src/sandbox/embedded/python/browser-platform.ts"))};
const runner = new PythonRunner(browserPythonPlatform());
const encoder = new TextEncoder();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function run(code, { feed = [], cancelAfterMs, deadlineMs = 120000 } = {}) {
  const decoder = new TextDecoder();
  let printed = "";
  const controller = new AbortController();
  if (cancelAfterMs !== undefined) setTimeout(() => controller.abort(), cancelAfterMs);
  const steps = [...feed];
  const outcome = await runner.run(
    { args: ["-c", code], cwd: "/", env: {}, stdin: new Uint8Array(0), tree: [], sitePaths: [],
      deadline: Date.now() + deadlineMs, memoryLimitBytes: 256 * 1024 * 1024 },
    {
      output: (_fd, data) => { printed += decoder.decode(data, { stream: true }); },
      signal: controller.signal,
      input: async (stopped) => {
        if (steps.length === 0) return new Promise((resolve) => stopped.addEventListener("abort", () => resolve(undefined)));
        await sleep(150);
        const step = steps.shift();
        return step === null ? null : encoder.encode(step);
      },
    },
  );
  return { printed, exitCode: outcome.exitCode, stopped: outcome.stopped ?? null, killed: outcome.killed ?? false };
}
(async () => {
  const reads = await run('name = input("name? ")\\nprint("hello", name)\\nimport sys\\nprint(repr(sys.stdin.read()))', {
    feed: ["Ada\\n", "more\\n", "ünï\\n", null],
  });
  const cancelled = await run('print("waiting", flush=True)\\ninput()', { cancelAfterMs: 3000 });
  const timedOut = await run('input("? ")', { deadlineMs: 3000 });
  const slept = await run('import time\\nprint("asleep", flush=True)\\ntime.sleep(60)', { cancelAfterMs: 3000 });
  postMessage({ isolated: self.crossOriginIsolated, reads, cancelled, timedOut, slept });
})().catch((error) => postMessage({ error: String((error && error.stack) || error) }));
`;

describe.skipIf(CHROMIUM === undefined)("python3's live stdin in a Vite-bundled browser worker", () => {
  it("reads what is fed as it comes, and stops a read blocked on input on Cancel and at the deadline", async () => {
    const data = await runInBrowserWorker({
      name: "python",
      worker: WORKER,
      isolated: true,
      vite: {
        resolve: { alias: { "cpython-emscripten": cpythonFolder() } },
        worker: { format: "es" },
        build: { target: "es2022" },
      },
    });
    expect(data["error"]).toBeUndefined();
    expect(data["isolated"]).toBe(true);
    expect(data["reads"]).toEqual({
      printed: "name? hello Ada\n'more\\nünï\\n'\n",
      exitCode: 0,
      stopped: null,
      killed: false,
    });
    expect(data["cancelled"]).toMatchObject({ exitCode: 130, stopped: "interrupt", killed: false });
    expect((data["cancelled"] as { printed: string }).printed).toMatch(
      /^waiting\nTraceback[\s\S]*KeyboardInterrupt\n$/u,
    );
    expect(data["timedOut"]).toMatchObject({ stopped: "deadline", killed: false });
    expect((data["timedOut"] as { printed: string }).printed).toMatch(
      /^\? Traceback[\s\S]*KeyboardInterrupt\n$/u,
    );
    // A sleep wakes on Cancel with KeyboardInterrupt raised in it, not termination after the grace.
    expect(data["slept"]).toMatchObject({ exitCode: 130, stopped: "interrupt", killed: false });
    expect((data["slept"] as { printed: string }).printed).toMatch(
      /^asleep\nTraceback[\s\S]*time\.sleep\(60\)[\s\S]*\nKeyboardInterrupt\n$/u,
    );
  }, 300_000);
});
