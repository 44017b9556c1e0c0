import { MemoryFiles } from "./memory-files.ts";
import {
  type DirEntry,
  type ExecOptions,
  type ExecResult,
  type FileStat,
  type FileWithStat,
  type PtyOptions,
  type PtySession,
  readFilesOf,
  readFilesOneByOne,
  type Sandbox,
  type SandboxCapabilities,
  SandboxError,
  type WorkspaceChange,
  type WorkspaceSnapshot,
} from "./types.ts";

/**
 * A sandbox whose backend is still loading (just-bash's shell is 1.3 MB of script to fetch and
 * compile): meanwhile the files it was restored with answer reads of the workspace, so a person's
 * or an agent's first read_file or list_files does not wait for the shell. Whatever is not such a
 * read (a write, a command, a symlink to follow) waits for the backend, which gets the same files
 * first; from then on everything is the backend's. Nothing changes the files before it arrives,
 * so an early answer is the one the backend would have given.
 */
export class DeferredSandbox implements Sandbox {
  readonly workspaceRoot: string;
  private readonly expectedKind: Sandbox["kind"];
  private backend: Sandbox | undefined;
  /** The files of the first restore, answering until the backend has them. */
  private early: { files: MemoryFiles; snapshot: WorkspaceSnapshot } | undefined;
  /** The backend's load, once begun. */
  private ready: Promise<Sandbox> | undefined;
  private readonly load: () => Promise<Sandbox>;
  private disposed = false;
  private settleArrival: { resolve(backend: Sandbox): void; reject(error: unknown): void } | undefined;
  /**
   * Settles when the backend has arrived with the files, or fails: its load failed, or the sandbox
   * was disposed first (what a workspace's opening waits on must not wait for a shell never coming).
   */
  readonly arrived: Promise<Sandbox>;

  /**
   * `backend` loads the real sandbox: called by start(), or by the first operation that needs it.
   * `onWait` hears each operation that had to wait for it (what the tests watch).
   */
  constructor(
    options: { kind: Sandbox["kind"]; workspaceRoot: string; backend: () => Promise<Sandbox> },
    private readonly onWait?: (operation: string) => void,
  ) {
    this.expectedKind = options.kind;
    this.workspaceRoot = options.workspaceRoot;
    this.load = options.backend;
    this.arrived = new Promise<Sandbox>((resolve, reject) => {
      this.settleArrival = { resolve, reject };
    });
    this.arrived.catch(() => undefined);
  }

  /** Starts loading the backend (if not yet); settles as `arrived`. */
  start(): Promise<Sandbox> {
    if (!this.ready) {
      this.ready = this.disposed
        ? Promise.reject(closedError())
        : this.load().then(async (backend) => {
            if (this.early) await backend.restore(this.early.snapshot);
            // Closed while it loaded: nobody will use it.
            if (this.disposed) {
              await backend.dispose();
              throw closedError();
            }
            this.backend = backend;
            this.early = undefined;
            return backend;
          });
      this.ready.then(
        (backend) => this.settleArrival?.resolve(backend),
        (error: unknown) => this.settleArrival?.reject(error),
      );
    }
    return this.arrived;
  }

  /** Whether the backend has arrived: from then on every operation is its own. */
  get loaded(): boolean {
    return this.backend !== undefined;
  }

  /** The backend's kind once it has arrived (the one chosen may differ from the one expected). */
  get kind(): Sandbox["kind"] {
    return this.backend?.kind ?? this.expectedKind;
  }

  get capabilities(): SandboxCapabilities {
    return this.backend?.capabilities ?? { nativeBinaries: false, network: false, commands: [] };
  }

  private wait(operation: string): Promise<Sandbox> {
    if (this.backend) return Promise.resolve(this.backend);
    this.onWait?.(operation);
    return this.start();
  }

  async readFile(path: string): Promise<Uint8Array> {
    return this.early?.files.readFile(path) ?? (await this.wait("readFile")).readFile(path);
  }

  /** The backend's bulk read once it is here (a search's first pass); before, file by file. */
  async readFiles(paths: readonly string[]): Promise<(FileWithStat | null)[]> {
    return this.backend ? readFilesOf(this.backend, paths) : readFilesOneByOne(this, paths);
  }

  async readdir(path: string): Promise<DirEntry[]> {
    return this.early?.files.readdir(path) ?? (await this.wait("readdir")).readdir(path);
  }

  async stat(path: string): Promise<FileStat> {
    return this.early?.files.stat(path) ?? (await this.wait("stat")).stat(path);
  }

  async lstat(path: string): Promise<FileStat> {
    return this.early?.files.lstat(path) ?? (await this.wait("lstat")).lstat(path);
  }

  async readlink(path: string): Promise<string> {
    return this.early?.files.readlink(path) ?? (await this.wait("readlink")).readlink(path);
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    return (await this.wait("writeFile")).writeFile(path, data);
  }

  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    return (await this.wait("mkdir")).mkdir(path, options);
  }

  async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    return (await this.wait("rm")).rm(path, options);
  }

  async rename(from: string, to: string): Promise<void> {
    return (await this.wait("rename")).rename(from, to);
  }

  async symlink(target: string, path: string): Promise<void> {
    return (await this.wait("symlink")).symlink(target, path);
  }

  async chmod(path: string, mode: number): Promise<void> {
    const backend = await this.wait("chmod");
    if (!backend.chmod) throw new SandboxError("EIO", path, `EIO: ${path}: this backend keeps no modes`);
    return backend.chmod(path, mode);
  }

  async exec(command: string, options?: ExecOptions): Promise<ExecResult> {
    return (await this.wait("exec")).exec(command, options);
  }

  async pty(command: string, options?: PtyOptions): Promise<PtySession> {
    return (await this.wait("pty")).pty(command, options);
  }

  async snapshot(): Promise<WorkspaceSnapshot> {
    return (await this.wait("snapshot")).snapshot();
  }

  /**
   * The first restore (the workspace being opened) answers reads at once and is handed to the
   * backend when it arrives; a later one waits for the backend.
   */
  async restore(snapshot: WorkspaceSnapshot): Promise<void> {
    if (this.backend || this.early) return (await this.wait("restore")).restore(snapshot);
    this.early = { files: new MemoryFiles(this.workspaceRoot, snapshot.entries), snapshot };
  }

  async recordChanges(): Promise<() => Promise<WorkspaceChange[]>> {
    const backend = await this.wait("recordChanges");
    if (backend.recordChanges) return backend.recordChanges();
    const { recordBySnapshots } = await import("./snapshot.ts");
    return recordBySnapshots(backend);
  }

  /** Nothing changes before the backend arrives; after, the backend's count (always past -1). */
  changeCount(): number {
    if (!this.backend) return -1;
    return this.backend.changeCount?.() ?? Number.NaN;
  }

  /**
   * Disposes the backend if it has arrived. One still loading (or never asked for) is not waited
   * for: it may never come (a backend nobody chose); whatever waits for it is told the sandbox closed.
   */
  async dispose(): Promise<void> {
    this.early = undefined;
    this.disposed = true;
    if (this.backend) return this.backend.dispose();
    this.settleArrival?.reject(closedError());
  }
}

function closedError(): Error {
  return new Error("The workspace was closed before its shell had loaded.");
}
