import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import type { BenchRow } from "./types.ts";

const ROOT = join(import.meta.dirname, "..");
const PORT = 4391;
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];

interface PageApi {
  toolroom: {
    host: {
      api: {
        ping(): Promise<number>;
        call(
          profile: string,
          request: { tool: string; params: Record<string, unknown> },
        ): Promise<{ status: string }>;
      };
    };
  };
}

async function startPreview(): Promise<ChildProcess> {
  const server = spawn(
    "npx",
    ["vite", "preview", "--port", String(PORT), "--strictPort", "--host", "127.0.0.1"],
    {
      cwd: ROOT,
      stdio: "ignore",
      detached: true,
    },
  );
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/`)).ok) return server;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("vite preview did not start");
}

/**
 * The built app in headless Chromium: navigation to the first tool result (boot falls back to the
 * embedded sandbox, the worker loads, one list_files), and the worker round trip (median of 1,000
 * no-op calls through comlink, cross-origin isolated so the timers are fine-grained).
 */
export async function benchBrowser(): Promise<BenchRow[]> {
  if (!existsSync(CHROMIUM)) return [{ name: "browser benchmarks skipped: no /usr/bin/chromium", ms: 0 }];
  if (!existsSync(join(ROOT, "dist", "index.html"))) {
    const build = spawnSync("npx", ["vite", "build"], { cwd: ROOT, stdio: "ignore" });
    if (build.status !== 0) throw new Error("vite build failed");
  }
  const server = await startPreview();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const firstResults: number[] = [];
    let roundTrips: number[] = [];
    for (let run = 0; run < 5; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route(/stackblitz\.com|staticblitz\.com|webcontainer/iu, (route) =>
        route.abort("internetdisconnected"),
      );
      const started = performance.now();
      await page.goto(`http://127.0.0.1:${PORT}/`);
      await page.waitForSelector('[data-testid="app"][data-ready="true"]', { timeout: 60_000 });
      const status = await page.evaluate(async () => {
        const { api } = (window as unknown as PageApi).toolroom.host;
        return (await api.call("agentbench", { tool: "list_files", params: {} })).status;
      });
      firstResults.push(performance.now() - started);
      if (status !== "success") throw new Error(`first call failed: ${status}`);
      if (run === 0) {
        roundTrips = await page.evaluate(async () => {
          const { api } = (window as unknown as PageApi).toolroom.host;
          for (let i = 0; i < 50; i++) await api.ping();
          const times: number[] = [];
          for (let i = 0; i < 1000; i++) {
            const before = performance.now();
            await api.ping();
            times.push(performance.now() - before);
          }
          return times;
        });
      }
      await context.close();
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    return [
      {
        name: "navigation → first tool result (built app, embedded sandbox)",
        ms: median(firstResults),
        note: "median of 5 fresh contexts",
      },
      {
        name: "worker round trip, no-op call through comlink",
        ms: median(roundTrips),
        note: "median of 1,000",
      },
    ];
  } finally {
    await browser.close();
    if (server.pid) process.kill(-server.pid);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("browser", await benchBrowser());
}
