import { hexToBytes as fromHex, bytesToHex as toHex } from "@noble/hashes/utils.js";
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import { stopReason } from "../../stop-signal.ts";
import { GUEST_BOOTSTRAP } from "./guest/bootstrap.ts";
import { BUILTIN_SOURCES } from "./guest/builtins.ts";
import { DIGEST_NAMES, digest, isDigest } from "./hashes.ts";
import { capWasmMemory, discardQuickJS, loadQuickJS } from "./quickjs.ts";
import { builtinName, ResolveError, resolveImport, resolveRequire } from "./resolver.ts";
import { ContentMissing, FsError, type SyncFs } from "./sync-fs.ts";

/** What the program runs first. */
export type MainSpec =
  | { kind: "script"; path: string }
  | { kind: "eval"; code: string; print: boolean; module?: boolean }
  /** One file of `node --test`: TAP without header or summary, top-level numbers from `startNumber`. */
  | { kind: "test-file"; path: string; startNumber: number };

export interface VmOptions {
  fs: SyncFs;
  cwd: string;
  env: Record<string, string>;
  /** process.argv: [execPath, script?, ...args]. */
  argv: string[];
  execArgv: string[];
  stdin: string;
  main: MainSpec;
  /** Epoch ms at which the program is interrupted. */
  deadline: number;
  memoryLimitBytes: number;
  /** Output (stdout, stderr and TAP together, in UTF-16 units) past which the program is stopped. */
  maxOutputChars?: number | undefined;
  signal?: AbortSignal | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /**
   * A terminal as stdin (a live session): process.stdin is a TTY whose data arrives as it is typed,
   * and the program stays alive while it listens. `stdin` is unused then.
   */
  liveStdin?: { next(signal?: AbortSignal): Promise<string | null | undefined> } | undefined;
  /** stdout/stderr as the program writes them (else they are collected into the result). */
  onOutput?: ((stream: "stdout" | "stderr", text: string) => void) | undefined;
}

/** One piece of output, in the order the program produced it (`tap` is the test reporter's). */
export interface OutputChunk {
  stream: "stdout" | "stderr" | "tap";
  text: string;
}

/** Counts a test file reports when its root test ends. */
export interface TestCounts {
  tests: number;
  suites: number;
  pass: number;
  fail: number;
  cancelled: number;
  skipped: number;
  todo: number;
  /** Top-level entries reported (the TAP plan's share of this file). */
  topLevel: number;
}

export interface VmResult {
  exitCode: number;
  output: OutputChunk[];
  /** Why the program was stopped from outside, if it was. */
  stopped?: "deadline" | "aborted" | "memory" | "stack" | "output";
  tests?: TestCounts;
  /**
   * Files whose content the mirror had not loaded when the program read them: the run was cut
   * short, and its output and writes mean nothing; load these and run the program again.
   */
  missing?: string[];
}

/** The Node release whose behaviour the embedded node follows (`process.version`, `node --version`). */
export const EMBEDDED_NODE_VERSION = "v20.19.0";

/** Module names that stand for a failed resolution (see normalizeModule). */
const FAILED_MODULE = "node:internal/failed-import:";

/** Default cap on a program's output. */
const DEFAULT_MAX_OUTPUT_CHARS = 64 * 1024 * 1024;

/** Wasm memory above which an engine is not reused. */
const RECYCLE_HEAP_BYTES = 64 * 1024 * 1024;

/** Stack the QuickJS interpreter may use: beyond ~256 KB the host's own stack overflows first. */
const MAX_STACK_BYTES = 256 * 1024;
/** How often a busy event loop yields to the host so aborts and other work get through. */
const YIELD_EVERY_MS = 50;

interface GuestApi {
  runMain: QuickJSHandle;
  tick: QuickJSHandle;
  beforeExit: QuickJSHandle;
  emitExit: QuickJSHandle;
  uncaught: QuickJSHandle;
  exportNames: QuickJSHandle;
  checkRejections: QuickJSHandle;
  runTicks: QuickJSHandle;
  pushStdin: QuickJSHandle;
}

