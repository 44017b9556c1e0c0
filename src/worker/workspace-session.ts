import { MemoryArtifacts } from "../core/artifacts.ts";
import { type Checkpoint, changeKind, type FileChange } from "../core/checkpoints.ts";
import { ToolFailure } from "../core/errors.ts";
import type { ToolEvent } from "../core/events.ts";
import type { ApprovalMode, CallInfo, Profile } from "../core/profile.ts";
import { type ApprovalDecision, type ApprovalRequest, type CallOutcome, Runtime } from "../core/runtime.ts";
import { deserializeWorkspace, diffSnapshots, type SerializedWorkspace } from "../sandbox/snapshot.ts";
import { StopBoard } from "../sandbox/stop-signal.ts";
import type { PtyRead, PtySession, Sandbox, SnapshotEntry } from "../sandbox/types.ts";
import type { SymbolStore } from "../tools/project/symbols.ts";
import type { WorkspaceMeta, WorkspaceStore } from "./store.ts";
import type {
  CallRequest,
  CheckpointInfo,
  FileContent,
  FileDiff,
  FileEntry,
  InterruptedCall,
  TerminalOptions,
  WatchNotice,
} from "./types.ts";

export interface SessionHooks {
  onEvent(event: ToolEvent): void;
  onWatch(notice: WatchNotice): void;
  /** Asks the person; undefined when nobody can be asked (then the call is denied). */
  askApproval(request: ApprovalRequest): Promise<ApprovalDecision> | undefined;
  /** "Always for this tool": remembered across reloads by the caller. */
  onAlwaysAllow(profile: string, tool: string): void;
}

export interface SessionOptions {
  store: WorkspaceStore;
  meta: WorkspaceMeta;
  sandbox: Sandbox;
  profiles: Profile[];
  approvals: Record<string, Record<string, ApprovalMode>>;
  hooks: SessionHooks;
  interrupted?: InterruptedCall;
  /** Where symbols_index keeps its parses across reloads. */
  symbols?: SymbolStore;
  /** Shared memory the page stops calls and terminal commands through; a private board when absent. */
  stops?: StopBoard;
}

const MAX_EDITOR_BYTES = 8 * 1024 * 1024;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * One open workspace: its sandbox filled from IndexedDB, a runtime resumed from its stored log and
 * checkpoints, and the persistence that keeps the store in step with every mutating call before
 * the call is acknowledged.
 */
export class WorkspaceSession {
  readonly meta: WorkspaceMeta;
  readonly sandbox: Sandbox;
  readonly runtime: Runtime;
  readonly restored: { files: number; events: number; checkpoints: number };
  readonly interrupted: CallOutcome | undefined;
  private readonly store: WorkspaceStore;
  private readonly hooks: SessionHooks;
  private readonly artifacts: MemoryArtifacts;
  /** The workspace as last stored: what terminal changes are found against. */
  private readonly mirror = new Map<string, SnapshotEntry>();
  private persistedCheckpoints: number;
  private pendingEvents: ToolEvent[] = [];
  private pendingArtifacts = new Set<string>();
  private writes: Promise<void> = Promise.resolve();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** The call running now, for the watchdog to record should it have to cut it off. */
  private currentCall: InterruptedCall | undefined;
  private callsInFlight = 0;
  private syncWanted = false;
  private readonly terminals = new Map<string, Terminal>();
  /** Where the page stops a running call (CALLS_CHANNEL) and each terminal's foreground command. */
  readonly stops: StopBoard;
  private readonly terminalChannels = new Map<string, number>();
  private closed = false;

  private constructor(
    options: SessionOptions,
    files: SnapshotEntry[],
    history: { events: ToolEvent[]; checkpoints: Checkpoint[] },
    artifacts: MemoryArtifacts,
    interrupted: CallOutcome | undefined,
  ) {
    this.meta = options.meta;
    this.sandbox = options.sandbox;
    this.store = options.store;
    this.hooks = options.hooks;
    this.stops = options.stops ?? StopBoard.create();
    this.artifacts = artifacts;
    this.interrupted = interrupted;
    for (const entry of files) this.mirror.set(entry.path, entry);
    this.persistedCheckpoints = history.checkpoints.length;
    this.restored = {
      files: files.filter((entry) => entry.type !== "directory").length,
      events: history.events.length,
      checkpoints: history.checkpoints.length,
    };
    this.runtime = new Runtime({
      sandbox: options.sandbox,
      profiles: options.profiles,
      session: options.meta.session,
      artifacts,
      approvalOverrides: options.approvals,
      history,
      approver: (request) => this.approve(request),
      persist: () => this.persist(),
      ...(options.symbols ? { services: { "symbols.store": options.symbols } } : {}),
      stops: this.stops,
      // The page learns the job a running call is stopped by (Cancel writes it into shared memory).
      onRun: (run) =>
        this.hooks.onWatch({
          requestId: run.requestId,
          state: "running",
          deadlineMs: run.deadlineMs,
          job: run.job,
          ...(this.currentCall ? { call: { ...this.currentCall, deadlineMs: run.deadlineMs } } : {}),
        }),
    });
    this.runtime.guards.push(({ tool, params }) => {
      const deadlineMs = typeof tool.deadlineMs === "function" ? tool.deadlineMs(params) : tool.deadlineMs;
      this.watchRunning(this.currentCall?.request.request_id ?? "", deadlineMs);
    });
    this.runtime.subscribe((event) => this.record(event));
    artifacts.onPut((path) => {
      this.pendingArtifacts.add(path);
      this.scheduleFlush();
    });
  }

