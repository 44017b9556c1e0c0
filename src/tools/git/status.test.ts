import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolContext } from "../../core/tool-context.ts";
import { EmbeddedSandbox } from "../../sandbox/embedded/embedded-sandbox.ts";
import { git, loadIntoSandbox, nativeStatus, tempDir } from "./native-git.test-helpers.ts";
import { gitStatus } from "./status.ts";

function write(root: string, path: string, content: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

async function compare(root: string) {
  const sandbox = await EmbeddedSandbox.create();
  await loadIntoSandbox(root, sandbox);
  const context = createToolContext(sandbox);
  const ours = await gitStatus(context);
  const native = nativeStatus(root);
  expect({
    branch: ours.branch,
    upstream: ours.upstream,
    ahead: ours.ahead,
    behind: ours.behind,
    staged: ours.staged,
    unstaged: ours.unstaged,
    untracked: ours.untracked,
  }).toEqual(native);
  return { ours, native, sandbox, context };
}

const lines = (n: number, tag: string) =>
  `${Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join("\n")}\n`;

/** A repository with every kind of change git status distinguishes. */
function busyRepo(): string {
  const root = tempDir();
  git(root, "init", "-q");
  write(root, ".gitignore", "build/\n*.log\n");
  write(root, "src/app.py", lines(20, "app"));
  write(root, "src/util.py", lines(20, "util"));
  write(root, "src/old_name.py", lines(30, "moved"));
  write(root, "src/edited_move.py", lines(40, "edited"));
  write(root, "docs/guide.md", lines(10, "guide"));
  write(root, "docs/gone.md", "bye\n");
  write(root, "docs/unstaged_gone.md", "bye too\n");
  write(root, "both.txt", "one\n");
  write(root, "uncached.txt", "keep me on disk\n");
  write(root, "pkg/.gitignore", "*.tmp\n!keep.tmp\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "initial");
  // staged modification, unstaged modification, both
  write(root, "src/app.py", `${lines(20, "app")}staged\n`);
  git(root, "add", "src/app.py");
  write(root, "src/util.py", `unstaged\n${lines(20, "util")}`);
  write(root, "both.txt", "two\n");
  git(root, "add", "both.txt");
  write(root, "both.txt", "three\n");
  // staged add (then modified again), staged delete, unstaged delete
  write(root, "src/new.py", "print('new')\n");
  git(root, "add", "src/new.py");
  write(root, "src/new.py", "print('newer')\n");
  git(root, "rm", "-q", "docs/gone.md");
  rmSync(join(root, "docs/unstaged_gone.md"));
  // exact rename, rename with an edit
  mkdirSync(join(root, "lib"));
  git(root, "mv", "src/old_name.py", "lib/new_name.py");
  git(root, "mv", "src/edited_move.py", "lib/edited_moved.py");
  write(root, "lib/edited_moved.py", `${lines(40, "edited")}one more\n`);
  git(root, "add", "lib/edited_moved.py");
  // removed from the index, still on disk
  git(root, "rm", "-q", "--cached", "uncached.txt");
  // untracked, ignored, nested ignore rules
  write(root, "notes/todo.md", "todo\n");
  write(root, "notes/deeper/more.md", "more\n");
  write(root, "build/out.js", "ignored\n");
  write(root, "debug.log", "ignored\n");
  write(root, "pkg/a.tmp", "ignored\n");
  write(root, "pkg/keep.tmp", "not ignored\n");
  return root;
}

describe("gitStatus agrees with native git status", () => {
  it("on a repository with staged, unstaged, deleted, renamed, untracked and ignored files", async () => {
    const { ours } = await compare(busyRepo());
    expect(ours.staged).toContainEqual({
      path: "lib/new_name.py",
      status: "renamed",
      old_path: "src/old_name.py",
    });
    expect(ours.staged).toContainEqual({
      path: "lib/edited_moved.py",
      status: "renamed",
      old_path: "src/edited_move.py",
    });
    expect(ours.untracked).toContain("pkg/keep.tmp");
    expect(ours.untracked).not.toContain("debug.log");
    expect(ours.repo_root).toBe(".");
    expect(ours.head).toMatch(/^[0-9a-f]{40}$/u);
  });

  it("a second call (index stats refreshed) gives the same answer", async () => {
    const root = busyRepo();
    const { context, ours } = await compare(root);
    expect(await gitStatus(context)).toEqual(ours);
  });

  it("on a clean repository and on one with no commits yet", async () => {
    const clean = tempDir();
    git(clean, "init", "-q");
    write(clean, "a.txt", "a\n");
    git(clean, "add", ".");
    git(clean, "commit", "-qm", "a");
    const { ours } = await compare(clean);
    expect(ours).toMatchObject({ branch: "main", staged: [], unstaged: [], untracked: [] });

    const empty = tempDir();
    git(empty, "init", "-q");
    write(empty, "staged.txt", "s\n");
    write(empty, "loose.txt", "l\n");
    git(empty, "add", "staged.txt");
    const unborn = await compare(empty);
    expect(unborn.ours.head).toBeNull();
    expect(unborn.ours.branch).toBe("main");
  });

  it("with an upstream: ahead and behind counted on both sides", async () => {
    const origin = tempDir();
    git(origin, "init", "-q");
    write(origin, "a.txt", "a\n");
    git(origin, "add", ".");
    git(origin, "commit", "-qm", "a");
    const clone = tempDir();
    git(clone, "clone", "-q", origin, ".");
    for (const n of [1, 2]) {
      write(clone, `mine${n}.txt`, "x\n");
      git(clone, "add", ".");
      git(clone, "commit", "-qm", `mine ${n}`);
    }
    write(origin, "theirs.txt", "y\n");
    git(origin, "add", ".");
    git(origin, "commit", "-qm", "theirs");
    git(clone, "fetch", "-q");
    const { ours } = await compare(clone);
    expect(ours).toMatchObject({ upstream: "origin/main", ahead: 2, behind: 1 });
  });

  it("sees a mode-only change (chmod +x) as git does", async () => {
    const root = tempDir();
    git(root, "init", "-q");
    write(root, "run.sh", "echo hi\n");
    write(root, "other.sh", "echo other\n");
    git(root, "add", ".");
    git(root, "commit", "-qm", "a");
    chmodSync(join(root, "run.sh"), 0o755);
    const { ours } = await compare(root);
    expect(ours.unstaged).toEqual([{ path: "run.sh", status: "modified" }]);
  });

  it("on a detached HEAD", async () => {
    const root = tempDir();
    git(root, "init", "-q");
    write(root, "a.txt", "a\n");
    git(root, "add", ".");
    git(root, "commit", "-qm", "a");
    write(root, "a.txt", "b\n");
    git(root, "commit", "-qam", "b");
    git(root, "checkout", "-q", "HEAD~1");
    const { ours } = await compare(root);
    expect(ours.branch).toBeNull();
  });

  it("sees changes made in the sandbox after loading", async () => {
    const root = tempDir();
    git(root, "init", "-q");
    write(root, "a.txt", "a\n");
    write(root, "b.txt", "b\n");
    git(root, "add", ".");
    git(root, "commit", "-qm", "a");
    const sandbox = await EmbeddedSandbox.create();
    await loadIntoSandbox(root, sandbox);
    const context = createToolContext(sandbox);
    await gitStatus(context);
    await sandbox.writeFile("/workspace/a.txt", "changed\n");
    await sandbox.rm("/workspace/b.txt");
    await sandbox.writeFile("/workspace/c.txt", "new\n");
    const status = await gitStatus(context);
    expect(status.unstaged).toEqual([
      { path: "a.txt", status: "modified" },
      { path: "b.txt", status: "deleted" },
    ]);
    expect(status.untracked).toEqual(["c.txt"]);
  });

  it("refuses a workspace without .git as not_a_git_repo", async () => {
    const sandbox = await EmbeddedSandbox.create();
    await expect(gitStatus(createToolContext(sandbox))).rejects.toMatchObject({ code: "not_a_git_repo" });
  });
});
