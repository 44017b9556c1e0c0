import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolContext } from "../../core/tool-context.ts";
import { EmbeddedSandbox } from "../../sandbox/embedded/embedded-sandbox.ts";
import type { Sandbox } from "../../sandbox/types.ts";
import { stagePaths } from "./commit.ts";
import { gitDiff } from "./diff.ts";
import { readIndex } from "./index-file.ts";
import { git, loadIntoSandbox, nativeStatus, saveFromSandbox, tempDir } from "./native-git.test-helpers.ts";
import { openRepo } from "./repo.ts";
import { gitStatus } from "./status.ts";

function write(root: string, path: string, content: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

function committedRepo(): string {
  const root = tempDir();
  git(root, "init", "-q");
  write(root, "a.txt", "aaa\n");
  write(root, "src/b.txt", "bbb\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "first");
  return root;
}

/** The embedded sandbox as a backend without entry versions (no `ino`) would show it. */
function withoutInodes(sandbox: EmbeddedSandbox): Sandbox {
  return new Proxy(sandbox, {
    get(target, key, receiver) {
      if (key === "stat" || key === "lstat")
        return async (path: string) => {
          const { ino: _ino, ...stat } = await target[key](path);
          return stat;
        };
      const value = Reflect.get(target, key, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const utimes = (sandbox: EmbeddedSandbox, path: string, ms: number) =>
  sandbox.fs.utimes(path, new Date(ms), new Date(ms));

describe("git's stat cache over the sandbox", () => {
  it("sees a same-size rewrite whose mtime was set back (the entry's version changed)", async () => {
    const sandbox = await EmbeddedSandbox.create();
    await loadIntoSandbox(committedRepo(), sandbox);
    const context = createToolContext(sandbox);
    expect((await gitStatus(context)).unstaged).toEqual([]);
    const before = await sandbox.lstat("/workspace/a.txt");
    await sandbox.writeFile("/workspace/a.txt", "AAA\n");
    await utimes(sandbox, "/workspace/a.txt", before.mtimeMs);
    expect((await gitStatus(context)).unstaged).toEqual([{ path: "a.txt", status: "modified" }]);
  });

  it("hashes a racily clean entry (modified in the instant the index was written) instead of trusting it", async () => {
    const embedded = await EmbeddedSandbox.create();
    await loadIntoSandbox(committedRepo(), embedded);
    const sandbox = withoutInodes(embedded);
    const context = createToolContext(sandbox);
    const instant = Date.parse("2030-01-01T00:00:00Z");
    await utimes(embedded, "/workspace/a.txt", instant);
    await gitStatus(context); // refreshes a.txt's entry: mtime = instant
    // The index written in that same instant, then a.txt rewritten (same size) within it.
    await utimes(embedded, "/workspace/.git/index", instant);
    await embedded.writeFile("/workspace/a.txt", "AAA\n");
    await utimes(embedded, "/workspace/a.txt", instant);
    const index = await readIndex(await openRepo(context));
    expect(index.byPath.get("a.txt")!.mtimeSeconds * 1000).toBe(instant);
    expect((await gitStatus(context)).unstaged).toEqual([{ path: "a.txt", status: "modified" }]);
    expect((await gitDiff(context, {})).files_changed.map((file) => file.path)).toEqual(["a.txt"]);
  });

  it("refreshes the stats of files it hashed and found unchanged, which native git then trusts too", async () => {
    const root = committedRepo();
    const sandbox = await EmbeddedSandbox.create();
    await loadIntoSandbox(root, sandbox);
    const context = createToolContext(sandbox);
    const repo = await openRepo(context);
    const stale = await readIndex(repo);
    await gitStatus(context);
    const fresh = await readIndex(repo);
    expect(fresh.checksum).not.toBe(stale.checksum);
    const stat = await sandbox.lstat("/workspace/a.txt");
    expect(fresh.byPath.get("a.txt")).toMatchObject({ size: stat.size, ino: stat.ino });
    const disk = await saveFromSandbox(sandbox);
    expect(git(disk, "ls-files", "-s")).toBe(git(root, "ls-files", "-s"));
    expect(nativeStatus(disk)).toMatchObject({ staged: [], unstaged: [], untracked: [] });
  });

  it("isomorphic-git reads the index this code wrote, not a copy it kept", async () => {
    const sandbox = await EmbeddedSandbox.create();
    await loadIntoSandbox(committedRepo(), sandbox);
    const context = createToolContext(sandbox);
    const repo = await openRepo(context);
    const files = () => repo.git.listFiles({ fs: repo.fs, dir: repo.dir, cache: repo.cache });
    expect(await files()).toEqual(["a.txt", "src/b.txt"]);
    await sandbox.writeFile("/workspace/c.txt", "c\n");
    await stagePaths(context, repo, ["c.txt"]);
    expect(await files()).toEqual(["a.txt", "c.txt", "src/b.txt"]);
  });

  it("lists an untracked nested repository as its folder, as git does", async () => {
    const root = committedRepo();
    const nested = join(root, "vendor/lib");
    mkdirSync(nested, { recursive: true });
    git(nested, "init", "-q");
    write(nested, "x.txt", "x\n");
    write(root, "new.txt", "n\n");
    const sandbox = await EmbeddedSandbox.create();
    await loadIntoSandbox(root, sandbox);
    const status = await gitStatus(createToolContext(sandbox));
    expect(status.untracked).toEqual(nativeStatus(root).untracked);
    expect(status.untracked).toEqual(["new.txt", "vendor/lib/"]);
  });

  it("refuses an index it cannot read with what to do", async () => {
    const root = committedRepo();
    git(root, "update-index", "--index-version", "4");
    const sandbox = await EmbeddedSandbox.create();
    await loadIntoSandbox(root, sandbox);
    await expect(gitStatus(createToolContext(sandbox))).rejects.toMatchObject({
      code: "git_error",
      message: expect.stringContaining("--index-version 2"),
    });
  });
});
