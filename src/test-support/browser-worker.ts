import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join } from "node:path";
import type { InlineConfig } from "vite";

/** A headless Chromium on this machine, if any (the tests that need one skip without it). */
export const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"].find(
  (name) => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0,
);

export const REPO = join(import.meta.dirname, "..", "..");

const PAGE = `<!doctype html><html><body><script type="module">
const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
const report = (data) => fetch("/result", { method: "POST", body: JSON.stringify(data) });
worker.onmessage = (event) => report(event.data);
worker.onerror = (event) => report({ error: "worker error: " + event.message });
</script></body></html>`;

const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".wasm": "application/wasm",
};

/**
 * Runs `worker` (a module Worker's source, which posts one message with what it found) as the app
 * runs its workers: bundled by Vite beside a page that starts it, served (cross-origin isolated
 * when `isolated`, as the app's servers do) and opened in headless Chromium. Gives what the worker
 * posted, or `{ error }` if it threw. `name` names its build folder (under node_modules, so the
 * worker's imports resolve, and out of git and Biome's way).
 */
export async function runInBrowserWorker(options: {
  name: string;
  worker: string;
  isolated?: boolean;
  vite?: InlineConfig;
}): Promise<Record<string, unknown>> {
  const work = join(REPO, "node_modules", ".cache", `toolroom-${options.name}-browser-check`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, "index.html"), PAGE);
  writeFileSync(join(work, "worker.ts"), options.worker);
  const { build } = await import("vite");
  await build({
    ...options.vite,
    root: work,
    logLevel: "error",
    build: { ...options.vite?.build, outDir: join(work, "dist"), emptyOutDir: true },
  });
  const isolation: Record<string, string> = options.isolated
    ? { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" }
    : {};
  let server: Server | undefined;
  let browser: ChildProcess | undefined;
  try {
    return await new Promise<Record<string, unknown>>((resolve) => {
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
        try {
          const path = join(
            work,
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
          {
            stdio: "ignore",
          },
        );
      });
    });
  } finally {
    browser?.kill();
    server?.close();
    rmSync(work, { recursive: true, force: true });
  }
}
