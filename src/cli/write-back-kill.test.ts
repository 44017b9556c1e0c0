import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEMP_NAME } from "./host-folder.ts";

/**
 * kill -9 at random moments of a write-back (a 60 MB file among small ones, real child processes):
 * every file is found either as it was or as the sandbox had it, never cut short or mixed.
 */

const BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");
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

      const child = spawn(BIN, ["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"], {
        stdio: ["pipe", "ignore", "ignore"],
      });
      const ended = new Promise((resolve) => child.on("close", resolve));
      child.stdin.end(`${JSON.stringify({ tool: "shell", params: { command } })}\n`);
      // Write-back has begun once its first temporary file shows; kill at a random moment after.
      let exited = false;
      void ended.then(() => {
        exited = true;
      });
      while (!exited && !readdirSync(dir).some((name) => TEMP_NAME.test(name))) await pause(1);
      if (!exited) {
        await pause(Math.floor(Math.random() * 400));
        child.kill("SIGKILL");
      }
      await ended;

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