/**
 * Runs one program inside a fresh QuickJS runtime: Node's globals and builtins come from the guest
 * sources, files from the synchronous mirror, and the event loop is driven from here. The
 * interrupt handler stops the program at the deadline, on abort, or right after `process.exit()`.
 */
export async function runInVm(options: VmOptions): Promise<VmResult> {
  const quickjs = await loadQuickJS();
  const vm = new NodeVm(quickjs, options);
  try {
    return await vm.run();
  } finally {
    vm.dispose();
  }
}

class NodeVm {
  private readonly runtime: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  private readonly output: OutputChunk[] = [];
  private exitCode = 0;
  private exiting = false;
  private interruptForExit = false;
  private stopped: VmResult["stopped"];
  private tests: TestCounts | undefined;
  private guest: GuestApi | null = null;
  private broken = false;
  private pendingTap = "";
  private outputChars = 0;
  private flushingTap = false;
  private readonly owned: QuickJSHandle[] = [];
  private readonly missing = new Set<string>();
  private readonly releaseMemory: () => void;
  /** The program listens to a live stdin (a 'data' listener, resume()): it waits for input. */
  private stdinWanted = false;
  private stdinEnded = false;

  constructor(
    private readonly quickjs: QuickJSWASMModule,
    private readonly options: VmOptions,
  ) {
    // The heap may hold what earlier engines left (at most RECYCLE_HEAP_BYTES) plus this program's cap.
    this.releaseMemory = capWasmMemory(
      quickjs,
      quickjs.getWasmMemory().buffer.byteLength + options.memoryLimitBytes,
    );
    this.runtime = quickjs.newRuntime();
    this.runtime.setMemoryLimit(options.memoryLimitBytes);
    this.runtime.setMaxStackSize(MAX_STACK_BYTES);
    this.runtime.setInterruptHandler(() => this.shouldInterrupt());
    this.runtime.setModuleLoader(
      (name) => this.loadModule(name),
      (base, requested) => this.normalizeModule(base, requested),
    );
    this.ctx = this.runtime.newContext();
  }

  private shouldInterrupt(): boolean {
    if (this.interruptForExit) return true;
    if (this.options.signal?.aborted) {
      this.stopped ??= this.signalStop();
      return true;
    }
    if (Date.now() >= this.options.deadline) {
      this.stopped ??= "deadline";
      return true;
    }
    return false;
  }

  /** A stop from outside: the shell's deadline (or a session's stall) is a deadline, anything else an interrupt. */
  private signalStop(): "deadline" | "aborted" {
    return stopReason(this.options.signal) === "deadline" ? "deadline" : "aborted";
  }

  async run(): Promise<VmResult> {
    try {
      this.boot();
      await this.loop();
    } catch (error) {
      this.fatal(error);
    }
    if (this.missing.size > 0) return { exitCode: 0, output: [], missing: [...this.missing] };
    const result: VmResult = { exitCode: this.exitCode, output: this.output };
    if (this.stopped) {
      result.stopped = this.stopped;
      // Interrupted: SIGINT's 128 + 2, as a shell reports the real node stopped by Ctrl-C.
      result.exitCode =
        this.stopped === "memory" || this.stopped === "stack"
          ? 134
          : this.stopped === "output"
            ? 1
            : this.stopped === "aborted"
              ? 130
              : 124;
    }
    if (this.tests) result.tests = this.tests;
    return result;
  }

  /** A host-side failure: the wasm trapped (host stack overflow) or the runtime is unusable. */
  private fatal(error: unknown): void {
    this.broken = true;
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (/Maximum call stack size exceeded/u.test(message)) {
      this.stopped ??= "stack";
      this.write("stderr", "RangeError: Maximum call stack size exceeded (embedded node)\n");
    } else if (!this.stopped) {
      this.stopped = "memory";
      this.write("stderr", `node: the JavaScript engine failed: ${message}\n`);
    }
  }

