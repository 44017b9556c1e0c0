import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime, createEmbeddedSandbox } from "../../../host/create-runtime.ts";
import { StopBoard } from "../../stop-signal.ts";
import { pythonReadySandbox } from "../../testing/python-ready.ts";
import { readUntil } from "../../testing/read-until.ts";
import { stopLater } from "../../testing/stop-later.ts";
import type { EmbeddedSandbox } from "../embedded-sandbox.ts";
import type { ShellSession } from "../shell-session.ts";
import { createPythonCommands, pythonRunner } from "./index.ts";
import { nodePythonPlatform } from "./node-platform.ts";
import { PythonRunner } from "./runner.ts";

/**
 * python3 reading a session's terminal as it is typed: held to the real python3 on the same input
 * fed a step at a time (stdin a pipe there, the terminal here: both are "not a tty" to Python).
 */

let box: EmbeddedSandbox;

beforeAll(async () => {
  box = await pythonReadySandbox();
}, 180_000);

afterAll(() => pythonRunner()?.dispose());

/** A line (or a partial line, handed over as a terminal's Ctrl-D does) typed, or end of input. */
type Step = string | null;

interface Transcript {
  /** What was printed (stdout and stderr as one terminal) before the first step, then after each. */
  printed: string[];
  exitCode: number | null;
}

const nativePython = (() => {
  try {
    execFileSync("python3", ["--version"]);
    return true;
  } catch {
    return false;
  }
})();

/** The environment without this machine's PYTHON* settings (PYTHONUNBUFFERED would hide buffering). */
function pythonEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PYTHON")));
}

