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
    ["git log -1", ["log", "-1"]],
    ["git log --stat", ["log", "--stat"]],
    ["git log -p", ["log", "-p"]],
    ["git log -p --stat -n 1", ["log", "-p", "--stat", "-n", "1"]],
    ["git log --oneline --stat", ["log", "--oneline", "--stat"]],
    ["git log --oneline -p", ["log", "--oneline", "-p"]],
    ["git log --name-only", ["log", "--name-only"]],
    ["git log --name-status --oneline", ["log", "--name-status", "--oneline"]],
    ["git log --format='%H %h %T %P %an <%ae> %s'", ["log", "--format=%H %h %T %P %an <%ae> %s"]],
    [
      "git log --pretty=format:'%h|%ad|%cd' --date=short",
      ["log", "--pretty=format:%h|%ad|%cd", "--date=short"],
    ],
    ["git log --format='%ai%n%aI%n%at%n%aD%x09%b' -1", ["log", "--format=%ai%n%aI%n%at%n%aD%x09%b", "-1"]],
    ["git log --format=%s --stat", ["log", "--format=%s", "--stat"]],
    ["git log --pretty=format:%h --stat", ["log", "--pretty=format:%h", "--stat"]],
    ["git log --pretty=short", ["log", "--pretty=short"]],
    ["git log --pretty=full -1", ["log", "--pretty=full", "-1"]],
    ["git log --pretty=fuller --date=iso", ["log", "--pretty=fuller", "--date=iso"]],
    ["git log --pretty=oneline", ["log", "--pretty=oneline"]],
    ["git log --max-count=1 --date=raw", ["log", "--max-count=1", "--date=raw"]],
    ["git log HEAD~1 --format=%s", ["log", "HEAD~1", "--format=%s"]],
    ["git log --format=%s -- README.md", ["log", "--format=%s", "--", "README.md"]],
    ["git show", ["show"]],
    ["git show HEAD~1", ["show", "HEAD~1"]],
    ["git show --stat", ["show", "--stat"]],
    ["git show -s --format=%H", ["show", "-s", "--format=%H"]],
    ["git show --name-status HEAD~1", ["show", "--name-status", "HEAD~1"]],
    ["git show HEAD~1:README.md", ["show", "HEAD~1:README.md"]],
    ["git show HEAD:src/app.py", ["show", "HEAD:src/app.py"]],
    ["git diff --stat HEAD~1", ["diff", "--stat", "HEAD~1"]],
    ["git diff --shortstat --cached", ["diff", "--shortstat", "--cached"]],
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
