import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");
const MB = 1024 * 1024;

/** The most memory the process ever held (Linux's high-water mark of its resident set). */
function peakBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmHWM:\s+(\d+) kB/mu.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

/**
 * Runs `toolroom batch` on a small folder with `calls`, one line each, and reads the CLI process's
 * peak memory once every call is answered (while the process still lives).
 */
interface Answer {
  data: { stdout: string; stderr: string };
}

function measured(calls: object[]): Promise<{ answers: Answer[]; peak: number }> {
  const dir = mkdtempSync(join(tmpdir(), "toolroom-memory-"));
  writeFileSync(join(dir, "a.txt"), "hi\n");
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, ["batch", "--workspace", dir, "--profile", "agentbench"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const lines = stdout.split("\n").filter((line) => line !== "");
      if (lines.length < calls.length) return;
      const peak = peakBytes(child.pid!);
      child.stdin.end();
      resolve({ answers: lines.map((line) => JSON.parse(line)), peak });
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (stdout.split("\n").filter((line) => line !== "").length < calls.length)
        reject(new Error(`toolroom exited ${code} before answering: ${stderr}`));
    });
    child.stdin.write(calls.map((call) => `${JSON.stringify(call)}\n`).join(""));
  });
}

const run = (command: string) => ({ tool: "run", params: { command, timeout_sec: 120 } });

describe.runIf(existsSync("/proc/self/status"))("a call's memory, measured on the real process", () => {
  it("the embedded node's 256 MB cap holds for the whole process (it grew the CLI to 2.2 GB)", async () => {
    const { answers, peak } = await measured([
      run(`node -e "let a = []; while (true) a.push('x'.repeat(1000) + Math.random())"`),
      run(`node -p "'still here'"`),
    ]);
    expect(answers[0]!.data.stderr).toContain("InternalError: out of memory");
    expect(answers[0]!.data.stderr).toContain("heap is capped at 256 MB");
    expect(answers[1]!.data.stdout).toBe("still here\n");
    // The CLI itself (~200 MB) + what an earlier engine may leave (64 MB) + the program's 256 MB.
    expect(peak).toBeLessThan(700 * MB);
  }, 180_000);

  it("jq's output and heap are capped (a loop grew the CLI to 4.5 GB and crashed it)", async () => {
    const { answers, peak } = await measured([
      run(`jq -n 'limit(200; repeat("x" * 2000000))' | wc -c`),
      run(`jq -n '[limit(100000000; repeat("xxxxxxxx"))] | length'`),
      run(`echo '{"a":[1,2]}' | jq -c '.a | map(. * 2)'`),
    ]);
    // 400 MB of output: jq is stopped at the shell's 64 MB and says so.
    expect(answers[0]!.data.stderr).toContain("jq: output stopped at 67108864 bytes (the output limit)");
    expect(Number(answers[0]!.data.stdout)).toBeLessThanOrEqual(67_108_864);
    // A filter that holds 100 million values: its WebAssembly heap is capped, the CLI goes on.
    expect(answers[1]!.data.stderr).toContain("jq: stopped: the filter needed more than 256 MB of memory");
    expect(answers[2]!.data.stdout).toBe("[2,4]\n");
    // The CLI itself (~200 MB) + jq's worker and its 256 MB heap + the 64 MB of output it keeps.
    expect(peak).toBeLessThan(1000 * MB);
  }, 240_000);

  it("a long session keeps no copy of each version of the files it wrote (ten 100 MB rewrites took 2.4 GB)", async () => {
    const rewrite = run(`node -e "require('fs').writeFileSync('big.txt', 'x'.repeat(6e7) + Math.random())"`);
    const { answers, peak } = await measured([...Array(8).fill(rewrite), run("wc -c < big.txt")]);
    expect(Number(answers.at(-1)!.data.stdout)).toBeGreaterThan(6e7);
    // Each call held the file's before and after (120 MB) for as long as the process lived.
    expect(peak).toBeLessThan(900 * MB);
  }, 300_000);

  it("a long session keeps no copy of each call's params (ten 40 MB params held 400 MB more)", async () => {
    const huge = { tool: "read_file", params: { path: "z".repeat(4e7) } };
    const { answers, peak } = await measured(Array(10).fill(huge));
    expect(answers.every((answer) => (answer as { status?: string }).status === "error")).toBe(true);
    expect(peak).toBeLessThan(700 * MB);
  }, 300_000);

  it("python3 printing without end is stopped at 64 MB of output, piped or not (it crashed the CLI at 2 GB)", async () => {
    const flood = "import sys\nwhile True:\n  try: sys.stdout.write('x' * 100000)\n  except OSError: pass\n";
    const { answers, peak } = await measured([
      run(`printf "${flood}" > flood.py && python3 flood.py | wc -c`),
      run("python3 flood.py > /dev/null; echo $?"),
      run(`node -e "for (let i = 0; i < 300; i++) process.stdout.write('x'.repeat(100000))" | wc -c`),
    ]);
    expect(answers[0]!.data.stdout.trim()).toBe(String(671 * 100000));
    expect(answers[0]!.data.stderr).toContain("python3: stopped: the program printed more than 64 MB");
    expect(answers[1]!.data.stdout).toBe("1\n");
    // A command's long output piped on (it cost 1.2 GB for 30 MB, encoded a character at a time).
    expect(answers[2]!.data.stdout.trim()).toBe("30000000");
    expect(peak).toBeLessThan(1000 * MB);
  }, 300_000);
});
