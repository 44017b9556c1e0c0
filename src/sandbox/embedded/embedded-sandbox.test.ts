import { execFileSync } from "node:child_process";
import { defineCommand } from "just-bash";
import { describe, expect, it } from "vitest";
import { describeSandboxContract } from "../sandbox-contract.ts";
import { CALLS_CHANNEL, StopBoard } from "../stop-signal.ts";
import { stopLater } from "../testing/stop-later.ts";
import { EmbeddedSandbox } from "./embedded-sandbox.ts";
import { createNodeCommands } from "./node/index.ts";
import { isIncomplete } from "./shell-session.ts";

describeSandboxContract("embedded", () => EmbeddedSandbox.create({ commands: createNodeCommands() }));

describe("embedded sandbox specifics", () => {
  it("prints the prompt a person's terminal asks for before each command line", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const session = await sandbox.pty("bash", { prompt: "$ " });
    await session.write("echo hi\n");
    expect((await session.read({ yieldMs: 2000 })).output).toBe("$ echo hi\nhi\n$ ");
  });

  it("reports a timeout whichever deadline stops the command first, just-bash's own or the sandbox's timer", async () => {
    const sandbox = await EmbeddedSandbox.create();
    // The two deadlines are equal, so which one wins varies from run to run; both must read as a timeout.
    const results = await Promise.all(
      Array.from({ length: 20 }, () => sandbox.exec("sleep 5", { timeoutMs: 30 })),
    );
    expect(results.map((result) => result.timedOut)).toEqual(results.map(() => true));
  });

  it("keeps its state over 100 writes to one shell session", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const session = await sandbox.pty("bash");
    await session.write("n=0\n");
    for (let i = 0; i < 100; i++) await session.write("n=$((n+1))\n");
    await session.write("echo total=$n\n");
    const read = await session.read({ yieldMs: 10_000 });
    expect(read.output).toContain("total=100\n");
  });

  it("waits for the end of a multi-line command before running it", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const session = await sandbox.pty("bash");
    await session.write("for i in 1 2 3; do\n");
    expect((await session.read({ yieldMs: 50 })).output).toBe("for i in 1 2 3; do\n> ");
    await session.write("echo item $i\ndone\n");
    expect((await session.read({ yieldMs: 2000 })).output).toBe(
      "echo item $i\n> done\nitem 1\nitem 2\nitem 3\n",
    );
  });

  it("interrupts the running command on Ctrl-C and keeps the session", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const session = await sandbox.pty("bash");
    await session.write("sleep 30\n");
    await session.write("\u0003");
    await session.write("echo after\n");
    const read = await session.read({ yieldMs: 5000 });
    expect(read.output).toContain("^C");
    expect(read.output).toContain("after\n");
    expect(read.exited).toBe(false);
  });

  it("reports a command stopped while it waits (sleep) as timed out, whichever deadline fires first", async () => {
    const sandbox = await EmbeddedSandbox.create();
    // just-bash's own deadline and the sandbox's timer race; both must read as a timeout.
    for (let i = 0; i < 20; i++) {
      const result = await sandbox.exec("sleep 10", { timeoutMs: 30 });
      expect(result.timedOut, `run ${i}: ${result.stderr}`).toBe(true);
    }
  });

  it("runs awk and sed loops past a loop limit where the deadline or the signal can end them, as the real programs run on", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const options = { loopLimit: 1000, timeoutMs: 60_000 };
    const awk = await sandbox.exec("awk 'BEGIN { while (n < 3000) n++; print n }'", options);
    expect(awk).toMatchObject({ exitCode: 0, stdout: "3000\n", stderr: "" });
    const sed = await sandbox.exec(
      "awk 'BEGIN { while (n++ < 3000) printf \"x\" }' | sed ':a; s/x/y/; ta'",
      options,
    );
    expect(sed).toMatchObject({ exitCode: 0, stdout: "y".repeat(3000), stderr: "" });
  });

  // Shell loops that end by themselves, each running past the lowered loop count of 100.
  const FINITE_LOOPS = [
    "i=0; while [ $i -lt 300 ]; do i=$((i+1)); done; echo $i",
    "i=0; until [ $i -ge 300 ]; do i=$((i+1)); done; echo $i",
    "s=0; for ((i = 0; i < 300; i++)); do s=$((s + i)); done; echo $s",
    "n=0; for x in $(seq 300); do n=$((n + x)); done; echo $n",
    "for ((i = 0; ; i++)); do [ $i -ge 300 ] && break; [ $((i % 100)) -ne 0 ] && continue; echo $i; done; echo end",
    "for i in 1 2; do j=0; while [ $j -lt 150 ]; do j=$((j+1)); n=$((n+1)); done; done; echo $n",
    "n=$(i=0; while [ $i -lt 300 ]; do i=$((i+1)); done; echo $i); echo got $n",
    "count() { local i=0; while [ $i -lt $1 ]; do i=$((i+1)); done; echo $i; }; count 300",
    "i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo $i; done | tail -n 2",
    "seq 300 | while read -r line; do echo $((line * 2)); done | tail -n 1",
    "bash -c 'i=0; while [ $i -lt 300 ]; do i=$((i+1)); done; echo $i'",
  ];

  it("runs shell loops past the loop count to their end where the deadline or the signal can stop them, printing what bash prints", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const idle = new AbortController();
    for (const script of FINITE_LOOPS) {
      const expected = execFileSync("bash", ["-c", script], { encoding: "utf8", env: { LANG: "C" } });
      for (const options of [
        { loopLimit: 100, timeoutMs: 60_000 },
        { loopLimit: 100, timeoutMs: Number.POSITIVE_INFINITY, signal: idle.signal },
      ]) {
        const result = await sandbox.exec(script, options);
        expect(result, `${script} (deadline ${options.timeoutMs})`).toMatchObject({
          exitCode: 0,
          stdout: expected,
          stderr: "",
        });
      }
    }
  }, 120_000);

  it("counts loops and commands only in a call nothing else could stop (no deadline, no signal)", async () => {
    const sandbox = await EmbeddedSandbox.create();
    for (const command of [
      "awk 'BEGIN { while (1) x++ }'",
      "echo a | sed ':a; s/a/a/; ta'",
      "while true; do :; done",
      "for ((;;)); do :; done",
      "f() { until false; do :; done; }; f",
    ]) {
      const result = await sandbox.exec(command, { loopLimit: 10_000, timeoutMs: Number.POSITIVE_INFINITY });
      expect(result.exitCode, command).not.toBe(0);
      expect(result.stderr, command).toMatch(
        /exceeded maximum iterations \(10000\)|loop: too many iterations \(10000\)/u,
      );
    }
  }, 60_000);

  it("gives a call's commands no loop or command count where its deadline or signal ends them", async () => {
    // What every command of the call is told it may run (just-bash's own count of commands included).
    const limits = defineCommand("limits", async (_args, ctx) => ({
      stdout: `${ctx.limits?.maxLoopIterations} ${ctx.limits?.maxCommandCount}\n`,
      stderr: "",
      exitCode: 0,
    }));
    const sandbox = await EmbeddedSandbox.create({ commands: [limits] });
    const idle = new AbortController();
    expect((await sandbox.exec("limits", { timeoutMs: 60_000 })).stdout).toBe("Infinity Infinity\n");
    expect(
      (await sandbox.exec("limits", { timeoutMs: Number.POSITIVE_INFINITY, signal: idle.signal })).stdout,
    ).toBe("Infinity Infinity\n");
    expect((await sandbox.exec("limits", { timeoutMs: Number.POSITIVE_INFINITY })).stdout).toBe(
      "100000000 100000000\n",
    );
  });

  // Endless shell loops, with what each prints before it is stopped.
  const ENDLESS_LOOPS = [
    ["i=0; while true; do i=$((i+1)); if [ $i -le 3 ]; then echo $i; fi; done; echo never", "1\n2\n3\n"],
    ["echo before; until false; do :; done; echo never", "before\n"],
    ["echo before; for ((;;)); do :; done; echo never", "before\n"],
    ["f() { echo in f; while :; do :; done; }; f; echo never", "in f\n"],
    ["echo before; x=$(while :; do :; done); echo never", "before\n"],
  ] as const;

  it("ends an endless shell loop at its deadline (exit 124), not at the loop count, keeping what was printed", async () => {
    const sandbox = await EmbeddedSandbox.create();
    for (const [command, printed] of ENDLESS_LOOPS) {
      const result = await sandbox.exec(command, { loopLimit: 10, timeoutMs: 1000 });
      expect(result, command).toMatchObject({ exitCode: 124, timedOut: true, stdout: printed });
      expect(result.stderr, command).not.toMatch(/too many/u);
    }
  }, 60_000);

  it("ends an endless shell loop when another thread asks (exit 130), not at the loop count, keeping what was printed", async () => {
    const sandbox = await EmbeddedSandbox.create();
    for (const [command, printed] of ENDLESS_LOOPS) {
      const board = StopBoard.create();
      const job = board.nextJob(CALLS_CHANNEL);
      board.begin(CALLS_CHANNEL, job);
      const stop = board.signal(CALLS_CHANNEL, job);
      stopLater(board, CALLS_CHANNEL, job, 500);
      const result = await sandbox.exec(command, {
        loopLimit: 10,
        signal: stop.signal,
        timeoutMs: Number.POSITIVE_INFINITY,
      });
      stop.dispose();
      expect(result, command).toMatchObject({
        exitCode: 130,
        interrupted: true,
        timedOut: false,
        stdout: printed,
      });
      expect(result.stderr, command).not.toMatch(/too many/u);
    }
  }, 60_000);

  // What the call printed before, and what awk or sed printed before the stop, are kept.
  const loops = [
    [
      "echo before; awk 'BEGIN { print \"started\"; while (1) x++ }'; echo never",
      "before\nstarted\n",
      "awk: ",
    ],
    ["echo before; echo x | sed -n 'p; :a; s/x/x/; ta'; echo never", "before\nx\n", "sed: "],
  ] as const;

  it("ends an awk or sed loop at its deadline (exit 124), keeping what was printed", async () => {
    const sandbox = await EmbeddedSandbox.create();
    for (const [command, printed, said] of loops) {
      const result = await sandbox.exec(command, { timeoutMs: 1000 });
      expect(result, command).toMatchObject({ exitCode: 124, timedOut: true, stdout: printed });
      expect(result.stderr, command).toContain(`${said}stopped at the command's deadline`);
    }
    // Into a file, the output is not the terminal's: it is not printed.
    const redirected = await sandbox.exec("awk 'BEGIN { print \"started\"; while (1) x++ }' > out.txt", {
      timeoutMs: 500,
    });
    expect(redirected).toMatchObject({ exitCode: 124, stdout: "" });
  });

  it("ends an awk or sed loop when another thread asks (exit 130), keeping what was printed", async () => {
    const sandbox = await EmbeddedSandbox.create();
    for (const [command, printed, said] of loops) {
      const board = StopBoard.create();
      const job = board.nextJob(CALLS_CHANNEL);
      board.begin(CALLS_CHANNEL, job);
      const stop = board.signal(CALLS_CHANNEL, job);
      stopLater(board, CALLS_CHANNEL, job, 300);
      const result = await sandbox.exec(command, { signal: stop.signal, timeoutMs: 60_000 });
      stop.dispose();
      expect(result, command).toMatchObject({
        exitCode: 130,
        interrupted: true,
        timedOut: false,
        stdout: printed,
      });
      expect(result.stderr, command).toContain(`${said}interrupted`);
    }
  });

  it("writes through symlinks to their target and keeps a file's mode, as bash on a real disk does", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const run = await sandbox.exec(
      [
        "echo t > target.txt && ln -s target.txt link && mkdir d && ln -s d dl",
        "echo over > link && echo more >> link && echo in > dl/f",
        "printf '#!/bin/sh\\n' > run.sh && chmod +x run.sh && echo 'echo hi' >> run.sh && echo '#!/bin/sh' > run.sh",
        "echo x > new.sh && ln -s new.sh new-link && chmod 700 new-link",
        "cat target.txt d/f && stat -c '%a %n' run.sh new.sh target.txt && test -L link && test -L dl && echo links",
      ].join(" && "),
    );
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("over\nmore\nin\n755 run.sh\n700 new.sh\n644 target.txt\nlinks\n");
  });

  it("recognises incomplete shell input", () => {
    for (const script of [
      "if true; then",
      "echo 'open",
      "for x in a; do",
      "f() {",
      "echo a |",
      "echo a &&",
      "cat <<EOF\nline",
    ]) {
      expect(isIncomplete(script), script).toBe(true);
    }
    for (const script of ["echo hi", "if true; then echo y; fi", "cat <<EOF\nline\nEOF", "echo 'a|b'"]) {
      expect(isIncomplete(script), script).toBe(false);
    }
  });

  it("lists its commands and says it runs no native binaries", async () => {
    const sandbox = await EmbeddedSandbox.create();
    expect(sandbox.capabilities.nativeBinaries).toBe(false);
    expect(sandbox.capabilities.commands).toContain("grep");
    expect(sandbox.capabilities.commands).toContain("sed");
  });
});
