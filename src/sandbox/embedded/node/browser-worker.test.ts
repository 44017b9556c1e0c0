import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHROMIUM, REPO, runInBrowserWorker } from "../../../test-support/browser-worker.ts";

/**
 * The same commands bundled by Vite into a module Worker and run in headless Chromium: the
 * single-file QuickJS build needs no wasm asset, and nothing reaches for Node's built-ins.
 */
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
  it("runs scripts, ES modules and node --test, and stops a runaway loop", async () => {
    const data = await runInBrowserWorker({ name: "node", worker: WORKER });
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
