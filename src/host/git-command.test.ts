import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, loadIntoSandbox, tempDir } from "../tools/git/native-git.test-helpers.ts";
import { createEmbeddedRuntime } from "./create-runtime.ts";

function write(root: string, path: string, content: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** A repository with a history, staged and unstaged edits, a deletion, a rename and untracked files. */
function repository(): string {
  const root = tempDir();
  git(root, "init", "-q");
  write(root, ".gitignore", "*.log\n");
  write(root, "src/app.py", "def main():\n    return 1\n");
  write(root, "README.md", "# Demo\n");
  write(root, "old.txt", "moving\nalong\n");
  write(root, "gone.txt", "bye\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "First commit");
  write(root, "README.md", "# Demo\n\nMore.\n");
  git(root, "commit", "-qam", "Second commit\n\nWith a body.");
  write(root, "src/app.py", "def main():\n    return 2\n");
  git(root, "add", "src/app.py");
  write(root, "README.md", "# Demo\n\nMore, unstaged.\n");
  git(root, "mv", "old.txt", "new.txt");
  rmSync(join(root, "gone.txt"));
  write(root, "notes/todo.md", "todo\n");
  write(root, "debug.log", "ignored\n");
  return root;
}

async function sandboxOf(root: string) {
  const runtime = await createEmbeddedRuntime();
  await loadIntoSandbox(root, runtime.sandbox);
  return runtime.sandbox;
}

describe("git in the embedded shell", () => {
  const root = repository();
  it.each([
    ["git status --short", ["status", "--short", "-uall"]],
    ["git status --porcelain", ["status", "--porcelain", "-uall"]],
    ["git diff", ["diff"]],
    ["git diff --cached", ["diff", "--cached"]],
    ["git diff HEAD~1 HEAD", ["diff", "HEAD~1", "HEAD"]],
    ["git diff --name-only HEAD~1", ["diff", "--name-only", "HEAD~1"]],
    ["git diff --name-status --cached", ["diff", "--name-status", "--cached"]],
    ["git diff --numstat HEAD~1 HEAD", ["diff", "--numstat", "HEAD~1", "HEAD"]],
    ["git log --oneline", ["log", "--oneline"]],
    ["git log -n 1", ["log", "-n", "1"]],
    ["git rev-parse HEAD", ["rev-parse", "HEAD"]],
    ["git rev-parse --abbrev-ref HEAD", ["rev-parse", "--abbrev-ref", "HEAD"]],
    ["git branch", ["branch"]],
  ])("%s prints what native git prints", async (command, nativeArgs) => {
    const sandbox = await sandboxOf(root);
    const ours = await sandbox.exec(command);
    expect(ours.stderr).toBe("");
    expect(ours.stdout).toBe(git(root, ...nativeArgs));
  });

  it("git status prints native git's long format", async () => {
    const sandbox = await sandboxOf(root);
    const ours = await sandbox.exec("git status -uall");
    expect(ours.stdout).toBe(git(root, "status", "-uall"));
  });

  it("git status's long format agrees on a clean tree, before the first commit and with an upstream", async () => {
    const clean = tempDir();
    git(clean, "init", "-q");
    write(clean, "a.txt", "a\n");
    git(clean, "add", ".");
    git(clean, "commit", "-qm", "a");
    const unborn = tempDir();
    git(unborn, "init", "-q");
    write(unborn, "a.txt", "a\n");
    write(unborn, "b.txt", "b\n");
    git(unborn, "add", "a.txt");
    const clone = tempDir();
    git(clone, "clone", "-q", clean, ".");
    write(clone, "c.txt", "c\n");
    git(clone, "add", ".");
    git(clone, "commit", "-qm", "c");
    for (const root of [clean, unborn, clone]) {
      const sandbox = await sandboxOf(root);
      expect((await sandbox.exec("git status")).stdout).toBe(git(root, "status"));
    }
  });

  it("prints renames as git does in --numstat and --name-status", async () => {
    const renames = tempDir();
    git(renames, "init", "-q");
    const body = Array.from({ length: 30 }, (_, i) => `line ${i}\n`).join("");
    write(renames, "src/a.py", body);
    write(renames, "lib/x/f.txt", body.replace("line 1\n", "one\n"));
    write(renames, "top.txt", body.replace("line 2\n", "two\n"));
    git(renames, "add", ".");
    git(renames, "commit", "-qm", "a");
    git(renames, "mv", "src/a.py", "src/b.py");
    mkdirSync(join(renames, "app/x"), { recursive: true });
    git(renames, "mv", "lib/x/f.txt", "app/x/f.txt");
    mkdirSync(join(renames, "moved"), { recursive: true });
    git(renames, "mv", "top.txt", "moved/top.txt");
    write(renames, "moved/top.txt", `${body.replace("line 2\n", "two\n")}extra\n`);
    git(renames, "add", ".");
    const sandbox = await sandboxOf(renames);
    for (const flag of ["--numstat", "--name-status"]) {
      expect((await sandbox.exec(`git diff --cached ${flag}`)).stdout).toBe(
        git(renames, "diff", "--cached", flag),
      );
    }
  });

  it("adds, commits and logs; native git reads the result", async () => {
    const sandbox = await sandboxOf(root);
    const commit = await sandbox.exec(
      'git add -A && git commit -m "Third commit" && git log --oneline -n 1 && git status --short',
    );
    expect(commit.stderr).toBe("");
    expect(commit.stdout).toMatch(
      /^\[main [0-9a-f]{7}\] Third commit\n \d+ files changed\n[0-9a-f]{7} Third commit\n$/u,
    );
    expect((await sandbox.exec("git commit -m again")).exitCode).toBe(1);
  });

  it("git init makes a repository, and other commands refuse outside one", async () => {
    const runtime = await createEmbeddedRuntime({ files: { "a.txt": "a\n" } });
    expect((await runtime.sandbox.exec("git status")).exitCode).toBe(128);
    expect((await runtime.sandbox.exec("git init")).stdout).toBe(
      "Initialized empty Git repository in /workspace/.git/\n",
    );
    expect((await runtime.sandbox.exec("git status --short")).stdout).toBe("?? a.txt\n");
    expect((await runtime.sandbox.exec("git stash")).stderr).toContain("not supported");
  });
});
