import { describe, expect, it } from "vitest";
import { StopBoard } from "../stop-signal.ts";
import { readUntil } from "../testing/read-until.ts";
import { stopLater } from "../testing/stop-later.ts";
import { EmbeddedSandbox } from "./embedded-sandbox.ts";
import { createNodeCommands } from "./node/index.ts";
import { stdinUse, TtyInput } from "./tty.ts";

const sandbox = () => EmbeddedSandbox.create({ commands: createNodeCommands() });

describe("which terminal readers wait for what is typed", () => {
  it.each([
    ["cat", [], "stream"],
    ["cat", ["notes.txt"], "none"],
    ["cat", ["-", "notes.txt"], "all"],
    ["cat", ["-n"], "all"],
    ["head", ["-n", "2"], "lines"],
    ["head", ["-3"], "lines"],
    ["head", ["-c", "4"], "bytes"],
    ["head", ["file"], "none"],
    ["grep", ["x"], "all"],
    ["grep", ["x", "file"], "none"],
    ["grep", ["-e", "x"], "all"],
    ["grep", ["-r", "x"], "none"],
    ["grep", ["-n", "-e", "x", "-e", "y", "file"], "none"],
    ["sed", ["s/a/b/"], "all"],
    ["sed", ["-n", "1p", "file"], "none"],
    ["awk", ["{print $1}"], "all"],
    ["awk", ["BEGIN { print 1 }"], "none"],
    ["awk", ["function f(x) { return x } BEGIN { print f(1) }"], "none"],
    ["awk", ["-v", "n=1", "{ print n }", "x=2"], "all"],
    ["awk", ["{ print }", "file"], "none"],
    ["jq", ["."], "all"],
    ["jq", ["-n", "1"], "none"],
    ["jq", ["--arg", "a", "b", ".x", "in.json"], "none"],
    ["sort", [], "all"],
    ["sort", ["-k", "2", "file"], "none"],
    ["wc", ["-l"], "all"],
    ["tr", ["a-z", "A-Z"], "all"],
    ["tee", ["out.txt"], "all"],
    ["grep", ["--version"], "none"],
    ["unknown", [], "none"],
  ])("%s %j → %s", (name, args, kind) => {
    expect(stdinUse(name, args).kind).toBe(kind);
  });
});

describe("TtyInput", () => {
  it("hands over chunks in order, end of input once, and gives nothing when stopped", async () => {
    const input = new TtyInput();
    input.push("a\n");
    input.end();
    expect(await input.next()).toBe("a\n");
    expect(await input.next()).toBeNull();
    const controller = new AbortController();
    const waiting = input.next(controller.signal);
    expect(input.starved).toBe(true);
    controller.abort();
    expect(await waiting).toBeUndefined();
    input.push("b\n");
    expect(await input.next()).toBe("b\n");
  });
});

