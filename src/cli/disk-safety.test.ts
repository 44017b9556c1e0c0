import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { folderWith, runToolroom } from "../test-support/toolroom-cli.ts";

/** The command line on a real folder: what reaches the disk, and what never does. */

const toolroom = runToolroom;
const folder = (files: Record<string, string>) => folderWith(files, "toolroom-disk-");

const lines = (calls: unknown[]) => `${calls.map((call) => JSON.stringify(call)).join("\n")}\n`;
const answers = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

/** One write and one command per profile, in the profile's own call shape. */
const CHANGES: Record<string, { tool: string; params: Record<string, unknown> }[]> = {
  agentbench: [
    { tool: "apply_patch", params: { unified_diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n" } },
    { tool: "run", params: { command: "echo x > b.txt" } },
  ],
  toolrouter: [
    { tool: "apply_patch_json", params: { patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n" } },
    { tool: "shell", params: { command: "echo x > b.txt", workdir: ".", timeout_ms: 10_000 } },
  ],
  "coding-agent": [
    { tool: "file_write", params: { path: "a.txt", content: "b\n" } },
    { tool: "shell", params: { command: "echo x > b.txt" } },
  ],
  sandboxed: [
    { tool: "write_file", params: { path: "a.txt", content: "b\n" } },
    { tool: "text_replace", params: { file: "a.txt", search: "a", replace: "b" } },
  ],
  baseagent: [
    { tool: "write_file", params: { file_path: "a.txt", content: "b\n" } },
    { tool: "shell_command", params: { command: "echo x > b.txt" } },
  ],
};

describe("--approve", () => {
  it.each(Object.keys(CHANGES))(
    "deny refuses every write and command in %s, and nothing is written back",
    async (profile) => {
      const dir = folder({ "a.txt": "a\n" });
      const { code, stdout } = await toolroom(
        ["batch", "--workspace", dir, "--profile", profile, "--approve", "deny", "--write-back"],
        lines(CHANGES[profile]!),
      );
      expect(code).toBe(0);
      const [write, command] = answers(stdout);
      for (const answer of [write, command])
        expect(JSON.stringify(answer)).toMatch(
          /approval|ApprovalDenied|not allowed by the approval policy/iu,
        );
      expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
      expect(readdirSync(dir)).toEqual(["a.txt"]);
    },
    60_000,
  );

  it("ask is refused up front in a run with nobody to answer", async () => {
    const dir = folder({ "a.txt": "a\n" });
    for (const command of ["batch", "mcp"]) {
      const { code, stderr } = await toolroom([
        command,
        "--workspace",
        dir,
        "--profile",
        "coding-agent",
        "--approve",
        "ask",
      ]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/--approve ask needs a person/u);
      expect(stderr).toMatch(/--approve deny/u);
    }
  });
});

describe("git's setup on disk", () => {
  it("is never written back: a repository made in the sandbox lands without config and hooks, and git reads it", async () => {
    const dir = folder({ "a.txt": "a\n" });
    const { code, stdout, stderr } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"],
      lines([
        { tool: "shell", params: { command: "git init -q && git add a.txt && git commit -qm first" } },
        { tool: "shell", params: { command: "echo x >> .git/config" } },
      ]),
    );
    expect(code).toBe(0);
    const [made, refused] = answers(stdout);
    expect(made).toMatchObject({ ok: true });
    expect(refused).toMatchObject({ ok: false, error_code: "PROTECTED_PATH" });
    expect(existsSync(join(dir, ".git/HEAD"))).toBe(true);
    expect(existsSync(join(dir, ".git/config"))).toBe(false);
    expect(existsSync(join(dir, ".git/hooks"))).toBe(false);
    expect(stderr).toMatch(/\.git\/config/u);
    const log = spawnSync("git", ["-C", dir, "log", "--format=%s"], { encoding: "utf8" });
    expect(log.stdout).toBe("first\n");
  }, 60_000);
});
