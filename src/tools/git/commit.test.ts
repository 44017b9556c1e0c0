import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolContext } from "../../core/tool-context.ts";
import { EmbeddedSandbox } from "../../sandbox/embedded/embedded-sandbox.ts";
import { cleanMessage, gitCommit, initRepository, renderCommit, withSignoff } from "./commit.ts";
import { loadGit } from "./load.ts";
import { git, loadIntoSandbox, nativeStatus, saveFromSandbox, tempDir } from "./native-git.test-helpers.ts";
import { objectId } from "./objects.ts";
import { gitStatus } from "./status.ts";

function write(root: string, path: string, content: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

const fixedClock = { now: () => new Date("2025-03-04T05:06:07Z") };

async function repoInSandbox() {
  const root = tempDir();
  git(root, "init", "-q");
  git(root, "config", "user.name", "Grace");
  git(root, "config", "user.email", "grace@example.com");
  write(root, ".gitignore", "*.log\n");
  write(root, "a.txt", "a\n");
  write(root, "b.txt", "b\n");
  write(root, "src/c.txt", "c\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "first");
  const sandbox = await EmbeddedSandbox.create();
  await loadIntoSandbox(root, sandbox);
  return { sandbox, context: createToolContext(sandbox, { clock: fixedClock }) };
}

describe("gitCommit", () => {
  it("commits what is staged, and native git reads the result as a valid commit", async () => {
    const { sandbox, context } = await repoInSandbox();
    await sandbox.writeFile("/workspace/a.txt", "a2\n");
    await sandbox.writeFile("/workspace/new.txt", "new\n");
    await sandbox.writeFile("/workspace/debug.log", "ignored\n");
    await sandbox.rm("/workspace/b.txt");
    const result = await gitCommit(context, { message: "Update a, add new, drop b  \n\n\n", paths: ["."] });
    expect(result.files_committed).toEqual(["a.txt", "b.txt", "new.txt"]);
    expect(result.message).toBe("Update a, add new, drop b\n");
    const disk = await saveFromSandbox(sandbox);
    expect(git(disk, "rev-parse", "HEAD").trim()).toBe(result.commit_hash);
    git(disk, "fsck", "--strict");
    expect(git(disk, "log", "-1", "--format=%an <%ae>|%at|%B")).toBe(
      `Grace <grace@example.com>|${Date.parse("2025-03-04T05:06:07Z") / 1000}|Update a, add new, drop b\n\n`,
    );
    expect(git(disk, "show", "--name-status", "--format=", "HEAD")).toBe("M\ta.txt\nD\tb.txt\nA\tnew.txt\n");
    expect(nativeStatus(disk)).toMatchObject({ staged: [], unstaged: [], untracked: [] });
  });

  it("commits only the given paths, leaving other changes unstaged", async () => {
    const { sandbox, context } = await repoInSandbox();
    await sandbox.writeFile("/workspace/a.txt", "a2\n");
    await sandbox.writeFile("/workspace/src/c.txt", "c2\n");
    const result = await gitCommit(context, { message: "only src", paths: ["src"] });
    expect(result.files_committed).toEqual(["src/c.txt"]);
    const status = await gitStatus(context);
    expect(status.unstaged).toEqual([{ path: "a.txt", status: "modified" }]);
    expect(nativeStatus(await saveFromSandbox(sandbox)).unstaged).toEqual([
      { path: "a.txt", status: "modified" },
    ]);
  });

  it("nothing_to_commit when nothing is staged, saying what is not", async () => {
    const { sandbox, context } = await repoInSandbox();
    await expect(gitCommit(context, { message: "x" })).rejects.toMatchObject({ code: "nothing_to_commit" });
    await sandbox.writeFile("/workspace/a.txt", "changed\n");
    await expect(gitCommit(context, { message: "x" })).rejects.toMatchObject({
      code: "nothing_to_commit",
      message: expect.stringContaining("paths"),
    });
    await expect(gitCommit(context, { message: "x", paths: ["missing.txt"] })).rejects.toMatchObject({
      code: "file_not_found",
    });
    await expect(gitCommit(context, { message: "x", paths: ["../out"] })).rejects.toMatchObject({
      code: "path_escape",
    });
    await expect(gitCommit(context, { message: "  " })).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("signoff adds the trailer native git recognises", async () => {
    const { sandbox, context } = await repoInSandbox();
    await sandbox.writeFile("/workspace/a.txt", "signed\n");
    await gitCommit(context, { message: "Signed change\n\nBody.", paths: ["a.txt"], signoff: true });
    const disk = await saveFromSandbox(sandbox);
    expect(git(disk, "log", "-1", "--format=%(trailers:key=Signed-off-by,valueonly)").trim()).toBe(
      "Grace <grace@example.com>",
    );
    expect(git(disk, "log", "-1", "--format=%B")).toBe(
      "Signed change\n\nBody.\n\nSigned-off-by: Grace <grace@example.com>\n\n",
    );
  });
});

describe("commit messages", () => {
  it("cleans like git commit", () => {
    expect(cleanMessage("\n\nTitle  \n\n\n\nBody\t\n\n")).toBe("Title\n\nBody\n");
  });

  it("adds Signed-off-by once, inside an existing trailer block", () => {
    expect(withSignoff("Fix\n", "A <a@x>")).toBe("Fix\n\nSigned-off-by: A <a@x>\n");
    expect(withSignoff("Fix\n\nCo-authored-by: B <b@x>\n", "A <a@x>")).toBe(
      "Fix\n\nCo-authored-by: B <b@x>\nSigned-off-by: A <a@x>\n",
    );
    expect(withSignoff("Fix\n\nSigned-off-by: A <a@x>\n", "A <a@x>")).toBe("Fix\n\nSigned-off-by: A <a@x>\n");
  });
});

describe("initRepository", () => {
  it("makes a repository on main with an initial commit of everything not ignored", async () => {
    const sandbox = await EmbeddedSandbox.create();
    await sandbox.writeFile("/workspace/.gitignore", "dist/\n");
    await sandbox.writeFile("/workspace/app.ts", "export {};\n");
    await sandbox.mkdir("/workspace/dist");
    await sandbox.writeFile("/workspace/dist/app.js", "built\n");
    const context = createToolContext(sandbox);
    const oid = await initRepository(context, { now: new Date("2025-01-01T00:00:00Z") });
    expect(oid).toMatch(/^[0-9a-f]{40}$/u);
    expect(await initRepository(context)).toBeNull();
    const status = await gitStatus(context);
    expect(status).toMatchObject({ branch: "main", head: oid, staged: [], unstaged: [], untracked: [] });
    const disk = await saveFromSandbox(sandbox);
    expect(git(disk, "ls-files").split("\n").filter(Boolean)).toEqual([".gitignore", "app.ts"]);
    git(disk, "fsck", "--strict");
  });

  it("commits an empty tree in an empty workspace, so HEAD exists", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const context = createToolContext(sandbox);
    const oid = await initRepository(context);
    expect((await gitStatus(context)).head).toBe(oid);
  });
});

describe("commit objects written without isomorphic-git", () => {
  it("are byte for byte what isomorphic-git writes, whatever the time zone", async () => {
    const git = await loadGit();
    for (const timezoneOffset of [0, -0, -60, 330, -345, 720]) {
      const person = { name: "Ada", email: "ada@example.com", timestamp: 1_700_000_000, timezoneOffset };
      const commit = {
        tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        parent: ["1111111111111111111111111111111111111111"],
        author: person,
        committer: person,
        message: "\n\nSubject\r\n\nBody\n\n\n",
      };
      const theirs = await git.writeCommit({ fs: memoryFs(), dir: "/r", commit });
      const ours = objectId(
        "commit",
        new TextEncoder().encode(
          renderCommit({ tree: commit.tree, parents: commit.parent, person, message: commit.message }),
        ),
      );
      expect(ours, `offset ${Object.is(timezoneOffset, -0) ? "-0" : timezoneOffset}`).toBe(theirs);
    }
  });

  it("a new repository has native git's config: modes and symlinks count", async () => {
    const sandbox = await EmbeddedSandbox.create();
    await sandbox.writeFile("/workspace/run.sh", "echo hi\n");
    await initRepository(createToolContext(sandbox));
    const disk = await saveFromSandbox(sandbox);
    expect(git(disk, "config", "core.filemode").trim()).toBe("true");
    chmodSync(join(disk, "run.sh"), 0o755);
    expect(nativeStatus(disk).unstaged).toEqual([{ path: "run.sh", status: "modified" }]);
  });
});

/** A throwaway in-memory fs for isomorphic-git's object writer. */
function memoryFs() {
  const files = new Map<string, Uint8Array>();
  const missing = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
  return {
    promises: {
      readFile: async (path: string) => {
        const data = files.get(path);
        if (!data) throw missing(path);
        return data;
      },
      writeFile: async (path: string, data: Uint8Array) => void files.set(path, data),
      mkdir: async () => undefined,
      rmdir: async () => undefined,
      unlink: async (path: string) => void files.delete(path),
      stat: async (path: string) => {
        throw missing(path);
      },
      lstat: async (path: string) => {
        throw missing(path);
      },
      readdir: async () => [],
      readlink: async (path: string) => {
        throw missing(path);
      },
      symlink: async () => undefined,
    },
  };
}
