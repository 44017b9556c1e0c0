/**
 * The messages between the embedded `python3` command (in the runtime's thread) and the Python
 * worker that runs CPython (a worker_thread in Node, a Web Worker in the browser). Everything here
 * is structured-cloneable.
 */
import type { SignalClockCandidate } from "./signal-clock.ts";

/** One path of the sandbox's filesystem, as copied into the interpreter before a run. */
export type TreeEntry =
  | { path: string; kind: "directory"; mode: number; mtimeMs: number }
  | { path: string; kind: "file"; mode: number; mtimeMs: number; data: Uint8Array }
  | { path: string; kind: "symlink"; target: string };

/** What a run changed, applied to the sandbox's filesystem in order (deletions first). */
export type TreeChange = TreeEntry | { path: string; kind: "deleted" };

/** One file of an installed Python package, relative to site-packages ("pytest/__init__.py"). */
export interface PackageFile {
  path: string;
  data: Uint8Array;
}

/** The interpreter's own files: what the worker needs to make a CPython instance. */
export interface PythonAssets {
  /** The Emscripten loader (python.cjs) as source text; a Node worker may `require` it by path instead. */
  loaderSource?: string;
  loaderPath?: string;
  wasm: WebAssembly.Module;
  /** The standard library as a zip of .pyc files (python313.zip). */
  stdlib: Uint8Array;
  /** Where the interpreter's signal clock may be (signal-clock.ts), read from the wasm's bytes. */
  signalClocks?: SignalClockCandidate[];
}

export interface InitMessage {
  type: "init";
  assets: PythonAssets;
  /** Int32Array over a SharedArrayBuffer: a non-zero signal number in [0] interrupts the running program. */
  interrupt: SharedArrayBuffer | null;
}

export interface PackagesMessage {
  type: "packages";
  /** Replaces the site-packages every later run sees. */
  files: PackageFile[];
}

export interface RunRequest {
  type: "run";
  id: number;
  /** Arguments after the program name, as `python3` received them. */
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: Uint8Array;
  /**
   * A session's terminal instead of `stdin`: the worker asks for what is typed (a StdinWanted message)
   * and waits on this memory (live-stdin.ts). null: a terminal, but no shared memory to wait on.
   */
  liveStdin?: SharedArrayBuffer | null;
  tree: TreeEntry[];
  /** Folders added with site.addsitedir at startup (.pth files in them apply): the workspace's venv. */
  sitePaths: string[];
  /** Epoch milliseconds past which the program gets a KeyboardInterrupt (the shell's deadline). */
  deadline: number;
  memoryLimitBytes: number;
  /** Output (stdout and stderr together) past which a write fails (EFBIG) and is not sent. */
  maxOutputBytes?: number;
}

export type ToWorker = InitMessage | PackagesMessage | RunRequest;

export interface OutputMessage {
  type: "output";
  id: number;
  fd: 1 | 2;
  data: Uint8Array;
}

export interface DoneMessage {
  type: "done";
  id: number;
  exitCode: number;
  changes: TreeChange[];
  /** Why the program stopped early, when it did. */
  stopped?: "deadline" | "interrupt";
  /** The heap cap was hit at least once (a MemoryError was raised). */
  memoryExhausted?: boolean;
  /** A write past the request's maxOutputBytes was refused. */
  outputLimited?: boolean;
  /** The interpreter itself failed (not the program): the message says how. */
  crash?: string;
}

/** A read of the live stdin found nothing buffered: the host hands over what is typed next. */
export interface StdinWantedMessage {
  type: "stdin";
  id: number;
}

export interface ReadyMessage {
  type: "ready";
}

export type FromWorker =
  | OutputMessage
  | StdinWantedMessage
  | DoneMessage
  | ReadyMessage
  | { type: "error"; message: string };
