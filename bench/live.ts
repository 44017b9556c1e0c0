/**
 * Live processes: how long a write to a running command takes to come back (write_stdin's round
 * trip), and how long a busy loop takes to stop once asked (Ctrl-C, Cancel). The references are the
 * same work with native processes (a real `cat` over pipes, a real bash loop sent SIGINT), measured
 * in the same run. Run alone with `npx tsx bench/live.ts`.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { createEmbeddedRuntime } from "../src/host/create-runtime.ts";
import { EmbeddedSandbox } from "../src/sandbox/embedded/embedded-sandbox.ts";
import { CALLS_CHANNEL, STOP_CELL_LAYOUT, StopBoard } from "../src/sandbox/stop-signal.ts";
import type { PtySession } from "../src/sandbox/types.ts";
import type { BenchRow } from "./types.ts";

const ROUND_TRIPS = 41;
const STOPS = 7;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Times of ROUND_TRIPS lines typed into a live session, each until the session's output ends with `answer(i)`. */
async function sessionTrips(session: PtySession, answer: (i: number) => string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const started = performance.now();
    await session.write(`line ${i}\n`);
    let output = "";
    while (!output.endsWith(answer(i))) output += (await session.read({ yieldMs: 30_000 })).output;
    times.push(performance.now() - started);
  }
  return times;
}

/** The same with a real process over pipes: each line until its stdout ends with `answer(i)`. */
async function pipeTrips(
  child: ChildProcessByStdio<Writable, Readable, null>,
  answer: (i: number) => string,
): Promise<number[]> {
  child.stdout.setEncoding("utf8");
  let pending: ((text: string) => void) | undefined;
  child.stdout.on("data", (text: string) => pending?.(text));
  const times: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      let seen = "";
      pending = (text) => {
        seen += text;
        if (seen.endsWith(answer(i))) resolve();
      };
      child.stdin.write(`line ${i}\n`);
    });
    times.push(performance.now() - started);
  }
  child.stdin.end();
  return times;
}

export async function benchLive(): Promise<BenchRow[]> {
  const native = await nativeRoundTrip();

  // The sandbox's own session: write a line to `cat`, read until it is printed back.
  const sandbox = await EmbeddedSandbox.create();
  const cat = await sandbox.pty("cat");
  const session = await sessionTrips(cat, (i) => `line ${i}\nline ${i}\n`);
  await cat.kill();

  // The whole tool call: toolrouter's write_stdin through the runtime (validation, approval, log).
  const runtime = await createEmbeddedRuntime({ files: {}, approver: async () => "allow" });
  await runtime.call("toolrouter", {
    tool: "exec_command",
    params: { session_id: "c", cmd: "cat", workdir: null },
  });
  const tool: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const started = performance.now();
    const answer = (await runtime.call("toolrouter", {
      tool: "write_stdin",
      params: { session_id: "c", chars: `line ${i}\n` },
    })) as { output: string };
    if (answer.output !== `line ${i}\nline ${i}\n`) throw new Error(`write_stdin answered ${answer.output}`);
    tool.push(performance.now() - started);
  }
  await runtime.dispose();

  const nativeStop = await nativeInterrupt();
  const busyExec: number[] = [];
  for (let i = 0; i < STOPS; i++) busyExec.push(await execInterrupt(sandbox));
  const busyNode: number[] = [];
  const withNode = await EmbeddedSandbox.create({
    commands: (await import("../src/sandbox/embedded/node/index.ts")).createNodeCommands(),
  });
  for (let i = 0; i < STOPS; i++) busyNode.push(await execInterrupt(withNode, 'node -e "for (;;) {}"'));
  const ctrlC: number[] = [];
  for (let i = 0; i < STOPS; i++) ctrlC.push(await sessionCtrlC(sandbox));

  const python = await benchPython();

  const nativeTrip = { name: "native cat over pipes", ms: native };
  const nativeInt = { name: "native bash loop, SIGINT → exit", ms: nativeStop };
  return [
    {
      name: "write_stdin round trip: session write → echo back (median)",
      ms: median(session),
      reference: nativeTrip,
    },
    { name: "write_stdin round trip: toolrouter call (median)", ms: median(tool), reference: nativeTrip },
    {
      name: "interrupt a busy bash loop from another thread (stop → exit)",
      ms: median(busyExec),
      reference: nativeInt,
    },
    {
      name: "interrupt a busy node loop from another thread (stop → exit)",
      ms: median(busyNode),
      reference: nativeInt,
    },
    {
      name: "Ctrl-C a busy loop in a session (write → prompt back)",
      ms: median(ctrlC),
      reference: nativeInt,
    },
    ...python,
  ];
}

