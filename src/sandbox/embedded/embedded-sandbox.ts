import { Bash, type CustomCommand, getCommandNames, type NetworkConfig } from "just-bash";
import { parentOf } from "../paths.ts";
import { restoreWorkspace } from "../snapshot.ts";
import { deadlineSignal, STOP_EXIT_CODES, stopReason } from "../stop-signal.ts";
import {
  type DirEntry,
  type ExecOptions,
  type ExecResult,
  type FileStat,
  type FileWithStat,
  type PtyOptions,
  type PtySession,
  type Sandbox,
  type SandboxCapabilities,
  SandboxError,
  type SnapshotEntry,
  type WorkspaceChange,
  type WorkspaceSnapshot,
} from "../types.ts";
import { withStopSignal } from "./command-signal.ts";
import { embeddedCommands } from "./commands/index.ts";
import { DeviceText } from "./device-output.ts";
import { withFsErrors } from "./fs-errors.ts";
import type { FolderSource } from "./lazy-folder.ts";
import { liveScriptPlugin } from "./live-script.ts";
import { fixLoopStatus } from "./loop-status.ts";
import { RecordingFs } from "./recording-fs.ts";
import { ShellSession } from "./shell-session.ts";
import { LOOP_TICK, loopTickCommand, TERMINAL_HELPER, type TtyInput, terminalCommand } from "./tty.ts";

export interface EmbeddedSandboxOptions {
  workspaceRoot?: string;
  /** Extra commands (node, npm, …) registered in every shell. */
  commands?: CustomCommand[];
  /** Outbound HTTP for the shell's curl; off unless given. */
  network?: NetworkConfig;
  /** Deadline for a command that names none (ms). */
  defaultTimeoutMs?: number;
  env?: Record<string, string>;
  /** How many bytes the files written (to the workspace, /tmp, anywhere) may hold in memory; past it ENOSPC. */
  maxWrittenBytes?: number;
}

/** What the files a session writes may hold in memory unless the host says otherwise (just-bash's own default). */
export const DEFAULT_MAX_WRITTEN_BYTES = 1024 * 1024 * 1024;

const DEFAULT_TIMEOUT_MS = 120_000;
/** Deadlines, not counters, bound a command here: the counters are raised far out of the way. */
const GENEROUS_LIMITS = {
  maxCommandCount: 100_000_000,
  maxLoopIterations: 100_000_000,
  maxAwkIterations: 100_000_000,
  maxSedIterations: 100_000_000,
  maxJqIterations: 100_000_000,
  maxWorkUnits: 1_000_000_000,
  maxTraversalEntries: 10_000_000,
  maxTraversalWork: 100_000_000,
  maxGlobOperations: 100_000_000,
  maxOutputSize: 256 * 1024 * 1024,
  maxStringLength: 256 * 1024 * 1024,
  maxCallDepth: 1000,
  // A stopped command ends by itself before the shell moves on, so its last output, status and
  // file changes count: python3 unwinds its KeyboardInterrupt (a traceback) within 2 s, or is terminated.
  maxExtensionCleanupTimeMs: 2500,
} as const;
/**
 * The counts a call with a deadline or a stop signal skips: those end its loops (bash's while, for
 * and until, awk's, sed's) as they end the real programs', which count nothing. just-bash checks the
 * signal before every statement, and takes Infinity as "no limit".
 */
const UNCOUNTED_LOOPS = {
  maxCommandCount: Number.POSITIVE_INFINITY,
  maxLoopIterations: Number.POSITIVE_INFINITY,
  maxAwkIterations: Number.POSITIVE_INFINITY,
  maxSedIterations: Number.POSITIVE_INFINITY,
} as const;
/** just-bash words its own deadline "execution exceeded execution deadline" or "bash: sleep exceeded its execution deadline". */
const DEADLINE_MESSAGE = /exceeded (?:its )?execution deadline/u;
/** What just-bash prints when it stops a script (signal or deadline); the result says so instead. */
const STOPPED_MESSAGE = /^bash: [\w .-]*(?:aborted|exceeded (?:its )?execution deadline(?: \(\d+ms\))?)\n/gmu;
/** Folder of the devices a running script's terminal-bound output is appended to. */
const DEVICE_FOLDER = "/dev/toolroom";