  /** Loads a stored workspace into a sandbox and resumes its session. */
  static async open(options: SessionOptions): Promise<WorkspaceSession> {
    const { store, meta } = options;
    const { files, events, checkpoints, artifacts: stored } = await store.loadWorkspace(meta.id);
    await options.sandbox.restore({ entries: files });
    const artifacts = new MemoryArtifacts();
    for (const artifact of stored) artifacts.put(artifact.path, artifact.data);
    let interrupted: CallOutcome | undefined;
    if (options.interrupted) {
      const recorded = recordInterrupted(options, events, checkpoints);
      interrupted = recorded.outcome;
      await store.commit(meta.id, { events: recorded.events });
      events.push(...recorded.events);
    }
    return new WorkspaceSession(options, files, { events, checkpoints }, artifacts, interrupted);
  }

  async call(profile: string, request: CallRequest): Promise<CallOutcome> {
    const outcome = await this.runtime.invoke(profile, {
      tool: request.tool,
      params: request.params ?? {},
      ...(request.request_id !== undefined ? { request_id: request.request_id } : {}),
    });
    // The log is part of what a reload must bring back: its last lines are stored before the answer.
    await this.flush();
    return outcome;
  }

  events(): ToolEvent[] {
    return [...this.runtime.events.all()];
  }

