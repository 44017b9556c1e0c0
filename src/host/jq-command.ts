import { Worker } from "node:worker_threads";
import { type Command, defineCommand, type ExecResult } from "just-bash";

/** The heap a jq program may fill before it is stopped (V8's old generation of its worker). */
export const JQ_HEAP_MB = 512;
/** Exit status of a program stopped for memory, as the embedded node's. */
const OUT_OF_MEMORY_EXIT = 134;
const STOPPED_EXIT = 130;

interface Entry {
  path: string;
  /** Undefined for a folder. */
  bytes?: Uint8Array;
}

/**
 * `jq` for Node hosts (the CLI): just-bash's own jq, run in a worker_thread whose heap is capped.
 * Its evaluator is synchronous and gathers every result before printing, so in this thread a
 * loop such as `limit(900000; repeat("x"*2000))` could neither be stopped at its deadline nor
 * bounded in memory: it took the CLI to 4.5 GB and crashed it. In a worker it is terminated at the
 * deadline or on Ctrl-C, and a heap past JQ_HEAP_MB ends the worker, not the process. The files
 * the command line names are handed to the worker; one warm worker is kept between runs.
 */
export function jqWorkerCommand(): Command {
  const idle: Worker[] = [];
  const spawn = () => {
    const worker = new Worker(new URL("./jq-worker.mjs", import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: JQ_HEAP_MB, maxYoungGenerationSizeMb: 32 },
    });
    // A worker waiting for work must not keep the CLI alive, nor fail it when it goes.
    worker.unref();
    worker.on("error", () => undefined);
    worker.on("exit", () => {
      const at = idle.indexOf(worker);
      if (at !== -1) idle.splice(at, 1);
    });
    return worker;
  };

  return defineCommand("jq", async (args, ctx) => {
    const entries: Entry[] = [];
    // Whatever jq may read is named on its command line (FILE operands, --rawfile, --slurpfile).
    for (const arg of new Set(args)) {
      if (arg === "" || arg.length > 4096 || arg.includes("\0")) continue;
      const path = ctx.fs.resolvePath(ctx.cwd, arg);
      const stat = await ctx.fs.stat(path).catch(() => null);
      if (stat?.isDirectory) entries.push({ path });
      else if (stat?.isFile) entries.push({ path, bytes: await ctx.fs.readFileBuffer(path) });
    }
    if (ctx.signal?.aborted) return { stdout: "", stderr: "", exitCode: STOPPED_EXIT };
    const worker = idle.pop() ?? spawn();
    worker.ref();
    const job = {
      args,
      cwd: ctx.cwd,
      env: Object.fromEntries(ctx.env),
      stdin: String(ctx.stdin as unknown),
      limits: ctx.limits,
      entries,
    };
    let detach: () => void = () => undefined;
    const result = await new Promise<ExecResult | { lost: string }>((resolve) => {
      const stop = () => resolve({ lost: "stopped" });
      const onMessage = (message: ExecResult) => resolve(message);
      const onError = (error: Error & { code?: string }) =>
        resolve({ lost: error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "memory" : error.message });
      const onExit = (code: number) => resolve({ lost: `the jq worker exited (${code})` });
      ctx.signal?.addEventListener("abort", stop, { once: true });
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      detach = () => {
        ctx.signal?.removeEventListener("abort", stop);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
      };
      worker.postMessage(job);
    });
    detach();
    if (!("lost" in result)) {
      worker.unref();
      if (idle.length === 0) idle.push(worker);
      else void worker.terminate();
      return result;
    }
    void worker.terminate();
    if (result.lost === "stopped") return { stdout: "", stderr: "", exitCode: STOPPED_EXIT };
    if (result.lost === "memory") {
      return {
        stdout: "",
        stderr: `jq: stopped: the program ran out of memory (jq's heap is capped at ${JQ_HEAP_MB} MB here); its output is lost\n`,
        exitCode: OUT_OF_MEMORY_EXIT,
      };
    }
    return { stdout: "", stderr: `jq: ${result.lost}\n`, exitCode: 2 };
  });
}