/**
 * The embedded backend: just-bash's in-memory filesystem and its bash, in a browser worker or in
 * Node alike. Each exec gets a fresh interpreter bound to the command's deadline (just-bash
 * checks it between statements, so even `while true; do :; done` stops) over the shared fs.
 */
export class EmbeddedSandbox implements Sandbox {
  readonly kind = "embedded" as const;
  readonly workspaceRoot: string;
  readonly capabilities: SandboxCapabilities;
  /** The raw just-bash filesystem; only this backend's own helpers touch it. */
  readonly fs: RecordingFs;
  private readonly commands: CustomCommand[];
  private readonly network: NetworkConfig | undefined;
  private readonly defaultTimeoutMs: number;
  private readonly baseEnv: Record<string, string>;
  private readonly sessions = new Map<string, ShellSession>();
  private nextSession = 1;
  private nextRun = 1;

  constructor(options: EmbeddedSandboxOptions = {}) {
    this.workspaceRoot = (options.workspaceRoot ?? "/workspace").replace(/\/+$/u, "");
    this.fs = new RecordingFs(undefined, {
      maxTotalBytes: options.maxWrittenBytes ?? DEFAULT_MAX_WRITTEN_BYTES,
    });
    this.fs.setRoot(this.workspaceRoot);
    // Ours replace just-bash's grep/sed/awk; a host's own commands come last and win.
    this.commands = [...embeddedCommands(), ...(options.commands ?? [])];
    this.network = options.network;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.baseEnv = {
      HOME: this.workspaceRoot,
      USER: "agent",
      PATH: `${this.workspaceRoot}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin`,
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      ...options.env,
    };
    this.capabilities = {
      nativeBinaries: false,
      network: options.network !== undefined,
      commands: [...new Set([...getCommandNames(), ...this.commands.map((command) => command.name)])].sort(),
    };
  }

  /** Creates the workspace folder and the usual Unix folders; call once before use. */
  static async create(options: EmbeddedSandboxOptions = {}): Promise<EmbeddedSandbox> {
    const sandbox = new EmbeddedSandbox(options);
    for (const folder of [sandbox.workspaceRoot, "/tmp", "/home", "/usr/local/bin", DEVICE_FOLDER]) {
      await sandbox.fs.mkdir(folder, { recursive: true });
    }
    return sandbox;
  }

  changeCount(): number {
    return this.fs.changeCount();
  }

  async readFile(path: string): Promise<Uint8Array> {
    const bytes = await withFsErrors(path, () => this.fs.readFileBuffer(path));
    return bytes.slice();
  }

  async readFiles(paths: readonly string[]): Promise<(FileWithStat | null)[]> {
    return (await this.fs.readFilesWithStats(paths)).map((file) =>
      file ? { stat: toFileStat(file.stat), data: file.data } : null,
    );
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const found = await this.lstatOrNull(path);
    let target = path;
    if (found?.type === "symlink") {
      target = await this.followSymlinks(path);
      await this.requireDirectory(parentOf(target), path);
      if ((await this.lstatOrNull(target))?.type === "directory") throw new SandboxError("EISDIR", path);
    } else if (found?.type === "directory") throw new SandboxError("EISDIR", path);
    // An existing file's folder exists; a new file's must.
    else if (!found) await this.requireDirectory(parentOf(path), path);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data.slice();
    await withFsErrors(path, () => this.fs.writeFile(target, bytes));
  }

  async chmod(path: string, mode: number): Promise<void> {
    await withFsErrors(path, () => this.fs.chmod(path, mode & 0o7777));
  }

  async readdir(path: string): Promise<DirEntry[]> {
    const entries = await withFsErrors(path, () => this.fs.readdirWithFileTypes(path));
    return entries.map((entry) => ({
      name: entry.name,
      type: entry.isSymbolicLink ? "symlink" : entry.isDirectory ? "directory" : "file",
    }));
  }

  async stat(path: string): Promise<FileStat> {
    return toFileStat(await withFsErrors(path, () => this.fs.stat(path)));
  }

  async lstat(path: string): Promise<FileStat> {
    return toFileStat(await withFsErrors(path, () => this.fs.lstat(path)));
  }

