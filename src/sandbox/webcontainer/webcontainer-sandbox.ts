import type { DirEnt, FileSystemTree, WebContainer, WebContainerProcess } from "@webcontainer/api";
import { restoreWorkspace } from "../snapshot.ts";
import {
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
  type SnapshotEntry,
  type WorkspaceSnapshot,
} from "../types.ts";
import {
  base64ToBytes,
  bytesToBase64,
  decodeJson,
  encodeRequest,
  FrameReader,
  RUNNER_SOURCE,
} from "./runner.ts";

/** The part of a booted WebContainer this backend uses (a Node stand-in implements it in tests). */
export type Container = Pick<WebContainer, "fs" | "spawn" | "workdir" | "mount">;

const DEFAULT_TIMEOUT_MS = 120_000;
/** Past its own deadline the runner kills the command; past this too, the runner itself is killed. */
const RUNNER_GRACE_MS = 2000;
const SHELL_COMMAND = /^(?:\/(?:usr\/)?bin\/)?(?:ba|z|da|k|j)?sh(?:\s+-[a-z]+)*\s*$/u;
const CODES = new Set<SandboxErrorCode>([
  "ENOENT",
  "EEXIST",
  "ENOTDIR",
  "EISDIR",
  "ENOTEMPTY",
  "EINVAL",
  "ELOOP",
  "EACCES",
  "EIO",
]);

type HelperReply<T> = { value: T } | { error: { code: string; message: string } };

/**
 * The WebContainer backend: a real Node.js (npm, node, jsh) in the page, on the main thread because
 * WebContainer needs the DOM. Workspace paths are the container's own: the workspace root is its
 * workdir. Files inside it go through the fs API; stat, lstat, readlink, symlink and paths outside
 * it go through the runner (./runner.ts), as do commands, so that stdout and stderr stay apart.
 */
export class WebContainerSandbox implements Sandbox {
  readonly kind = "webcontainer" as const;
  readonly workspaceRoot: string;
  readonly capabilities: SandboxCapabilities = {
    nativeBinaries: true,
    network: true,
    commands: ["jsh", "node", "npm", "npx", "pnpm", "yarn"],
  };
  private helper: Helper | undefined;
  private readonly running = new Set<WebContainerProcess>();
  private nextPty = 1;

  constructor(private readonly container: Container) {
    this.workspaceRoot = container.workdir.replace(/\/+$/u, "");
  }

  async readFile(path: string): Promise<Uint8Array> {
    const relative = this.inside(path);
    if (relative === null) return base64ToBytes(await this.op<string>("readFile", { path }));
    return fsCall(path, () => this.container.fs.readFile(relative));
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const relative = this.inside(path);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    if (relative === null) {
      await this.op("writeFile", { path, base64: bytesToBase64(bytes) });
      return;
    }
    await fsCall(path, () => this.container.fs.writeFile(relative, bytes));
  }

  async readdir(path: string): Promise<DirEntry[]> {
    const relative = this.inside(path);
    if (relative === null) return this.op<DirEntry[]>("readdir", { path });
    const entries: DirEnt<string>[] = await fsCall(path, () =>
      this.container.fs.readdir(relative, { withFileTypes: true }),
    );
    // The fs API's entries know files and folders only: anything else here is a symlink.
    return entries.map((entry) => ({
      name: entry.name,
      type: entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "symlink",
    }));
  }

  stat(path: string): Promise<FileStat> {
    return this.op<FileStat>("stat", { path });
  }

  lstat(path: string): Promise<FileStat> {
    return this.op<FileStat>("lstat", { path });
  }

  readlink(path: string): Promise<string> {
    return this.op<string>("readlink", { path });
  }

