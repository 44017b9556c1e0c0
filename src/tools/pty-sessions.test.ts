import { describe, expect, it } from "vitest";
import { createToolContext, serviceRegistry } from "../core/tool-context.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import type { PtySession } from "../sandbox/types.ts";
import { PtySessions, ptySessions } from "./pty-sessions.ts";

async function setup() {
  const sandbox = await EmbeddedSandbox.create();
  await sandbox.mkdir("/workspace/sub");
  const context = createToolContext(sandbox);
  return { sandbox, context, sessions: new PtySessions(sandbox) };
}

describe("PtySessions", () => {
  it("keeps a shell's state over 100 writes", async () => {
    const { context, sessions } = await setup();
    await sessions.start(context, "s1", "bash", null);
    await sessions.write("s1", "n=0; cd sub\n");
    for (let i = 0; i < 100; i++) await sessions.write("s1", "n=$((n+1))\n", { yieldMs: 2000 });
    const last = await sessions.write("s1", "echo total=$n in $(pwd)\n", { yieldMs: 5000 });
    expect(last.output).toBe("echo total=$n in $(pwd)\ntotal=100 in /workspace/sub\n");
    expect(last.exited).toBe(false);
  });

  it("returns only what arrived since the last read", async () => {
    const { context, sessions } = await setup();
    expect((await sessions.start(context, "s", "bash", null)).output).toBe("");
    expect((await sessions.write("s", "echo one\n")).output).toBe("echo one\none\n");
    expect((await sessions.write("s", "echo two\n")).output).toBe("echo two\ntwo\n");
    expect((await sessions.read("s", { yieldMs: 10 })).output).toBe("");
  });

  it("starts in a workspace folder and refuses one outside", async () => {
    const { context, sessions } = await setup();
    await sessions.start(context, "s", "bash", "sub");
    expect((await sessions.write("s", "pwd\n")).output).toBe("pwd\n/workspace/sub\n");
    await expect(sessions.start(context, "t", "bash", "../etc")).rejects.toMatchObject({
      code: "path_escape",
    });
    await expect(sessions.start(context, "t", "bash", "missing")).rejects.toMatchObject({
      code: "file_not_found",
    });
  });

  it("caps one read's output and says it was truncated", async () => {
    const { context, sessions } = await setup();
    await sessions.start(context, "s", "bash", null);
    const read = await sessions.write("s", "seq 1 5000 | sed 's/^/line /'\n", {
      maxBytes: 1000,
      yieldMs: 60_000, // the read ends when the shell waits for input again; a loaded machine may need long
    });
    expect(read.truncated).toBe(true);
    expect(new TextEncoder().encode(read.output).length).toBeLessThanOrEqual(1000);
    expect(read.output).toContain("line 5000\n");
    expect(read.output.startsWith("seq 1 5000")).toBe(true);
    expect((await sessions.write("s", "echo ok\n")).truncated).toBe(false);
  });

  it("reports a command's exit, delivering its last output first", async () => {
    const { context, sessions } = await setup();
    const started = await sessions.start(context, "once", "echo done; exit 3", null);
    expect(started).toMatchObject({ output: "done\n", exited: true, exitCode: 3 });
    await expect(sessions.write("once", "x\n")).rejects.toMatchObject({
      code: "session_exited",
      details: { exit_code: 3 },
    });
    await sessions.start(context, "sh", "bash", null);
    const exited = await sessions.write("sh", "echo bye; exit 7\n");
    expect(exited).toMatchObject({ output: "echo bye; exit 7\nbye\n", exited: true, exitCode: 7 });
  });

  it("reports a killed session's exit", async () => {
    const { context, sessions } = await setup();
    await sessions.start(context, "s", "bash", null);
    await sessions.write("s", "sleep 30\n", { yieldMs: 50 });
    const killed = await sessions.kill("s");
    expect(killed).toMatchObject({ exited: true, exitCode: 130 });
    expect(sessions.list()).toEqual([expect.objectContaining({ id: "s", exited: true, exitCode: 130 })]);
  });

  it("refuses a duplicate id while the session runs, and an unknown id", async () => {
    const { context, sessions } = await setup();
    await sessions.start(context, "s", "bash", null);
    await expect(sessions.start(context, "s", "bash", null)).rejects.toMatchObject({
      code: "session_exists",
    });
    await expect(sessions.write("nope", "x")).rejects.toMatchObject({
      code: "session_not_found",
      message: expect.stringContaining("Sessions: s."),
    });
    await sessions.kill("s");
    // An ended session's id may be used again.
    await expect(sessions.start(context, "s", "bash", null)).resolves.toMatchObject({ exited: false });
  });

  it("lists sessions with their command, folder and state", async () => {
    const { context, sessions } = await setup();
    await sessions.start(context, "a", "bash", "sub");
    await sessions.start(context, "b", "echo hi", null);
    expect(sessions.list()).toEqual([
      expect.objectContaining({ id: "a", command: "bash", workdir: "sub", exited: false, exitCode: null }),
      expect.objectContaining({ id: "b", command: "echo hi", workdir: "", exited: true, exitCode: 0 }),
    ]);
  });

  it("kills running sessions when the service registry is disposed", async () => {
    const { sandbox } = await setup();
    const started: PtySession[] = [];
    const pty = sandbox.pty.bind(sandbox);
    sandbox.pty = async (command, options) => {
      const session = await pty(command, options);
      started.push(session);
      return session;
    };
    const services = serviceRegistry();
    const context = createToolContext(sandbox, { services });
    const sessions = ptySessions(context);
    expect(ptySessions(context)).toBe(sessions);
    await sessions.start(context, "s", "bash", null);
    await services.dispose();
    expect(started.map((session) => session.exitCode())).toEqual([130]);
    expect(sessions.list()).toEqual([]);
  });
});