  async readlink(path: string): Promise<string> {
    return withFsErrors(path, () => this.fs.readlink(path));
  }

  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    const existing = await this.lstatOrNull(path);
    if (existing) {
      if (options.recursive && existing.type === "directory") return;
      throw new SandboxError("EEXIST", path);
    }
    if (options.recursive) {
      // just-bash would happily create a folder under a file; refuse like a real fs.
      let prefix = "";
      for (const segment of path.split("/").filter(Boolean)) {
        prefix += `/${segment}`;
        const stat = await this.statOrNull(prefix);
        if (stat && stat.type !== "directory") throw new SandboxError("ENOTDIR", path);
        if (!stat) await withFsErrors(path, () => this.fs.mkdir(prefix));
      }
      return;
    }
    await this.requireDirectory(parentOf(path), path);
    await withFsErrors(path, () => this.fs.mkdir(path));
  }

  async rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    const existing = await this.lstatOrNull(path);
    if (!existing) {
      if (options.force) return;
      throw new SandboxError("ENOENT", path);
    }
    if (existing.type === "directory" && !options.recursive) {
      const children = await this.readdir(path);
      if (children.length > 0) throw new SandboxError("ENOTEMPTY", path);
    }
    await withFsErrors(path, () => this.fs.rm(path, { recursive: options.recursive ?? false, force: false }));
  }

  async rename(from: string, to: string): Promise<void> {
    const source = await this.lstatOrNull(from);
    if (!source) throw new SandboxError("ENOENT", from);
    await this.requireDirectory(parentOf(to), to);
    if (source.type === "directory" && (to === from || to.startsWith(`${from}/`))) {
      throw new SandboxError("EINVAL", to, `EINVAL: cannot move ${from} into itself`);
    }
    const target = await this.lstatOrNull(to);
    if (target?.type === "directory") {
      if (source.type !== "directory") throw new SandboxError("EISDIR", to);
      if ((await this.readdir(to)).length > 0) throw new SandboxError("ENOTEMPTY", to);
      await this.fs.rm(to, { recursive: true });
    } else if (target && source.type === "directory") {
      throw new SandboxError("ENOTDIR", to);
    }
    await withFsErrors(from, () => this.fs.mv(from, to));
  }

  async symlink(target: string, path: string): Promise<void> {
    await this.requireDirectory(parentOf(path), path);
    if (await this.lstatOrNull(path)) throw new SandboxError("EEXIST", path);
    await withFsErrors(path, () => this.fs.symlink(target, path));
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const result = await this.runScript(command, {
      cwd: options.cwd ?? this.workspaceRoot,
      env: { ...this.baseEnv, ...options.env },
      stdin: options.stdin,
      timeoutMs,
      signal: options.signal,
      loopLimit: options.loopLimit,
    });
    return {
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      timedOut: result.timedOut,
      interrupted: result.interrupted,
    };
  }

  async pty(command: string, options: PtyOptions = {}): Promise<PtySession> {
    const id = `pty-${this.nextSession++}`;
    const session = new ShellSession({
      id,
      command,
      cwd: options.cwd ?? this.workspaceRoot,
      env: { ...this.baseEnv, ...options.env },
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      ...(options.stops ? { stops: options.stops } : {}),
      // A session is long-running by design: Ctrl-C and kill stop its commands, not a deadline.
      run: (script, run) =>
        this.runScript(script, {
          cwd: run.cwd,
          env: run.env,
          signal: run.signal,
          timeoutMs: Number.POSITIVE_INFINITY,
          terminal: run.input,
          onOutput: run.onOutput,
        }),
    });
    this.sessions.set(id, session);
    return session;
  }

  /** Reads the in-memory tree directly: the same result as the generic walk, without the per-call overhead. */
  async snapshot(): Promise<WorkspaceSnapshot> {
    const entries: SnapshotEntry[] = [];
    const walk = async (absolute: string, relative: string): Promise<void> => {
      const children = await this.fs.readdirWithFileTypes(absolute);
      children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const child of children) {
        const path = relative === "" ? child.name : `${relative}/${child.name}`;
        const full = `${absolute}/${child.name}`;
        if (child.isSymbolicLink)
          entries.push({ path, type: "symlink", target: await this.fs.readlink(full) });
        else if (child.isDirectory) {
          entries.push({ path, type: "directory" });
          await walk(full, path);
        } else {
          const stat = await this.fs.lstat(full);
          entries.push({
            path,
            type: "file",
            data: (await this.fs.readFileBuffer(full)).slice(),
            mode: stat.mode,
            mtimeMs: stat.mtime.getTime(),
          });
        }
      }
    };
    await walk(this.workspaceRoot, "");
    return { entries };
  }

  /**
   * Serves the (empty) workspace folder from `source`, read on demand: a folder's names when
   * something looks inside it, a file's bytes when they are read. Writes stay in memory.
   */
  mountFolder(source: FolderSource, root: { mode: number; mtimeMs: number }): void {
    this.fs.mountFolder(source, root);
  }

  /** What differs from the mounted folder's source, path by path (what write-back writes). */
  folderChanges(): WorkspaceChange[] {
    return this.fs.folderChanges();
  }

  /** Records through the filesystem itself: only the paths a command touches are read. */
  async recordChanges(): Promise<() => Promise<WorkspaceChange[]>> {
    return this.fs.record();
  }

  async restore(snapshot: WorkspaceSnapshot): Promise<void> {
    await restoreWorkspace(this, snapshot);
    // Modification times come back too: baseagent's grep_files lists the newest files first.
    for (const entry of snapshot.entries) {
      if (entry.type !== "file" || entry.mtimeMs === undefined) continue;
      const when = new Date(entry.mtimeMs);
      await this.fs.utimes(`${this.workspaceRoot}/${entry.path}`, when, when);
    }
  }

  async dispose(): Promise<void> {
    for (const session of this.sessions.values()) await session.kill();
    this.sessions.clear();
  }

  /**
   * Runs one script on a fresh interpreter over the shared filesystem. Its terminal-bound output is
   * streamed through devices as each command ends (see live-script.ts), so what was printed before
   * a deadline or an interrupt is kept, and the stop signal reaches busy loops synchronously.
   */
  private async runScript(
    script: string,
    options: {
      cwd: string;
      env: Record<string, string>;
      stdin?: string | undefined;
      timeoutMs: number;
      signal?: AbortSignal | undefined;
      loopLimit?: number | undefined;
      /** A session's terminal: commands that read it get what is typed, loops yield now and then. */
      terminal?: TtyInput | undefined;
      /** Output as it is produced (else it is collected into the result). */
      onOutput?: ((stream: "stdout" | "stderr", text: string) => void) | undefined;
    },
  ): Promise<{
    stdout: string;
    stderr: string;
    exitCode: number;
    timedOut: boolean;
    interrupted: boolean;
    env: Record<string, string>;
  }> {
    const cwdStat = await this.statOrNull(options.cwd);
    if (cwdStat?.type !== "directory") {
      return {
        stdout: "",
        stderr: `bash: cd: ${options.cwd}: No such file or directory\n`,
        exitCode: 1,
        timedOut: false,
        interrupted: false,
        env: options.env,
      };
    }
    await fixLoopStatus();
    const finite = Number.isFinite(options.timeoutMs);
    // The deadline and the caller's signal in one signal whose `aborted` just-bash reads between
    // statements and in its loops: a stop reaches `while true; do :; done` synchronously.
    const stop = deadlineSignal({
      parents: [options.signal],
      ...(finite ? { deadlineAt: Date.now() + options.timeoutMs } : {}),
    });
    const run = this.nextRun++;
    const out = { stdout: "", stderr: "" };
    const print = (stream: "stdout" | "stderr", text: string) => {
      if (text === "") return;
      if (options.onOutput) options.onOutput(stream, text);
      else out[stream] += text;
    };
    const detach = (["stdout", "stderr"] as const).map((stream) => {
      const text = new DeviceText();
      const path = `${DEVICE_FOLDER}/${run}-${stream}`;
      const release = this.fs.attachDevice(path, (content, encoding) => {
        print(stream, text.push(content, encoding));
      });
      return { path, release, flush: () => print(stream, text.flush()) };
    });
    const linePath = `${DEVICE_FOLDER}/${run}-line`;
    const commands = withStopSignal(
      options.terminal
        ? [
            ...this.commands,
            terminalCommand({ input: options.terminal, print, linePath, commands: this.commands }),
          ]
        : this.commands,
      stop.signal,
      print,
      options.terminal !== undefined,
    );
    // The tick runs once per loop iteration and never waits on a stop: it needs no signal of its own.
    if (options.terminal) commands.push(loopTickCommand());
    const bash = new Bash({
      fs: this.fs,
      cwd: options.cwd,
      env: options.env,
      customCommands: commands,
      ...(this.network ? { network: this.network } : {}),
      executionLimits: {
        ...GENEROUS_LIMITS,
        maxExecutionTimeMs: finite ? Math.max(1, options.timeoutMs) : Number.POSITIVE_INFINITY,
        ...(options.loopLimit === undefined ? {} : loopLimits(options.loopLimit)),
        // Only a call nothing else could stop (no deadline, no signal) counts loops and commands.
        ...(finite || options.signal !== undefined ? UNCOUNTED_LOOPS : {}),
      },
    });
    bash.registerTransformPlugin(
      liveScriptPlugin({
        stdoutPath: detach[0]!.path,
        stderrPath: detach[1]!.path,
        ...(options.terminal ? { terminalCommand: TERMINAL_HELPER, tickCommand: LOOP_TICK, linePath } : {}),
      }),
    );
    try {
      let result: Awaited<ReturnType<Bash["exec"]>>;
      try {
        result = await bash.exec(script, {
          cwd: options.cwd,
          ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
          signal: stop.signal,
          rawScript: true,
        });
      } catch (error) {
        // just-bash lets a redirection's failed write end the whole script; the written-bytes
        // quota is the one such failure a script can cause, so it ends as a full disk would say.
        const message = error instanceof Error ? error.message : String(error);
        if (!message.startsWith("ENOSPC:")) throw error;
        for (const device of detach) device.flush();
        const limit = /\((\d+) bytes\)/u.exec(message)?.[1];
        const quota = limit ? ` (the files written in this run may hold ${limit} bytes)` : "";
        print("stderr", `bash: write error: No space left on device${quota}\n`);
        return { ...out, exitCode: 1, timedOut: false, interrupted: false, env: options.env };
      }
      for (const device of detach) device.flush();
      const reason = stopReason(stop.signal);
      const timedOut =
        reason === "deadline" || (result.exitCode === 124 && DEADLINE_MESSAGE.test(result.stderr));
      const interrupted = reason === "interrupt";
      const leftover = interrupted || timedOut ? result.stderr.replace(STOPPED_MESSAGE, "") : result.stderr;
      return {
        stdout: out.stdout + result.stdout,
        stderr: out.stderr + leftover,
        exitCode: interrupted
          ? STOP_EXIT_CODES.interrupt
          : timedOut
            ? STOP_EXIT_CODES.deadline
            : result.exitCode,
        timedOut,
        interrupted,
        env: { ...(result.env as Record<string, string>) },
      };
    } finally {
      for (const device of detach) device.release();
      if (options.terminal) await this.fs.rm(linePath, { force: true }).catch(() => undefined);
      stop.dispose();
    }
  }

  private async followSymlinks(path: string): Promise<string> {
    let current = path;
    for (let hops = 0; hops < 32; hops++) {
      const stat = await this.lstatOrNull(current);
      if (stat?.type !== "symlink") return current;
      const target = await this.fs.readlink(current);
      current = target.startsWith("/") ? target : `${parentOf(current)}/${target}`;
    }
    throw new SandboxError("ELOOP", path);
  }

  private async requireDirectory(directory: string, forPath: string): Promise<void> {
    const stat = await this.statOrNull(directory);
    if (!stat) throw new SandboxError("ENOENT", forPath);
    if (stat.type !== "directory") throw new SandboxError("ENOTDIR", forPath);
  }

  private async lstatOrNull(path: string): Promise<FileStat | null> {
    const stat = await this.fs.statIfExists(path, false);
    return stat ? toFileStat(stat) : null;
  }

  private async statOrNull(path: string): Promise<FileStat | null> {
    const stat = await this.fs.statIfExists(path, true);
    return stat ? toFileStat(stat) : null;
  }
}

/** One loop limit for every interpreter that counts its own loops. */
function loopLimits(limit: number) {
  return {
    maxLoopIterations: limit,
    maxAwkIterations: limit,
    maxSedIterations: limit,
    maxJqIterations: limit,
  };
}

function toFileStat(stat: {
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
  size: number;
  mtime: Date;
  mode: number;
  identity?: string;
}): FileStat {
  // just-bash names each stored version of an entry "memfs:<n>", new whenever the content is replaced.
  const version = stat.identity?.startsWith("memfs:") ? Number(stat.identity.slice(6)) : Number.NaN;
  return {
    type: stat.isSymbolicLink ? "symlink" : stat.isDirectory ? "directory" : "file",
    size: stat.size,
    mtimeMs: stat.mtime.getTime(),
    mode: stat.mode & 0o7777,
    ...(Number.isSafeInteger(version) ? { ino: version } : {}),
  };
}