  private write(stream: OutputChunk["stream"], text: string): void {
    if (text === "") return;
    if (stream === "tap" && !this.flushingTap) {
      // Node's reporter is an async stream: a macrotask's console output comes before its TAP.
      this.pendingTap += text;
      return;
    }
    if (this.options.onOutput && stream !== "tap") {
      // Printed at once: nothing is held, so there is nothing to cap.
      this.options.onOutput(stream, text);
      return;
    }
    this.outputChars += text.length;
    if (this.outputChars > (this.options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS)) {
      // A runaway printer would otherwise fill the host's memory before its deadline.
      this.stopped ??= "output";
      this.interruptForExit = true;
      return;
    }
    const last = this.output[this.output.length - 1];
    if (last && last.stream === stream) last.text += text;
    else this.output.push({ stream, text });
  }

  private boot(): void {
    const ctx = this.ctx;
    const host = ctx.newFunction("host", (...args) => this.hostCall(args));
    const boot = this.expect(ctx.evalCode(GUEST_BOOTSTRAP, "node:internal/bootstrap", { type: "global" }));
    const info = ctx.newString(
      JSON.stringify({
        cwd: this.options.cwd,
        env: this.options.env,
        argv: this.options.argv,
        execArgv: this.options.execArgv,
        main: this.options.main,
        version: EMBEDDED_NODE_VERSION,
        memoryLimitBytes: this.options.memoryLimitBytes,
      }),
    );
    const api = this.expect(ctx.callFunction(boot, ctx.undefined, host, info));
    boot.dispose();
    host.dispose();
    info.dispose();
    const get = (name: string) => {
      const handle = ctx.getProp(api, name);
      this.owned.push(handle);
      return handle;
    };
    this.guest = {
      runMain: get("runMain"),
      tick: get("tick"),
      beforeExit: get("beforeExit"),
      emitExit: get("emitExit"),
      uncaught: get("uncaught"),
      exportNames: get("exportNames"),
      checkRejections: get("checkRejections"),
      runTicks: get("runTicks"),
      pushStdin: get("pushStdin"),
    };
    api.dispose();
  }

  /** Unwraps a result; a guest error here is a bug in the bootstrap, so it is raised on the host. */
  private expect(result: ReturnType<QuickJSContext["evalCode"]>): QuickJSHandle {
    if (result.error) {
      const dumped = this.ctx.dump(result.error);
      result.error.dispose();
      throw new Error(`embedded node bootstrap failed: ${JSON.stringify(dumped)}`);
    }
    return result.value;
  }

  /** Calls a guest entry point; returns its value as a host value (numbers and strings only). */
  private call(fn: QuickJSHandle, ...args: Array<string | number>): unknown {
    const handles = args.map((arg) =>
      typeof arg === "number" ? this.ctx.newNumber(arg) : this.ctx.newString(arg),
    );
    const result = this.ctx.callFunction(fn, this.ctx.undefined, ...handles);
    for (const handle of handles) handle.dispose();
    if (result.error) {
      this.guestThrew(result.error);
      return undefined;
    }
    const value = this.ctx.dump(result.value);
    result.value.dispose();
    return value;
  }

  /** An error escaped a guest entry point: an uncatchable interrupt, or out of memory while reporting. */
  private guestThrew(error: QuickJSHandle): void {
    const dumped = this.ctx.dump(error) as { name?: string; message?: string } | undefined;
    error.dispose();
    if (this.exiting || this.stopped) return;
    if (dumped?.message === "out of memory") {
      this.stopped = "memory";
      return;
    }
    this.write("stderr", `${dumped?.name ?? "Error"}: ${dumped?.message ?? String(dumped)}\n`);
    this.requestExit(1);
  }

