import { proxy, type Remote } from "comlink";
import { type StopAddress, StopBoard, stopAddress } from "./stop-signal.ts";
import {
  type BackendKind,
  type DirEntry,
  type ExecOptions,
  type ExecResult,
  type FileStat,
  type PtyOptions,
  type PtyRead,
  type PtySession,
  type Sandbox,
  type SandboxCapabilities,
  SandboxError,
  type SandboxErrorCode,
  type WorkspaceSnapshot,
} from "./types.ts";

/**
 * A sandbox that lives on another thread (the WebContainer needs the page's DOM, the runtime runs
 * in the worker), reached over comlink. Errors travel as values: comlink keeps only an Error's
 * name and message, and tools branch on a SandboxError's `code`.
 */
type Result<T> =
  | { ok: true; value: T }
  | { ok: false; error: { code?: string; path?: string; message: string } };

export interface SandboxInfo {
  kind: BackendKind;
  workspaceRoot: string;
  capabilities: SandboxCapabilities;
  /** The sandbox keeps permission bits (has chmod). */
  modes: boolean;
}

/** An AbortSignal cannot cross threads; a board signal's shared-memory address can (see stop-signal.ts). */
export type PortExecOptions = Omit<ExecOptions, "signal"> & { stop?: StopAddress };

export interface PortPty {
  id: string;
  command: string;
  write(chars: string): Promise<Result<void>>;
  read(options?: { yieldMs?: number }): Promise<Result<PtyRead>>;
  resize(cols: number, rows: number): Promise<Result<void>>;
  kill(): Promise<Result<void>>;
  exitCode(): number | null;
}

/** The side that owns the sandbox: what crosses the thread boundary. */
export interface SandboxPort {
  info(): SandboxInfo;
  readFile(path: string): Promise<Result<Uint8Array>>;
  writeFile(path: string, data: Uint8Array | string): Promise<Result<void>>;
  readdir(path: string): Promise<Result<DirEntry[]>>;
  stat(path: string): Promise<Result<FileStat>>;
  lstat(path: string): Promise<Result<FileStat>>;
  readlink(path: string): Promise<Result<string>>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<Result<void>>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<Result<void>>;
  rename(from: string, to: string): Promise<Result<void>>;
  symlink(target: string, path: string): Promise<Result<void>>;
  chmod(path: string, mode: number): Promise<Result<void>>;
  /** `execId` lets the other side cancel: an AbortSignal cannot cross threads. */
  exec(command: string, options: PortExecOptions, execId: number): Promise<Result<ExecResult>>;
  cancel(execId: number): void;
  pty(command: string, options?: PtyOptions): Promise<PortPty>;
  snapshot(): Promise<Result<WorkspaceSnapshot>>;
  restore(snapshot: WorkspaceSnapshot): Promise<Result<void>>;
  /** Stops every command and session the other side started (its worker was restarted). */
  reset(): Promise<void>;
}

async function settle<T>(run: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const record = error as { code?: unknown; path?: unknown; message?: unknown };
    return {
      ok: false,
      error: {
        ...(typeof record.code === "string" ? { code: record.code } : {}),
        ...(typeof record.path === "string" ? { path: record.path } : {}),
        message: typeof record.message === "string" ? record.message : String(error),
      },
    };
  }
}

function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  const { code, path, message } = result.error;
  if (code) throw new SandboxError(code as SandboxErrorCode, path ?? "", message);
  throw new Error(message);
}

/** Wraps a sandbox for exposure; pass the result through comlink.proxy (or Comlink.expose). */
export function sandboxPort(sandbox: Sandbox): SandboxPort {
  const running = new Map<number, AbortController>();
  const sessions = new Set<PtySession>();
  return {
    info: () => ({
      kind: sandbox.kind,
      workspaceRoot: sandbox.workspaceRoot,
      capabilities: sandbox.capabilities,
      modes: sandbox.chmod !== undefined,
    }),
    readFile: (path) => settle(() => sandbox.readFile(path)),
    writeFile: (path, data) => settle(() => sandbox.writeFile(path, data)),
    readdir: (path) => settle(() => sandbox.readdir(path)),
    stat: (path) => settle(() => sandbox.stat(path)),
    lstat: (path) => settle(() => sandbox.lstat(path)),
    readlink: (path) => settle(() => sandbox.readlink(path)),
    mkdir: (path, options) => settle(() => sandbox.mkdir(path, options)),
    rm: (path, options) => settle(() => sandbox.rm(path, options)),
    rename: (from, to) => settle(() => sandbox.rename(from, to)),
    symlink: (target, path) => settle(() => sandbox.symlink(target, path)),
    chmod: (path, mode) =>
      settle(async () => {
        if (!sandbox.chmod) throw new SandboxError("EINVAL", path, "this sandbox keeps no modes");
        await sandbox.chmod(path, mode);
      }),
    exec: (command, options, execId) =>
      settle(async () => {
        const controller = new AbortController();
        running.set(execId, controller);
        const { stop, ...rest } = options;
        // The stop is read from shared memory too: this thread may be the one stuck in the busy loop,
        // where the cancel message would wait behind it.
        const shared = stop
          ? StopBoard.attach(stop.buffer).signal(stop.channel, stop.job, { parents: [controller.signal] })
          : undefined;
        try {
          return await sandbox.exec(command, { ...rest, signal: shared?.signal ?? controller.signal });
        } finally {
          shared?.dispose();
          running.delete(execId);
        }
      }),
    cancel: (execId) => running.get(execId)?.abort(),
    async pty(command, options) {
      const session = await sandbox.pty(command, options);
      sessions.add(session);
      const port: PortPty = {
        id: session.id,
        command: session.command,
        write: (chars) => settle(() => session.write(chars)),
        read: (readOptions) => settle(() => session.read(readOptions)),
        resize: (cols, rows) => settle(() => session.resize(cols, rows)),
        kill: () =>
          settle(async () => {
            sessions.delete(session);
            await session.kill();
          }),
        exitCode: () => session.exitCode(),
      };
      return proxy(port);
    },
    snapshot: () => settle(() => sandbox.snapshot()),
    restore: (snapshot) => settle(() => sandbox.restore(snapshot)),
    async reset() {
      for (const controller of running.values()) controller.abort();
      running.clear();
      for (const session of sessions) await session.kill().catch(() => undefined);
      sessions.clear();
    },
  };
}