  /** Every path in the workspace, folders included, in name order; git's own folder is left out. */
  async listFiles(): Promise<FileEntry[]> {
    const root = this.sandbox.workspaceRoot;
    const out: FileEntry[] = [];
    const walk = async (relative: string): Promise<void> => {
      const children = await this.sandbox.readdir(relative === "" ? root : `${root}/${relative}`);
      children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const child of children) {
        if (relative === "" && child.name === ".git") continue;
        const path = relative === "" ? child.name : `${relative}/${child.name}`;
        out.push({ path, type: child.type });
        if (child.type === "directory") await walk(path);
      }
    };
    await walk("");
    return out;
  }

  async readFile(path: string): Promise<FileContent> {
    const absolute = `${this.sandbox.workspaceRoot}/${cleanRelative(path)}`;
    const stat = await this.sandbox.stat(absolute);
    if (stat.type === "directory") throw new Error(`${path} is a folder; pick a file to open it.`);
    if (stat.size > MAX_EDITOR_BYTES)
      return { path, size: stat.size, text: null, binary: false, tooLarge: true };
    const bytes = await this.sandbox.readFile(absolute);
    const text = decodeText(bytes);
    return { path, size: bytes.length, text, binary: text === null, tooLarge: false };
  }

  checkpoints(): CheckpointInfo[] {
    return this.runtime.checkpoints.map((checkpoint) => ({
      step: checkpoint.step,
      requestId: checkpoint.requestId,
      tool: checkpoint.tool,
      files: checkpoint.changes.map((change) => ({
        path: change.path,
        change: changeKind(change),
        entry: (change.after ?? change.before)!.type,
      })),
    }));
  }

  /** What one call did to each file it touched. */
  diff(step: number): FileDiff[] {
    const checkpoint = this.runtime.checkpoints.find((candidate) => candidate.step === step);
    if (!checkpoint) throw new Error(`Step ${step} changed no files (or is not in this workspace).`);
    return checkpoint.changes
      .filter((change) => (change.after ?? change.before)?.type !== "directory")
      .map((change) => toFileDiff(checkpoint, change));
  }

  /** The latest call that changed a file, with the file before and after it. */
  lastChange(path: string): FileDiff | null {
    const relative = cleanRelative(path);
    for (let i = this.runtime.checkpoints.length - 1; i >= 0; i--) {
      const checkpoint = this.runtime.checkpoints[i]!;
      const change = checkpoint.changes.find((candidate) => candidate.path === relative);
      if (change) return toFileDiff(checkpoint, change);
    }
    return null;
  }

  async restoreBefore(step: number): Promise<CheckpointInfo> {
    const checkpoint = await this.runtime.restoreBefore(step);
    return this.checkpoints().find((info) => info.step === checkpoint.step)!;
  }

  listArtifacts(): string[] {
    return this.artifacts.list();
  }

  getArtifact(path: string): Uint8Array {
    const data = this.artifacts.get(path);
    if (!data) throw new Error(`No artifact ${path}.`);
    return data;
  }

  /** Replaces every file of the workspace (a session restore); the log records each path changed. */
  async replaceFiles(files: SerializedWorkspace): Promise<number> {
    const snapshot = deserializeWorkspace(files);
    await this.sandbox.restore(snapshot);
    return this.syncExternal("restore_workspace", snapshot.entries);
  }

  async openTerminal(options: TerminalOptions, onOutput?: (chunk: string) => void): Promise<string> {
    // A channel of its own: the page's Ctrl-C stops the terminal's command through shared memory,
    // even a busy loop that keeps this thread from reading the keystroke.
    const channel = this.stops.openChannel();
    let session: PtySession;
    try {
      session = await this.sandbox.pty("bash", {
        cols: options.cols,
        rows: options.rows,
        prompt: "$ ",
        ...(channel !== undefined ? { stops: { board: this.stops, channel } } : {}),
      });
    } catch (error) {
      if (channel !== undefined) this.stops.closeChannel(channel);
      throw error;
    }
    // Closed while its shell started: nobody would ever stop it.
    if (this.closed) {
      await session.kill();
      if (channel !== undefined) this.stops.closeChannel(channel);
      throw new Error(
        "The workspace was closed while its terminal opened; open one in the workspace now open.",
      );
    }
    const terminal = new Terminal(session, onOutput, () => this.requestSync());
    this.terminals.set(session.id, terminal);
    if (channel !== undefined) this.terminalChannels.set(session.id, channel);
    return session.id;
  }

  /** The stop channel of a terminal's foreground command (null: none, Ctrl-C goes by message only). */
  terminalChannel(id: string): number | null {
    this.terminal(id);
    return this.terminalChannels.get(id) ?? null;
  }

  /** Stops a call: queued or waiting for approval, it never runs; running, its signal is aborted. */
  cancel(requestId: string): boolean {
    return this.runtime.cancel(requestId);
  }

  terminal(id: string): Terminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw new Error(`Terminal ${id} is closed; open a new one.`);
    return terminal;
  }

  async closeTerminal(id: string): Promise<void> {
    await this.terminals.get(id)?.kill();
    this.terminals.delete(id);
    const channel = this.terminalChannels.get(id);
    if (channel !== undefined) this.stops.closeChannel(channel);
    this.terminalChannels.delete(id);
  }

  /** Stops terminals (freeing their stop channels) and writes what is still pending; the sandbox stays with the caller. */
  async close(): Promise<void> {
    this.closed = true;
    for (const id of [...this.terminals.keys()]) await this.closeTerminal(id);
    await this.flush();
  }

  /** Writes pending events and artifacts now. */
  flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    return this.enqueue(async () => {
      const events = this.pendingEvents;
      this.pendingEvents = [];
      const artifacts = this.takeArtifacts();
      if (events.length === 0 && artifacts.length === 0) return;
      await this.store.commit(this.meta.id, { events, artifacts });
    });
  }

  /**
   * Finds changes made outside the runtime (a person's terminal, a restore) by comparing the
   * sandbox with the stored workspace; logs them as file_changed and stores them.
   */
  async syncExternal(tool: string, known?: SnapshotEntry[]): Promise<number> {
    const after = known ? { entries: known } : await this.sandbox.snapshot();
    const changes = diffSnapshots({ entries: [...this.mirror.values()] }, after);
    if (changes.length === 0) return 0;
    for (const change of changes) {
      const size = (entry: SnapshotEntry | null) => (entry?.type === "file" ? entry.data.length : null);
      this.runtime.events.emit("file_changed", {
        tool,
        data: {
          path: change.path,
          change: changeKind(change),
          entry: (change.after ?? change.before)?.type,
          bytes_before: size(change.before),
          bytes_after: size(change.after),
        },
      });
    }
    await this.commitChanges(changes, []);
    return changes.length;
  }

  private requestSync(): void {
    if (this.closed) return;
    if (this.callsInFlight > 0) {
      // A call is recording its own changes; look again when it has finished.
      this.syncWanted = true;
      return;
    }
    this.syncWanted = false;
    void this.syncExternal("terminal").catch(() => undefined);
  }

  private record(event: ToolEvent): void {
    if (event.type === "tool_call_started") {
      this.currentCall = {
        profile: typeof event.data?.profile === "string" ? event.data.profile : "",
        request: {
          tool: event.tool ?? "",
          params: (event.params ?? {}) as Record<string, unknown>,
          request_id: event.request_id ?? "",
        },
        deadlineMs: 0,
        startedAt: event.ts,
      };
      this.callsInFlight++;
    }
    if (event.type === "tool_call_finished") {
      this.callsInFlight = Math.max(0, this.callsInFlight - 1);
      this.hooks.onWatch({ requestId: event.request_id ?? "", state: "done" });
      if (this.syncWanted) queueMicrotask(() => this.requestSync());
    }
    this.pendingEvents.push(event);
    this.scheduleFlush();
    this.hooks.onEvent(event);
  }

  /** Tells the watchdog a call runs against its deadline, with what to record if it must cut it off. */
  private watchRunning(requestId: string, deadlineMs: number): void {
    this.hooks.onWatch({
      requestId,
      state: "running",
      deadlineMs,
      ...(this.currentCall ? { call: { ...this.currentCall, deadlineMs } } : {}),
    });
  }

  private async approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.hooks.onWatch({ requestId: request.requestId, state: "waiting" });
    const asked = this.hooks.askApproval(request);
    const decision = asked ? await asked.catch(() => "deny" as const) : "deny";
    if (decision === "allow_always") this.hooks.onAlwaysAllow(request.profile, request.tool);
    // The guard armed the watchdog before asking; re-arm it now that the tool is about to run.
    const profile = this.runtime.profile(request.profile);
    const tool = profile.tools.find((candidate) => candidate.name === request.tool);
    if (tool && decision !== "deny") {
      const deadlineMs =
        typeof tool.deadlineMs === "function" ? tool.deadlineMs(request.params) : tool.deadlineMs;
      this.watchRunning(request.requestId, deadlineMs);
    }
    return decision;
  }

  /** The runtime's persist hook: every checkpoint not yet stored, with the log so far, in one transaction. */
  private async persist(): Promise<void> {
    const fresh = this.runtime.checkpoints.slice(this.persistedCheckpoints);
    this.persistedCheckpoints = this.runtime.checkpoints.length;
    await this.commitChanges(
      fresh.flatMap((checkpoint) => checkpoint.changes),
      fresh,
    );
  }

  private commitChanges(changes: FileChange[], checkpoints: Checkpoint[]): Promise<void> {
    clearTimeout(this.flushTimer);
    return this.enqueue(async () => {
      const events = this.pendingEvents;
      this.pendingEvents = [];
      await this.store.commit(this.meta.id, {
        changes,
        checkpoints,
        events,
        artifacts: this.takeArtifacts(),
      });
      for (const change of changes) {
        if (change.after) this.mirror.set(change.path, change.after);
        else this.mirror.delete(change.path);
      }
    });
  }

  private takeArtifacts(): { path: string; data: Uint8Array }[] {
    const paths = [...this.pendingArtifacts];
    this.pendingArtifacts.clear();
    return paths.map((path) => ({ path, data: this.artifacts.get(path)! }));
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== undefined || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush().catch(() => undefined);
    }, 0);
  }

  /** Store writes happen one after the other, in the order the steps happened. */
  private enqueue(write: () => Promise<void>): Promise<void> {
    const next = this.writes.then(write);
    this.writes = next.catch(() => undefined);
    return next;
  }
}