  private requestExit(code: number): void {
    // TAP not yet flushed is lost on exit, as with Node's asynchronous reporter stream.
    this.pendingTap = "";
    this.exitCode = code;
    this.exiting = true;
    this.interruptForExit = true;
  }

  /** Node's checkpoint after a macrotask: nextTick callbacks, then microtasks, until both are empty. */
  private drainJobs(): void {
    for (;;) {
      const ticks = Number(this.call(this.guest!.runTicks));
      if (this.halted) break;
      const result = this.runtime.executePendingJobs(-1);
      if (result.error) {
        this.guestThrew(result.error);
        break;
      }
      if (this.halted) break;
      if (ticks > 0 || this.runtime.hasPendingJob()) continue;
      // Rejections still unhandled once the queues are empty are reported, as Node does.
      this.call(this.guest!.checkRejections);
      if (this.halted || !this.runtime.hasPendingJob()) break;
    }
    this.flushTap();
  }

  private flushTap(): void {
    if (this.pendingTap === "") return;
    const text = this.pendingTap;
    this.pendingTap = "";
    this.flushingTap = true;
    this.write("tap", text);
    this.flushingTap = false;
  }

  private get halted(): boolean {
    return this.exiting || this.stopped !== undefined || this.broken;
  }

  private async loop(): Promise<void> {
    const guest = this.guest!;
    this.call(guest.runMain);
    let lastYield = Date.now();
    while (!this.halted) {
      this.drainJobs();
      if (this.halted) break;
      const next = Number(this.call(guest.tick));
      if (this.halted) break;
      if (next === 0) {
        if (Date.now() - lastYield > YIELD_EVERY_MS) {
          await this.pause(0);
          lastYield = Date.now();
        }
        continue;
      }
      if (next < 0 && this.listening) {
        // Idle but listening to the terminal: stay alive until input comes.
        await this.awaitInput(Math.max(0, this.options.deadline - Date.now()));
        continue;
      }
      if (next < 0) {
        // Idle: 'beforeExit' listeners (and the test runner) may schedule more work.
        const more = Number(this.call(guest.beforeExit));
        if (more > 0 || this.runtime.hasPendingJob()) continue;
        break;
      }
      const wait = Math.min(next, Math.max(0, this.options.deadline - Date.now()));
      if (this.listening) await this.awaitInput(wait);
      else await this.pause(wait);
      lastYield = Date.now();
      if (this.options.signal?.aborted) this.stopped ??= this.signalStop();
      else if (Date.now() >= this.options.deadline) this.stopped ??= "deadline";
    }
    this.flushTap();
    if (this.stopped || this.broken) return;
    // 'exit' listeners run even after process.exit(); only they may run now.
    if (this.missing.size > 0) return;
    const explicit = this.exiting ? this.exitCode : -1;
    this.interruptForExit = false;
    this.exiting = false;
    const code = Number(this.call(guest.emitExit, explicit));
    if (!Number.isNaN(code)) this.exitCode = code;
  }

  private get listening(): boolean {
    return this.options.liveStdin !== undefined && this.stdinWanted && !this.stdinEnded;
  }

  /**
   * Waits up to `ms` (a timer's due time, or the deadline) for what is typed, and hands it to the
   * program's stdin; end of input ends the stream. A chunk that comes after the wait ends stays queued.
   */
  private async awaitInput(ms: number): Promise<void> {
    const waiting = new AbortController();
    const stop = () => waiting.abort();
    const timer = Number.isFinite(ms) ? setTimeout(stop, ms) : undefined;
    this.options.signal?.addEventListener("abort", stop, { once: true });
    let chunk: string | null | undefined;
    try {
      if (this.options.signal?.aborted) return;
      chunk = await this.options.liveStdin!.next(waiting.signal);
    } finally {
      clearTimeout(timer);
      this.options.signal?.removeEventListener("abort", stop);
    }
    if (this.options.signal?.aborted) this.stopped ??= this.signalStop();
    else if (Date.now() >= this.options.deadline) this.stopped ??= "deadline";
    if (chunk === undefined || this.halted) return;
    if (chunk === null) this.stdinEnded = true;
    const handle = chunk === null ? this.ctx.null : this.ctx.newString(chunk);
    const result = this.ctx.callFunction(this.guest!.pushStdin, this.ctx.undefined, handle);
    if (chunk !== null) handle.dispose();
    if (result.error) this.guestThrew(result.error);
    else result.value.dispose();
  }