/** True while `pid` is blocked in read(0, …) (x86-64 Linux: syscall 0, first argument 0). */
function blockedOnStdin(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/syscall`, "utf8").startsWith("0 0x0 ");
  } catch {
    return false;
  }
}

/** What `pid` has read so far (all descriptors): /proc/PID/io's rchar. */
function bytesRead(pid: number): number {
  try {
    return Number(/^rchar: (\d+)$/mu.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? 0);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The real python3 with stdin a pipe written a step at a time, stdout and stderr one file: after
 * each step, what it printed once it is blocked reading stdin again (or has exited).
 */
async function native(program: string | undefined, steps: Step[]): Promise<Transcript> {
  const folder = mkdtempSync(join(tmpdir(), "live-stdin-"));
  const outPath = join(folder, "out");
  const out = openSync(outPath, "a");
  const child: ChildProcess = spawn("python3", program === undefined ? [] : ["-c", program], {
    stdio: ["pipe", out, out],
    env: pythonEnv(),
  });
  let exitCode: number | null = null;
  let exited = false;
  child.on("exit", (code, signal) => {
    exitCode = code ?? (signal === "SIGINT" ? 130 : 128);
    exited = true;
  });
  const printed: string[] = [];
  let seen = 0;
  const settle = async () => {
    await until(() => exited || blockedOnStdin(child.pid!), "python3 to read or exit");
    const all = readFileSync(outPath, "utf8");
    printed.push(all.slice(seen));
    seen = all.length;
  };
  try {
    await settle();
    for (const step of steps) {
      if (step === null) {
        // After end of input a pipe never blocks again: each case's program then exits.
        child.stdin!.end();
        await until(() => exited, "python3 to exit at end of input");
      } else {
        // Taken once its read(2)s have returned the step's bytes, not merely while still blocked.
        const before = bytesRead(child.pid!);
        child.stdin!.write(step);
        const size = Buffer.byteLength(step);
        await until(() => exited || bytesRead(child.pid!) >= before + size, "python3 to take the step");
      }
      await settle();
    }
    await until(() => exited, "python3 to exit");
    printed[printed.length - 1] += readFileSync(outPath, "utf8").slice(seen);
    return { printed, exitCode };
  } finally {
    child.kill("SIGKILL");
    rmSync(folder, { recursive: true, force: true });
  }
}

/** What each step types into the session: a line as is, a partial line then Ctrl-D, Ctrl-D alone for the end. */
const typed = (step: Step) => (step === null ? "\u0004" : step.endsWith("\n") ? step : `${step}\u0004`);
/** What the terminal echoes of it. */
const echoed = (step: Step) => (step === null ? "" : step);

/** The embedded python3 as a session's one command, typed into a step at a time. */
async function embedded(program: string | undefined, steps: Step[]): Promise<Transcript> {
  if (program !== undefined) await box.writeFile("/workspace/live_program.py", program);
  const session = (await box.pty(
    program === undefined ? "python3" : "python3 live_program.py",
  )) as ShellSession;
  const printed: string[] = [];
  const settle = async (echo: string) => {
    await withTimeout(session.idle(), "the program to read or exit");
    const { output } = await session.read({ yieldMs: 0 });
    expect(output.startsWith(echo)).toBe(true);
    printed.push(output.slice(echo.length));
  };
  await settle("");
  for (const step of steps) {
    if (session.exitCode() !== null) break;
    await session.write(typed(step));
    await settle(echoed(step));
  }
  return { printed, exitCode: session.exitCode() };
}

function withTimeout<T>(promise: Promise<T>, what: string, ms = 30_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)),
  ]);
}

/** Programs that read stdin the ways people write them, and what is typed into each (no program: a bare `python3`). */
const CASES: Array<{ name: string; program: string | undefined; steps: Step[] }> = [
  {
    name: "a bare python3 reads its program until end of input, then runs it",
    program: undefined,
    steps: ["x = 6\n", "print(x * 7)\n", null],
  },
  {
    name: "input() with prompts, one answer at a time",
    program: 'name = input("name? ")\nprint("hello", name)\nage = input("age? ")\nprint(int(age) * 2)\n',
    steps: ["bob\n", "21\n"],
  },
  {
    name: "input() flushes what print() buffered (stdout is a pipe) and stderr before its prompt",
    program:
      'import sys\nprint("banner")\nsys.stderr.write("note ")\nx = input("? ")\nprint("got", x)\nprint("tail")\n',
    steps: ["yes\n"],
  },
  {
    name: "sys.stdin.readline() leaves print()'s output in the pipe's buffer until exit",
    program:
      'import sys\nprint("ready")\nline = sys.stdin.readline()\nprint("got", repr(line))\nprint(repr(sys.stdin.readline()))\n',
    steps: ["one\n", "two\n"],
  },
  {
    name: "for line in sys.stdin, printing each answer with flush, until end of input",
    program: 'import sys\nfor line in sys.stdin:\n    print(line.strip()[::-1], flush=True)\nprint("done")\n',
    steps: ["abc\n", "hello world\n", null],
  },
  {
    name: "sys.stdin.read() takes lines and a partial line until end of input",
    program: "import sys\ndata = sys.stdin.read()\nprint(len(data), repr(data))\n",
    steps: ["x\n", "second line\n", "partial", null],
  },
  {
    name: "input() raises EOFError at end of input",
    program:
      'while True:\n    try:\n        s = input("> ")\n    except EOFError:\n        print("EOFError")\n        break\n    print("echo", s)\n',
    steps: ["1\n", "two words\n", null],
  },
  {
    name: "a line without its newline (Ctrl-D on a terminal, a short write on a pipe)",
    program:
      'import sys\nprint(repr(sys.stdin.readline()), flush=True)\ntry:\n    input("again? ")\nexcept EOFError:\n    print("EOFError")\n',
    steps: ["no newline", "then one\n", "half", null],
  },
  {
    name: "a line longer than one hand-over (64 KB) arrives whole",
    program:
      "import sys\nline = sys.stdin.readline()\nprint(len(line), line[:3], line[-4:-1], flush=True)\nprint(repr(input()))\n",
    steps: [`${"a".repeat(50_000)}${"b".repeat(60_000)}c\n`, "next\n"],
  },
  {
    name: "UTF-8 text and bytes from sys.stdin.buffer",
    program:
      "import sys\ns = input()\nprint(len(s), s.upper(), flush=True)\nb = sys.stdin.buffer.readline()\nprint(b, flush=True)\n",
    steps: ["héllo wörld ✓\n", "ünï\n"],
  },
];

describe.skipIf(!nativePython)(
  "python3 reads a session's input as it is typed, as the real python3 reads a pipe",
  {
    timeout: 180_000,
  },
  () => {
    it.each(CASES)("$name", async ({ program, steps }) => {
      const real = await native(program, steps);
      const ours = await embedded(program, steps);
      expect(ours).toEqual(real);
    });
  },
);

describe("python3 blocked on what is typed", { timeout: 180_000 }, () => {
  it("stops on Ctrl-C with KeyboardInterrupt, as the real python3 does on SIGINT; the shell goes on", async () => {
    const program = 'print("waiting", flush=True)\ninput("answer? ")\nprint("never")\n';
    await box.writeFile("/workspace/wait.py", program);
    const session = await box.pty("bash");
    await session.write("python3 wait.py\n");
    expect((await readUntil(session, (output) => output.includes("answer? "))).output).toContain(
      "waiting\nanswer? ",
    );
    await (session as ShellSession).idle();
    const started = Date.now();
    await session.write("\u0003");
    const stopped = await readUntil(session, (output) => output.includes("KeyboardInterrupt\n"));
    const stopMs = Date.now() - started;
    expect(stopped.output).toMatch(
      /^\^C\nTraceback \(most recent call last\):[\s\S]*\nKeyboardInterrupt\n$/u,
    );
    expect(stopped.output).not.toContain("never");
    expect(stopMs).toBeLessThan(10_000);
    await session.write("echo status $?\n");
    expect((await readUntil(session, (output) => output.includes("status 1"))).output).toContain(
      "status 130\n",
    );
    if (nativePython) {
      // The real python3 blocked in input() and sent SIGINT: the same last line, the same status.
      const child = spawn("python3", ["-c", program], { stdio: ["pipe", "pipe", "pipe"], env: pythonEnv() });
      let stderr = "";
      child.stderr.on("data", (data) => {
        stderr += data;
      });
      await until(() => blockedOnStdin(child.pid!), "python3 to block in input()");
      child.kill("SIGINT");
      const signal = await new Promise<string | null>((resolve) =>
        child.on("exit", (_code, s) => resolve(s)),
      );
      expect(stderr.trimEnd().split("\n").pop()).toBe("KeyboardInterrupt");
      // It dies of SIGINT after the traceback: status 130 to a shell.
      expect(signal).toBe("SIGINT");
    }
  });

  it("stops at the session's stop channel from another thread (the terminal's Ctrl-C): KeyboardInterrupt, not termination", async () => {
    const board = StopBoard.create();
    const channel = board.openChannel()!;
    const session = await box.pty("bash", { stops: { board, channel } });
    await session.write(`python3 -c 'print(repr(input("first? "))); input("second? ")'; echo after\n`);
    await readUntil(session, (output) => output.includes("first? "));
    await session.write("1\n");
    await readUntil(session, (output) => output.includes("second? "));
    stopLater(board, channel, "running", 100);
    const stopped = await readUntil(session, (output) => output.includes("KeyboardInterrupt"));
    expect(stopped.output).toMatch(/^Traceback[\s\S]*KeyboardInterrupt\n$/u);
    expect(stopped.output).not.toContain("after");
    expect(stopped.output).not.toContain("terminated");
  });

  it("terminates a program that swallows Ctrl-C and waits for input again, after the grace; the next run works", async () => {
    const session = await box.pty(
      `python3 -c 'while True:\n    try:\n        input("again? ")\n    except KeyboardInterrupt:\n        print("ignored", flush=True)'`,
    );
    await readUntil(session, (output) => output.includes("again? "));
    await (session as ShellSession).idle();
    await session.write("\u0003");
    const end = await readUntil(session, () => false, 30_000);
    expect(end.exited).toBe(true);
    expect(end.exitCode).toBe(130);
    expect(end.output).toBe(
      "^C\nignored\nagain? python3: stopped: the command was cancelled (the program was terminated).\n",
    );
    expect(await box.exec(`python3 -c 'print("fresh")'`, { timeoutMs: 120_000 })).toMatchObject({
      exitCode: 0,
      stdout: "fresh\n",
    });
  });

  it("stops at its deadline while waiting for input: KeyboardInterrupt, 124, what it printed kept", async () => {
    const timed = await createEmbeddedSandbox({ commands: createPythonCommands({ timeoutMs: 1500 }) });
    const session = await timed.pty(`python3 -c 'print("before", flush=True); input("answer? ")'`);
    const started = Date.now();
    const end = await readUntil(session, () => false, 30_000);
    expect(end.exited).toBe(true);
    expect(end.exitCode).toBe(124);
    expect(end.output).toMatch(/^before\nanswer\? Traceback[\s\S]*KeyboardInterrupt\n/u);
    expect(end.output).toContain("python3: stopped after 1500 ms");
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("takes piped input as it is in a session: the pipe, not the terminal", async () => {
    const session = await box.pty("bash");
    await session.write(`printf 'from pipe\\n' | python3 -c 'print(input().upper())'; echo $?\n`);
    const read = await readUntil(session, (output) => output.includes("FROM PIPE\n0\n"));
    expect(read.output).toContain("FROM PIPE\n0\n");
    // A tool call with no session reads the command's stdin, and its end, as before.
    expect(await box.exec(`python3 -c 'input()'`, { timeoutMs: 60_000 })).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining("EOFError: EOF when reading a line"),
    });
  });

  it("leaves lines it did not read to the shell, as a terminal does", async () => {
    const session = await box.pty("bash");
    await session.write(`python3 -c 'print("read", input())'\n`);
    await readUntil(session, (output) => output.includes("input())'\n"));
    await (session as ShellSession).idle();
    await session.write("one\necho shell got this\n");
    const read = await readUntil(session, (output) => output.includes("shell got this\n"));
    expect(read.output).toBe("one\necho shell got this\nread one\nshell got this\n");
  });
});

describe("python3 in exec_command / write_stdin sessions", { timeout: 180_000 }, () => {
  it("answers each write_stdin as the program reads it, and stops on Ctrl-C", async () => {
    const runtime = await createEmbeddedRuntime({
      files: {
        "ask.py":
          'import sys\nwhile True:\n    line = input("> ")\n    if line == "quit":\n        break\n    print(line.upper(), flush=True)\nprint("bye")\n',
      },
      session: "test",
      approver: async () => "allow",
    });
    const call = async (tool: string, params: Record<string, unknown>) =>
      (await runtime.call("toolrouter", { tool, params })) as { output: string };
    // Each call answers within a second: on a loaded machine the rest comes with the next empty write.
    const collect = async (session: string, first: string, done: (output: string) => boolean) => {
      let output = first;
      for (let i = 0; i < 60 && !done(output); i++)
        output += (await call("write_stdin", { session_id: session, chars: "" })).output;
      return output;
    };
    const started = await call("exec_command", { session_id: "py", cmd: "python3 ask.py", workdir: null });
    expect(await collect("py", started.output, (output) => output.endsWith("> "))).toBe("> ");
    const hello = await call("write_stdin", { session_id: "py", chars: "hello\n" });
    expect(await collect("py", hello.output, (output) => output.endsWith("> "))).toBe("hello\nHELLO\n> ");
    const quit = await call("write_stdin", { session_id: "py", chars: "quit\n" });
    expect(await collect("py", quit.output, (output) => output.includes("[process exited"))).toBe(
      "quit\nbye\n[process exited with code 0]\n",
    );
    const second = await call("exec_command", { session_id: "py2", cmd: "python3 ask.py", workdir: null });
    await collect("py2", second.output, (output) => output.endsWith("> "));
    const stopped = await call("write_stdin", { session_id: "py2", chars: "\u0003" });
    expect(await collect("py2", stopped.output, (output) => output.includes("[process exited"))).toMatch(
      /^\^C\nTraceback[\s\S]*KeyboardInterrupt\n\[process exited with code 130\]\n$/u,
    );
  });
});

describe("a host without shared memory", { timeout: 180_000 }, () => {
  it("fails a read of the terminal with a clear error instead of waiting forever", async () => {
    const global = globalThis as { crossOriginIsolated?: boolean };
    const before = Object.getOwnPropertyDescriptor(global, "crossOriginIsolated");
    global.crossOriginIsolated = false;
    const runner = new PythonRunner(nodePythonPlatform());
    try {
      let stderr = "";
      const decoder = new TextDecoder();
      const outcome = await runner.run(
        {
          args: ["-c", "print('started', flush=True)\ninput()"],
          cwd: "/",
          env: {},
          stdin: new Uint8Array(0),
          tree: [],
          sitePaths: [],
          deadline: Date.now() + 120_000,
          memoryLimitBytes: 256 * 1024 * 1024,
        },
        {
          output: (fd, data) => {
            if (fd === 2) stderr += decoder.decode(data);
          },
          input: async () => new TextEncoder().encode("never read\n"),
        },
      );
      expect(outcome.exitCode).toBe(1);
      expect(stderr).toContain("python3: cannot read the terminal here: this page has no shared memory");
      expect(stderr).toContain("OSError: [Errno 29] I/O error");
    } finally {
      runner.dispose();
      if (before) Object.defineProperty(global, "crossOriginIsolated", before);
      else delete global.crossOriginIsolated;
    }
  });
});