/** A Python program that prints back each line it reads (flushing), as a session's command and natively. */
const PYTHON_ECHO = 'import sys\nfor line in sys.stdin:\n    print("got", line, end="", flush=True)\n';

/**
 * python3 on a session's terminal: a typed line's trip to a `for line in sys.stdin` loop and back,
 * and Ctrl-C while it waits in input(); references: the real python3 over pipes and sent SIGINT.
 */
export async function benchPython(): Promise<BenchRow[]> {
  const { registerNodeAssets } = await import("../src/host/node-assets.ts");
  const { createEmbeddedSandbox } = await import("../src/host/create-runtime.ts");
  const { pythonRunner } = await import("../src/sandbox/embedded/python/index.ts");
  const [nativeTrip, nativeStop] = await nativePython();
  const [nativeSleepStop, nativeSleepCpu] = await nativeSleep();
  registerNodeAssets();
  const sandbox = await createEmbeddedSandbox();
  await sandbox.writeFile("/workspace/echo.py", PYTHON_ECHO);
  const echo = await sandbox.pty("python3 echo.py");
  // The first trip waits for the interpreter to start: left out.
  const trips = (await sessionTrips(echo, (i) => `got line ${i}\n`)).slice(1);
  await echo.kill();
  const stops: number[] = [];
  for (let i = 0; i < STOPS; i++) {
    const session = await sandbox.pty("bash");
    await session.write(`python3 -c 'input("? ")'\n`);
    let output = "";
    while (!output.endsWith("? ")) output += (await session.read({ yieldMs: 30_000 })).output;
    const started = performance.now();
    await session.write("\u0003");
    while (!output.endsWith("KeyboardInterrupt\n"))
      output += (await session.read({ yieldMs: 30_000 })).output;
    stops.push(performance.now() - started);
    await session.kill();
  }
  const sleepStops: number[] = [];
  for (let i = 0; i < STOPS; i++) {
    const session = await sandbox.pty(`python3 -c '${SLEEP_THEN_SAY}'`);
    let output = "";
    while (!output.endsWith("asleep\n")) output += (await session.read({ yieldMs: 30_000 })).output;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await session.write("\u0003");
    while (!output.endsWith("KeyboardInterrupt\n"))
      output += (await session.read({ yieldMs: 30_000 })).output;
    sleepStops.push(performance.now() - started);
    await session.kill();
  }
  // The host's CPU time (every thread) for time.sleep(2), less that of a run that does not sleep.
  const cpuOf = async (code: string) => {
    const before = process.cpuUsage();
    await sandbox.exec(`python3 -c '${code}'`, { timeoutMs: 60_000 });
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  const sleepCpu = (await cpuOf("import time; time.sleep(2)")) - (await cpuOf("import time"));
  pythonRunner()?.dispose();
  return [
    {
      name: "python3 reads a typed line: session write → its answer printed (median)",
      ms: median(trips),
      reference: { name: "native python3 over pipes", ms: nativeTrip },
    },
    {
      name: "Ctrl-C python3 waiting in input() (write → KeyboardInterrupt printed)",
      ms: median(stops),
      reference: { name: "native python3 in input(), SIGINT → exit", ms: nativeStop },
    },
    {
      name: "Ctrl-C python3 asleep in time.sleep (write → KeyboardInterrupt printed)",
      ms: median(sleepStops),
      reference: { name: "native python3 in time.sleep, SIGINT → exit", ms: nativeSleepStop },
    },
    {
      name: "CPU time of python3's time.sleep(2) (ms of CPU, not wall clock)",
      ms: sleepCpu,
      // Natively a sleep costs no CPU (0 ms): the reference is what this build's sleep did before, a spin.
      reference: { name: "native python3 spinning 2 s on time.monotonic()", ms: nativeSleepCpu },
    },
  ];
}

/** A program that says it is about to sleep, then sleeps a minute. */
const SLEEP_THEN_SAY = 'import time; print("asleep", flush=True); time.sleep(60)';

/** The real python3 asleep: SIGINT to exit (median); and the CPU time of a 2 s busy wait. */
async function nativeSleep(): Promise<[number, number]> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PYTHON")));
  const stops: number[] = [];
  for (let i = 0; i < STOPS; i++) {
    const child = spawn("python3", ["-c", SLEEP_THEN_SAY], { stdio: ["ignore", "pipe", "ignore"], env });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGINT");
    await exited;
    stops.push(performance.now() - started);
  }
  const cpu = (code: string) =>
    new Promise<number>((resolve) => {
      const child = spawn("python3", ["-c", `${code}\nimport os; t = os.times(); print(t.user + t.system)`], {
        stdio: ["ignore", "pipe", "ignore"],
        env,
      });
      let out = "";
      child.stdout.on("data", (data) => {
        out += data;
      });
      child.on("exit", () => resolve(Number(out) * 1000));
    });
  const spin = "import time\nend = time.monotonic() + 2\nwhile time.monotonic() < end: pass";
  return [median(stops), (await cpu(spin)) - (await cpu("import time"))];
}