  /** Waits `ms` (the next timer) or until the run is stopped: Ctrl-C must not wait for a far timer. */
  private async pause(ms: number): Promise<void> {
    const signal = this.options.signal;
    if (signal?.aborted) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wake = () => {};
    const stopped = new Promise<void>((resolve) => {
      wake = resolve;
      signal?.addEventListener("abort", wake, { once: true });
    });
    const slept = this.options.sleep
      ? this.options.sleep(ms)
      : new Promise<void>((resolve) => {
          timer = setTimeout(resolve, ms);
        });
    try {
      await Promise.race([slept, stopped]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", wake);
    }
  }

  dispose(): void {
    this.releaseMemory();
    for (const handle of this.owned) if (handle.alive) handle.dispose();
    // Wasm memory never shrinks: an engine a big program grew is dropped rather than kept at that size.
    const heap = (this.quickjs as unknown as { module?: { HEAPU8?: Uint8Array } }).module?.HEAPU8;
    if (
      this.broken ||
      this.stopped === "memory" ||
      this.stopped === "stack" ||
      (heap?.byteLength ?? 0) > RECYCLE_HEAP_BYTES
    ) {
      // A trapped or exhausted engine is not reused: its memory goes with it.
      discardQuickJS(this.quickjs);
      return;
    }
    try {
      this.ctx.dispose();
      this.runtime.dispose();
    } catch {
      discardQuickJS(this.quickjs);
    }
  }

  // ---- host calls from the guest ------------------------------------------------------------

  private hostCall(args: QuickJSHandle[]): QuickJSHandle | { error: QuickJSHandle } {
    const ctx = this.ctx;
    const op = ctx.getString(args[0]!);
    const str = (index: number) => ctx.getString(args[index]!);
    const num = (index: number) => ctx.getNumber(args[index]!);
    try {
      switch (op) {
        case "write": {
          if (this.exiting || this.stopped) return ctx.undefined;
          const fd = num(1);
          this.write(fd === 2 ? "stderr" : fd === 3 ? "tap" : "stdout", str(2));
          return ctx.undefined;
        }
        case "now":
          return ctx.newNumber(performance.now());
        case "stdin":
          if (this.options.liveStdin) {
            throw new Error(
              "EAGAIN: the embedded node cannot read the terminal synchronously; read it with process.stdin events or readline",
            );
          }
          return ctx.newString(this.options.stdin);
        case "stdinLive":
          return this.options.liveStdin ? ctx.true : ctx.false;
        case "stdinWant":
          this.stdinWanted = num(1) === 1;
          return ctx.undefined;
        case "exit":
          this.requestExit(num(1));
          return ctx.undefined;
        case "testsDone":
          this.tests = JSON.parse(str(1)) as TestCounts;
          return ctx.undefined;
        case "compile": {
          const result = ctx.evalCode(str(1), str(2), { type: "global" });
          return result.error ? { error: result.error } : result.value;
        }
        case "builtin": {
          const source = BUILTIN_SOURCES[str(1)];
          return source === undefined ? ctx.undefined : ctx.newString(source);
        }
        case "resolve":
          return this.resolve(str(1), str(2));
        case "promiseState":
          return this.promiseState(args[1]!);
        case "fs":
          return this.fsCall(args.slice(1));
        case "random": {
          // The host's CSPRNG, in pieces: getRandomValues takes at most 64 KiB at a time.
          const bytes = new Uint8Array(num(1));
          for (let i = 0; i < bytes.length; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
          return ctx.newString(toHex(bytes));
        }
        case "hashKnown":
          return isDigest(str(1)) ? ctx.true : ctx.false;
        case "hashNames":
          return ctx.newString(JSON.stringify(DIGEST_NAMES));
        case "hash": {
          const key = num(4) === 1 ? fromHex(str(3)) : undefined;
          return ctx.newString(toHex(digest(str(1), fromHex(str(2)), key)));
        }
        default:
          return { error: ctx.newError(`unknown host call ${op}`) };
      }
    } catch (error) {
      if (error instanceof ContentMissing) {
        // Stop at once: the run is repeated with the file loaded.
        this.missing.add(error.path);
        this.interruptForExit = true;
        this.exiting = true;
      }
      return { error: this.toGuestError(error) };
    }
  }

  private resolve(request: string, fromDir: string): QuickJSHandle {
    const found = resolveRequire(this.options.fs, request, fromDir);
    return this.ctx.newString(JSON.stringify(found));
  }

  private promiseState(handle: QuickJSHandle): QuickJSHandle {
    const state = this.ctx.getPromiseState(handle);
    const array = this.ctx.newArray();
    this.ctx.setProp(array, 0, this.ctx.newString(state.type));
    if (state.type === "fulfilled" && !state.notAPromise) this.ctx.setProp(array, 1, state.value);
    if (state.type === "rejected") this.ctx.setProp(array, 1, state.error);
    if (state.type === "fulfilled") state.value.dispose();
    if (state.type === "rejected") state.error.dispose();
    return array;
  }

  private toGuestError(error: unknown): QuickJSHandle {
    const ctx = this.ctx;
    const handle = ctx.newError({
      name: "Error",
      message: error instanceof Error ? error.message : String(error),
    });
    if (error instanceof FsError) {
      for (const [key, value] of Object.entries({
        errno: error.errno,
        code: error.code,
        syscall: error.syscall,
        path: error.path,
        ...(error.dest !== undefined ? { dest: error.dest } : {}),
      })) {
        const prop = typeof value === "number" ? ctx.newNumber(value) : ctx.newString(value);
        ctx.setProp(handle, key, prop);
        prop.dispose();
      }
    } else if (error instanceof ResolveError) {
      const code = ctx.newString(error.code);
      ctx.setProp(handle, "code", code);
      code.dispose();
    }
    return handle;
  }

  private fsCall(args: QuickJSHandle[]): QuickJSHandle {
    const ctx = this.ctx;
    const fs = this.options.fs;
    const op = ctx.getString(args[0]!);
    const str = (index: number) => ctx.getString(args[index]!);
    const flag = (index: number) => args[index] !== undefined && Boolean(ctx.dump(args[index]!));
    const bytes = (index: number): Uint8Array => {
      const handle = args[index]!;
      if (ctx.typeof(handle) === "string") return new TextEncoder().encode(ctx.getString(handle));
      const view = ctx.getArrayBuffer(handle);
      const copy = view.value.slice();
      view.dispose();
      return copy;
    };
    const json = (value: unknown) => ctx.newString(JSON.stringify(value));
    switch (op) {
      case "read": {
        const data = fs.readFile(str(1));
        return ctx.newArrayBuffer(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
      }
      case "write":
        fs.writeFile(str(1), bytes(2), flag(3));
        return ctx.undefined;
      case "stat":
      case "lstat": {
        const entry = fs.stat(str(1), op === "stat");
        return json({ kind: entry.kind, mode: entry.mode, mtimeMs: entry.mtimeMs, size: entry.size });
      }
      case "exists":
        return fs.exists(str(1)) ? ctx.true : ctx.false;
      case "readdir":
        return json(fs.readdir(str(1)));
      case "mkdir": {
        const first = fs.mkdir(str(1), flag(2));
        return first === undefined ? ctx.undefined : ctx.newString(first);
      }
      case "rm":
        fs.rm(str(1), { recursive: flag(2), force: flag(3) });
        return ctx.undefined;
      case "rmdir":
        fs.rmdir(str(1), flag(2));
        return ctx.undefined;
      case "unlink":
        fs.unlink(str(1));
        return ctx.undefined;
      case "rename":
        fs.rename(str(1), str(2));
        return ctx.undefined;
      case "copy":
        fs.copyFile(str(1), str(2));
        return ctx.undefined;
      case "symlink":
        fs.symlink(str(1), str(2));
        return ctx.undefined;
      case "readlink":
        return ctx.newString(fs.readlink(str(1)));
      case "realpath":
        return ctx.newString(fs.realpath(str(1)));
      case "chmod":
        fs.chmod(str(1), ctx.getNumber(args[2]!));
        return ctx.undefined;
      case "utimes":
        fs.utimes(str(1), ctx.getNumber(args[2]!));
        return ctx.undefined;
      default:
        throw new Error(`unknown fs call ${op}`);
    }
  }

  // ---- ES modules -----------------------------------------------------------------------------

  private normalizeModule(base: string, requested: string): string {
    try {
      const from = base.startsWith("/") ? base : `${this.options.cwd}/[eval]`;
      return resolveImport(this.options.fs, requested, from).path;
    } catch (error) {
      // A failed resolution becomes a module that throws Node's error when it is evaluated:
      // an error returned from here would reach the program without its message.
      const code = error instanceof ResolveError ? error.code : "ERR_MODULE_NOT_FOUND";
      const message = error instanceof Error ? error.message : String(error);
      return `${FAILED_MODULE}${JSON.stringify({ code, message })}`;
    }
  }

  private loadModule(name: string): string | { error: Error } {
    if (name.startsWith(FAILED_MODULE)) {
      const { code, message } = JSON.parse(name.slice(FAILED_MODULE.length)) as {
        code: string;
        message: string;
      };
      return `const error = new Error(${JSON.stringify(message)});\nerror.code = ${JSON.stringify(code)};\nthrow error;\n`;
    }
    try {
      const builtin = builtinName(name);
      if (builtin) return this.facade(`node:${builtin}`);
      const resolved = resolveImport(this.options.fs, name, "/");
      if (resolved.format === "module") {
        const source = new TextDecoder().decode(this.options.fs.readFile(resolved.path));
        return rewriteImportMeta(source, resolved.path);
      }
      return this.facade(resolved.path);
    } catch (error) {
      return { error: error instanceof Error ? error : new Error(String(error)) };
    }
  }

  /** An ES module standing for a CommonJS module, JSON file or builtin: default plus named exports. */
  private facade(path: string): string {
    const names = this.call(this.guest!.exportNames, path);
    if (typeof names !== "string") throw new Error(`Cannot load ${path}`);
    const keys = (JSON.parse(names) as string[]).filter(
      (key) => /^[A-Za-z_$][\w$]*$/u.test(key) && key !== "default",
    );
    const access = `globalThis[Symbol.for("node.loadForImport")](${JSON.stringify(path)})`;
    let source = `const m = ${access};\nexport default m;\n`;
    if (keys.length > 0) source += `export const { ${keys.join(", ")} } = m;\n`;
    return source;
  }
}

/** `import.meta` gets `url`, `filename`, `dirname` and `resolve` (QuickJS leaves it empty). */
export function rewriteImportMeta(source: string, path: string): string {
  if (!source.includes("import.meta")) return source;
  const helper = `globalThis[Symbol.for("node.importMeta")](import.meta, ${JSON.stringify(path)})`;
  return source.replace(/(?<![\w$.])import\.meta(?![\w$])/gu, `(${helper})`);
}
