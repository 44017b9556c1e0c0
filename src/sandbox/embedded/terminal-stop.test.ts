import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime, createEmbeddedSandbox } from "../../host/create-runtime.ts";
import { debianPytest } from "../../test-support/python-packages.ts";
import { CALLS_CHANNEL, StopBoard } from "../stop-signal.ts";
import { pythonReadySandbox } from "../testing/python-ready.ts";
import { readUntil } from "../testing/read-until.ts";
import { hasProgram, realUnderPty } from "../testing/real-pty.ts";
import { stopLater } from "../testing/stop-later.ts";
import { TERMINAL_OUTPUT_VARIABLE } from "./commands/command-io.ts";
import type { EmbeddedSandbox } from "./embedded-sandbox.ts";
import { createPythonCommands, pythonRunner } from "./python/index.ts";

/**
 * What node and python3 printed before Ctrl-C stays on the terminal, streamed as it was printed,
 * and they end with the real programs' message and status: held to the real node and python3 run
 * on a pseudo-terminal, typed the same Ctrl-C.
 */

let box: EmbeddedSandbox;

beforeAll(async () => {
  box = await pythonReadySandbox();
}, 180_000);

afterAll(() => pythonRunner()?.dispose());

const both = hasProgram("node") && hasProgram("python3");

