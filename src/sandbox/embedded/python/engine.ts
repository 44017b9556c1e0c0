import { EIO, errno, LiveStdinReader } from "./live-stdin.ts";
import type {
  DoneMessage,
  PackageFile,
  PythonAssets,
  RunRequest,
  TreeChange,
  TreeEntry,
} from "./protocol.ts";
import type { SignalClockCandidate } from "./signal-clock.ts";

/**
 * Runs one Python program on a fresh CPython instance (WebAssembly, Emscripten), inside the Python
 * worker. Each run is a new process: its own heap, modules and filesystem. The sandbox's files are
 * copied in before `main` and what the program changed is handed back after it exits.
 *
 * Layout inside the instance, as on a Linux install: the standard library is /usr/lib/python313.zip,
 * installed packages are /usr/lib/python3.13/site-packages (read-only), compiled bytecode goes to a
 * prefix under /usr/lib/python3.13 (never into the workspace), and every other path is the sandbox's.
 */

export const PYTHON_HOME = "/usr";
export const STDLIB_ZIP = "/usr/lib/python313.zip";
export const LIB_DIR = "/usr/lib/python3.13";
export const SITE_PACKAGES = `${LIB_DIR}/site-packages`;
const PYCACHE_PREFIX = `${LIB_DIR}/pycache`;
/** Bytecode of installed packages, kept between runs (packages do not change under a worker). */
const PACKAGE_PYCACHE = `${PYCACHE_PREFIX}${SITE_PACKAGES}`;
/** Paths that belong to the interpreter, not to the sandbox: never copied back. */
const RESERVED = [LIB_DIR, STDLIB_ZIP, "/dev", "/proc"];
const SIGINT = 2;
/** The modification time of every installed package file (2024-01-01). */
const PACKAGE_MTIME = Date.UTC(2024, 0, 1);
const PAGE = 65536;

