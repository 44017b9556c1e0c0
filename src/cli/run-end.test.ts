import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startToolroom as start } from "../test-support/toolroom-cli.ts";
import { TEMP_NAME } from "./host-folder.ts";

/** How a run ends when told to from outside: real child processes, real signals. */

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolroom-end-"));
  writeFileSync(join(dir, "a.txt"), "a\n");
  return dir;
}

const call = (command: string) => `${JSON.stringify({ tool: "shell", params: { command } })}\n`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a batch run told to stop", () => {
  it("on SIGTERM during a call: stops it, undoes it, writes back the answered calls, says so, exits 143", async () => {
    const dir = folder();
    const run = start(["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
    run.child.stdin.write(call("echo one > one.txt"));
    await run.waitForLines(1);
    run.child.stdin.write(call("echo two > two.txt; echo changed > a.txt; sleep 60; echo late > late.txt"));
    await pause(3000);
    run.child.kill("SIGTERM");
    const { code } = await run.ended;
    expect(code, run.stderr()).toBe(143);
    expect(readFileSync(join(dir, "one.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(dir, "two.txt"))).toBe(false);
    expect(existsSync(join(dir, "late.txt"))).toBe(false);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
    const stderr = run.stderr();
    expect(stderr).toMatch(
      /shell \(request req-2\) was not answered, it was still running when the run was stopped: its changes are undone and not written back \((a\.txt, two\.txt|two\.txt, a\.txt)\)/u,
    );
    expect(stderr).toMatch(
      /SIGTERM: stopped after 1 answered call; each was written back before it was answered/u,
    );
    expect(stderr).toMatch(/write-back: 1 written \(one\.txt\), 0 deleted, 0 skipped, 0 failed/u);
    expect(stderr).not.toMatch(/\n\s+at /u);
    // The stopped call is answered as cancelled; nothing after it is read.
    const answers = run
      .stdout()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.error_code)).toEqual([null, "CANCELLED"]);
  }, 90_000);

  it.each([
    ["SIGINT", 130],
    ["SIGHUP", 129],
  ] as const)(
    "on %s while waiting for input: writes back and exits %i",
    async (signal, exit) => {
      const dir = folder();
      const run = start(["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
      run.child.stdin.write(call("echo one > one.txt && rm a.txt"));
      await run.waitForLines(1);
      run.child.kill(signal);
      const { code } = await run.ended;
      expect(code, run.stderr()).toBe(exit);
      expect(readdirSync(dir)).toEqual(["one.txt"]);
      expect(run.stderr()).toMatch(new RegExp(`${signal}: stopped after 1 answered call`, "u"));
      expect(run.stderr()).toMatch(/write-back: 1 written \(one\.txt\), 1 deleted \(a\.txt\)/u);
    },
    90_000,
  );

  it("says nothing is written back without --write-back", async () => {
    const dir = folder();
    const run = start(["batch", "--workspace", dir, "--profile", "coding-agent"]);
    run.child.stdin.write(call("echo one > one.txt"));
    await run.waitForLines(1);
    run.child.kill("SIGTERM");
    expect((await run.ended).code).toBe(143);
    expect(run.stderr()).toMatch(
      /SIGTERM: stopped after 1 answered call; nothing is written back \(no --write-back\)/u,
    );
    expect(readdirSync(dir)).toEqual(["a.txt"]);
  }, 90_000);

  it("on stdin closing: finishes the running call, answers it and writes it back", async () => {
    const dir = folder();
    const run = start(["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
    run.child.stdin.end(call("sleep 2; echo done > done.txt"));
    const { code } = await run.ended;
    expect(code, run.stderr()).toBe(0);
    expect(readFileSync(join(dir, "done.txt"), "utf8")).toBe("done\n");
    expect(run.stderr()).toMatch(/write-back: 1 written \(done\.txt\)/u);
  }, 90_000);
});

describe("a signal during write-back", () => {
  it("is said and not obeyed: write-back finishes every file, then the run exits 143", async () => {
    const big = Buffer.alloc(60 * 1024 * 1024, "a");
    // Write-back must be under way when the signal comes: retried when it was over first.
    for (let attempt = 0; attempt < 4; attempt++) {
      const dir = folder();
      writeFileSync(join(dir, "big.bin"), big);
      const run = start(["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
      run.child.stdin.end(call("echo x >> big.bin && echo b > b.txt"));
      while (!run.exited() && !readdirSync(dir).some((name) => TEMP_NAME.test(name))) await pause(1);
      if (run.exited()) continue;
      run.child.kill("SIGTERM");
      const { code } = await run.ended;
      expect(code, run.stderr()).toBe(143);
      expect(run.stderr()).toMatch(/SIGTERM: still writing back; each file is written whole/u);
      expect(readFileSync(join(dir, "big.bin")).length).toBe(big.length + 2);
      expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("b\n");
      expect(run.stderr()).toMatch(/write-back: 2 written/u);
      return;
    }
    throw new Error("write-back was never caught under way in 4 attempts");
  }, 180_000);
});

describe("an MCP run told to stop", () => {
  const rpc = (id: number, method: string, params: unknown) =>
    `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;

  it("follows the MCP shutdown (stdin closed, SIGTERM 2 s later): answered calls written back, the running one undone", async () => {
    const dir = folder();
    const run = start(["mcp", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
    run.child.stdin.write(
      rpc(1, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      }),
    );
    run.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    run.child.stdin.write(
      rpc(2, "tools/call", { name: "shell", arguments: { command: "echo one > one.txt" } }),
    );
    await run.waitForLines(2);
    run.child.stdin.end(
      rpc(3, "tools/call", { name: "shell", arguments: { command: "echo two > two.txt; sleep 60" } }),
    );
    await pause(2000);
    run.child.kill("SIGTERM");
    const { code } = await run.ended;
    expect(code, run.stderr()).toBe(143);
    expect(readFileSync(join(dir, "one.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(dir, "two.txt"))).toBe(false);
    expect(run.stderr()).toMatch(
      /SIGTERM: stopped after 1 answered call; each was written back before it was answered/u,
    );
    expect(run.stderr()).toMatch(/write-back: 1 written \(one\.txt\)/u);
    // The stopped call gets no answer: the client is going away.
    expect(run.stdout().trim().split("\n")).toHaveLength(2);
  }, 90_000);
});
