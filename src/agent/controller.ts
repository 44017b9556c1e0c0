import type { ToolCall } from "../core/profile.ts";
import type { CallOutcome, Runtime } from "../core/runtime.ts";
import { exportSession, type RedactedText } from "../session/export.ts";
import type { SessionFile, SessionMeta } from "../session/format.ts";
import { agentMeta, type RecordingState, SessionRecorder } from "../session/record.ts";
import { type ShareResult, shareSession } from "../session/share.ts";
import { createProvider } from "./create-provider.ts";
import type { ProviderErrorKind } from "./errors.ts";
import { type AgentResult, type AgentStopReason, DEFAULT_MAX_ITERATIONS, runAgent } from "./loop.ts";
import { type FetchLike, type ProviderSettings, settingsProblems } from "./provider.ts";
import { type TokenUsage, type TranscriptEntry, totalUsage } from "./transcript.ts";

export type AgentStatus = "idle" | "running" | "stopping";

/** A provider failure as plain data (it crosses the worker boundary). */
export interface AgentErrorInfo {
  kind: ProviderErrorKind;
  message: string;
  status?: number;
  providerMessage?: string;
  retryAfterSec?: number;
}

/** The end of one run, as plain data. */
export interface AgentRunSummary {
  stopReason: AgentStopReason;
  iterations: number;
  /** This run's tokens, per model turn and in total. */
  usage: { turns: (TokenUsage | null)[]; total: TokenUsage };
  /** The whole conversation's tokens so far. */
  conversationUsage: TokenUsage;
  finalText: string;
  error?: AgentErrorInfo;
}

/** What the agent pane shows as it happens. */
export type AgentUpdate =
  | { type: "status"; status: AgentStatus }
  | { type: "turn"; iteration: number }
  | { type: "text"; delta: string }
  | { type: "tool_call_start"; id: string; name: string }
  | { type: "entry"; entry: TranscriptEntry }
  | { type: "finished"; summary: AgentRunSummary }
  | { type: "reset" };

/** A conversation as plain data, to keep across reloads and worker restarts (never the key). */
export interface ConversationState {
  profile: string;
  transcript: TranscriptEntry[];
  firstTask?: string;
  lastStopReason?: AgentStopReason;
}

/** Where a controller keeps its conversation; the recording (a workspace snapshot) is saved once per conversation. */
export interface ConversationStore {
  saveConversation(state: ConversationState): Promise<void>;
  saveRecording(recording: RecordingState | null): Promise<void>;
}

export interface AgentControllerOptions {
  runtime: Runtime;
  /** The page's (or worker's) fetch; tests pass a scripted one. */
  fetch: FetchLike;
  /** The profile the agent starts with. */
  profile: string;
  /** Per profile, the only tools the model gets (a lesson's subset); every tool where absent. */
  tools?: Record<string, readonly string[]>;
  /** The sandbox backend, for sessions ("embedded" or "webcontainer"). */
  sandbox?: string;
  /** How calls reach the runtime (the worker flushes its log after each); runtime.invoke by default. */
  invoke?: (profile: string, call: ToolCall) => Promise<CallOutcome>;
  /** Keeps the conversation as it grows; failures to save are reported to `onSaveError`, never thrown. */
  store?: ConversationStore;
  onSaveError?: (error: unknown) => void;
  /** A conversation saved before a reload, with its recording, to go on with. */
  restore?: { conversation: ConversationState; recording: RecordingState | null };
}

/**
 * One conversation with a model over one runtime, for the UI (hosted where the runtime is, in the
 * worker): the settings with the key held in memory, send / continue / stop, live updates, and the
 * conversation as a session to export or share. Everything it hands out is plain data.
 */
export class AgentController {
  private readonly runtime: Runtime;
  private readonly fetch: FetchLike;
  private readonly sandbox: string;
  private readonly invoke: AgentControllerOptions["invoke"];
  private readonly store: ConversationStore | undefined;
  private readonly tools: Record<string, readonly string[]> | undefined;
  private readonly onSaveError: (error: unknown) => void;
  private saving: Promise<void> = Promise.resolve();
  private settings: ProviderSettings | null = null;
  private currentProfile: string;
  private conversation: TranscriptEntry[] = [];
  private recorder: SessionRecorder | null = null;
  private firstTask: string | undefined;
  private lastStopReason: AgentStopReason | undefined;
  private abort: AbortController | null = null;
  private currentStatus: AgentStatus = "idle";
  private readonly listeners = new Set<(update: AgentUpdate) => void>();