/** The real python3: the same echo loop over pipes (median trip), and SIGINT in input() to exit (median). */
async function nativePython(): Promise<[number, number]> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PYTHON")));
  const child = spawn("python3", ["-c", PYTHON_ECHO], { stdio: ["pipe", "pipe", "inherit"], env });
  const trips = (await pipeTrips(child, (i) => `got line ${i}\n`)).slice(1);
  const stops: number[] = [];
  for (let i = 0; i < STOPS; i++) {
    const waiting = spawn("python3", ["-c", 'input("? ")'], { stdio: ["pipe", "pipe", "ignore"], env });
    await new Promise<void>((resolve) => waiting.stdout.once("data", () => resolve()));
    // SIGINT between the prompt's flush and the read(2) is lost until the read returns: wait for the read.
    while (!readFileSync(`/proc/${waiting.pid}/syscall`, "utf8").startsWith("0 0x0 "))
      await new Promise((resolve) => setTimeout(resolve, 2));
    const started = performance.now();
    const exited = new Promise((resolve) => waiting.on("exit", resolve));
    waiting.kill("SIGINT");
    await exited;
    stops.push(performance.now() - started);
  }
  return [median(trips), median(stops)];
}

/** Median time for a line written to a real `cat` to come back on its stdout. */
async function nativeRoundTrip(): Promise<number> {
  const child = spawn("cat", [], { stdio: ["pipe", "pipe", "inherit"] });
  return median(await pipeTrips(child, (i) => `line ${i}\n`));
}

/** Median time from SIGINT to the exit of a real bash busy loop. */
async function nativeInterrupt(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < STOPS; i++) {
    const child = spawn("bash", ["-c", "while true; do :; done"], { stdio: "ignore" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGINT");
    await exited;
    times.push(performance.now() - started);
  }
  return median(times);
}

/**
 * Runs a busy command as a call's job and stops it from another thread after 200 ms; returns the
 * time from the stop (as that thread wrote it) to the command's return.
 */
async function execInterrupt(sandbox: EmbeddedSandbox, command = "while true; do :; done"): Promise<number> {
  const board = StopBoard.create();
  const job = board.nextJob(CALLS_CHANNEL);
  board.begin(CALLS_CHANNEL, job);
  const stop = board.signal(CALLS_CHANNEL, job);
  const stoppedAt = new Float64Array(new SharedArrayBuffer(8));
  const worker = new Worker(
    `const { workerData } = require("node:worker_threads");
     const { buffer, index, job, stamp } = workerData;
     const cells = new Int32Array(buffer);
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
     new Float64Array(stamp)[0] = performance.timeOrigin + performance.now();
     Atomics.store(cells, index, job);
     Atomics.notify(cells, index);`,
    {
      eval: true,
      workerData: {
        buffer: board.buffer,
        index: CALLS_CHANNEL * STOP_CELL_LAYOUT.cellsPerChannel + STOP_CELL_LAYOUT.stop,
        job,
        stamp: stoppedAt.buffer,
      },
    },
  );
  const result = await sandbox.exec(command, { signal: stop.signal, timeoutMs: 60_000 });
  const ended = performance.timeOrigin + performance.now();
  stop.dispose();
  await worker.terminate();
  if (!result.interrupted) throw new Error(`not interrupted: ${JSON.stringify(result)}`);
  return ended - stoppedAt[0]!;
}

/** A session's busy loop, Ctrl-C written after 200 ms: time from the write to the session waiting for input again. */
async function sessionCtrlC(sandbox: EmbeddedSandbox): Promise<number> {
  const session = await sandbox.pty("bash");
  await session.write("while true; do :; done\n");
  await session.read({ yieldMs: 200 });
  const started = performance.now();
  await session.write("\u0003");
  await session.read({ yieldMs: 10_000 });
  const ms = performance.now() - started;
  await session.kill();
  return ms;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("live", await benchLive());
}
