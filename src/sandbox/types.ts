import type { StopBoard } from "./stop-signal.ts";

/**
 * The Sandbox: the only door to files and processes (../shared/DESIGN.md).
 * Both backends (embedded just-bash, WebContainer) satisfy this interface; the sandbox
 * contract suite in ./contract.ts is what "satisfy" means.
 *
 * Paths are absolute sandbox paths ("/workspace/src/a.ts"). Tools never build them by hand:
 * they go through the workspace-path resolver in src/core.
 */

export type EntryType = "file" | "directory" | "symlink";

export interface DirEntry {
  name: string;
  type: EntryType;
}

export interface FileStat {
  type: EntryType;
  size: number;
  mtimeMs: number;
  /** POSIX permission bits (0o644, 0o755, ...). */
  mode: number;
  /**
   * Identifies this version of the entry where the backend can: it changes whenever the content is
   * replaced, like an inode number with a change time. git's stat cache trusts it.
   */
  ino?: number;
}

export interface ExecOptions {
  /** Absolute working directory; defaults to the workspace root. */
  cwd?: string;
  /** Added to the sandbox's base environment. */
  env?: Record<string, string>;
  stdin?: string;
  /** Wall-clock deadline; past it the command is stopped and `timedOut` is true. */
  timeoutMs?: number;
  /**
   * Stops the command when aborted (`interrupted`). A signal from src/sandbox/stop-signal.ts is read
   * synchronously, so it stops busy loops too; a plain AbortSignal stops it once it yields.
   */
  signal?: AbortSignal;
  /**
   * Most iterations any one loop (bash's, awk's, sed's) may run in a call with neither a deadline
   * (`timeoutMs: Infinity`) nor a signal: nothing else could end a runaway there. Where either is
   * given, loops run until they end or are stopped, as in real bash; a backend that can stop a
   * process on time may ignore it.
   */
  loopLimit?: number;
}

export interface ExecResult {
  /** 124 when the deadline stopped it, 130 when it was interrupted (Ctrl-C, Cancel). */
  exitCode: number;
  /** Everything printed, including what came before a deadline or an interrupt. */
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Stopped because its signal was aborted (not its deadline). */
  interrupted: boolean;
}

export interface PtyOptions {
  cwd?: string;
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** Prompt an emulated shell prints before each command line (a person's terminal wants "$ "). */
  prompt?: string;
  /**
   * A stop-board channel of the session's own: its foreground command runs as that channel's job, so
   * another thread's `board.stopRunning(channel)` (a terminal's Ctrl-C) stops even a busy loop at once.
   */
  stops?: { board: StopBoard; channel: number };
}

export interface PtyRead {
  /** Everything the session printed since the previous read. */
  output: string;
  exited: boolean;
  exitCode: number | null;
}

/**
 * A live process on a terminal: a shell, a REPL, or any command. What is written is typed (echoed,
 * a line handed over on Enter; "\u0003" is Ctrl-C, "\u0004" Ctrl-D); a running command reads it as it
 * arrives and its output can be read as it is printed.
 */
export interface PtySession {
  readonly id: string;
  readonly command: string;
  write(chars: string): Promise<void>;
  /**
   * Returns what arrived since the last read: at once when the process has ended or is waiting for
   * input with its output settled, else after `yieldMs` with whatever was printed by then.
   */
  read(options?: { yieldMs?: number }): Promise<PtyRead>;
  resize(cols: number, rows: number): Promise<void>;
  kill(): Promise<void>;
  exitCode(): number | null;
}

/** A file's stat and its bytes (a copy), read together. */
export interface FileWithStat {
  stat: FileStat;
  data: Uint8Array;
}

/** One entry of a workspace snapshot; `path` is relative to the workspace root, "/"-separated. */
export type SnapshotEntry =
  | { path: string; type: "directory"; mode?: number }
  | { path: string; type: "file"; data: Uint8Array; mode?: number; mtimeMs?: number }
  | { path: string; type: "symlink"; target: string };

/** The whole workspace at one moment: what persistence, sharing, checkpoints and replay store. */
export interface WorkspaceSnapshot {
  entries: SnapshotEntry[];
}

/** One workspace path a change touched: its entry before and after (null: absent). */
export interface WorkspaceChange {
  path: string;
  before: SnapshotEntry | null;
  after: SnapshotEntry | null;
}

export type BackendKind = "embedded" | "webcontainer";

export interface SandboxCapabilities {
  /** Native binaries (node, python, npm install) can run. */
  nativeBinaries: boolean;
  /** Outbound network from commands. */
  network: boolean;
  /** Commands known to exist on this backend, e.g. ["bash", "grep", "node"]. */
  commands: string[];
}

export interface Sandbox {
  readonly kind: BackendKind;
  /** Absolute path of the workspace folder inside the sandbox, e.g. "/workspace". */
  readonly workspaceRoot: string;
  readonly capabilities: SandboxCapabilities;

