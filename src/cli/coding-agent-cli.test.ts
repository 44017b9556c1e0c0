import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");

function batch(workspace: string, lines: object[]): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, ["batch", "--workspace", workspace, "--profile", "coding-agent"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", () =>
      resolve(
        stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      ),
    );
    child.stdin.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  });
}

it("toolroom batch: the shell has git, and ruff and TypeScript run without native binaries", async () => {
  const workspace = mkdtempSync(join(tmpdir(), "toolroom-cli-coding-"));
  writeFileSync(join(workspace, "a.py"), "import os\n");
  writeFileSync(join(workspace, "b.ts"), "export const n: number = 'x';\n");
  const [shell, status, lint, types, refused] = await batch(workspace, [
    {
      tool: "shell",
      params: { command: "git init -q && git add . && git commit -qm first && git log --oneline" },
    },
    { tool: "git_status", params: {} },
    { tool: "run_lint", params: {} },
    { tool: "typecheck", params: {} },
    { tool: "safe_shell", params: { command: "git commit -qm second" } },
  ]);
  expect(shell).toMatchObject({
    ok: true,
    data: { exit_code: 0, stdout: expect.stringMatching(/^[0-9a-f]{7} first\n$/u) },
  });
  expect(status).toMatchObject({
    ok: true,
    data: { branch: "main", staged: [], unstaged: [], untracked: [] },
  });
  expect(lint).toMatchObject({ ok: true, data: { parser_used: "ruff-wasm", issue_count: 1 } });
  expect(types).toMatchObject({ ok: true, data: { parser_used: "typescript-api", issue_count: 1 } });
  expect(refused).toMatchObject({
    ok: false,
    error_code: "COMMAND_BLOCKED",
    data: { matched_pattern: "git commit" },
  });
}, 60_000);