  /** The fs API has no chmod: the runner sets the bits (following links, as chmod(2)). */
  async chmod(path: string, mode: number): Promise<void> {
    await this.op("chmod", { path, mode: mode & 0o7777 });
  }

  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    const relative = this.inside(path);
    if (relative === null) {
      await this.op("mkdir", { path, recursive: options.recursive ?? false });
      return;
    }
    if (relative === ".") {
      if (options.recursive) return;
      throw new SandboxError("EEXIST", path);
    }
    await fsCall(path, async () => {
      if (options.recursive) await this.container.fs.mkdir(relative, { recursive: true });
      else await this.container.fs.mkdir(relative);
    });
  }

  async rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    const relative = this.inside(path);
    if (relative === null) {
      await this.op("rm", { path, recursive: options.recursive ?? false, force: options.force ?? false });
      return;
    }
    if (!options.recursive) {
      // Node's rm (and so the fs API's) refuses any folder without `recursive`; only a non-empty one should be refused.
      const stat = await this.lstat(path).catch((error: unknown) => {
        if (options.force) return null;
        throw error;
      });
      if (stat?.type === "directory") {
        if ((await this.readdir(path)).length > 0) throw new SandboxError("ENOTEMPTY", path);
        await fsCall(path, () => this.container.fs.rm(relative, { recursive: true }));
        return;
      }
    }
    await fsCall(path, () => this.container.fs.rm(relative, options));
  }

  async rename(from: string, to: string): Promise<void> {
    const source = this.inside(from);
    const target = this.inside(to);
    if (source === null || target === null) {
      await this.op("rename", { from, to });
      return;
    }
    await fsCall(from, () => this.container.fs.rename(source, target));
  }

  async symlink(target: string, path: string): Promise<void> {
    await this.op("symlink", { target, path });
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const request = {
      command,
      cwd: options.cwd ?? this.workspaceRoot,
      env: options.env ?? {},
      stdin: options.stdin ?? "",
      timeoutMs,
    };
    const process = await this.container.spawn("node", ["-e", RUNNER_SOURCE, "exec", encodeRequest(request)]);
    this.running.add(process);
    const input = process.input.getWriter();
    const stdout = new Utf8Collector();
    const stderr = new Utf8Collector();
    let end: { exitCode: number; timedOut: boolean } | undefined;
    let killedByUs = false;
    let interrupted = false;

    const reader = new FrameReader();
    const drained = drain(process.output, (chunk) => {
      for (const frame of reader.push(chunk)) {
        if (frame.kind === "out") stdout.push(frame.data);
        else if (frame.kind === "err") stderr.push(frame.data);
        else if (frame.kind === "end") end = decodeJson(frame.data);
      }
    });
    const abort = () => {
      interrupted = true;
      // Ask the runner to stop its command; if it cannot, stop the runner.
      void input.write("kill\n").catch(() => undefined);
      setTimeout(() => {
        if (!end) process.kill();
      }, 500);
    };
    options.signal?.addEventListener("abort", abort, { once: true });
    if (options.signal?.aborted) abort();
    const backstop = setTimeout(() => {
      killedByUs = true;
      process.kill();
    }, timeoutMs + RUNNER_GRACE_MS);
    try {
      const exitCode = await process.exit;
      await Promise.race([drained, delay(1000)]);
      const timedOut = end?.timedOut ?? killedByUs;
      const stopped = interrupted && !timedOut;
      return {
        // No end frame: the runner itself was stopped (backstop or abort).
        exitCode: stopped ? 130 : (end?.exitCode ?? (killedByUs ? 124 : exitCode || 1)),
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        interrupted: stopped,
      };
    } finally {
      clearTimeout(backstop);
      options.signal?.removeEventListener("abort", abort);
      this.running.delete(process);
      input.releaseLock();
    }
  }

  async pty(command: string, options: PtyOptions = {}): Promise<PtySession> {
    const terminal = { cols: options.cols ?? 80, rows: options.rows ?? 24 };
    const spawnOptions = {
      terminal,
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: this.inside(options.cwd) ?? "." } : {}),
    };
    const process = SHELL_COMMAND.test(command.trim())
      ? await this.container.spawn("jsh", spawnOptions)
      : await this.container.spawn("jsh", ["-c", command], spawnOptions);
    this.running.add(process);
    const session = new ContainerPty(`pty-${this.nextPty++}`, command, process);
    void process.exit.finally(() => this.running.delete(process));
    return session;
  }

  /** One runner request for the whole tree, instead of a readdir and an lstat per entry. */
  async snapshot(): Promise<WorkspaceSnapshot> {
    const raw = await this.op<
      ({ path: string; type: "directory" } | { path: string; type: "symlink"; target: string } | RawFile)[]
    >("snapshot", { root: this.workspaceRoot });
    const entries: SnapshotEntry[] = raw.map((entry) =>
      entry.type === "file"
        ? { path: entry.path, type: "file", data: base64ToBytes(entry.base64), mode: entry.mode }
        : entry,
    );
    return { entries };
  }

  /** Empties the workspace, then mounts the snapshot as one tree; modes are set by the runner after. */
  async restore(snapshot: WorkspaceSnapshot): Promise<void> {
    for (const child of await this.readdir(this.workspaceRoot)) {
      await this.rm(`${this.workspaceRoot}/${child.name}`, { recursive: true, force: true });
    }
    const tree: FileSystemTree = {};
    for (const entry of [...snapshot.entries].sort((a, b) => depth(a.path) - depth(b.path))) {
      const segments = entry.path.split("/");
      const name = segments.pop()!;
      let folder = tree;
      for (const segment of segments) {
        const node = folder[segment];
        if (!node || !("directory" in node)) folder[segment] = { directory: {} };
        folder = (folder[segment] as { directory: FileSystemTree }).directory;
      }
      if (entry.type === "directory") folder[name] ??= { directory: {} };
      else if (entry.type === "symlink") folder[name] = { file: { symlink: entry.target } };
      else folder[name] = { file: { contents: entry.data } };
    }
    try {
      await this.container.mount(tree);
    } catch {
      // Older containers refuse symlink nodes: fall back to one call per entry (it sets modes too).
      await restoreWorkspace(this, snapshot);
      return;
    }
    // mount makes every file 0644: an executable script gets its bits back, in one runner request.
    const modes = snapshot.entries.flatMap((entry) =>
      entry.type === "file" && entry.mode !== undefined && (entry.mode & 0o7777) !== 0o644
        ? [[entry.path, entry.mode & 0o7777] as const]
        : [],
    );
    if (modes.length > 0) await this.op("chmodAll", { root: this.workspaceRoot, modes });
  }

  async dispose(): Promise<void> {
    for (const process of this.running) process.kill();
    this.running.clear();
    this.helper?.stop();
    this.helper = undefined;
  }

  /** The path relative to the workdir for the fs API, or null when it is outside the workspace. */
  private inside(path: string): string | null {
    if (path === this.workspaceRoot) return ".";
    if (path.startsWith(`${this.workspaceRoot}/`)) return path.slice(this.workspaceRoot.length + 1);
    return null;
  }

  private async op<T>(op: string, request: Record<string, unknown>): Promise<T> {
    this.helper ??= new Helper(this.container);
    let reply: HelperReply<T>;
    try {
      reply = await this.helper.request<T>({ op, ...request });
    } catch (error) {
      this.helper.stop();
      this.helper = undefined;
      throw new SandboxError("EIO", String(request.path ?? ""), `The fs helper failed: ${String(error)}`);
    }
    if ("error" in reply) {
      throw new SandboxError(
        toCode(reply.error.code),
        String(request.path ?? request.from ?? ""),
        reply.error.message,
      );
    }
    return reply.value;
  }
}