describe("live commands on the embedded terminal", () => {
  it("reads the terminal only when the command has no file to read", async () => {
    const box = await sandbox();
    await box.writeFile("/workspace/notes.txt", "from file\n");
    const session = await box.pty("bash");
    await session.write("cat notes.txt; grep file notes.txt | wc -l\n");
    const read = await readUntil(session, (output) => output.includes("1\n"));
    expect(read.output).toBe("cat notes.txt; grep file notes.txt | wc -l\nfrom file\n1\n");
  });

  it("collects the whole input for whole-input programs until Ctrl-D", async () => {
    const box = await sandbox();
    const session = await box.pty("bash");
    await session.write("sort | tr a-z A-Z; echo done\n");
    await session.write("b\na\n");
    expect((await session.read({ yieldMs: 300 })).output).toBe("sort | tr a-z A-Z; echo done\nb\na\n");
    await session.write("\u0004");
    expect((await readUntil(session, (output) => output.includes("done"))).output).toBe("A\nB\ndone\n");
  });

  it("reads the terminal for a program run by env, the variables set", async () => {
    const box = await sandbox();
    const session = await box.pty("bash");
    await session.write(
      `env X="it's" Y=2 node -e "process.stdin.on('data', (d) => console.log(String(d).trim(), process.env.X, process.env.Y))"; env Z=3 cat; echo done\n`,
    );
    await session.write("typed\n");
    expect((await readUntil(session, (output) => output.includes("typed it's 2"))).output).toContain(
      "typed it's 2\n",
    );
    await session.write("\u0004line\n\u0004");
    expect((await readUntil(session, (output) => output.includes("done"))).output).toContain(
      "line\nline\ndone\n",
    );
  });

  it("traces a line under set -x without the session's own bookkeeping", async () => {
    const box = await sandbox();
    const session = await box.pty("bash", { prompt: "$ " });
    await session.write("set -x; echo hi\n");
    const read = await readUntil(session, (output) => output.endsWith("\n$ "));
    expect(read.output).toContain("+ echo hi\n");
    expect(read.output).not.toMatch(/__TOOLROOM|compgen/u);
  });

  it("prints read -p's prompt, honours read -n, and leaves the rest of the line to the next reader", async () => {
    const box = await sandbox();
    const session = await box.pty("bash");
    await session.write("read -p 'key? ' -n 1 k; read -r rest; echo \"$k/$rest\"\n");
    expect((await readUntil(session, (output) => output.includes("key? "))).output).toContain("key? ");
    await session.write("yes\n");
    expect((await readUntil(session, (output) => output.includes("y/es"))).output).toContain("y/es\n");
  });

  it("gives a line typed while a command runs, and not read by it, to the shell after", async () => {
    const box = await sandbox();
    const session = await box.pty("bash");
    await session.write("sleep 0.5\necho typed ahead\n");
    expect((await readUntil(session, (output) => output.includes("ahead\ntyped"))).output).toContain(
      "typed ahead\n",
    );
  });

  it("keeps piped input as it is: the program gets the pipe, not the terminal", async () => {
    const box = await sandbox();
    const session = await box.pty("bash");
    await session.write(
      `echo piped | node -e "process.stdin.on('data', (d) => console.log(String(d).trim() + '!'))"\n`,
    );
    expect((await readUntil(session, (output) => output.includes("piped!"))).output).toContain("piped!\n");
  });

  it("says clearly that the embedded node cannot read the terminal synchronously", async () => {
    const box = await sandbox();
    const session = await box.pty(`node -p "require('fs').readFileSync(0, 'utf8')"`);
    const end = await readUntil(session, () => false, 10_000);
    expect(end.exited).toBe(true);
    expect(end.output).toContain("cannot read the terminal synchronously");
    expect(end.exitCode).toBe(1);
  });

  it("gives $? the last command line's status, a stopped one's included", async () => {
    const box = await sandbox();
    const session = await box.pty("bash");
    await session.write("false\n");
    await session.write("echo status=$?\n");
    expect((await readUntil(session, (output) => output.includes("status="))).output).toContain("status=1\n");
    await session.write("sleep 30\n");
    await readUntil(session, (output) => output.includes("sleep 30\n"));
    await session.write("\u0003");
    await session.write("echo status=$?\n");
    expect((await readUntil(session, (output) => output.includes("status="))).output).toContain(
      "status=130\n",
    );
  });

  it("stops a node program waiting on a far timer at once on Ctrl-C, not when the timer fires", async () => {
    const box = await sandbox();
    const session = await box.pty("bash");
    await session.write(`node -e "console.log('armed'); setTimeout(() => console.log('fired'), 20000)"\n`);
    await readUntil(session, (output) => output.includes("armed\n"));
    const started = Date.now();
    await session.write("\u0003");
    await session.write("echo alive\n");
    const after = await readUntil(session, (output) => output.includes("alive\nalive"));
    expect(after.output).toBe("^C\necho alive\nalive\n");
    // The shell waits up to 2.5 s for a stopped command to end: this one ends at once.
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("stops a busy node loop on the session's stop channel, from another thread, and keeps the shell", async () => {
    const box = await sandbox();
    const board = StopBoard.create();
    const channel = board.openChannel()!;
    const session = await box.pty("bash", { stops: { board, channel } });
    await session.write(`node -e "for (;;) {}"\n`);
    const started = Date.now();
    stopLater(board, channel, "running", 300);
    await readUntil(session, (output) => output.includes("for (;;)"), 5000);
    // The loop held this thread: the read only came back once the other thread stopped it.
    await session.write("echo alive\n");
    const after = await readUntil(session, (output) => output.includes("alive\nalive"));
    expect(after.output).toContain("alive\nalive\n");
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe("a session's command that never yields", () => {
  it("is stopped once it has held the thread for 10 s, and the shell goes on", async () => {
    const box = await sandbox();
    const session = await box.pty("bash");
    const started = Date.now();
    await session.write(`node -e "for (;;) {}"\n`);
    const stopped = await readUntil(session, (output) => output.includes("[stopped:"), 60_000);
    expect(stopped.output).toContain("held the sandbox for over 10 s");
    expect(Date.now() - started).toBeLessThan(40_000);
    await session.write("echo alive\n");
    expect((await readUntil(session, (output) => output.includes("alive\nalive"))).output).toContain(
      "alive\n",
    );
  }, 90_000);

  it("is not stopped while it yields: a loop that sleeps runs past 10 s", async () => {
    const box = await sandbox();
    const session = await box.pty("for i in $(seq 1 12); do sleep 1; done; echo finished");
    // Until it exits: "finished" and the exit can arrive in two reads.
    const end = await readUntil(session, () => false, 60_000);
    expect(end.exited).toBe(true);
    expect(end.output).toBe("finished\n");
    expect(end.exitCode).toBe(0);
  }, 90_000);
});
