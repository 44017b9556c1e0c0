import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cpythonFolder } from "./node-platform.ts";

/**
 * The Python runner as the app's worker uses it — bundled by Vite, its Python worker a module Web
 * Worker started from another worker, CPython fetched as build assets — in headless Chromium on a
 * cross-origin isolated page: a program reads what is fed to it over time, and a read blocked on
 * input is stopped by Cancel (130) and by its deadline (124).
 */
const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"].find(
  (name) => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0,
);
const REPO = join(import.meta.dirname, "..", "..", "..", "..");
// Under node_modules so that the worker's imports resolve, and out of git and Biome's way.
const WORK = join(REPO, "node_modules", ".cache", "toolroom-python-browser-check");

const PAGE = `<!doctype html><html><body><script type="module">
const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
const report = (data) => fetch("/result", { method: "POST", body: JSON.stringify(data) });
worker.onmessage = (event) => report(event.data);
worker.onerror = (event) => report({ error: "worker error: " + event.message });
</script></body></html>`;

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
  postMessage({ isolated: self.crossOriginIsolated, reads, cancelled, timedOut });
})().catch((error) => postMessage({ error: String((error && error.stack) || error) }));
`;

const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".wasm": "application/wasm",
};

describe.skipIf(CHROMIUM === undefined)("python3's live stdin in a Vite-bundled browser worker", () => {
  let server: Server | undefined;
  let browser: ChildProcess | undefined;

  afterAll(() => {
    browser?.kill();
    server?.close();
    rmSync(WORK, { recursive: true, force: true });
  });

  it("reads what is fed as it comes, and stops a read blocked on input on Cancel and at the deadline", async () => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    writeFileSync(join(WORK, "index.html"), PAGE);
    writeFileSync(join(WORK, "worker.ts"), WORKER);
    const { build } = await import("vite");
    await build({
      root: WORK,
      logLevel: "error",
      resolve: { alias: { "cpython-emscripten": cpythonFolder() } },
      worker: { format: "es" },
      build: { outDir: join(WORK, "dist"), emptyOutDir: true, target: "es2022" },
    });

    const result = new Promise<Record<string, unknown>>((resolve) => {
      server = createServer((request, response) => {
        if (request.method === "POST") {
          let body = "";
          request.on("data", (chunk) => {
            body += chunk;
          });
          request.on("end", () => {
            response.end("ok");
            resolve(JSON.parse(body) as Record<string, unknown>);
          });
          return;
        }
        // Cross-origin isolation, as the app's servers send it: SharedArrayBuffer exists.
        const isolation = {
          "Cross-Origin-Opener-Policy": "same-origin",
          "Cross-Origin-Embedder-Policy": "require-corp",
        };
        try {
          const path = join(
            WORK,
            "dist",
            request.url === "/" ? "index.html" : (request.url ?? "").split("?")[0]!,
          );
          const data = readFileSync(path);
          response.writeHead(200, {
            "content-type": TYPES[extname(path)] ?? "application/octet-stream",
            ...isolation,
          });
          response.end(data);
        } catch {
          response.writeHead(404, isolation);
          response.end();
        }
      });
      server.listen(0, "127.0.0.1", () => {
        const { port } = server!.address() as AddressInfo;
        browser = spawn(
          CHROMIUM!,
          ["--headless=new", "--no-sandbox", "--disable-gpu", `http://127.0.0.1:${port}/`],
          { stdio: "ignore" },
        );
      });
    });
    const data = await result;
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
  }, 300_000);
});