  constructor(options: AgentControllerOptions) {
    this.runtime = options.runtime;
    this.fetch = options.fetch;
    this.sandbox = options.sandbox ?? "embedded";
    this.currentProfile = options.profile;
    this.invoke = options.invoke;
    this.store = options.store;
    this.tools = options.tools;
    this.onSaveError = options.onSaveError ?? (() => undefined);
    this.runtime.profile(options.profile);
    if (options.restore) {
      const { conversation, recording } = options.restore;
      this.runtime.profile(conversation.profile);
      this.currentProfile = conversation.profile;
      this.conversation = structuredClone(conversation.transcript);
      this.firstTask = conversation.firstTask;
      this.lastStopReason = conversation.lastStopReason;
      this.recorder = recording ? SessionRecorder.resume(this.runtime, recording) : null;
    }
  }

  /** The conversation as plain data (what the store keeps). */
  conversationState(): ConversationState {
    return {
      profile: this.currentProfile,
      transcript: structuredClone(this.conversation),
      ...(this.firstTask !== undefined ? { firstTask: this.firstTask } : {}),
      ...(this.lastStopReason !== undefined ? { lastStopReason: this.lastStopReason } : {}),
    };
  }

  /** Resolves when everything handed to the store so far is saved. */
  saved(): Promise<void> {
    return this.saving;
  }

  /** Sets how to reach the model; the key stays in this object's memory only. Throws on bad settings. */
  configure(settings: ProviderSettings): void {
    const problems = settingsProblems(settings);
    if (problems.length > 0) throw new Error(problems.join(" "));
    this.settings = { ...settings };
  }

  get configured(): boolean {
    return this.settings !== null;
  }

  get status(): AgentStatus {
    return this.currentStatus;
  }

  get profile(): string {
    return this.currentProfile;
  }

  get transcript(): readonly TranscriptEntry[] {
    return this.conversation;
  }

  /** Tokens of the whole conversation so far. */
  get usage(): TokenUsage {
    return totalUsage(this.conversation);
  }