/** The worker's view of a sandbox on the main thread: the Sandbox interface, over a port. */
export class RemoteSandbox implements Sandbox {
  readonly kind: BackendKind;
  readonly workspaceRoot: string;
  readonly capabilities: SandboxCapabilities;
  /** Present when the other side keeps modes (Sandbox.chmod is optional). */
  readonly chmod?: (path: string, mode: number) => Promise<void>;
  private nextExec = 1;

  private constructor(
    private readonly port: Remote<SandboxPort>,
    info: SandboxInfo,
  ) {
    this.kind = info.kind;
    this.workspaceRoot = info.workspaceRoot;
    this.capabilities = info.capabilities;
    if (info.modes) this.chmod = async (path, mode) => unwrap(await port.chmod(path, mode));
  }

  static async connect(port: Remote<SandboxPort>): Promise<RemoteSandbox> {
    const sandbox = new RemoteSandbox(port, await port.info());
    await port.reset();
    return sandbox;
  }

  async readFile(path: string): Promise<Uint8Array> {
    return unwrap(await this.port.readFile(path));
  }
  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    unwrap(await this.port.writeFile(path, data));
  }
  async readdir(path: string): Promise<DirEntry[]> {
    return unwrap(await this.port.readdir(path));
  }
  async stat(path: string): Promise<FileStat> {
    return unwrap(await this.port.stat(path));
  }
  async lstat(path: string): Promise<FileStat> {
    return unwrap(await this.port.lstat(path));
  }
  async readlink(path: string): Promise<string> {
    return unwrap(await this.port.readlink(path));
  }
  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    unwrap(await this.port.mkdir(path, options));
  }
  async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    unwrap(await this.port.rm(path, options));
  }
  async rename(from: string, to: string): Promise<void> {
    unwrap(await this.port.rename(from, to));
  }
  async symlink(target: string, path: string): Promise<void> {
    unwrap(await this.port.symlink(target, path));
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const { signal, ...rest } = options;
    const execId = this.nextExec++;
    const cancel = () => void this.port.cancel(execId);
    signal?.addEventListener("abort", cancel, { once: true });
    try {
      if (signal?.aborted) cancel();
      const stop = stopAddress(signal);
      return unwrap(await this.port.exec(command, stop ? { ...rest, stop } : rest, execId));
    } finally {
      signal?.removeEventListener("abort", cancel);
    }
  }

  async pty(command: string, options?: PtyOptions): Promise<PtySession> {
    const remote = (await this.port.pty(command, options)) as unknown as Remote<PortPty>;
    const id = await remote.id;
    let exit: number | null = null;
    return {
      id,
      command,
      write: async (chars) => unwrap(await remote.write(chars)),
      read: async (readOptions) => {
        const read = unwrap(await remote.read(readOptions));
        if (read.exited) exit = read.exitCode;
        return read;
      },
      resize: async (cols, rows) => unwrap(await remote.resize(cols, rows)),
      kill: async () => {
        unwrap(await remote.kill());
        exit ??= await remote.exitCode();
      },
      exitCode: () => exit,
    };
  }

  async snapshot(): Promise<WorkspaceSnapshot> {
    return unwrap(await this.port.snapshot());
  }
  async restore(snapshot: WorkspaceSnapshot): Promise<void> {
    unwrap(await this.port.restore(snapshot));
  }
  async dispose(): Promise<void> {
    // The sandbox belongs to the page; stop only what this side started.
    await this.port.reset();
  }
}
