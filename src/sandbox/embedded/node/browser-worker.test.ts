import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The same commands bundled by Vite into a module Worker and run in headless Chromium: the
 * single-file QuickJS build needs no wasm asset, and nothing reaches for Node's built-ins.
 */
const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"].find(
  (name) => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0,
);
const REPO = join(import.meta.dirname, "..", "..", "..", "..");
// Under node_modules so that the worker's imports resolve, and out of git and Biome's way.
const WORK = join(REPO, "node_modules", ".cache", "toolroom-node-browser-check");

const PAGE = `<!doctype html><html><body><script type="module">
const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
const report = (data) => fetch("/result", { method: "POST", body: JSON.stringify(data) });
worker.onmessage = (event) => report(event.data);
worker.onerror = (event) => report({ error: "worker error: " + event.message });
</script></body></html>`;

const WORKER = `import { Bash, InMemoryFs } from "just-bash/browser";
import { createNodeCommands } from ${JSON.stringify(join(REPO, "src/sandbox/embedded/node/index.ts"))};
const fs = new InMemoryFs();
const bash = new Bash({ fs, cwd: "/", customCommands: createNodeCommands({ timeoutMs: 1500 }) });
(async () => {
  await fs.writeFile("/p/math.test.js", "const test = require('node:test'); const assert = require('node:assert');\\n" +
    "test('adds', () => assert.strictEqual(1 + 1, 2));\\ntest('fails', () => assert.deepStrictEqual({ a: 1 }, { a: 2 }));\\n");
  await fs.writeFile("/p/main.mjs", "import { sep } from 'node:path'; console.log('esm', sep, import.meta.url);\\n");
  const hello = await bash.exec("node -e \\"console.log('hello', [1, 2, 3].map((x) => x * 2))\\"");
  const tests = await bash.exec("cd /p && node --test");
  const esm = await bash.exec("node /p/main.mjs");
  const loop = await bash.exec("node -e 'while (true) {}'");
  const globals = await bash.exec("node -p \\"typeof window + ' ' + typeof document + ' ' + typeof importScripts\\"");
  const big = await bash.exec("node -e 'new ArrayBuffer(1024 ** 3)'");
  const after = await bash.exec("node -p 6*7");
  postMessage({ hello: hello.stdout, tests: { exitCode: tests.exitCode, stdout: tests.stdout }, esm: esm.stdout,
    loop: loop.exitCode, globals: globals.stdout, big: { exitCode: big.exitCode, stderr: big.stderr }, after: after.stdout });
})().catch((error) => postMessage({ error: String((error && error.stack) || error) }));
`;

describe.skipIf(CHROMIUM === undefined)("embedded node in a Vite-bundled browser worker", () => {
  let server: Server | undefined;
  let browser: ChildProcess | undefined;

  afterAll(() => {
    browser?.kill();
    server?.close();
    rmSync(WORK, { recursive: true, force: true });
  });

  it("runs scripts, ES modules and node --test, and stops a runaway loop", async () => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    writeFileSync(join(WORK, "index.html"), PAGE);
    writeFileSync(join(WORK, "worker.ts"), WORKER);
    const { build } = await import("vite");
    await build({ root: WORK, logLevel: "error", build: { outDir: join(WORK, "dist"), emptyOutDir: true } });

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
        try {
          const path = join(
            WORK,
            "dist",
            request.url === "/" ? "index.html" : (request.url ?? "").split("?")[0]!,
          );
          const data = readFileSync(path);
          response.writeHead(200, {
            "content-type": extname(path) === ".html" ? "text/html" : "text/javascript",
          });
          response.end(data);
        } catch {
          response.writeHead(404);
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
    const data = await result;
    expect(data["error"]).toBeUndefined();
    expect(data["hello"]).toBe("hello [ 2, 4, 6 ]\n");
    const tests = data["tests"] as { exitCode: number; stdout: string };
    expect(tests.exitCode).toBe(1);
    expect(tests.stdout).toContain("# pass 1\n# fail 1\n");
    expect(data["esm"]).toBe("esm / file:///p/main.mjs\n");
    expect(data["loop"]).toBe(124);
    expect(data["globals"]).toBe("undefined undefined undefined\n");
    const big = data["big"] as { exitCode: number; stderr: string };
    expect(big.exitCode).toBe(1);
    expect(big.stderr).toContain("out of memory");
    expect(data["after"]).toBe("42\n");
  }, 120_000);
});