/** The environment without this machine's PYTHON* settings (PYTHONUNBUFFERED would hide buffering). */
const realEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PYTHON")));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a terminal shows, compared across versions: the echoed ^C (the real terminal's line
 * discipline prints it without a newline, the session with one) and a traceback's source lines
 * (CPython 3.13 quotes `-c` code and marks it with carets, Debian's 3.11 does not) left out.
 */
function shown(output: string): string {
  return output
    .replace(/\^C\n?/u, "")
    .split("\n")
    .filter((line) => !line.startsWith("    "))
    .join("\n");
}

/** The embedded program as a session's command: Ctrl-C typed 0.3 s after it printed `marker`. */
async function embedded(
  command: string,
  marker: string,
): Promise<{ output: string; exitCode: number | null }> {
  const session = await box.pty(command);
  const first = await readUntil(session, (output) => output.includes(marker), 60_000);
  await pause(300);
  await session.write("\u0003");
  const end = await readUntil(session, () => false, 60_000);
  expect(end.exited).toBe(true);
  return { output: first.output + end.output, exitCode: end.exitCode };
}

const CASES = [
  {
    name: "python3 asleep, reading the terminal",
    command: `python3 -c "import time; print('a', flush=True); time.sleep(30); print('never')"`,
    marker: "a\n",
  },
  {
    name: "python3 asleep, stdin not the terminal, stdout and stderr both printed",
    command: `python3 -c "import sys, time; print('out', flush=True); print('err', file=sys.stderr, flush=True); time.sleep(30)" < /dev/null`,
    marker: "err\n",
  },
  {
    name: "python3 in a loop, its input piped",
    command: `echo piped | python3 -c "print(input(), flush=True)\ni = 0\nwhile True:\n    i += 1"`,
    marker: "piped\n",
  },
  {
    name: "python3 that catches KeyboardInterrupt, then sleeps and ends by itself",
    command: `python3 -c "import time\ntry:\n    print('a', flush=True); time.sleep(30)\nexcept KeyboardInterrupt:\n    print('caught', flush=True)\nt = time.monotonic(); time.sleep(0.3); print('slept', time.monotonic() - t >= 0.3)" < /dev/null`,
    marker: "a\n",
    // The real one exits 0; the embedded shell gives a command line Ctrl-C stopped 130 (README).
    ownStatus: true,
  },
  {
    name: "python3 run by env, asleep",
    command: `env LC_ALL=C python3 -c "import time; print('hi', flush=True); time.sleep(30)" < /dev/null`,
    marker: "hi\n",
  },
  {
    name: "node waiting on a timer, reading the terminal",
    command: `node -e "console.log('a'); setTimeout(() => console.log('never'), 30000)"`,
    marker: "a\n",
  },
  {
    name: "node waiting on a timer, stdin not the terminal, stdout and stderr both printed",
    command: `node -e "console.log('out'); console.error('err'); setTimeout(() => {}, 30000)" < /dev/null`,
    marker: "err\n",
  },
  {
    name: "node with piped input, waiting on a timer",
    command: `echo piped | node -e "process.stdin.on('data', (d) => console.log(String(d).trim())); setTimeout(() => {}, 30000)"`,
    marker: "piped\n",
  },
];

describe.skipIf(!both)(
  "Ctrl-C in a session keeps what node and python3 printed, as the real ones do on a terminal",
  () => {
    it.each(CASES)("$name", { timeout: 180_000 }, async ({ command, marker, ownStatus }) => {
      const real = await realUnderPty(command, marker, { env: realEnv });
      const ours = await embedded(command, marker);
      expect(shown(ours.output)).toBe(shown(real.output));
      if (ownStatus) expect([real.exitCode, ours.exitCode]).toEqual([0, 130]);
      else expect(ours.exitCode).toBe(real.exitCode);
    });
  },
);

describe("node and python3 print to a session's terminal as they run, whatever their stdin", () => {
  it("shows a program's output before it ends, and keeps it when a busy loop is stopped from another thread", async () => {
    for (const program of [
      `node -e "console.log('a'); for (;;) {}" < /dev/null`,
      `python3 -c "print('a', flush=True)\ni = 0\nwhile True:\n    i += 1" < /dev/null`,
    ]) {
      const board = StopBoard.create();
      const channel = board.openChannel()!;
      const session = await box.pty("bash", { stops: { board, channel } });
      await session.write(`${program}\n`);
      // The node loop holds this thread until the other thread's stop: what it printed is there by then.
      stopLater(board, channel, "running", 4000);
      const printed = await readUntil(session, (output) => output.includes("\na\n"), 60_000);
      // Ctrl-C drops the rest of a command line, as bash does: the status is asked on the next one.
      await session.write("echo status $?\n");
      const end = await readUntil(session, (output) => /status \d+\n/u.test(output), 60_000);
      const output = printed.output + end.output;
      expect(output, program).toMatch(/\na\n/u);
      expect(output, program).toContain("status 130\n");
      expect(output, program).not.toContain("stopped");
    }
  }, 180_000);

  it("streams pytest's report as it runs and keeps it, with its KeyboardInterrupt summary, on Ctrl-C", async () => {
    pythonRunner()!.setPackages(await debianPytest());
    await box.mkdir("/workspace/slow", { recursive: true });
    await box.writeFile(
      "/workspace/slow/test_slow.py",
      "import time\n\ndef test_quick():\n    pass\n\ndef test_slow():\n    time.sleep(60)\n",
    );
    const session = await box.pty("bash");
    await session.write("cd slow && pytest -q < /dev/null\n");
    // The first test's dot comes while the second one sleeps: printed as it runs, not at the end.
    const printed = await readUntil(session, (output) => output.includes("\n."), 120_000);
    await pause(300);
    await session.write("\u0003");
    const end = await readUntil(session, (output) => /in [\d.]+s\n/u.test(output), 60_000);
    const output = printed.output + end.output;
    expect(output).toMatch(/\n\.\^C\n/u);
    expect(output).toContain("!!! KeyboardInterrupt !!!");
    expect(output).toMatch(/1 passed in [\d.]+s\n/u);
    pythonRunner()!.setPackages([]);
  }, 180_000);

  it("streams python3 under timeout and keeps its output and KeyboardInterrupt on Ctrl-C", async () => {
    // Not held to GNU timeout here: without --foreground it leaves the terminal's process group (Ctrl-C
    // never reaches the program), and with it the real traceback races the terminal's hang-up.
    const ours = await embedded(
      `timeout 20 python3 -c "import time; print('a', flush=True); time.sleep(30)"`,
      "a\n",
    );
    expect(ours.output).toMatch(/^a\n\^C\nTraceback[\s\S]*time\.sleep\(30\)[\s\S]*\nKeyboardInterrupt\n$/u);
    expect(ours.exitCode).toBe(130);
  }, 120_000);

  it("keeps the terminal mark out of what env and the programs show of the environment", async () => {
    const session = await box.pty(
      `env; env X=1 env; env X=1 bash -c env; node -e "console.log(Object.keys(process.env).join())"; python3 -c "import os; print(list(os.environ))" < /dev/null`,
    );
    const end = await readUntil(session, () => false, 60_000);
    expect(end).toMatchObject({ exited: true, exitCode: 0 });
    expect(end.output).toContain("X=1");
    expect(end.output).not.toContain(TERMINAL_OUTPUT_VARIABLE);
  }, 120_000);

  it("keeps what python3 printed before Ctrl-C in exec_command / write_stdin sessions, stdin not the terminal", async () => {
    const runtime = await createEmbeddedRuntime({ session: "test", approver: async () => "allow" });
    const call = async (tool: string, params: Record<string, unknown>) =>
      (await runtime.call("toolrouter", { tool, params })) as { output: string };
    const collect = async (first: string, done: (output: string) => boolean) => {
      let output = first;
      for (let i = 0; i < 60 && !done(output); i++)
        output += (await call("write_stdin", { session_id: "py", chars: "" })).output;
      return output;
    };
    const started = await call("exec_command", {
      session_id: "py",
      cmd: `python3 -c "import time; print('a', flush=True); time.sleep(30)" < /dev/null`,
      workdir: null,
    });
    expect(await collect(started.output, (output) => output.includes("a\n"))).toBe("a\n");
    const stopped = await call("write_stdin", { session_id: "py", chars: "\u0003" });
    expect(await collect(stopped.output, (output) => output.includes("[process exited"))).toMatch(
      /^\^C\nTraceback \(most recent call last\):\n[\s\S]*\nKeyboardInterrupt\n\[process exited with code 130\]\n$/u,
    );
  }, 180_000);
});

describe("node and python3 in a tool call keep what they printed before a stop", () => {
  it("at the call's deadline (124): node says it was stopped, python3 shows its KeyboardInterrupt", async () => {
    const node = await box.exec(`echo before; node -e "console.log('a'); for (;;) {}"; echo never`, {
      timeoutMs: 3000,
    });
    expect(node).toMatchObject({ exitCode: 124, timedOut: true, stdout: "before\na\n" });
    expect(node.stderr).toContain("node: stopped after");
    // python3 stops itself ahead of the shell's deadline, so its traceback and status are its own.
    const python = await box.exec(`python3 -c "import time; print('a', flush=True); time.sleep(60)"`, {
      timeoutMs: 8000,
    });
    expect(python).toMatchObject({ exitCode: 124, stdout: "a\n" });
    expect(python.stderr).toMatch(/\nKeyboardInterrupt\npython3: stopped after/u);
    expect(python.stderr).not.toContain("terminated");
  }, 120_000);

  it("when another thread stops it (130): what it printed kept, and node, like the real one, says nothing", async () => {
    for (const program of [
      `node -e "console.log('a'); for (;;) {}"`,
      `python3 -c "import time; print('a', flush=True); time.sleep(60)"`,
    ]) {
      const board = StopBoard.create();
      const job = board.nextJob(CALLS_CHANNEL);
      board.begin(CALLS_CHANNEL, job);
      const handle = board.signal(CALLS_CHANNEL, job);
      stopLater(board, CALLS_CHANNEL, job, 4000);
      const result = await box.exec(`echo before; ${program}; echo never`, {
        timeoutMs: 60_000,
        signal: handle.signal,
      });
      handle.dispose();
      expect(result, program).toMatchObject({ exitCode: 130, interrupted: true, stdout: "before\na\n" });
      if (program.startsWith("node")) expect(result.stderr, program).toBe("");
      else expect(result.stderr, program).toMatch(/^Traceback[\s\S]*\nKeyboardInterrupt\n$/u);
    }
  }, 120_000);
});

describe("a sleeping python3", () => {
  it("wakes on Ctrl-C with KeyboardInterrupt at once, not terminated after the grace", async () => {
    const session = await box.pty(`python3 -c "import time; print('a', flush=True); time.sleep(30)"`);
    await readUntil(session, (output) => output.includes("a\n"), 60_000);
    const started = Date.now();
    await session.write("\u0003");
    const end = await readUntil(session, () => false, 60_000);
    expect(end).toMatchObject({ exited: true, exitCode: 130 });
    expect(end.output).toMatch(/^\^C\nTraceback[\s\S]*time\.sleep\(30\)[\s\S]*\nKeyboardInterrupt\n$/u);
    expect(end.output).not.toContain("terminated");
    // Generous: the grace before termination is 2 s, an interrupted sleep ends well within it.
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 120_000);

  it("wakes at its deadline with KeyboardInterrupt (124), keeping its changes", async () => {
    const timed = await createEmbeddedSandbox({ commands: createPythonCommands({ timeoutMs: 1500 }) });
    const result = await timed.exec(
      `python3 -c "import time\nopen('kept.txt', 'w').write('x')\nprint('a', flush=True)\ntime.sleep(30)"`,
      { timeoutMs: 60_000 },
    );
    expect(result).toMatchObject({ exitCode: 124, stdout: "a\n" });
    expect(result.stderr).toMatch(/\nKeyboardInterrupt\npython3: stopped after 1500 ms/u);
    expect(result.stderr).not.toContain("terminated");
    expect(await timed.readFile("/workspace/kept.txt")).toEqual(new TextEncoder().encode("x"));
  }, 120_000);

  it("sleeps as long as asked (time.sleep 0.3 s takes 0.3 s and more, not a spin that ends early)", async () => {
    const result = await box.exec(
      `python3 -c "import time\nt = time.monotonic(); time.sleep(0.3); d = time.monotonic() - t\nprint(d >= 0.3, d < 5)"`,
      { timeoutMs: 60_000 },
    );
    // On the monotonic clock, as CPython's own sleep measures it (time.time() here counts whole ms).
    expect(result).toMatchObject({ exitCode: 0, stdout: "True True\n" });
  }, 120_000);
});