export function isReserved(path: string): boolean {
  return RESERVED.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** The slice of Emscripten's FS this engine uses. */
interface EmFs {
  mkdirTree(path: string, mode?: number): void;
  mkdir(path: string, mode?: number): void;
  writeFile(path: string, data: Uint8Array, options?: { canOwn?: boolean }): void;
  symlink(target: string, path: string): void;
  chmod(path: string, mode: number): void;
  utime(path: string, atime: number, mtime: number): void;
  chdir(path: string): void;
  lookupPath(path: string, options?: { follow?: boolean }): { node: EmNode };
  readdir(path: string): string[];
  readlink(path: string): string;
  lstat(path: string): { mode: number };
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
  isLink(mode: number): boolean;
  makedev(major: number, minor: number): number;
  registerDevice(dev: number, ops: DeviceOps): void;
  mkdev(path: string, mode: number, dev: number): void;
  open(path: string, flags: number | string): unknown;
  close(stream: unknown): void;
  getStream(fd: number): unknown;
}

interface EmNode {
  mode: number;
  contents?: Uint8Array | Record<string, EmNode>;
  usedBytes?: number;
  link?: string;
}

interface DeviceOps {
  read?(stream: unknown, buffer: Uint8Array, offset: number, length: number, position: number): number;
  write?(stream: unknown, buffer: Uint8Array, offset: number, length: number, position: number): number;
}

interface EmModule {
  FS: EmFs;
  ENV: Record<string, string | undefined>;
  callMain(args: string[]): number;
  Py_EmscriptenSignalBuffer?: ArrayLike<number>;
  _Py_EMSCRIPTEN_SIGNAL_HANDLING: number;
}

type CreateModule = (options: Record<string, unknown>) => Promise<EmModule>;

export interface RunHooks {
  /** Program output as it is written. */
  output(fd: 1 | 2, data: Uint8Array): void;
  /** A read of a live stdin found nothing buffered: asks the host for what is typed next. */
  requestInput?(): void;
}

export class PythonEngine {
  private readonly createModule: CreateModule;
  private readonly assets: PythonAssets;
  private readonly interrupt: Int32Array | null;
  private packages: PackageFile[] = [];
  /** Bytecode compiled for installed packages by earlier runs: path → .pyc bytes. */
  private packageBytecode = new Map<string, Uint8Array>();

  constructor(createModule: CreateModule, assets: PythonAssets, interrupt: SharedArrayBuffer | null) {
    this.createModule = createModule;
    this.assets = assets;
    this.interrupt = interrupt ? new Int32Array(interrupt) : null;
  }

  setPackages(files: PackageFile[]): void {
    this.packages = files;
    this.packageBytecode = new Map();
  }

  async run(request: RunRequest, hooks: RunHooks): Promise<Omit<DoneMessage, "type" | "id">> {
    if (this.interrupt) Atomics.store(this.interrupt, 0, 0);
    const interrupt = this.interrupt;
    let deadlineFired = false;
    // A stop request not yet taken by CPython, or the deadline not yet raised as KeyboardInterrupt.
    const stopPending = () =>
      (interrupt !== null && Atomics.load(interrupt, 0) !== 0) ||
      (!deadlineFired && Date.now() >= request.deadline);
    let memory: WebAssembly.Memory | undefined;
    /** Where CPython counts down to its next look at the interrupt buffer, once known to be right. */
    let signalClock: number | undefined;
    let memoryExhausted = false;
    let module: EmModule;
    try {
      module = await this.createModule({
        noInitialRun: true,
        thisProgram: "/usr/bin/python3",
        // Program output goes through the devices below; these only catch the runtime's own notes.
        print: (text: string) => hooks.output(1, encode(`${text}\n`)),
        printErr: (text: string) => hooks.output(2, encode(`${text}\n`)),
        instantiateWasm: (
          imports: WebAssembly.Imports,
          receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
        ) => {
          const env = imports.env as Record<string, unknown>;
          // A stop ending a sleep is seen at CPython's very next signal check (signal-clock.ts).
          const seeStopSoon = () => {
            if (signalClock !== undefined && memory) new Int32Array(memory.buffer)[signalClock >> 2] = 0;
          };
          const clock = env.emscripten_get_now as () => number;
          env.emscripten_get_now = sleepClock(clock, stopPending, interrupt, seeStopSoon);
          const instance = new WebAssembly.Instance(this.assets.wasm, imports);
          memory = instance.exports.memory as WebAssembly.Memory;
          capMemory(memory, request.memoryLimitBytes, () => {
            memoryExhausted = true;
          });
          receive(instance, this.assets.wasm);
          return instance.exports;
        },
        preRun: [
          (mod: EmModule) => {
            for (const key of ["USER", "LOGNAME", "PATH", "PWD", "HOME", "LANG", "_"])
              mod.ENV[key] = undefined;
            Object.assign(mod.ENV, request.env, {
              PYTHONHOME: PYTHON_HOME,
              PYTHONPYCACHEPREFIX: PYCACHE_PREFIX,
              // Output is a pipe here, as when a tool runs python3: no colours, whatever TERM says.
              PYTHON_COLORS: "0",
            });
          },
        ],
      });
    } catch (error) {
      return { exitCode: 1, changes: [], crash: `CPython could not start: ${(error as Error).message}` };
    }
    const fs = module.FS;
    this.installInterpreterFiles(fs);
    if (request.sitePaths.length > 0) {
      const lines = request.sitePaths.map((path) => `import site; site.addsitedir(${JSON.stringify(path)})`);
      fs.writeFile(`${SITE_PACKAGES}/_toolroom_workspace_venv.pth`, encode(`${lines.join("\n")}\n`));
    }
    const baseline = new Map<string, TreeEntry>();
    populate(fs, request.tree, baseline);
    recordDefaults(fs, baseline);
    let stopped: DoneMessage["stopped"];
    const stdin = stdinReader(request, hooks, { stopPending, deadline: request.deadline });
    const stdio = connectStdio(fs, hooks, stdin, request.maxOutputBytes ?? Number.POSITIVE_INFINITY);
    try {
      fs.chdir(request.cwd);
    } catch {
      hooks.output(2, encode(`python3: can't change to ${request.cwd}: No such file or directory\n`));
      return { exitCode: 2, changes: [] };
    }

    // CPython reads [0] every few dozen bytecodes and writes 0 back; a getter lets the deadline
    // and the host's SharedArrayBuffer both raise KeyboardInterrupt without another thread.
    module.Py_EmscriptenSignalBuffer = {
      length: 1,
      get 0() {
        if (interrupt && Atomics.load(interrupt, 0) !== 0) {
          stopped ??= "interrupt";
          return Atomics.exchange(interrupt, 0, 0);
        }
        if (!deadlineFired && Date.now() >= request.deadline) {
          deadlineFired = true;
          stopped ??= "deadline";
          return SIGINT;
        }
        return 0;
      },
      set 0(_value: number) {},
    } as unknown as ArrayLike<number>;
    if (memory) {
      new Uint8Array(memory.buffer)[module._Py_EMSCRIPTEN_SIGNAL_HANDLING] = 1;
      signalClock = signalClockOf(memory, module._Py_EMSCRIPTEN_SIGNAL_HANDLING, this.assets.signalClocks);
    }

    let exitCode: number;
    let crash: string | undefined;
    try {
      exitCode = module.callMain([...request.args]);
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (typeof status === "number") exitCode = status;
      else {
        exitCode = 1;
        crash = `the interpreter stopped: ${(error as Error).message ?? String(error)}`;
      }
    }
    this.keepPackageBytecode(fs);
    const changes = diffTree(fs, baseline);
    return {
      exitCode,
      changes,
      ...(stopped ? { stopped } : {}),
      ...(memoryExhausted ? { memoryExhausted } : {}),
      ...(stdio.outputLimited() ? { outputLimited: true } : {}),
      ...(crash ? { crash } : {}),
    };
  }

  private installInterpreterFiles(fs: EmFs): void {
    fs.mkdirTree(`${PYTHON_HOME}/lib`);
    // Shared, not copied: zipimport only reads it.
    fs.writeFile(STDLIB_ZIP, this.assets.stdlib, { canOwn: true });
    fs.mkdirTree(`${LIB_DIR}/lib-dynload`);
    fs.mkdirTree(SITE_PACKAGES);
    const folders = new Set<string>();
    for (const file of this.packages) {
      const path = `${SITE_PACKAGES}/${file.path}`;
      const parent = path.slice(0, path.lastIndexOf("/"));
      if (!folders.has(parent)) {
        fs.mkdirTree(parent);
        folders.add(parent);
      }
      fs.writeFile(path, file.data, { canOwn: true });
      // Read-only: the same bytes serve every run, so no program may change them in place.
      fs.chmod(path, 0o444);
      // A fixed time, so the bytecode compiled by an earlier run (checked against it) stays valid.
      fs.utime(path, PACKAGE_MTIME, PACKAGE_MTIME);
    }
    for (const [path, data] of this.packageBytecode) {
      fs.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      fs.writeFile(path, data, { canOwn: true });
    }
  }

  /** Saves the bytecode compiled for installed packages, so the next run imports them faster. */
  private keepPackageBytecode(fs: EmFs): void {
    const walk = (folder: string) => {
      let names: string[];
      try {
        names = fs.readdir(folder);
      } catch {
        return;
      }
      for (const name of names) {
        if (name === "." || name === "..") continue;
        const path = `${folder}/${name}`;
        const node = fs.lookupPath(path, { follow: false }).node;
        if (fs.isDir(node.mode)) walk(path);
        else if (fs.isFile(node.mode) && name.endsWith(".pyc") && !this.packageBytecode.has(path)) {
          this.packageBytecode.set(path, fileBytes(node).slice());
        }
      }
    };
    walk(PACKAGE_PYCACHE);
  }
}

/** How long a sleeping program waits between looks at the clock (and at a stop request). */
const SLEEP_SLICE_MS = 1;
/** Calls to the clock closer together than this are a sleep spinning on it. */
const SPIN_GAP_MS = 0.05;
/** How far the clock jumps on each look while a stop is pending: past any sleep's end. */
const STOP_JUMP_MS = 1e12;

/**
 * Emscripten's sleep (time.sleep, without threads) spins on emscripten_get_now until the time has
 * passed, and nothing else here reads that clock. Spinning, it waits on the interrupt cell a slice
 * at a time instead (no core held busy, woken at once by Ctrl-C); once a stop is pending the clock
 * jumps ahead, so the sleep ends and CPython's next signal check raises KeyboardInterrupt.
 */
function sleepClock(
  clock: () => number,
  stopPending: () => boolean,
  interrupt: Int32Array | null,
  stopSeenSoon: () => void,
): () => number {
  let jumped = 0;
  let last = Number.NEGATIVE_INFINITY;
  const jump = () => {
    jumped += STOP_JUMP_MS;
    stopSeenSoon();
  };
  return () => {
    if (stopPending()) {
      jump();
      return clock() + jumped;
    }
    let now = clock();
    if (interrupt && now - last < SPIN_GAP_MS) {
      Atomics.wait(interrupt, 0, 0, SLEEP_SLICE_MS);
      if (stopPending()) jump();
      now = clock();
    }
    last = now;
    return now + jumped;
  };
}

/** The signal clock's address (signal-clock.ts): the candidate that tests the exported flag and holds a fresh count. */
function signalClockOf(
  memory: WebAssembly.Memory,
  flag: number,
  candidates: readonly SignalClockCandidate[] | undefined,
): number | undefined {
  const found = (candidates ?? []).filter((candidate) => candidate.flag === flag);
  const clock = found[0]?.clock;
  if (clock === undefined || found.some((candidate) => candidate.clock !== clock)) return undefined;
  if (clock % 4 !== 0 || clock + 4 > memory.buffer.byteLength) return undefined;
  // A fresh instance, before main: the count starts at CPython's interval, 50.
  return new Int32Array(memory.buffer)[clock >> 2] === 50 ? clock : undefined;
}

/** Reads stdin into `buffer` as read(2) does: the count, 0 at end of input, or a thrown errno. */
type StdinRead = (buffer: Uint8Array, offset: number, length: number) => number;

/**
 * The program's stdin: the request's bytes (a pipe, a file, nothing), or a session's terminal read
 * as it is typed, blocking this worker on shared memory until the host hands a chunk over.
 */
function stdinReader(
  request: RunRequest,
  hooks: RunHooks,
  stops: { stopPending(): boolean; deadline: number },
): StdinRead {
  const live = request.liveStdin;
  if (live === undefined) {
    let offset = 0;
    const bytes = request.stdin;
    return (buffer, at, length) => {
      const count = Math.min(length, bytes.length - offset);
      buffer.set(bytes.subarray(offset, offset + count), at);
      offset += count;
      return count;
    };
  }
  const requestInput = hooks.requestInput;
  if (live === null || !requestInput || typeof Atomics.wait !== "function") {
    // No shared memory to block on: a clear I/O error beats a hang or an empty answer.
    let said = false;
    return () => {
      if (!said) {
        said = true;
        hooks.output(2, encode(`python3: ${LIVE_STDIN_UNAVAILABLE}\n`));
      }
      throw errno(EIO);
    };
  }
  const reader = new LiveStdinReader(live, { request: requestInput, ...stops });
  return (buffer, offset, length) => reader.read(buffer, offset, length);
}

/** Said when a program reads a terminal this host cannot share memory with. */
export const LIVE_STDIN_UNAVAILABLE =
  "cannot read the terminal here: this page has no shared memory (it is not cross-origin isolated), which the embedded Python needs to wait for what is typed. Pipe the input in instead (printf 'line\\n' | python3 …).";

/** Replaces fds 0, 1 and 2 with pipes (not terminals): stdin from `readStdin`, output to the host. */
function connectStdio(
  fs: EmFs,
  hooks: RunHooks,
  readStdin: StdinRead,
  maxOutputBytes: number,
): { outputLimited(): boolean } {
  let written = 0;
  const device = (minor: number, ops: DeviceOps) => {
    const dev = fs.makedev(64, minor);
    fs.registerDevice(dev, ops);
    return dev;
  };
  const stdinDev = device(0, {
    read: (_stream, buffer, offset, length) => readStdin(buffer, offset, length),
  });
  const writer = (fd: 1 | 2): DeviceOps => ({
    write(_stream, buffer, offset, length) {
      // Past the cap the write fails where it is made, so a runaway printer floods no messages; the
      // first refused chunk still goes, which tells the host to stop a program that goes on anyway.
      const over = written > maxOutputBytes;
      written += length;
      if (written > maxOutputBytes) {
        if (!over) hooks.output(fd, buffer.slice(offset, offset + length));
        throw errno(EFBIG);
      }
      hooks.output(fd, buffer.slice(offset, offset + length));
      return length;
    },
  });
  const stdoutDev = device(1, writer(1));
  const stderrDev = device(2, writer(2));
  fs.mkdirTree("/dev/toolroom");
  fs.mkdev("/dev/toolroom/stdin", 0o444, stdinDev);
  fs.mkdev("/dev/toolroom/stdout", 0o222, stdoutDev);
  fs.mkdev("/dev/toolroom/stderr", 0o222, stderrDev);
  for (const fd of [0, 1, 2]) {
    const stream = fs.getStream(fd);
    if (stream) fs.close(stream);
  }
  // The lowest free descriptors are taken in order: 0, 1, 2.
  fs.open("/dev/toolroom/stdin", "r");
  fs.open("/dev/toolroom/stdout", "w");
  fs.open("/dev/toolroom/stderr", "w");
  return { outputLimited: () => written > maxOutputBytes };
}

/** Emscripten's (WASI's) errno for "File too large", what a write past a size limit gets. */
const EFBIG = 22;

const encoder = new TextEncoder();
function encode(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Past `limit` bytes the heap stops growing: malloc fails and Python raises MemoryError. */
function capMemory(memory: WebAssembly.Memory, limit: number, onRefused: () => void): void {
  const grow = memory.grow.bind(memory);
  Object.defineProperty(memory, "grow", {
    value: (pages: number) => {
      if (memory.buffer.byteLength + pages * PAGE > limit) {
        onRefused();
        throw new RangeError("the embedded python's memory limit was reached");
      }
      return grow(pages);
    },
  });
}

/** A file's bytes as a view (MEMFS may hold them in an Int8Array, with spare room past usedBytes). */
function fileBytes(node: EmNode): Uint8Array {
  const contents = node.contents as ArrayBufferView | undefined;
  if (!contents) return new Uint8Array(0);
  return new Uint8Array(contents.buffer, contents.byteOffset, node.usedBytes ?? contents.byteLength);
}

/** Copies the sandbox's entries in, parents first; remembers each as the baseline to diff against. */
function populate(fs: EmFs, tree: TreeEntry[], baseline: Map<string, TreeEntry>): void {
  for (const entry of tree) {
    if (isReserved(entry.path)) continue;
    try {
      if (entry.kind === "directory") {
        fs.mkdirTree(entry.path);
        fs.chmod(entry.path, entry.mode & 0o7777);
        fs.utime(entry.path, entry.mtimeMs, entry.mtimeMs);
      } else if (entry.kind === "file") {
        fs.writeFile(entry.path, entry.data);
        fs.chmod(entry.path, entry.mode & 0o7777);
        fs.utime(entry.path, entry.mtimeMs, entry.mtimeMs);
      } else {
        fs.symlink(entry.target, entry.path);
      }
      baseline.set(entry.path, entry);
    } catch {
      // A path the instance cannot hold (e.g. under a default device folder): left out.
    }
  }
}

/** The instance's own folders (/tmp, /home/web_user…) are part of the baseline, so never reported. */
function recordDefaults(fs: EmFs, baseline: Map<string, TreeEntry>): void {
  for (const entry of walkTree(fs, "/")) if (!baseline.has(entry.path)) baseline.set(entry.path, entry);
}

function* walkTree(fs: EmFs, folder: string): Generator<TreeEntry> {
  let names: string[];
  try {
    names = fs.readdir(folder);
  } catch {
    return;
  }
  names.sort();
  for (const name of names) {
    if (name === "." || name === "..") continue;
    const path = folder === "/" ? `/${name}` : `${folder}/${name}`;
    if (isReserved(path)) continue;
    const node = fs.lookupPath(path, { follow: false }).node;
    if (fs.isLink(node.mode)) yield { path, kind: "symlink", target: fs.readlink(path) };
    else if (fs.isDir(node.mode)) {
      yield { path, kind: "directory", mode: node.mode & 0o7777, mtimeMs: 0 };
      yield* walkTree(fs, path);
    } else if (fs.isFile(node.mode)) {
      yield { path, kind: "file", mode: node.mode & 0o7777, mtimeMs: 0, data: fileBytes(node) };
    }
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameEntry(before: TreeEntry, after: TreeEntry): boolean {
  if (before.kind !== after.kind) return false;
  if (before.kind === "symlink") return before.target === (after as typeof before).target;
  if ((before.mode & 0o7777) !== ((after as typeof before).mode & 0o7777)) return false;
  if (before.kind === "file") return sameBytes(before.data, (after as typeof before).data);
  return true;
}

/** What differs from the baseline: deletions (deepest first), then new or changed entries (parents first). */
function diffTree(fs: EmFs, baseline: Map<string, TreeEntry>): TreeChange[] {
  const seen = new Set<string>();
  const written: TreeChange[] = [];
  const deleted: TreeChange[] = [];
  for (const entry of walkTree(fs, "/")) {
    seen.add(entry.path);
    const before = baseline.get(entry.path);
    if (before && sameEntry(before, entry)) continue;
    if (before && before.kind !== entry.kind) deleted.push({ path: entry.path, kind: "deleted" });
    written.push(entry.kind === "file" ? { ...entry, data: entry.data.slice() } : entry);
  }
  for (const path of baseline.keys()) {
    if (!seen.has(path) && !isReserved(path)) deleted.push({ path, kind: "deleted" });
  }
  deleted.sort((a, b) => b.path.length - a.path.length);
  return [...deleted, ...written];
}
