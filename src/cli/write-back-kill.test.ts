import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, type Stats, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startToolroom as start } from "../test-support/toolroom-cli.ts";
import { TEMP_NAME } from "./host-folder.ts";

/**
 * kill -9 at random moments of a write-back (a 60 MB file among small ones, real child processes):
 * every file is found either as it was or as the sandbox had it, never cut short or mixed.
 */

const TRIALS = 20;
const BIG = 60 * 1024 * 1024;
const SMALL = [
  ...Array.from({ length: 20 }, (_, i) => `a${i}.txt`),
  ...Array.from({ length: 20 }, (_, i) => `z${i}.txt`),
];

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("write-back killed with SIGKILL", () => {
  it(`leaves every file old or new, never anything else, over ${TRIALS} trials`, async () => {
    const big = Buffer.alloc(BIG);
    for (let i = 0; i < BIG; i += 4096) big.write(`${i}\n`, i);
    const versions = {
      big: { old: sha(big), new: sha(Buffer.concat([big, Buffer.from("x\n")])) },
      small: (name: string) => ({ old: `old ${name}\n`, new: `new ${name}\n` }),
    };
    const command = `echo x >> big.bin && for f in ${SMALL.join(" ")}; do echo "new $f" > $f; done`;
    let interrupted = 0;
    let completed = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const dir = mkdtempSync(join(tmpdir(), "toolroom-kill-"));
      writeFileSync(join(dir, "big.bin"), big);
      for (const name of SMALL) writeFileSync(join(dir, name), versions.small(name).old);

      const run = start(["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
      run.child.stdin.end(`${JSON.stringify({ tool: "shell", params: { command } })}\n`);
      // Write-back has begun once its first temporary file shows; kill at a random moment after.
      while (!run.exited() && !readdirSync(dir).some((name) => TEMP_NAME.test(name))) await pause(1);
      if (!run.exited()) {
        await pause(Math.floor(Math.random() * 400));
        run.child.kill("SIGKILL");
      }
      await run.ended;

      const names = readdirSync(dir).filter((name) => !TEMP_NAME.test(name));
      expect(names.sort()).toEqual(["big.bin", ...SMALL].sort());
      const bigHash = sha(readFileSync(join(dir, "big.bin")));
      expect([versions.big.old, versions.big.new], `trial ${trial}: big.bin`).toContain(bigHash);
      const states = new Set<string>([bigHash === versions.big.new ? "new" : "old"]);
      for (const name of SMALL) {
        const text = readFileSync(join(dir, name), "utf8");
        const { old, new: fresh } = versions.small(name);
        expect([old, fresh], `trial ${trial}: ${name}`).toContain(text);
        states.add(text === fresh ? "new" : "old");
      }
      if (states.has("old")) interrupted++;
      else completed++;
      rmSync(dir, { recursive: true, force: true });
    }
    // The kills did land during write-back (not all before or after it).
    expect(interrupted, `${interrupted} interrupted, ${completed} completed`).toBeGreaterThan(0);
  }, 900_000);
});

describe("a run killed with SIGKILL after some calls were answered", () => {
  const tenMb = Buffer.alloc(10 * 1024 * 1024, "z");
  const seed = (dir: string) => {
    writeFileSync(join(dir, "a.txt"), "a\n");
    writeFileSync(join(dir, "b.txt"), "b\n");
    writeFileSync(join(dir, "untouched.txt"), "u\n");
  };
  const calls = [
    "echo one > one.txt",
    "echo changed >> a.txt && rm b.txt && chmod +x a.txt",
    "mkdir -p deep/er && node -e \"require('fs').writeFileSync('deep/er/ten.bin', 'z'.repeat(10485760))\"",
    // Never answered: what it wrote before the kill must not reach the disk.
    "echo hang > hang.txt && echo hang >> a.txt && sleep 60",
  ];
  const expectAnsweredOnDisk = (dir: string, untouched: Stats) => {
    const names = readdirSync(dir, { recursive: true }).map(String).sort();
    expect(names).toEqual(["a.txt", "deep", "deep/er", "deep/er/ten.bin", "one.txt", "untouched.txt"]);
    expect(readFileSync(join(dir, "one.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\nchanged\n");
    expect(statSync(join(dir, "a.txt")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, "deep/er/ten.bin")).equals(tenMb)).toBe(true);
    const after = statSync(join(dir, "untouched.txt"));
    expect([after.ino, after.mtimeMs]).toEqual([untouched.ino, untouched.mtimeMs]);
  };

  it("batch: every answered call's files are on disk, whole, and nothing of the unanswered one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolroom-crash-"));
    seed(dir);
    const untouched = statSync(join(dir, "untouched.txt"));
    const run = start(["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
    run.child.stdin.write(
      calls.map((command) => `${JSON.stringify({ tool: "shell", params: { command } })}\n`).join(""),
    );
    await run.waitForLines(3);
    // The fourth call is running (it sleeps): kill the whole process, no chance to write anything more.
    await pause(1500);
    run.child.kill("SIGKILL");
    await run.ended;
    expect(run.lines().map((line) => JSON.parse(line).ok)).toEqual([true, true, true]);
    expectAnsweredOnDisk(dir, untouched);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("mcp: every answered call's files are on disk, whole, and nothing of the unanswered one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolroom-crash-"));
    seed(dir);
    const untouched = statSync(join(dir, "untouched.txt"));
    const run = start(["mcp", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
    const rpc = (id: number, method: string, params: unknown) =>
      `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
    run.child.stdin.write(
      rpc(0, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      }),
    );
    run.child.stdin.write(
      calls.map((command, i) => rpc(i + 1, "tools/call", { name: "shell", arguments: { command } })).join(""),
    );
    await run.waitForLines(4);
    await pause(1500);
    run.child.kill("SIGKILL");
    await run.ended;
    const answers = run.lines().map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.id)).toEqual([0, 1, 2, 3]);
    expect(answers.slice(1).map((answer) => answer.result.isError)).toEqual([false, false, false]);
    expectAnsweredOnDisk(dir, untouched);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