  subscribe(listener: (update: AgentUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Switches the tool API; a conversation begun with another profile's tools starts over. */
  setProfile(profile: string): void {
    this.runtime.profile(profile);
    if (profile === this.currentProfile) return;
    this.requireIdle();
    this.currentProfile = profile;
    this.newConversation();
  }

  /** Forgets the conversation (the workspace stays as it is); the next task starts a new session. */
  newConversation(): void {
    this.requireIdle();
    this.conversation = [];
    this.recorder = null;
    this.firstTask = undefined;
    this.lastStopReason = undefined;
    this.save({ recording: true });
    this.emit({ type: "reset" });
  }

  /** Gives the agent a task (or a follow-up) and runs until it is done, stopped, limited or failing. */
  send(task: string, options: { maxIterations?: number } = {}): Promise<AgentRunSummary> {
    return this.run(task, options);
  }

  /** Runs on from where the last run ended (after a stop, a limit or an error), without a new task. */
  continue(options: { maxIterations?: number } = {}): Promise<AgentRunSummary> {
    return this.run(undefined, options);
  }

  /** Stops the run: the stream is cut, the call in progress finishes, later calls are not run. */
  stop(): void {
    if (this.currentStatus !== "running" || !this.abort) return;
    this.setStatus("stopping");
    this.abort.abort(new DOMException("Stopped by the person", "AbortError"));
  }

  /** The conversation so far as a session (initial workspace, events, transcript); never the key. */
  session(meta: Partial<SessionMeta> = {}): SessionFile {
    if (!this.recorder) throw new Error("There is no conversation to save yet: give the agent a task first.");
    const stopReason = this.lastStopReason;
    return this.recorder.finish({
      transcript: this.conversation,
      meta: {
        title: meta.title ?? titleOf(this.firstTask ?? "Agent session"),
        ...(this.firstTask !== undefined ? { task: this.firstTask } : {}),
        ...(this.settings
          ? {
              agent: agentMeta(this.settings, {
                ...(stopReason ? { stopReason } : {}),
                usage: this.usage,
              }),
            }
          : {}),
        ...meta,
      },
    });
  }

  /** The session as JSON text, with the key in use (and any key-shaped text) redacted. */
  exportSession(options: { pretty?: boolean; meta?: Partial<SessionMeta> } = {}): RedactedText {
    return exportSession(this.session(options.meta), {
      secrets: [this.settings?.apiKey],
      ...(options.pretty !== undefined ? { pretty: options.pretty } : {}),
    });
  }

  /** A share link for the session, or its file when too long for one; redacted like an export. */
  share(pageUrl: string, meta: Partial<SessionMeta> = {}): ShareResult {
    return shareSession(this.session(meta), pageUrl, { secrets: [this.settings?.apiKey] });
  }

  private async run(task: string | undefined, options: { maxIterations?: number }): Promise<AgentRunSummary> {
    this.requireIdle();
    const settings = this.settings;
    if (!settings)
      throw new Error("Connect a model first: choose a provider, a model and (for hosted ones) a key.");
    if (task === undefined && this.conversation.length === 0) {
      throw new Error("There is nothing to continue: give the agent a task first.");
    }
    this.abort = new AbortController();
    this.setStatus("running");
    try {
      if (!this.recorder) {
        this.recorder = await SessionRecorder.start(this.runtime, {
          profile: this.currentProfile,
          sandbox: this.sandbox,
        });
        this.firstTask = task;
        this.save({ recording: true });
      }
      const result = await runAgent({
        runtime: this.runtime,
        profile: this.currentProfile,
        ...(this.tools?.[this.currentProfile] ? { tools: this.tools[this.currentProfile] } : {}),
        provider: createProvider(settings, this.fetch),

        transcript: this.conversation,
        ...(this.invoke ? { invoke: this.invoke } : {}),
        ...(task !== undefined ? { task } : {}),
        maxIterations: options.maxIterations ?? DEFAULT_MAX_ITERATIONS,
        signal: this.abort.signal,
        handlers: {
          onTurnStart: (iteration) => this.emit({ type: "turn", iteration }),
          onText: (delta) => this.emit({ type: "text", delta }),
          onToolCallStart: (call) => this.emit({ type: "tool_call_start", id: call.id, name: call.name }),
          onEntry: (entry) => {
            this.conversation.push(entry);
            this.save({ recording: false });
            this.emit({ type: "entry", entry });
          },
        },
      });
      // The loop's transcript is the conversation the handlers built, entry by entry.
      this.conversation = result.transcript;
      this.lastStopReason = result.stopReason;
      this.save({ recording: false });
      const summary = summarize(result, this.usage);
      this.emit({ type: "finished", summary });
      return summary;
    } finally {
      this.abort = null;
      this.setStatus("idle");
    }
  }

  /** Hands the conversation (and, when it changed, the recording) to the store, one save after another. */
  private save(what: { recording: boolean }): void {
    const store = this.store;
    if (!store) return;
    const conversation = this.conversationState();
    const recording = what.recording ? (this.recorder?.state() ?? null) : undefined;
    this.saving = this.saving
      .then(async () => {
        if (recording !== undefined) await store.saveRecording(recording);
        await store.saveConversation(conversation);
      })
      .catch((error: unknown) => this.onSaveError(error));
  }

  private requireIdle(): void {
    if (this.currentStatus !== "idle") throw new Error("The agent is running: stop it first.");
  }

  private setStatus(status: AgentStatus): void {
    this.currentStatus = status;
    this.emit({ type: "status", status });
  }

  private emit(update: AgentUpdate): void {
    for (const listener of this.listeners) listener(update);
  }
}

function summarize(result: AgentResult, conversationUsage: TokenUsage): AgentRunSummary {
  const error = result.error;
  return {
    stopReason: result.stopReason,
    iterations: result.iterations,
    usage: result.usage,
    conversationUsage,
    finalText: result.finalText,
    ...(error
      ? {
          error: {
            kind: error.kind,
            message: error.message,
            ...(error.status !== undefined ? { status: error.status } : {}),
            ...(error.providerMessage !== undefined ? { providerMessage: error.providerMessage } : {}),
            ...(error.retryAfterSec !== undefined ? { retryAfterSec: error.retryAfterSec } : {}),
          },
        }
      : {}),
  };
}

function titleOf(task: string): string {
  const line = task.trim().split("\n")[0] ?? "";
  if (line.length <= 80) return line || "Agent session";
  // Cut at a word boundary: a title ending in half a word reads as a typo.
  const cut = line.slice(0, 80);
  const space = cut.lastIndexOf(" ");
  return `${(space > 40 ? cut.slice(0, space) : cut).replace(/[\s,;:—-]+$/u, "")}…`;
}
