import { Bash, InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../embedded-sandbox.ts";
import { createNodeCommands } from "./index.ts";

/** User code runs in QuickJS: a runaway program is stopped with a clear message and the shell carries on. */
describe("embedded node isolation", () => {
  const shell = () =>
    new Bash({ fs: new InMemoryFs(), cwd: "/", customCommands: createNodeCommands({ timeoutMs: 1_000 }) });

  it("interrupts an infinite loop at the deadline, then runs the next command", async () => {
    const bash = shell();
    const started = Date.now();
    const loop = await bash.exec(`node -e "while (true) {}"`);
    const elapsed = Date.now() - started;
    expect(loop.exitCode).toBe(124);
    expect(loop.stderr).toContain("node: stopped after 1000 ms");
    expect(loop.stderr).not.toContain("InternalError: interrupted");
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(5_000);
    const next = await bash.exec(`node -e "console.log(6 * 7)"`);
    expect(next).toMatchObject({ exitCode: 0, stdout: "42\n" });
  });

  it("a loop that catches everything is still stopped", async () => {
    const bash = shell();
    const result = await bash.exec(
      `node -e "for (;;) { try { for (;;) {} } catch (e) { console.log('caught') } }"`,
    );
    expect(result.exitCode).toBe(124);
    expect(result.stdout).toBe("");
  });

  it("stops a program whose timers never end", async () => {
    const result = await shell().exec(`node -e "setInterval(() => {}, 5)"`);
    expect(result.exitCode).toBe(124);
    expect(result.stderr).toContain("time limit");
  });

  it("an endless test in node --test is stopped and reported", async () => {
    const fs = new InMemoryFs();
    await fs.writeFile("/p/spin.test.js", "require('node:test')('spins', () => { for (;;) {} });\n");
    const bash = new Bash({ fs, cwd: "/p", customCommands: createNodeCommands({ timeoutMs: 1_000 }) });
    const result = await bash.exec("node --test");
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("# node: stopped after 1000 ms");
    expect(result.stdout).toContain("# fail 1");
    expect((await bash.exec("node -p 1+1")).stdout).toBe("2\n");
  });

  it("stops a program that prints without end once the shell's output limit is reached", async () => {
    const bash = new Bash({
      fs: new InMemoryFs(),
      cwd: "/",
      // A deadline far past the output limit, so only the limit can stop it (its message says which).
      customCommands: createNodeCommands({ timeoutMs: 120_000 }),
      executionLimits: { maxOutputSize: 1024 * 1024 },
    });
    const result = await bash.exec(`node -e "for (;;) console.log('spam')"`);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("more output than the shell keeps");
    expect(result.stdout.length).toBeLessThanOrEqual(512 * 1024);
    expect(result.stdout.startsWith("spam\nspam\n")).toBe(true);
    expect((await bash.exec(`node -p "'next'"`)).stdout).toBe("next\n");
  }, 150_000);

  it("fails a 1 GB allocation with a clear error, then runs the next command", async () => {
    const bash = shell();
    const big = await bash.exec(
      `node -e "const buffer = new ArrayBuffer(1024 ** 3); console.log(buffer.byteLength)"`,
    );
    expect(big.exitCode).toBe(1);
    expect(big.stdout).toBe("");
    expect(big.stderr).toContain("InternalError: out of memory");
    expect(big.stderr).toContain("heap is capped at 256 MB");
    const buffer = await bash.exec(`node -e "Buffer.alloc(1024 ** 3)"`);
    expect(buffer.exitCode).toBe(1);
    expect(buffer.stderr).toContain("out of memory");
    const next = await bash.exec(`node -e "console.log(Buffer.alloc(1024).length)"`);
    expect(next).toMatchObject({ exitCode: 0, stdout: "1024\n" });
  });

  it("a program can catch the allocation failure itself", async () => {
    const result = await shell().exec(
      `node -e "try { new ArrayBuffer(2 ** 30) } catch (e) { console.log(e.message) }"`,
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: "out of memory\n" });
  });

  it("honours a smaller memory cap", async () => {
    const bash = new Bash({
      fs: new InMemoryFs(),
      cwd: "/",
      customCommands: createNodeCommands({ memoryLimitBytes: 32 * 1024 * 1024 }),
    });
    const result = await bash.exec(`node -e "new Uint8Array(64 * 1024 * 1024)"`);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("heap is capped at 32 MB");
    expect((await bash.exec(`node -e "console.log(new Uint8Array(8 * 1024 * 1024).length)"`)).stdout).toBe(
      "8388608\n",
    );
  });

  it("deep recursion ends in a stack overflow error, not a crash of the host", async () => {
    const bash = shell();
    const result = await bash.exec(`node -e "function f(n) { return f(n + 1) + 1 } f(0)"`);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("RangeError: Maximum call stack size exceeded");
    expect((await bash.exec(`node -e "console.log('alive')"`)).stdout).toBe("alive\n");
  });

  it("user code has no way to the host: no require of host modules, no process spawning, no network", async () => {
    const bash = shell();
    const probe = await bash.exec(
      `node -e "console.log(typeof globalThis.host, typeof globalThis.__host, typeof WebAssembly); require('child_process').execSync('ls')"`,
    );
    expect(probe.stdout).toBe("undefined undefined undefined\n");
    expect(probe.stderr).toContain("cannot start processes");
    const fetched = await bash.exec(
      `node -e "fetch('http://example.com').catch((e) => console.log(e.message))"`,
    );
    expect(fetched.stdout).toContain("no network");
  });

  it("a cancelled command stops the program", async () => {
    const sandbox = await EmbeddedSandbox.create({ commands: createNodeCommands() });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const result = await sandbox.exec(`node -e "setInterval(() => {}, 10)"`, { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.exitCode).not.toBe(0);
    expect((await sandbox.exec(`node -p "'ok'"`)).stdout).toBe("ok\n");
  });

  it("the sandbox's own deadline bounds node even when the command allows more", async () => {
    const sandbox = await EmbeddedSandbox.create({ commands: createNodeCommands({ timeoutMs: 60_000 }) });
    const started = Date.now();
    const result = await sandbox.exec(`node -e "while (true) {}"`, { timeoutMs: 800 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.exitCode).toBe(124);
    expect(result.timedOut).toBe(true);
  });
});