type RawFile = { path: string; type: "file"; base64: string; mode: number };

/** The long-lived runner in `serve` mode: one process answers every stat, so each costs a message, not a spawn. */
class Helper {
  private readonly ready: Promise<{
    process: WebContainerProcess;
    input: WritableStreamDefaultWriter<string>;
  }>;
  private readonly waiting = new Map<string, (reply: unknown) => void>();
  private nextId = 1;
  private failed: Error | undefined;

  constructor(container: Container) {
    this.ready = (async () => {
      const process = await container.spawn("node", ["-e", RUNNER_SOURCE, "serve"]);
      const reader = new FrameReader();
      let signalReady: () => void = () => undefined;
      const isReady = new Promise<void>((resolve) => {
        signalReady = resolve;
      });
      void drain(process.output, (chunk) => {
        for (const frame of reader.push(chunk)) {
          if (frame.kind === "ready") signalReady();
          if (frame.kind !== "res") continue;
          this.waiting.get(frame.id)?.(decodeJson(frame.data));
          this.waiting.delete(frame.id);
        }
      });
      void process.exit.then((code) => {
        this.failed = new Error(`the helper exited with code ${code}`);
        for (const resolve of this.waiting.values())
          resolve({ error: { code: "EIO", message: this.failed.message } });
        this.waiting.clear();
      });
      await Promise.race([isReady, process.exit]);
      return { process, input: process.input.getWriter() };
    })();
  }

