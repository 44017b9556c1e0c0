import type { ProviderSettings } from "../agent/provider.ts";
import type { TranscriptEntry } from "../agent/transcript.ts";
import type { ToolEvent } from "../core/events.ts";
import type { Runtime } from "../core/runtime.ts";
import { type SerializedWorkspace, serializeWorkspace } from "../sandbox/snapshot.ts";
import { SESSION_FORMAT, SESSION_VERSION, type SessionFile, type SessionMeta } from "./format.ts";

export interface SessionParts {
  profile: string;
  sandbox?: string;
  /** The workspace before the first recorded call. */
  workspace: SerializedWorkspace;
  events: readonly ToolEvent[];
  transcript?: readonly TranscriptEntry[];
  meta: Partial<SessionMeta> & { title: string };
  /** The clock for createdAt; the system clock by default. */
  now?: () => Date;
}

/** Assembles a session file from its parts (copies them: later changes to the run do not leak in). */
export function buildSession(parts: SessionParts): SessionFile {
  const events = structuredClone([...parts.events]);
  const firstCall = events.find((event) => event.type === "tool_call_started");
  const firstStep = typeof firstCall?.data?.step === "number" ? firstCall.data.step : 1;
  return {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    profile: parts.profile,
    sandbox: parts.sandbox ?? "embedded",
    workspace: structuredClone(parts.workspace),
    events,
    transcript: structuredClone([...(parts.transcript ?? [])]),
    meta: {
      createdAt: (parts.now?.() ?? new Date()).toISOString(),
      ...(events[0] ? { sessionId: events[0].session } : {}),
      ...(firstStep !== 1 ? { firstStep } : {}),
      ...parts.meta,
    },
  };
}

/** The agent part of a session's meta from provider settings: model and where, never the key. */
export function agentMeta(
  settings: Pick<ProviderSettings, "kind" | "model" | "baseUrl">,
  run?: { stopReason?: string; iterations?: number; usage?: { input: number; output: number } },
): NonNullable<SessionMeta["agent"]> {
  return {
    provider: settings.kind,
    model: settings.model,
    ...(safeBaseUrl(settings.baseUrl) ? { baseUrl: safeBaseUrl(settings.baseUrl) } : {}),
    ...(run?.stopReason !== undefined ? { stopReason: run.stopReason } : {}),
    ...(run?.iterations !== undefined ? { iterations: run.iterations } : {}),
    ...(run?.usage ? { usage: { ...run.usage } } : {}),
  };
}

/** Origin and path of a URL: no credentials, query or fragment (where proxies put keys). */
export function safeBaseUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/u, "");
  } catch {
    return undefined;
  }
}

/** What a recording needs to go on after a reload: kept beside the conversation it belongs to. */
export interface RecordingState {
  profile: string;
  sandbox: string;
  workspace: SerializedWorkspace;
  /** ISO time recording began. */
  startedAt: string;
  /** The seq of the first event that belongs to the session (event numbers survive reloads). */
  firstSeq: number;
}

/**
 * Records a session from a runtime: the workspace is captured when recording starts, and
 * `finish` takes every event emitted since.
 */
export class SessionRecorder {
  readonly runtime: Runtime;
  private readonly recording: RecordingState;

  private constructor(runtime: Runtime, recording: RecordingState) {
    this.runtime = runtime;
    this.recording = recording;
  }

  /** Starts recording now: call it before the first call you want in the session. */
  static async start(
    runtime: Runtime,
    options: { profile: string; sandbox?: string; now?: () => Date },
  ): Promise<SessionRecorder> {
    const startedAt = (options.now?.() ?? new Date()).toISOString();
    const workspace = serializeWorkspace(await runtime.sandbox.snapshot());
    const firstSeq = (runtime.events.all().at(-1)?.seq ?? 0) + 1;
    return new SessionRecorder(runtime, {
      profile: options.profile,
      sandbox: options.sandbox ?? "embedded",
      workspace,
      startedAt,
      firstSeq,
    });
  }

  /** Goes on with a recording begun before a reload, on the runtime that resumed its log. */
  static resume(runtime: Runtime, recording: RecordingState): SessionRecorder {
    return new SessionRecorder(runtime, structuredClone(recording));
  }

  /** What to keep to resume this recording later. */
  state(): RecordingState {
    return structuredClone(this.recording);
  }

  get profile(): string {
    return this.recording.profile;
  }

  get workspace(): SerializedWorkspace {
    return this.recording.workspace;
  }

  /** When recording began: the session's createdAt, however often it is built. */
  get startedAt(): Date {
    return new Date(this.recording.startedAt);
  }

  /** The events recorded so far. */
  events(): ToolEvent[] {
    return this.runtime.events.all().filter((event) => event.seq >= this.recording.firstSeq);
  }

  /** The session as recorded so far; may be called again as the run goes on. */
  finish(options: { transcript?: readonly TranscriptEntry[]; meta: SessionParts["meta"] }): SessionFile {
    return buildSession({
      profile: this.recording.profile,
      sandbox: this.recording.sandbox,
      workspace: this.recording.workspace,
      events: this.events(),
      ...(options.transcript ? { transcript: options.transcript } : {}),
      meta: options.meta,
      now: () => this.startedAt,
    });
  }
}