/** A person's shell on the sandbox; output is pushed to a listener or pulled with read(). */
export class Terminal {
  private exited = false;
  /** A command line was entered, or output that may end a command arrived, since the last look for changes. */
  private commandPending = false;
  private printed = false;

  constructor(
    private readonly session: PtySession,
    private readonly onOutput: ((chunk: string) => void) | undefined,
    private readonly onCommandDone: () => void,
  ) {
    if (onOutput) void this.pump(onOutput);
  }

  async write(data: string): Promise<void> {
    if (this.exited) throw new Error("The shell has exited; open a new terminal.");
    if (/[\r\n]/u.test(data)) this.commandPending = true;
    await this.session.write(data);
  }

  /** Pull mode: what the shell printed since the last read (push mode returns nothing here). */
  async read(yieldMs = 250): Promise<PtyRead> {
    if (this.onOutput) return { output: "", exited: this.exited, exitCode: this.session.exitCode() };
    const read = await this.session.read({ yieldMs });
    if (read.exited) this.exited = true;
    this.settled(read.output);
    return read;
  }

  resize(cols: number, rows: number): Promise<void> {
    return this.session.resize(cols, rows);
  }

  async kill(): Promise<void> {
    this.exited = true;
    await this.session.kill();
  }

  /** Polls the session inside the worker and forwards output, so the UI never polls across threads. */
  private async pump(onOutput: (chunk: string) => void): Promise<void> {
    while (!this.exited) {
      const read = await this.session.read({ yieldMs: 100 });
      if (read.output) onOutput(read.output);
      if (read.exited) this.exited = true;
      this.settled(read.output);
      if (!read.output) await new Promise((resolve) => setTimeout(resolve, 40));
    }
  }

