import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runToolroom, TOOLROOM_BIN } from "../test-support/toolroom-cli.ts";

const MB = 1024 * 1024;
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function emptyFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "toolroom-written-quota-"));
  folders.push(folder);
  return folder;
}

/** `toolroom batch` on an empty folder with a 1 MB quota on what the run writes. */
async function batch(
  profile: string,
  calls: object[],
  extra: string[] = ["--max-written-mb", "1"],
): Promise<{ code: number; answers: Record<string, unknown>[]; stderr: string }> {
  const { code, stdout, stderr } = await runToolroom(
    ["batch", "--workspace", emptyFolder(), "--profile", profile, ...extra],
    calls.map((call) => `${JSON.stringify(call)}\n`).join(""),
  );
  return {
    code,
    stderr,
    answers: stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line)),
  };
}

/** A unified diff creating `name` with `lines` lines of 100 bytes. */
function creatingDiff(name: string, lines: number): string {
  const body = `+${"x".repeat(99)}\n`.repeat(lines);
  return `--- /dev/null\n+++ b/${name}\n@@ -0,0 +1,${lines} @@\n${body}`;
}

const QUOTA = { limit: "max_written_bytes", limit_bytes: MB };

describe("--max-written-mb: what a run writes is held in memory up to a quota, refused past it", () => {
  it("coding-agent: LIMIT_EXCEEDED, nothing written; deleting a file makes room again", async () => {
    const { answers } = await batch("coding-agent", [
      { tool: "file_write", params: { path: "a.txt", content: "a".repeat(600_000) } },
      { tool: "file_write", params: { path: "b.txt", content: "b".repeat(600_000) } },
      { tool: "file_list", params: { path: "." } },
      { tool: "file_delete", params: { path: "a.txt" } },
      { tool: "file_write", params: { path: "b.txt", content: "b".repeat(600_000) } },
    ]);
    expect(answers[0]).toMatchObject({ ok: true });
    expect(answers[1]).toMatchObject({
      ok: false,
      error_code: "LIMIT_EXCEEDED",
      message: expect.stringMatching(/^No space left to write .*b\.txt: .* 1 MB quota .*--max-written-mb/u),
      data: QUOTA,
    });
    expect(JSON.stringify(answers[2])).not.toContain("b.txt");
    expect(answers[3]).toMatchObject({ ok: true });
    expect(answers[4]).toMatchObject({ ok: true, data: { bytes_written: 600_000 } });
  }, 60_000);

  it("agentbench: error_type limit_exceeded from apply_patch, and the patch changed nothing", async () => {
    const { answers } = await batch("agentbench", [
      { tool: "apply_patch", params: { unified_diff: creatingDiff("big.txt", 12_000) } },
      { tool: "list_files", params: { path: "." } },
    ]);
    expect(answers[0]).toMatchObject({
      status: "error",
      error: { error_type: "limit_exceeded", details: { path: "big.txt", ...QUOTA } },
    });
    expect((answers[0]!.error as { message: string }).message).toContain("no file was changed");
    expect(JSON.stringify(answers[1])).not.toContain("big.txt");
  }, 60_000);

  it("toolrouter: OSError, as Python raises on a full disk", async () => {
    const { answers } = await batch("toolrouter", [
      { tool: "apply_patch_json", params: { patch: creatingDiff("big.txt", 12_000) } },
    ]);
    expect(answers[0]).toMatchObject({
      error: { type: "OSError", code: "limit_exceeded", message: expect.stringContaining("No space left") },
    });
  }, 60_000);

  it("sandboxed: size_limit_exceeded once the 32 KB files add up past the quota", async () => {
    const writes = Array.from({ length: 40 }, (_, i) => ({
      tool: "write_file",
      params: { path: `f${i}.txt`, content: "y".repeat(32_000) },
    }));
    const { answers } = await batch("sandboxed", writes);
    const refused = answers.filter((answer) => answer.success === false);
    // 32 files of 32,000 bytes fit in 1 MB (1,048,576 bytes); the shell's own few bytes leave room for 32.
    expect(answers.filter((answer) => answer.success === true).length).toBeGreaterThanOrEqual(30);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused)
      expect(answer).toMatchObject({
        error: { type: "size_limit_exceeded", details: { code: "limit_exceeded", ...QUOTA } },
      });
  }, 60_000);

  it("baseagent: an Error output saying there is no space left", async () => {
    const { answers } = await batch("baseagent", [
      { tool: "write_file", params: { file_path: "big.txt", content: "z".repeat(1_200_000) } },
    ]);
    expect(answers[0]).toMatchObject({
      success: false,
      output: expect.stringMatching(/^Error: No space left to write .*big\.txt/u),
    });
  }, 60_000);

  it("the shell, node and python3 each fail saying so, never pretending the write happened", async () => {
    const { answers } = await batch("coding-agent", [
      { tool: "shell", params: { command: "printf '%01100000d' 0 > a.txt; echo not reached" } },
      {
        tool: "shell",
        params: { command: "node -e \"require('fs').writeFileSync('b.txt', 'x'.repeat(1100000))\"" },
      },
      { tool: "shell", params: { command: "python3 -c \"open('c.txt', 'w').write('x' * 1100000)\"" } },
      // As in bash, the redirection made a.txt before the write failed: it is left empty.
      { tool: "shell", params: { command: "ls; wc -c a.txt" } },
    ]);
    expect(answers[0]).toMatchObject({
      data: {
        exit_code: 1,
        stdout: "",
        stderr: expect.stringMatching(/^bash: write error: No space left on device \(.*1048576 bytes\)\n$/u),
      },
    });
    expect(answers[1]).toMatchObject({
      data: { exit_code: 1, stderr: expect.stringMatching(/node: .*b\.txt: ENOSPC/u) },
    });
    expect(answers[2]).toMatchObject({
      data: {
        exit_code: 1,
        stderr: expect.stringMatching(/python3: .* could not be kept: .*c\.txt: ENOSPC/u),
      },
    });
    expect(answers[3]).toMatchObject({ data: { exit_code: 0, stdout: "a.txt\n0 a.txt\n" } });
  }, 90_000);

  it("refuses a quota that is not a whole number of megabytes from 1, as bad usage (exit 2)", async () => {
    for (const value of ["0", "-1", "1.5", "lots", ""]) {
      const { code, answers, stderr } = await batch("coding-agent", [], ["--max-written-mb", value]);
      expect(code, value).toBe(2);
      expect(answers).toEqual([]);
      expect(stderr).toMatch(/^toolroom: .*--max-written-mb/u);
    }
  }, 60_000);

  it("writes nothing back to disk from a refused write", async () => {
    const folder = emptyFolder();
    const { code } = await new Promise<{ code: number | null }>((resolve, reject) => {
      const child = spawn(
        TOOLROOM_BIN,
        [
          "batch",
          "--workspace",
          folder,
          "--profile",
          "coding-agent",
          "--write-back",
          "--max-written-mb",
          "1",
        ],
        { stdio: ["pipe", "ignore", "ignore"] },
      );
      child.on("error", reject);
      child.on("close", (exit) => resolve({ code: exit }));
      child.stdin.end(
        `${JSON.stringify({ tool: "file_write", params: { path: "big.txt", content: "z".repeat(1_200_000) } })}\n${JSON.stringify({ tool: "file_write", params: { path: "small.txt", content: "ok\n" } })}\n`,
      );
    });
    expect(code).toBe(0);
    expect(readdirSync(folder)).toEqual(["small.txt"]);
  }, 60_000);
});
