import { describe, expect, it } from "vitest";
import { deserializeWorkspace, serializeWorkspace } from "./snapshot.ts";
import { CALLS_CHANNEL, StopBoard } from "./stop-signal.ts";
import { readUntil } from "./testing/read-until.ts";
import { stopLater } from "./testing/stop-later.ts";
import { isSandboxError, readFilesOf, type Sandbox } from "./types.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error, `expected ${code}`).not.toBeNull();
  expect(isSandboxError(error), `expected a SandboxError, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
}

const count = (text: string, word: string) => text.split(word).length - 1;

/**
 * What every Sandbox backend must do. A backend's test file calls this with a factory that
 * returns a fresh sandbox whose workspace folder exists and is empty.
 */
export function describeSandboxContract(name: string, create: () => Promise<Sandbox>): void {
  describe(`Sandbox contract: ${name}`, () => {
    const setup = async () => {
      const sandbox = await create();
      return { sandbox, w: (path: string) => `${sandbox.workspaceRoot}/${path}` };
    };

    describe("files", () => {
      it("writes and reads bytes and text", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("a.txt"), "héllo\n");
        expect(text(await sandbox.readFile(w("a.txt")))).toBe("héllo\n");
        const bytes = new Uint8Array([0, 255, 1, 128]);
        await sandbox.writeFile(w("b.bin"), bytes);
        expect([...(await sandbox.readFile(w("b.bin")))]).toEqual([0, 255, 1, 128]);
      });

      it("replaces a file's content on write", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("a.txt"), "long content");
        await sandbox.writeFile(w("a.txt"), "short");
        expect(text(await sandbox.readFile(w("a.txt")))).toBe("short");
      });

      it("returns a copy: mutating what was read does not change the file", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("a.txt"), "abc");
        const bytes = await sandbox.readFile(w("a.txt"));
        bytes[0] = 120;
        expect(text(await sandbox.readFile(w("a.txt")))).toBe("abc");
      });

      it("refuses to write where the parent folder is missing or is a file", async () => {
        const { sandbox, w } = await setup();
        await expectCode(sandbox.writeFile(w("missing/a.txt"), "x"), "ENOENT");
        await sandbox.writeFile(w("file"), "x");
        await expectCode(sandbox.writeFile(w("file/a.txt"), "x"), "ENOTDIR");
      });

      it("refuses to write over a directory and to read one", async () => {
        const { sandbox, w } = await setup();
        await sandbox.mkdir(w("dir"));
        await expectCode(sandbox.writeFile(w("dir"), "x"), "EISDIR");
        await expectCode(sandbox.readFile(w("dir")), "EISDIR");
      });

      it("reports a missing file with ENOENT", async () => {
        const { sandbox, w } = await setup();
        await expectCode(sandbox.readFile(w("nope.txt")), "ENOENT");
        await expectCode(sandbox.stat(w("nope.txt")), "ENOENT");
        await expectCode(sandbox.lstat(w("nope.txt")), "ENOENT");
      });

      it("stats files and folders with type, size and mode", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("a.txt"), "12345");
        await sandbox.mkdir(w("d"));
        const file = await sandbox.stat(w("a.txt"));
        expect(file.type).toBe("file");
        expect(file.size).toBe(5);
        expect(file.mtimeMs).toBeGreaterThan(0);
        expect(file.mode & 0o777).toBeGreaterThan(0);
        expect((await sandbox.stat(w("d"))).type).toBe("directory");
      });
    });

    describe("folders", () => {
      it("creates folders, recursively when asked", async () => {
        const { sandbox, w } = await setup();
        await sandbox.mkdir(w("a"));
        await expectCode(sandbox.mkdir(w("a")), "EEXIST");
        await expectCode(sandbox.mkdir(w("x/y")), "ENOENT");
        await sandbox.mkdir(w("x/y/z"), { recursive: true });
        await sandbox.mkdir(w("x/y/z"), { recursive: true });
        expect((await sandbox.stat(w("x/y/z"))).type).toBe("directory");
      });

      it("refuses to create a folder under a file", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("f"), "x");
        await expectCode(sandbox.mkdir(w("f/sub"), { recursive: true }), "ENOTDIR");
      });

      it("lists entries with their types", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("f.txt"), "x");
        await sandbox.mkdir(w("d"));
        await sandbox.symlink("f.txt", w("l"));
        const entries = (await sandbox.readdir(sandbox.workspaceRoot)).sort((a, b) =>
          a.name.localeCompare(b.name),
        );
        expect(entries).toEqual([
          { name: "d", type: "directory" },
          { name: "f.txt", type: "file" },
          { name: "l", type: "symlink" },
        ]);
        await expectCode(sandbox.readdir(w("f.txt")), "ENOTDIR");
        await expectCode(sandbox.readdir(w("none")), "ENOENT");
      });

      it("removes files and folders; a non-empty folder needs recursive", async () => {
        const { sandbox, w } = await setup();
        await sandbox.mkdir(w("d/e"), { recursive: true });
        await sandbox.writeFile(w("d/e/f.txt"), "x");
        await expectCode(sandbox.rm(w("d")), "ENOTEMPTY");
        await sandbox.rm(w("d/e/f.txt"));
        await expectCode(sandbox.stat(w("d/e/f.txt")), "ENOENT");
        await sandbox.writeFile(w("d/e/g.txt"), "x");
        await sandbox.rm(w("d"), { recursive: true });
        await expectCode(sandbox.stat(w("d")), "ENOENT");
        await expectCode(sandbox.rm(w("d")), "ENOENT");
        await sandbox.rm(w("d"), { force: true });
      });

      it("renames files and folders, replacing a file target", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("a.txt"), "A");
        await sandbox.writeFile(w("b.txt"), "B");
        await sandbox.rename(w("a.txt"), w("b.txt"));
        expect(text(await sandbox.readFile(w("b.txt")))).toBe("A");
        await expectCode(sandbox.stat(w("a.txt")), "ENOENT");
        await sandbox.mkdir(w("d"));
        await sandbox.writeFile(w("d/x"), "x");
        await sandbox.rename(w("d"), w("e"));
        expect(text(await sandbox.readFile(w("e/x")))).toBe("x");
        await expectCode(sandbox.rename(w("nope"), w("z")), "ENOENT");
        await expectCode(sandbox.rename(w("b.txt"), w("missing/b.txt")), "ENOENT");
      });
    });

    describe("symlinks", () => {
      it("creates, reads and stats symlinks without following them in lstat", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("target.txt"), "T");
        await sandbox.symlink("target.txt", w("link"));
        expect(await sandbox.readlink(w("link"))).toBe("target.txt");
        expect((await sandbox.lstat(w("link"))).type).toBe("symlink");
        expect((await sandbox.stat(w("link"))).type).toBe("file");
        expect(text(await sandbox.readFile(w("link")))).toBe("T");
        await expectCode(sandbox.symlink("x", w("link")), "EEXIST");
      });

      it("writes through a symlink to its target", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("target.txt"), "old");
        await sandbox.symlink("target.txt", w("link"));
        await sandbox.writeFile(w("link"), "new");
        expect(text(await sandbox.readFile(w("target.txt")))).toBe("new");
        expect((await sandbox.lstat(w("link"))).type).toBe("symlink");
      });

      it("reports a dangling symlink as missing to stat but present to lstat", async () => {
        const { sandbox, w } = await setup();
        await sandbox.symlink("/nowhere/at/all", w("dangling"));
        expect((await sandbox.lstat(w("dangling"))).type).toBe("symlink");
        await expectCode(sandbox.stat(w("dangling")), "ENOENT");
      });

      it("reads many files at once as stat and readFile give them one by one, null where they fail", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("a.txt"), "héllo\n");
        await sandbox.mkdir(w("d"));
        await sandbox.writeFile(w("d/b.bin"), new Uint8Array([0, 255, 1]));
        await sandbox.symlink("d", w("linked"));
        await sandbox.symlink("a.txt", w("to-a"));
        await sandbox.symlink("missing", w("dangling"));
        const paths = [
          "a.txt",
          "d/b.bin",
          "linked/b.bin",
          "to-a",
          "d",
          "dangling",
          "nope",
          "a.txt/x",
          "d/../a.txt",
        ].map(w);
        const read = await readFilesOf(sandbox, paths);
        expect(read).toHaveLength(paths.length);
        for (const [index, path] of paths.entries()) {
          const expected = await sandbox
            .stat(path)
            .then(async (stat) => ({ stat, data: await sandbox.readFile(path) }))
            .catch(() => null);
          expect(read[index], path).toEqual(expected);
        }
        expect(read.slice(4, 8).every((file) => file === null)).toBe(true);
        expect(text(read[8]!.data)).toBe("héllo\n");
        // A copy, as readFile's.
        read[0]!.data[0] = 120;
        expect(text(await sandbox.readFile(w("a.txt")))).toBe("héllo\n");
      });

      it("refuses readlink on a regular file", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("f"), "x");
        await expectCode(sandbox.readlink(w("f")), "EINVAL");
      });
    });

    describe("exec", () => {
      it("keeps stdout and stderr apart and reports the exit code", async () => {
        const { sandbox } = await setup();
        const result = await sandbox.exec("echo out; echo err >&2; exit 3");
        expect(result).toEqual({
          exitCode: 3,
          stdout: "out\n",
          stderr: "err\n",
          timedOut: false,
          interrupted: false,
        });
      });

      it("reports a missing command with 127", async () => {
        const { sandbox } = await setup();
        const result = await sandbox.exec("definitely-not-a-command");
        expect(result.exitCode).toBe(127);
        expect(result.stderr).toMatch(/not found/u);
      });

      it("runs in the workspace by default and in the given cwd", async () => {
        const { sandbox, w } = await setup();
        expect((await sandbox.exec("pwd")).stdout).toBe(`${sandbox.workspaceRoot}\n`);
        await sandbox.mkdir(w("sub"));
        expect((await sandbox.exec("pwd", { cwd: w("sub") })).stdout).toBe(`${w("sub")}\n`);
      });

      it("fails cleanly when the cwd does not exist", async () => {
        const { sandbox, w } = await setup();
        const result = await sandbox.exec("pwd", { cwd: w("missing") });
        expect(result.exitCode).not.toBe(0);
        expect(result.stdout).toBe("");
      });

      it("passes stdin and env", async () => {
        const { sandbox } = await setup();
        expect((await sandbox.exec("cat", { stdin: "from stdin" })).stdout).toBe("from stdin");
        expect((await sandbox.exec("echo $GREETING", { env: { GREETING: "hi" } })).stdout).toBe("hi\n");
      });

      it("sees and changes the same files as the fs API", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(w("in.txt"), "data");
        const result = await sandbox.exec("cat in.txt > out.txt && rm in.txt");
        expect(result.exitCode).toBe(0);
        expect(text(await sandbox.readFile(w("out.txt")))).toBe("data");
        await expectCode(sandbox.stat(w("in.txt")), "ENOENT");
      });

      it("stops a busy loop at its deadline and stays usable", async () => {
        const { sandbox } = await setup();
        const started = Date.now();
        const result = await sandbox.exec("while true; do :; done", { timeoutMs: 300 });
        expect(result.timedOut).toBe(true);
        expect(result.exitCode).not.toBe(0);
        expect(Date.now() - started).toBeLessThan(10_000);
        expect((await sandbox.exec("echo alive")).stdout).toBe("alive\n");
      });

      it("stops a sleeping command at its deadline", async () => {
        const { sandbox } = await setup();
        const result = await sandbox.exec("sleep 30; echo never", { timeoutMs: 200 });
        expect(result.timedOut).toBe(true);
        expect(result.stdout).not.toContain("never");
      });

      it("stops a command when its signal aborts, without calling it a timeout", async () => {
        const { sandbox } = await setup();
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const result = await sandbox.exec("sleep 30; echo never", {
          signal: controller.signal,
          timeoutMs: 60_000,
        });
        expect(result.timedOut).toBe(false);
        expect(result.interrupted).toBe(true);
        expect(result.exitCode).not.toBe(0);
        expect(result.stdout).not.toContain("never");
      });

      it("keeps what was printed before the deadline", async () => {
        const { sandbox } = await setup();
        const sleeping = await sandbox.exec("echo before; echo oops >&2; sleep 30; echo never", {
          timeoutMs: 500,
        });
        expect(sleeping.timedOut).toBe(true);
        expect(sleeping.stdout).toBe("before\n");
        expect(sleeping.stderr).toContain("oops\n");
        const busy = await sandbox.exec("echo before; while true; do :; done", { timeoutMs: 500 });
        expect(busy.timedOut).toBe(true);
        expect(busy.stdout).toBe("before\n");
      });

      it("stops a busy loop when another thread asks, keeping its output (exit 130)", async () => {
        const { sandbox } = await setup();
        const board = StopBoard.create();
        const job = board.nextJob(CALLS_CHANNEL);
        board.begin(CALLS_CHANNEL, job);
        const stop = board.signal(CALLS_CHANNEL, job);
        stopLater(board, CALLS_CHANNEL, job, 300);
        const started = Date.now();
        const result = await sandbox.exec("echo before; while true; do :; done; echo never", {
          signal: stop.signal,
          timeoutMs: 60_000,
        });
        stop.dispose();
        expect(Date.now() - started).toBeLessThan(30_000);
        expect(result.interrupted).toBe(true);
        expect(result.timedOut).toBe(false);
        expect(result.exitCode).toBe(130);
        expect(result.stdout).toBe("before\n");
        expect((await sandbox.exec("echo alive")).stdout).toBe("alive\n");
      });

      it("returns outputs of many megabytes whole", async () => {
        const { sandbox, w } = await setup();
        const line = `${"x".repeat(99)}\n`;
        await sandbox.writeFile(w("big.txt"), line.repeat(50_000));
        const result = await sandbox.exec("cat big.txt; cat big.txt >&2");
        expect(result.exitCode).toBe(0);
        expect(result.stdout.length).toBe(5_000_000);
        expect(result.stderr.length).toBe(5_000_000);
      });
    });

    describe("pty", () => {
      it("keeps cwd and variables between writes and echoes input", async () => {
        const { sandbox, w } = await setup();
        await sandbox.mkdir(w("sub"));
        const session = await sandbox.pty("bash");
        await session.write("cd sub\n");
        await session.write("NAME=toolroom\n");
        await session.write("echo $NAME in $(pwd)\n");
        const read = await session.read({ yieldMs: 2000 });
        expect(read.output).toContain("echo $NAME in $(pwd)\n");
        expect(read.output).toContain(`toolroom in ${w("sub")}\n`);
        expect(read.exited).toBe(false);
      });

      it("reports the exit code when the shell exits", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("bash");
        await session.write("exit 7\n");
        const read = await session.read({ yieldMs: 2000 });
        expect(read.exited).toBe(true);
        expect(read.exitCode).toBe(7);
        expect(session.exitCode()).toBe(7);
      });

      it("reports a killed session as exited", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("bash");
        await session.kill();
        expect((await session.read()).exited).toBe(true);
      });

      it("runs a one-shot command and reports its exit", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("echo once; exit 4");
        const read = await session.read({ yieldMs: 2000 });
        expect(read.output).toBe("once\n");
        expect(read.exitCode).toBe(4);
      });
    });

    describe("live process", () => {
      it("gives a running command what is typed as it arrives, and ends it on Ctrl-D", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("cat");
        await session.write("hello\n");
        // The terminal echoes the line, then cat prints it back.
        const first = await readUntil(session, (output) => count(output, "hello") >= 2);
        expect(count(first.output, "hello")).toBe(2);
        expect(first.exited).toBe(false);
        await session.write("again\n");
        expect(
          count((await readUntil(session, (output) => count(output, "again") >= 2)).output, "again"),
        ).toBe(2);
        await session.write("\u0004");
        const end = await readUntil(session, (_output, exited) => exited);
        expect(end.exitCode).toBe(0);
      });

      it("lets a shell's read wait for the line a person types", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("bash");
        await session.write('read -r name; echo "hi $name"\n');
        const waiting = await session.read({ yieldMs: 1000 });
        expect(waiting.output).not.toContain("hi bob");
        expect(waiting.exited).toBe(false);
        await session.write("bob\n");
        const answered = await readUntil(session, (output) => output.includes("hi bob"));
        expect(answered.output).toContain("hi bob\n");
        await session.write("echo next\n");
        expect((await readUntil(session, (output) => output.includes("next\nnext"))).output).toContain(
          "next\n",
        );
      });

      it("lets head -n1 take one line and end", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("head -n1");
        expect((await session.read({ yieldMs: 500 })).exited).toBe(false);
        await session.write("one\n");
        const end = await readUntil(session, (_output, exited) => exited);
        expect(count(end.output, "one")).toBe(2);
        expect(end.exitCode).toBe(0);
      });

      it("streams output while the command runs", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("echo start; sleep 3; echo end");
        const first = await session.read({ yieldMs: 1500 });
        expect(first.output).toContain("start");
        expect(first.output).not.toContain("end");
        expect(first.exited).toBe(false);
        const rest = await readUntil(session, (_output, exited) => exited);
        expect(rest.output).toContain("end");
        expect(rest.exitCode).toBe(0);
      });

      it("runs a node program that answers each line typed", async () => {
        const { sandbox, w } = await setup();
        await sandbox.writeFile(
          w("double.js"),
          'const rl = require("readline").createInterface({ input: process.stdin });\n' +
            'rl.on("line", (line) => console.log("double " + Number(line) * 2));\n' +
            'rl.on("close", () => console.log("bye"));\n',
        );
        const session = await sandbox.pty("node double.js");
        await session.write("21\n");
        expect((await readUntil(session, (output) => output.includes("double 42"))).output).toContain(
          "double 42",
        );
        await session.write("5\n");
        expect((await readUntil(session, (output) => output.includes("double 10"))).output).toContain(
          "double 10",
        );
        await session.write("\u0004");
        const end = await readUntil(session, (_output, exited) => exited);
        expect(end.output).toContain("bye");
        expect(end.exitCode).toBe(0);
      });

      it("answers a read while an endless printing loop runs, and Ctrl-C stops it (130)", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("while true; do echo y; done");
        const started = Date.now();
        const read = await session.read({ yieldMs: 500 });
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(read.output).toContain("y\n");
        expect(read.exited).toBe(false);
        await session.write("\u0003");
        const end = await readUntil(session, (_output, exited) => exited);
        expect(end.exited).toBe(true);
        expect(end.exitCode).toBe(130);
      });

      it("stops a busy shell loop on Ctrl-C and keeps the shell", async () => {
        const { sandbox } = await setup();
        const session = await sandbox.pty("bash");
        await session.write("while true; do :; done\n");
        await session.read({ yieldMs: 300 });
        await session.write("\u0003");
        await session.write("echo alive\n");
        // "alive" twice: the echoed command line, then what echo printed.
        const after = await readUntil(session, (output) => count(output, "alive") >= 2);
        expect(count(after.output, "alive")).toBe(2);
        expect(after.exited).toBe(false);
      });
    });

    describe("modes", () => {
      it("sets a file's permission bits with chmod, through a link to its target, and keeps them through snapshot and restore", async () => {
        const { sandbox, w } = await setup();
        expect(sandbox.chmod, "every backend keeps modes").toBeDefined();
        await sandbox.writeFile(w("run.sh"), "#!/bin/sh\necho ran\n");
        await sandbox.writeFile(w("secret"), "s");
        await sandbox.symlink("secret", w("link"));
        await sandbox.chmod!(w("run.sh"), 0o755);
        await sandbox.chmod!(w("link"), 0o600);
        expect((await sandbox.stat(w("run.sh"))).mode & 0o777).toBe(0o755);
        expect((await sandbox.stat(w("secret"))).mode & 0o777).toBe(0o600);
        expect(await sandbox.readlink(w("link"))).toBe("secret");
        const snapshot = await sandbox.snapshot();
        await sandbox.chmod!(w("run.sh"), 0o644);
        await sandbox.restore(deserializeWorkspace(serializeWorkspace(snapshot)));
        expect((await sandbox.stat(w("run.sh"))).mode & 0o777).toBe(0o755);
        expect((await sandbox.stat(w("secret"))).mode & 0o777).toBe(0o600);
        expect((await sandbox.exec("./run.sh", { cwd: w("") })).stdout).toBe("ran\n");
      });
    });

    describe("snapshot and restore", () => {
      it("round-trips files, bytes, empty folders and symlinks, and removes what was added since", async () => {
        const { sandbox, w } = await setup();
        await sandbox.mkdir(w("src/empty"), { recursive: true });
        await sandbox.writeFile(w("src/a.ts"), "export const a = 1;\n");
        await sandbox.writeFile(w("bin.dat"), new Uint8Array([0, 200, 255]));
        await sandbox.symlink("src/a.ts", w("link"));
        const snapshot = await sandbox.snapshot();
        await sandbox.writeFile(w("src/a.ts"), "changed");
        await sandbox.writeFile(w("new.txt"), "new");
        await sandbox.rm(w("src/empty"), { recursive: true });
        await sandbox.restore(deserializeWorkspace(serializeWorkspace(snapshot)));
        expect(text(await sandbox.readFile(w("src/a.ts")))).toBe("export const a = 1;\n");
        expect([...(await sandbox.readFile(w("bin.dat")))]).toEqual([0, 200, 255]);
        expect((await sandbox.stat(w("src/empty"))).type).toBe("directory");
        expect(await sandbox.readlink(w("link"))).toBe("src/a.ts");
        await expectCode(sandbox.stat(w("new.txt")), "ENOENT");
        expect(await sandbox.snapshot()).toEqual(snapshot);
      });
    });
  });
}