  /**
   * Output that stops after a command line, or after a new line or a prompt, may mean a command
   * ended: time to look for file changes. Keystroke echoes alone do not count.
   */
  private settled(output: string): void {
    if (output !== "") {
      this.printed = true;
      if (/\n|\$ $/u.test(output)) this.commandPending = true;
      return;
    }
    if (!this.printed || !this.commandPending) return;
    this.printed = false;
    this.commandPending = false;
    this.onCommandDone();
  }
}

function recordInterrupted(
  options: SessionOptions,
  events: ToolEvent[],
  checkpoints: Checkpoint[],
): { outcome: CallOutcome; events: ToolEvent[] } {
  const interrupted = options.interrupted!;
  const { request } = interrupted;
  const requestId = request.request_id ?? "watchdog";
  let seq = events.at(-1)?.seq ?? 0;
  let step = 0;
  for (const checkpoint of checkpoints) step = Math.max(step, checkpoint.step);
  for (const event of events)
    if (typeof event.data?.step === "number") step = Math.max(step, event.data.step);
  step++;
  const now = new Date();
  const out: ToolEvent[] = [];
  const base = { session: options.meta.session };
  if (!events.some((event) => event.type === "tool_call_started" && event.request_id === requestId)) {
    out.push({
      ...base,
      seq: ++seq,
      ts: interrupted.startedAt,
      type: "tool_call_started",
      request_id: requestId,
      tool: request.tool,
      params: request.params,
    });
  }
  const seconds = interrupted.deadlineMs / 1000;
  const failure = new ToolFailure(
    "timeout",
    `${request.tool} did not finish within ${seconds} s and was cut off; the workspace is as it was after the last completed call.`,
    { timeout_sec: seconds, watchdog: true },
  );
  const info: CallInfo = {
    requestId,
    tool: request.tool,
    params: request.params,
    step,
    startedAt: new Date(interrupted.startedAt),
    endedAt: now,
  };
  const profile = options.profiles.find((candidate) => candidate.name === interrupted.profile);
  const envelope = profile
    ? profile.envelope.failure(info, failure)
    : { status: "error", error: { error_type: "timeout", message: failure.message } };
  const durationSec = (now.getTime() - info.startedAt.getTime()) / 1000;
  out.push({
    ...base,
    seq: ++seq,
    ts: now.toISOString(),
    type: "tool_call_finished",
    request_id: requestId,
    tool: request.tool,
    status: "error",
    duration_sec: durationSec,
    data: { envelope, step, watchdog: true },
  });
  return {
    events: out,
    outcome: {
      envelope,
      status: "error",
      step,
      requestId,
      tool: request.tool,
      durationSec,
      failure: { code: "timeout", message: failure.message, details: failure.details ?? {} },
      changes: [],
    },
  };
}

function toFileDiff(checkpoint: Checkpoint, change: FileChange): FileDiff {
  const text = (entry: SnapshotEntry | null) =>
    entry?.type === "file" ? decodeText(entry.data) : entry?.type === "symlink" ? `→ ${entry.target}` : null;
  const before = text(change.before);
  const after = text(change.after);
  const binary =
    (change.before?.type === "file" && before === null) || (change.after?.type === "file" && after === null);
  return {
    path: change.path,
    step: checkpoint.step,
    requestId: checkpoint.requestId,
    tool: checkpoint.tool,
    change: changeKind(change),
    before,
    after,
    binary,
  };
}

function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The UI hands relative paths; anything else is a bug worth a clear message, not a sandbox escape. */
function cleanRelative(path: string): string {
  const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new Error(`${path} leaves the workspace.`);
  return segments.join("/");
}
