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

/**
 * Records a session from a runtime: the workspace is captured when recording starts, and
 * `finish` takes every event emitted since.
 */
export class SessionRecorder {
  readonly runtime: Runtime;
  readonly profile: string;
  readonly sandbox: string;
  readonly workspace: SerializedWorkspace;
  /** When recording began: the session's createdAt, however often it is built. */
  readonly startedAt: Date;
  private readonly firstEvent: number;

  private constructor(
    runtime: Runtime,
    options: { profile: string; sandbox: string; workspace: SerializedWorkspace; startedAt: Date },
  ) {
    this.runtime = runtime;
    this.profile = options.profile;
    this.sandbox = options.sandbox;
    this.workspace = options.workspace;
    this.startedAt = options.startedAt;
    this.firstEvent = runtime.events.all().length;
  }

  /** Starts recording now: call it before the first call you want in the session. */
  static async start(
    runtime: Runtime,
    options: { profile: string; sandbox?: string; now?: () => Date },
  ): Promise<SessionRecorder> {
    const startedAt = options.now?.() ?? new Date();
    const workspace = serializeWorkspace(await runtime.sandbox.snapshot());
    return new SessionRecorder(runtime, {
      profile: options.profile,
      sandbox: options.sandbox ?? "embedded",
      workspace,
      startedAt,
    });
  }

  /** The events recorded so far. */
  events(): ToolEvent[] {
    return this.runtime.events.all().slice(this.firstEvent);
  }

  /** The session as recorded so far; may be called again as the run goes on. */
  finish(options: { transcript?: readonly TranscriptEntry[]; meta: SessionParts["meta"] }): SessionFile {
    return buildSession({
      profile: this.profile,
      sandbox: this.sandbox,
      workspace: this.workspace,
      events: this.events(),
      ...(options.transcript ? { transcript: options.transcript } : {}),
      meta: options.meta,
      now: () => this.startedAt,
    });
  }
}
