import { describe, expect, it } from "vitest";
import { describeSandboxContract } from "../sandbox-contract.ts";
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

  it("stops a runaway awk, sed or shell loop at the loop limit it is given", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const started = Date.now();
    for (const command of [
      "awk 'BEGIN { while (1) x++ }'",
      "echo a | sed ':a; s/a/a/; ta'",
      "while true; do :; done",
    ]) {
      const result = await sandbox.exec(command, { loopLimit: 10_000, timeoutMs: 60_000 });
      expect(result.exitCode, command).not.toBe(0);
      expect(result.stderr, command).toMatch(
        /exceeded maximum iterations \(10000\)|too many iterations \(10000\)/u,
      );
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(
      (await sandbox.exec("awk 'BEGIN { for (i = 0; i < 500; i++) n++; print n }'", { loopLimit: 1000 }))
        .stdout,
    ).toBe("500\n");
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
