import { recordBySnapshots } from "../sandbox/snapshot.ts";
import { CALLS_CHANNEL, StopBoard, stopReason } from "../sandbox/stop-signal.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { type ArtifactStore, MemoryArtifacts } from "./artifacts.ts";
import { type Checkpoint, changeKind, type FileChange, rewind } from "./checkpoints.ts";
import { asToolFailure, isToolFailure, ToolFailure } from "./errors.ts";
import { type Clock, EventLog, type EventType, systemClock, type ToolEvent } from "./events.ts";
import { gitSetupChange, gitSetupFailure, refuseGitSetupTarget } from "./git-setup.ts";
import type {
  ApprovalMode,
  CallInfo,
  FetchLike,
  Profile,
  RuntimeSettings,
  ToolCall,
  ToolContext,
  ToolKind,
  ToolSpec,
} from "./profile.ts";
import { validateParams } from "./schema.ts";
import { type ServiceRegistry, serviceRegistry } from "./tool-context.ts";
import { normalizeWorkspacePath, resolveWorkspacePath } from "./workspace-path.ts";

// Captured when the module loads: a stop is often noticed inside a running just-bash script, whose
// defense-in-depth blocks the global setTimeout while it runs.
const startTimer = globalThis.setTimeout.bind(globalThis);

export type ApprovalDecision = "allow" | "allow_always" | "deny";

export interface ApprovalRequest {
  profile: string;
  tool: string;
  kind: ToolKind;
  requestId: string;
  params: Record<string, unknown>;
}

