import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `feed` writes its stdin (with backpressure) and ends it. */
function toolroom(args: string[], feed: (stdin: NodeJS.WritableStream) => Promise<void>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.on("error", () => undefined);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    feed(child.stdin).then(
      () => child.stdin.end(),
      (error) => reject(error),
    );
  });
}

const text = (input: string) => async (stdin: NodeJS.WritableStream) => {
  stdin.write(input);
};

function folder(files: Record<string, string> = { "a.txt": "hi\n" }): string {
  const dir = mkdtempSync(join(tmpdir(), "toolroom-robust-"));
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  return dir;
}

const answers = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));

/** What a person must never see: a stack trace, or a path inside Toolroom's own code. */
function expectNoStack(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at /u);
  expect(stderr).not.toContain(join(import.meta.dirname, ".."));
}

const READ = '{"tool":"read_file","params":{"path":"a.txt"},"request_id":"ok"}';

describe("the command line on bad input", () => {
  it("answers every line once, in order, whatever it holds", async () => {
    const input = [
      READ,
      "",
      "   ",
      "\u00a0",
      "\ufeff",
      '{"tool":"read_file",\r"params":{"path":"a.txt"},"request_id":"cr-between"}',
      '{"tool":"read_file","params":{"path":"a\rb"},"request_id":"cr-inside"}',
      `{"tool":"read_file","params":${"[".repeat(5000)}${"]".repeat(5000)},"request_id":"deep"}`,
      "not json",
      "[1,2]",
      READ,
    ];
    for (const profile of ["agentbench", "toolrouter"]) {
      const run = await toolroom(
        ["batch", "--workspace", folder(), "--profile", profile],
        text(`${input.join("\r\n")}\n`),
      );
      expect(run.code, run.stderr).toBe(0);
      expectNoStack(run.stderr);
      const out = answers(run.stdout);
      expect(out).toHaveLength(input.length);
      if (profile === "agentbench") {
        expect(out.map((envelope) => envelope.status)).toEqual([
          "success",
          ...Array(4).fill("error"),
          "success",
          "error",
          "error",
          "error",
          "error",
          "success",
        ]);
        expect(out[1].error.message).toContain("Line 2 is empty");
        expect(out[3].error.message).toContain("no-break space");
        expect(out[6].error.message).toContain("carriage return");
        expect(out[7].error.message).toContain("nests 5001 levels deep");
        expect(out[7].request_id).toBe("");
      }
    }
  }, 60_000);

  it("refuses a workspace that is not a folder with exit 2 and a clear message", async () => {
    const missing = await toolroom(
      ["batch", "--workspace", "/nonexistent", "--profile", "agentbench"],
      text(""),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("toolroom: --workspace /nonexistent: no such folder");
    expectNoStack(missing.stderr);
    const file = join(folder(), "a.txt");
    const notFolder = await toolroom(["mcp", "--workspace", file, "--profile", "agentbench"], text(""));
    expect(notFolder.code).toBe(2);
    expect(notFolder.stderr).toContain(`--workspace ${file}: not a folder`);
  });

  it("goes on when events cannot be written (a full disk, a folder that cannot be made)", async () => {
    for (const events of ["/dev/full", "/proc/toolroom-nope/events.jsonl"]) {
      const run = await toolroom(
        ["batch", "--workspace", folder(), "--profile", "agentbench", "--events", events],
        text(`${READ}\n${READ}\n`),
      );
      expect(run.code, run.stderr).toBe(0);
      expect(answers(run.stdout).map((envelope) => envelope.status)).toEqual(["success", "success"]);
      expect(run.stderr).toMatch(
        new RegExp(`cannot write events to ${events} \\(.+\\); the run goes on`, "u"),
      );
      expectNoStack(run.stderr);
    }
  }, 60_000);

  it("goes on when --artifacts names a file, and says how many artifacts were lost", async () => {
    const dir = folder();
    const run = await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench", "--artifacts", join(dir, "a.txt")],
      text('{"tool":"run","params":{"command":"echo hello"}}\n'),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(answers(run.stdout)[0].data.stdout).toBe("hello\n");
    expect(run.stderr).toContain(
      `cannot write artifacts to ${join(dir, "a.txt")} (a part of the path is a file`,
    );
    expectNoStack(run.stderr);
  }, 60_000);

  it("leaves out names that are not UTF-8 and special files, says so, and serves the rest", async () => {
    const dir = folder();
    writeFileSync(
      Buffer.concat([Buffer.from(`${dir}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]),
      "x",
    );
    execFileSync("mkfifo", [join(dir, "pipe")]);
    const run = await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench", "--write-back"],
      text(`{"tool":"list_files","params":{}}\n{"tool":"run","params":{"command":"ls; echo y > new.txt"}}\n`),
    );
    expect(run.code, run.stderr).toBe(0);
    expectNoStack(run.stderr);
    const [listed, ran] = answers(run.stdout);
    expect(listed.data.files).toEqual(["a.txt"]);
    expect(ran.data.stdout).toBe("a.txt\n");
    expect(run.stderr).toContain("left out bad-\ufffd\ufffd.txt: its name is not valid UTF-8");
    expect(run.stderr).toContain("left out pipe: a FIFO, not a file");
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("y\n");
    expect(readdirSync(dir).length).toBe(4);
  }, 60_000);

  it("never echoes a huge bad input back in its error (a 10 MB patch line made a 10 MB answer)", async () => {
    const patch = `--- a/a.txt\n+++ b/a.txt\n${"z".repeat(10_000_000)}\n`;
    const run = await toolroom(
      ["batch", "--workspace", folder(), "--profile", "agentbench"],
      text(`${JSON.stringify({ tool: "apply_patch", params: { unified_diff: patch } })}\n`),
    );
    expect(run.code, run.stderr).toBe(0);
    const [answer] = answers(run.stdout);
    expect(answer.error.error_type).toBe("patch_parse_error");
    expect(answer.error.details.got).toBe(`${"z".repeat(1000)}…`);
    expect(run.stdout.length).toBeLessThan(10_000);
  }, 60_000);

  it("answers a line over 512 MB with an error, without holding it, and reads on", async () => {
    const dir = folder();
    const chunk = Buffer.alloc(1024 * 1024, "x");
    const run = await toolroom(["batch", "--workspace", dir, "--profile", "agentbench"], async (stdin) => {
      const write = (data: Buffer | string) =>
        new Promise<void>((resolve) => {
          if (stdin.write(data)) resolve();
          else stdin.once("drain", resolve);
        });
      await write('{"tool":"write_file","params":{"path":"big.txt","content":"');
      for (let i = 0; i < 513; i++) await write(chunk);
      await write('"}}\n');
      await write(`${READ}\n`);
    });
    expect(run.code, run.stderr).toBe(0);
    expectNoStack(run.stderr);
    const out = answers(run.stdout);
    expect(out).toHaveLength(2);
    expect(out[0].error.message).toMatch(/^Line 1 is 513 MB long; a request line may be at most 64 MB/u);
    expect(out[1].status).toBe("success");
    expect(readdirSync(dir)).toEqual(["a.txt"]);
  }, 180_000);
});

describe("runaways end at their deadlines and the batch goes on", () => {
  const glob = `${"*a".repeat(25)}*c`;
  const name = `${"a".repeat(40)}b`;
  const workspace = () => folder({ "f.txt": `${name}\n`, [name]: "" });
  const lines = (requests: unknown[]) =>
    text(`${requests.map((request) => JSON.stringify(request)).join("\n")}\n`);
  const call = (tool: string, params: Record<string, unknown>) => ({ tool, params });

  it("agentbench: a backtracking regex, a glob, awk, sed, jq and node loops", async () => {
    const started = Date.now();
    const run = await toolroom(
      ["batch", "--workspace", workspace(), "--profile", "agentbench"],
      lines([
        call("search", { query: "(a+)+$" }),
        call("list_files", { glob }),
        // awk counts no iterations: only the deadline ends its loop.
        call("run", { command: "awk 'BEGIN { while (1) { } }'", timeout_sec: 3 }),
        call("run", { command: "echo x | sed -n ':a;s/^/x/;ba'", timeout_sec: 3 }),
        call("run", { command: "jq -n '0 | until(. < 0; . + 1)'", timeout_sec: 3 }),
        call("run", { command: "node -e 'for (;;) {}'", timeout_sec: 3 }),
        call("run", { command: "echo next" }),
        // The shell's grep, sed and awk match on a linear engine: a backtracker's runaway answers at once.
        call("run", {
          command: "grep -cE '(a+)+$' f.txt; sed -E 's/(a|aa)*b/X/' f.txt; awk '/(a+)+$/' f.txt",
          timeout_sec: 3,
        }),
      ]),
    );
    const got = answers(run.stdout);
    expect(got.map((answer) => answer.status)).toEqual([
      "success",
      "success",
      "error",
      "error",
      "error",
      "error",
      "success",
      "success",
    ]);
    expect(got[7].data.stdout).toBe("0\nX\n");
    for (const answer of got.slice(2, 6)) {
      expect(answer.error.error_type).toBe("timeout");
      // Each stops within a second of its deadline (generous on a loaded machine: 3 s).
      expect(answer.duration_sec).toBeLessThan(3 + 3);
    }
    expect(got[6].data.stdout).toBe("next\n");
    expect(Date.now() - started).toBeLessThan(90_000);
  }, 120_000);

  it("toolrouter, baseagent and coding-agent: regex searches, a glob, an endless exec_command", async () => {
    const toolrouter = answers(
      (
        await toolroom(
          ["batch", "--workspace", workspace(), "--profile", "toolrouter"],
          lines([
            call("grep_files", { pattern: "(a+)+$", path: ".", include: null, limit: 10 }),
            call("exec_command", { session_id: "y", cmd: "while true; do echo y; done", workdir: null }),
            call("write_stdin", { session_id: "y", chars: "\u0003" }),
          ]),
        )
      ).stdout,
    );
    expect(toolrouter[0].error).toBeUndefined();
    expect(toolrouter[1].output).toMatch(/^(?:y\n)+$/u);
    expect(toolrouter[2].output).toContain("[process exited with code 130]");
    const baseagent = answers(
      (
        await toolroom(
          ["batch", "--workspace", workspace(), "--profile", "baseagent"],
          lines([call("grep_files", { pattern: "(a+)+$" })]),
        )
      ).stdout,
    );
    expect(baseagent[0].success).toBe(true);
    const codingAgent = answers(
      (
        await toolroom(
          ["batch", "--workspace", workspace(), "--profile", "coding-agent"],
          lines([call("grep", { pattern: "(a+)+$" }), call("glob", { pattern: glob })]),
        )
      ).stdout,
    );
    expect(codingAgent.map((answer) => answer.ok)).toEqual([true, true]);
  }, 120_000);
});