  async request<T>(request: Record<string, unknown>): Promise<HelperReply<T>> {
    const { input } = await this.ready;
    if (this.failed) throw this.failed;
    const id = String(this.nextId++);
    const reply = new Promise<HelperReply<T>>((resolve) => {
      this.waiting.set(id, resolve as (reply: unknown) => void);
    });
    await input.write(`${id} ${encodeRequest(request)}\n`);
    return reply;
  }

  stop(): void {
    void this.ready.then(({ process }) => process.kill()).catch(() => undefined);
  }
}

/** A jsh in a terminal. Output is kept with "\n" line ends, as the embedded backend prints them. */
class ContainerPty implements PtySession {
  private buffer = "";
  private exit: number | null = null;
  private readonly input: WritableStreamDefaultWriter<string>;
  private notify: (() => void) | undefined;

  constructor(
    readonly id: string,
    readonly command: string,
    private readonly process: WebContainerProcess,
  ) {
    this.input = process.input.getWriter();
    void drain(process.output, (chunk) => {
      this.buffer += chunk.replace(/\r\n/gu, "\n");
      this.notify?.();
    });
    void process.exit.then((code) => {
      this.exit = code;
      this.notify?.();
    });
  }

  async write(chars: string): Promise<void> {
    if (this.exit !== null) throw new Error(`session ${this.id} has exited with code ${this.exit}`);
    await this.input.write(chars.replace(/\n/gu, "\r"));
  }

  /** Waits for output (up to yieldMs), then for it to settle for a moment, and returns it. */
  async read(options: { yieldMs?: number } = {}): Promise<PtyRead> {
    const deadline = Date.now() + (options.yieldMs ?? 250);
    let seen = this.buffer.length;
    while (this.exit === null && Date.now() < deadline) {
      await this.change(Math.min(this.buffer === "" ? deadline - Date.now() : 50, deadline - Date.now()));
      if (this.buffer !== "" && this.buffer.length === seen) break;
      seen = this.buffer.length;
    }
    if (this.exit !== null) await delay(20);
    const output = this.buffer;
    this.buffer = "";
    return { output, exited: this.exit !== null, exitCode: this.exit };
  }

  async resize(cols: number, rows: number): Promise<void> {
    this.process.resize({ cols, rows });
  }

  async kill(): Promise<void> {
    this.process.kill();
    this.exit ??= 130;
    this.notify?.();
  }

  exitCode(): number | null {
    return this.exit;
  }

  private change(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      const notify = () => done();
      this.notify = notify;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}

/** Decodes UTF-8 chunk by chunk, so that a character split between chunks survives. */
class Utf8Collector {
  private readonly decoder = new TextDecoder();
  private parts: string[] = [];
  push(bytes: Uint8Array): void {
    this.parts.push(this.decoder.decode(bytes, { stream: true }));
  }
  text(): string {
    this.parts.push(this.decoder.decode());
    const text = this.parts.join("");
    this.parts = [text];
    return text;
  }
}

async function drain(stream: ReadableStream<string>, onChunk: (chunk: string) => void): Promise<void> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onChunk(value);
    }
  } catch {
    // The process was killed: its stream ends with an error, which is expected.
  } finally {
    reader.releaseLock();
  }
}

async function fsCall<T>(path: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const record = error as { code?: unknown; message?: unknown };
    const message = typeof record.message === "string" ? record.message : String(error);
    const code =
      typeof record.code === "string" ? record.code : (/\b(E[A-Z]{2,})\b/u.exec(message)?.[1] ?? "EIO");
    throw new SandboxError(toCode(code), path, message);
  }
}

function toCode(code: string): SandboxErrorCode {
  if (code === "EPERM") return "EACCES";
  return CODES.has(code as SandboxErrorCode) ? (code as SandboxErrorCode) : "EIO";
}

function depth(path: string): number {
  return path.split("/").length;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