/** Answers approval prompts: the UI asks the person, the CLI and tests answer by policy. */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** A check before approval (teacher's controls, read-only paths); throws a ToolFailure to refuse. */
export type Guard = (call: {
  profile: string;
  tool: ToolSpec;
  params: Record<string, unknown>;
}) => void | Promise<void>;

/** A check on what a call changed (read-only paths); throws a ToolFailure to undo and refuse it. */
export type ChangeGuard = (call: {
  profile: string;
  tool: ToolSpec;
  changes: FileChange[];
}) => void | Promise<void>;

export interface RuntimeOptions {
  sandbox: Sandbox;
  profiles: Profile[];
  session?: string;
  clock?: Clock;
  artifacts?: ArtifactStore;
  approver?: Approver;
  /** Per-profile, per-tool approval modes that override the profile's defaults. */
  approvalOverrides?: Record<string, Record<string, ApprovalMode>>;
  fetch?: FetchLike;
  settings?: Partial<RuntimeSettings>;
  /** Record before/after of each mutating call (file_changed events, checkpoints). Default true. */
  trackChanges?: boolean;
  /**
   * Keep each call's checkpoint (the before and after of every file it changed) for restoreBefore.
   * Default true; a host that never restores (the CLI) passes false, or a long session holds every
   * version of every file it wrote (ten rewrites of a 100 MB file: 2.4 GB).
   */
  keepCheckpoints?: boolean;
  /** Keep the event log in memory (events.all()); default true. The CLI's listeners write each away. */
  keepEvents?: boolean;
  /** Awaited after each mutating call and before its envelope is returned: nothing acknowledged is lost. */
  persist?: () => Promise<void>;
  /** Extra time past a tool's deadline before the runtime itself gives up on it. */
  deadlineGraceMs?: number;
  /** An earlier run of this session (after a reload): its log and checkpoints; steps continue after them. */
  history?: RuntimeHistory;
  /**
   * Shared memory through which another thread stops a running call (Cancel, Ctrl-C, a client's
   * cancel): each call runs as a job on CALLS_CHANNEL. A private board when absent.
   */
  stops?: StopBoard;
  /** Told when a call's tool starts running, with the job another thread stops it by. */
  onRun?(run: RunNotice): void;
  /** Services the host provides by key, before any tool makes its own ("symbols.store": parses kept across reloads). */
  services?: Record<string, unknown>;
}

/** A call whose tool has started: stop it with `stops.stop(CALLS_CHANNEL, job)`. */
export interface RunNotice {
  requestId: string;
  tool: string;
  job: number;
  deadlineMs: number;
}

export interface RuntimeHistory {
  events: readonly ToolEvent[];
  checkpoints: readonly Checkpoint[];
}

/** Everything about one finished call, for the UI and replay; `envelope` is what the dialect returns. */
export interface CallOutcome {
  envelope: unknown;
  status: "success" | "error";
  step: number;
  requestId: string;
  tool: string;
  /** How long the call ran, without the time it waited for a person's approval. */
  durationSec: number;
  /** How long it waited for a person's approval, when it asked for one. */
  approvalWaitSec?: number;
  data?: unknown;
  failure?: { code: string; message: string; details?: Record<string, unknown> };
  changes: FileChange[];
}

/**
 * The pipeline every call goes through, for every dialect:
 * validate → guard → approve → run with deadline → (the profile truncates) → record.
 * Calls run one at a time, in the order they arrive, so step numbers and artifacts are stable.
 */
export class Runtime {
  readonly sandbox: Sandbox;
  readonly events: EventLog;
  readonly artifacts: ArtifactStore;
  readonly settings: RuntimeSettings;
  readonly guards: Guard[] = [];
  /** Checks what a mutating call changed; a ToolFailure thrown here undoes the call's changes. */
  readonly changeGuards: ChangeGuard[] = [];
  readonly checkpoints: Checkpoint[] = [];
  private readonly profiles = new Map<string, Profile>();
  private readonly clock: Clock;
  private readonly approver: Approver | undefined;
  private readonly approvalOverrides: Record<string, Record<string, ApprovalMode>>;
  private readonly fetch: FetchLike | undefined;
  private readonly trackChanges: boolean;
  private readonly keepCheckpoints: boolean;
  private readonly persist: (() => Promise<void>) | undefined;
  private readonly graceMs: number;
  private readonly services: ServiceRegistry;
  /** Where stop requests for calls arrive (see src/sandbox/stop-signal.ts). */
  readonly stops: StopBoard;
  private readonly onRun: ((run: RunNotice) => void) | undefined;
  /** Calls started and not finished, by request id: what cancel() stops. */
  private readonly active = new Map<string, { cancel: AbortController; job?: number }>();
  /** Request ids cancelled before their call began. */
  private readonly cancelledEarly = new Set<string>();
  private step = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private nextRequest = 1;

  constructor(options: RuntimeOptions) {
    this.sandbox = options.sandbox;
    this.services = serviceRegistry(new Map(Object.entries(options.services ?? {})));
    for (const profile of options.profiles) this.profiles.set(profile.name, profile);
    this.clock = options.clock ?? systemClock;
    this.events = new EventLog(
      options.session ?? randomId(),
      this.clock,
      options.history?.events,
      options.keepEvents ?? true,
    );
    this.checkpoints.push(...(options.history?.checkpoints ?? []));
    this.step = lastStep(options.history);
    this.nextRequest = this.step + 1;
    this.artifacts = options.artifacts ?? new MemoryArtifacts();
    this.approver = options.approver;
    this.approvalOverrides = structuredClone(options.approvalOverrides ?? {});
    this.fetch = options.fetch;
    this.settings = { networkAllowList: [], ...options.settings };
    this.trackChanges = options.trackChanges ?? true;
    this.keepCheckpoints = options.keepCheckpoints ?? true;
    this.persist = options.persist;
    this.graceMs = options.deadlineGraceMs ?? 1000;
    // Git's setup (config, hooks, attributes) runs commands on the person's machine: no call changes it.
    this.changeGuards.push(({ changes }) => {
      const touched = gitSetupChange(changes);
      if (touched) throw gitSetupFailure(touched.path, touched.reason, true);
    });
    this.stops = options.stops ?? StopBoard.create();
    this.onRun = options.onRun;
  }

  /**
   * Stops a call: one waiting in the queue or for approval never runs; a running one sees its
   * signal aborted (busy loops included, within one poll). True when the call was known here.
   */
  cancel(requestId: string): boolean {
    const running = this.active.get(requestId);
    if (running) {
      if (running.job !== undefined) this.stops.stop(CALLS_CHANNEL, running.job);
      running.cancel.abort();
      return true;
    }
    this.cancelledEarly.add(requestId);
    return false;
  }

  /** Stops every call running now (the command line's orderly end on a signal). */
  cancelAll(): void {
    for (const requestId of [...this.active.keys()]) this.cancel(requestId);
  }

  profile(name: string): Profile {
    const profile = this.profiles.get(name);
    if (!profile) {
      throw new ToolFailure(
        "unknown_tool",
        `Unknown profile "${name}". Profiles: ${[...this.profiles.keys()].join(", ")}.`,
      );
    }
    return profile;
  }

  listProfiles(): Profile[] {
    return [...this.profiles.values()];
  }

  /** Calls a tool and returns the dialect's envelope. */
  async call(profileName: string, call: ToolCall): Promise<unknown> {
    return (await this.invoke(profileName, call)).envelope;
  }

  /** Calls a tool and returns the envelope with everything the UI and replay want to know. */
  invoke(profileName: string, call: ToolCall): Promise<CallOutcome> {
    const result = this.queue.then(() => this.run(profileName, call));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Sets how a tool's approval is decided from now on ("always allow" lands here). */
  setApproval(profile: string, tool: string, mode: ApprovalMode): void {
    this.approvalOverrides[profile] = { ...this.approvalOverrides[profile], [tool]: mode };
  }

  approvalMode(profile: Profile, tool: ToolSpec): ApprovalMode {
    if (tool.kind === "read") return "auto";
    return this.approvalOverrides[profile.name]?.[tool.name] ?? profile.approval[tool.kind];
  }

  /**
   * Closes what calls left open (PTY sessions and any other disposable service), after the calls
   * already queued have finished. The sandbox stays: whoever created it disposes it.
   */
  dispose(): Promise<void> {
    const result = this.queue.then(() => this.services.dispose());
    this.queue = result.catch(() => undefined);
    return result;
  }

  subscribe(listener: (event: ToolEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * Puts the workspace back as it was just before call `step` (and every later call), itself as
   * a checkpoint, so the restore can be undone by restoring to before it.
   */
  restoreBefore(step: number): Promise<Checkpoint> {
    const result = this.queue.then(async () => {
      const later = this.checkpoints.filter((checkpoint) => checkpoint.step >= step);
      const finish = await this.recordChanges();
      await rewind(this.sandbox, later);
      const changes = await finish();
      const checkpoint: Checkpoint = {
        step: ++this.step,
        requestId: `restore-${step}`,
        tool: "restore",
        changes,
      };
      this.checkpoints.push(checkpoint);
      this.events.emit("checkpoint_restored", {
        data: { before_step: step, step: checkpoint.step, files: changes.map((change) => change.path) },
      });
      this.emitChanges(checkpoint.requestId, "restore", changes);
      await this.persist?.();
      return checkpoint;
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async run(profileName: string, raw: ToolCall): Promise<CallOutcome> {
    const step = ++this.step;
    const requestId = raw.request_id ?? `req-${this.nextRequest++}`;
    const startedAt = this.clock.now();
    const started = performance.now();
    const rawParams = (raw.params ?? {}) as Record<string, unknown>;
    const levels = this.profiles.get(profileName)?.logLevels;
    this.events.emit("tool_call_started", {
      ...(levels ? { level: levels.request } : {}),
      request_id: requestId,
      tool: raw.tool,
      params: rawParams,
      data: { profile: profileName, step },
    });

    let profile: Profile | undefined;
    let info: CallInfo = {
      requestId,
      tool: raw.tool,
      params: rawParams,
      step,
      startedAt,
      endedAt: startedAt,
    };
    let changes: FileChange[] = [];
    const waited = { ms: 0, asked: false };
    const active = { cancel: new AbortController() } as { cancel: AbortController; job?: number };
    this.active.set(requestId, active);
    try {
      profile = this.profile(profileName);
      if (this.cancelledEarly.delete(requestId)) throw cancelledFailure(raw.tool);
      const tool = profile.tools.find((candidate) => candidate.name === raw.tool);
      if (!tool) {
        throw new ToolFailure(
          "unknown_tool",
          `Unknown tool "${raw.tool}" in the ${profile.name} profile. Tools: ${profile.tools.map((t) => t.name).join(", ")}.`,
        );
      }
      tool.checkSent?.(rawParams);
      const params = await validateParams(tool.inputSchema, rawParams);
      info = { ...info, params };
      for (const name of tool.pathParams ?? []) {
        if (typeof params[name] !== "string") continue;
        const relative = normalizeWorkspacePath(
          params[name],
          this.sandbox.workspaceRoot,
          name,
          profile.parentSegments,
        );
        if (tool.kind === "write") refuseGitSetupTarget(relative);
      }
      for (const guard of this.guards) await guard({ profile: profile.name, tool, params });
      await tool.guard?.(params, { sandbox: this.sandbox });
      waited.asked = this.approvalMode(profile, tool) === "ask";
      const askedAt = performance.now();
      try {
        await untilCancelled(this.approve(profile, tool, requestId, params), active.cancel.signal, tool.name);
      } finally {
        if (waited.asked) {
          waited.ms = performance.now() - askedAt;
          // Execution begins once the person has answered: the wait is not the tool's time.
          info = { ...info, startedAt: this.clock.now() };
        }
      }

      const recordsChanges = tool.kind !== "read" && (this.trackChanges || this.changeGuards.length > 0);
      const finishRecording = recordsChanges ? await this.recordChanges() : null;
      let data: unknown;
      let failure: ToolFailure | undefined;
      // What the tool reports (PATCH_APPLIED, plan_updated) is logged once its changes are accepted.
      const reported: { type: EventType; data: Record<string, unknown> }[] = [];
      try {
        data = await this.runWithDeadline(profile, tool, params, requestId, step, active, reported);
      } catch (error) {
        failure = asToolFailure(error);
      }
      if (finishRecording) {
        changes = await finishRecording();
        const refusal = await this.checkChanges(profile.name, tool, changes);
        if (refusal) {
          // A change no guard could foresee (a shell command, a patch) is undone, then refused.
          await rewind(this.sandbox, [{ step, requestId, tool: tool.name, changes }]);
          changes = [];
          failure = refusal;
          // Undone: a patch refused by a read-only path was never applied.
          reported.length = 0;
        }
        for (const event of reported)
          this.events.emit(event.type, { request_id: requestId, tool: tool.name, data: event.data });
        reported.length = 0;
        if (changes.length > 0) {
          if (this.keepCheckpoints) this.checkpoints.push({ step, requestId, tool: tool.name, changes });
          this.emitChanges(requestId, tool.name, changes);
          await this.persist?.();
        }
      }
      for (const event of reported)
        this.events.emit(event.type, { request_id: requestId, tool: tool.name, data: event.data });
      if (failure) throw failure;
      info = { ...info, endedAt: this.clock.now() };
      const envelope = profile.envelope.success(info, data);
      // The dialect's own notion of failure: a baseagent command that exits 1 answers success: false.
      const status = profile.envelope.failed(envelope) ? "error" : "success";
      return this.finish(profileName, info, started, waited, { envelope, status, data, changes });
    } catch (error) {
      const failure = asToolFailure(error);
      info = { ...info, endedAt: this.clock.now() };
      const envelope = profile
        ? profile.envelope.failure(info, failure)
        : { status: "error", error: { error_type: failure.code, message: failure.message } };
      return this.finish(profileName, info, started, waited, {
        envelope,
        status: "error",
        failure: {
          code: failure.code,
          message: failure.message,
          ...(failure.details ? { details: failure.details } : {}),
        },
        changes,
      });
    } finally {
      this.active.delete(requestId);
    }
  }

  private async checkChanges(
    profile: string,
    tool: ToolSpec,
    changes: FileChange[],
  ): Promise<ToolFailure | undefined> {
    try {
      for (const guard of this.changeGuards) await guard({ profile, tool, changes });
      return undefined;
    } catch (error) {
      return asToolFailure(error);
    }
  }

  private recordChanges(): Promise<() => Promise<FileChange[]>> {
    return this.sandbox.recordChanges?.() ?? recordBySnapshots(this.sandbox);
  }

  private finish(
    profileName: string,
    info: CallInfo,
    started: number,
    waited: { ms: number; asked: boolean },
    outcome: Omit<CallOutcome, "step" | "requestId" | "tool" | "durationSec" | "approvalWaitSec">,
  ): CallOutcome {
    const seconds = (ms: number) => Math.round(ms * 1000) / 1_000_000;
    const durationSec = seconds(performance.now() - started - waited.ms);
    const approvalWaitSec = waited.asked ? seconds(waited.ms) : undefined;
    const levels = this.profiles.get(profileName)?.logLevels;
    this.events.emit("tool_call_finished", {
      ...(levels ? { level: levels.response } : {}),
      request_id: info.requestId,
      tool: info.tool,
      status: outcome.status,
      duration_sec: durationSec,
      ...(approvalWaitSec !== undefined ? { approval_wait_sec: approvalWaitSec } : {}),
      data: {
        envelope: outcome.envelope,
        step: info.step,
        // The canonical failure code, whatever the dialect calls it (a lesson tells its own refusals apart).
        ...(outcome.failure ? { error_code: outcome.failure.code } : {}),
      },
    });
    return {
      ...outcome,
      step: info.step,
      requestId: info.requestId,
      tool: info.tool,
      durationSec,
      ...(approvalWaitSec !== undefined ? { approvalWaitSec } : {}),
    };
  }

  private emitChanges(requestId: string, tool: string, changes: FileChange[]): void {
    for (const change of changes) {
      const size = (entry: FileChange["before"]) => (entry?.type === "file" ? entry.data.length : null);
      this.events.emit("file_changed", {
        request_id: requestId,
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
  }

  private async approve(
    profile: Profile,
    tool: ToolSpec,
    requestId: string,
    params: Record<string, unknown>,
  ): Promise<void> {
    const mode = this.approvalMode(profile, tool);
    if (mode === "auto") return;
    if (mode === "deny") {
      this.events.emit("approval_denied", { request_id: requestId, tool: tool.name, data: { by: "policy" } });
      throw new ToolFailure("approval_denied", `${tool.name} is not allowed by the approval policy.`, {
        policy: "deny",
      });
    }
    this.events.emit("approval_requested", { request_id: requestId, tool: tool.name, params });
    const decision = this.approver
      ? await this.approver({ profile: profile.name, tool: tool.name, kind: tool.kind, requestId, params })
      : "deny";
    if (decision === "deny") {
      this.events.emit("approval_denied", { request_id: requestId, tool: tool.name, data: { by: "user" } });
      throw new ToolFailure(
        "approval_denied",
        `The user denied ${tool.name}. Ask them why, or try a different approach.`,
        { policy: "ask" },
      );
    }
    if (decision === "allow_always") this.setApproval(profile.name, tool.name, "auto");
    this.events.emit("approval_granted", {
      request_id: requestId,
      tool: tool.name,
      data: { always: decision === "allow_always" },
    });
  }

  private async runWithDeadline(
    profile: Profile,
    tool: ToolSpec,
    params: Record<string, unknown>,
    requestId: string,
    step: number,
    active: { cancel: AbortController; job?: number },
    reported: { type: EventType; data: Record<string, unknown> }[],
  ): Promise<unknown> {
    const deadlineMs = typeof tool.deadlineMs === "function" ? tool.deadlineMs(params) : tool.deadlineMs;
    const job = this.stops.nextJob(CALLS_CHANNEL);
    active.job = job;
    this.stops.begin(CALLS_CHANNEL, job);
    // Aborted when another thread names this job, when cancel() is called, or at the deadline:
    // tools and the sandbox read it synchronously, so busy loops stop too.
    const stop = this.stops.signal(CALLS_CHANNEL, job, {
      deadlineAt: Date.now() + deadlineMs,
      parents: [active.cancel.signal],
    });
    const context: ToolContext = {
      sandbox: this.sandbox,
      profile: profile.name,
      tool: tool.name,
      requestId,
      step,
      signal: stop.signal,
      deadlineMs,
      clock: this.clock,
      artifacts: this.artifacts,
      resolve: (path, options) =>
        resolveWorkspacePath(this.sandbox, path, {
          symlinks: profile.symlinks,
          ...(profile.parentSegments ? { parentSegments: profile.parentSegments } : {}),
          ...options,
        }),
      emit: (type, data) => {
        reported.push({ type, data });
      },
      fetch: this.fetch,
      services: this.services,
      settings: this.settings,
    };
    this.onRun?.({ requestId, tool: tool.name, job, deadlineMs });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timeoutFailure(tool.name, deadlineMs)), deadlineMs + this.graceMs);
    });
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const cancelled = new Promise<never>((_, reject) => {
      // A stopped tool gets a moment to return what it has (a command's output so far).
      stop.signal.addEventListener("abort", () => {
        if (stopReason(stop.signal) === "interrupt")
          graceTimer = startTimer(() => reject(cancelledFailure(tool.name)), this.graceMs);
      });
    });
    try {
      return await Promise.race([tool.run(params, context), late, cancelled]);
    } catch (error) {
      // A tool that gave up because its signal was aborted failed for that reason.
      const reason = stopReason(stop.signal);
      if (reason === "deadline" && !isToolFailure(error)) throw timeoutFailure(tool.name, deadlineMs);
      if (reason === "interrupt" && (!isToolFailure(error) || error.code === "timeout"))
        throw cancelledFailure(tool.name);
      throw error;
    } finally {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      stop.dispose();
      this.stops.begin(CALLS_CHANNEL, 0);
    }
  }
}

function timeoutFailure(tool: string, deadlineMs: number): ToolFailure {
  return new ToolFailure(
    "timeout",
    `${tool} did not finish within ${formatSeconds(deadlineMs)} and was stopped.`,
    {
      timeout_sec: deadlineMs / 1000,
    },
  );
}

function cancelledFailure(tool: string): ToolFailure {
  return new ToolFailure(
    "cancelled",
    `${tool} was cancelled before it finished; nothing after the cancel ran.`,
  );
}

/** Settles as `work` does, or fails as cancelled once `signal` aborts (an approval nobody answers). */
function untilCancelled<T>(work: Promise<T>, signal: AbortSignal, tool: string): Promise<T> {
  if (signal.aborted) return Promise.reject(cancelledFailure(tool));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelledFailure(tool));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The highest step an earlier run used, from its checkpoints and its finished calls. */
function lastStep(history: RuntimeHistory | undefined): number {
  let step = 0;
  for (const checkpoint of history?.checkpoints ?? []) step = Math.max(step, checkpoint.step);
  for (const event of history?.events ?? []) {
    const recorded = event.data?.step;
    if (typeof recorded === "number") step = Math.max(step, recorded);
  }
  return step;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function randomId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