  readFile(path: string): Promise<Uint8Array>;
  /**
   * stat and readFile of many files in one call (symlinks followed), in the order asked, null where
   * either would fail: a search's first pass over thousands of files pays one call, not two per file.
   * Optional: without it, callers stat and read file by file (readFilesOf).
   */
  readFiles?(paths: readonly string[]): Promise<(FileWithStat | null)[]>;
  /** Creates or replaces a file; the parent directory must exist. */
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  readdir(path: string): Promise<DirEntry[]>;
  /** Follows symlinks. */
  stat(path: string): Promise<FileStat>;
  /** Does not follow a final symlink. */
  lstat(path: string): Promise<FileStat>;
  readlink(path: string): Promise<string>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  /**
   * Sets a file's permission bits (following symlinks), so an undo or a restore puts back an
   * executable bit. A backend that keeps no modes leaves it out.
   */
  chmod?(path: string, mode: number): Promise<void>;

  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  pty(command: string, options?: PtyOptions): Promise<PtySession>;

  /** The workspace folder as entries, deterministic order (parents before children). */
  snapshot(): Promise<WorkspaceSnapshot>;
  /** Replaces the workspace folder's contents with the snapshot's. */
  restore(snapshot: WorkspaceSnapshot): Promise<void>;

  /**
   * Starts recording which workspace paths change; the returned function stops and reports them
   * with their entries before and after. Optional: without it, callers diff two snapshots
   * (recordBySnapshots), which costs a full read of the workspace twice.
   */
  recordChanges?(): Promise<() => Promise<WorkspaceChange[]>>;

  /**
   * A number that changes whenever anything in the workspace folder may have changed (git's
   * fsmonitor idea): while it holds, what a tool derived from the workspace's files still holds,
   * with no walk or stat (a symlink's target outside the folder is not watched).
   * Optional: a backend that cannot tell (a WebContainer) leaves it out, and tools stat as before.
   */
  changeCount?(): number;

  dispose(): Promise<void>;
}

export type SandboxErrorCode =
  | "ENOENT"
  | "EEXIST"
  | "ENOTDIR"
  | "EISDIR"
  | "ENOTEMPTY"
  | "EINVAL"
  | "ELOOP"
  | "EACCES"
  | "ENOSPC"
  | "EIO";

/** Every fs failure of every backend is one of these, so tools can branch on `code`. */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode;
  readonly path: string;
  constructor(code: SandboxErrorCode, path: string, message?: string) {
    super(message ?? `${code}: ${path}`);
    this.name = "SandboxError";
    this.code = code;
    this.path = path;
  }
}

export function isSandboxError(error: unknown, code?: SandboxErrorCode): error is SandboxError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { name?: unknown }).name === "SandboxError" &&
    (code === undefined || (error as { code?: unknown }).code === code)
  );
}

/** Sandbox.readFiles where the backend has it, else stat and readFile per file. */
export async function readFilesOf(
  sandbox: Sandbox,
  paths: readonly string[],
): Promise<(FileWithStat | null)[]> {
  if (sandbox.readFiles) return sandbox.readFiles(paths);
  return readFilesOneByOne(sandbox, paths);
}

/** What Sandbox.readFiles answers, from a stat and a readFile per file. */
export function readFilesOneByOne(
  sandbox: Pick<Sandbox, "stat" | "readFile">,
  paths: readonly string[],
): Promise<(FileWithStat | null)[]> {
  return Promise.all(
    paths.map(async (path) => {
      try {
        const stat = await sandbox.stat(path);
        return { stat, data: await sandbox.readFile(path) };
      } catch {
        return null;
      }
    }),
  );
}
