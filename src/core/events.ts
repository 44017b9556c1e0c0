/**
 * One line of events.jsonl: a superset of the AgentBench events. The event log is the single
 * source for the UI's log pane, for session export and for replay.
 */
export interface ToolEvent {
  seq: number;
  ts: string;
  session: string;
  type: EventType;
  /** The log level the dialect's spec gives this record (toolrouter: requests INFO, responses DEBUG). */
  level?: LogLevel;
  request_id?: string;
  tool?: string;
  params?: unknown;
  status?: "success" | "error";
  /** How long the call ran (tool_call_finished), without any wait for a person's approval. */
  duration_sec?: number;
  /** How long a tool_call_finished call waited for a person's approval; only when it asked. */
  approval_wait_sec?: number;
  data?: Record<string, unknown>;
}

export type LogLevel = "DEBUG" | "INFO" | "WARNING" | "ERROR";

export type EventType =
  | "session_started"
  | "tool_call_started"
  | "tool_call_finished"
  | "approval_requested"
  | "approval_granted"
  | "approval_denied"
  | "file_changed"
  | "PATCH_APPLIED"
  | "checkpoint_restored"
  | "plan_updated"
  | "agent_started"
  | "agent_message"
  | "agent_error"
  | "agent_finished";

export type EventListener = (event: ToolEvent) => void;

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Append-only, numbered, observable. */
export class EventLog {
  readonly session: string;
  private readonly clock: Clock;
  private readonly events: ToolEvent[] = [];
  private readonly listeners = new Set<EventListener>();
  private lastSeq: number;

  /**
   * `history`: events of an earlier run of this session (a reload); numbering continues after them.
   * `retain: false` keeps none (all() is empty): for a host whose listeners take each event away
   * (the CLI), where a long session would otherwise hold every call's params and envelope.
   */
  constructor(
    session: string,
    clock: Clock = systemClock,
    history: readonly ToolEvent[] = [],
    private readonly retain = true,
  ) {
    this.session = session;
    this.clock = clock;
    if (retain) this.events.push(...history);
    this.lastSeq = history.at(-1)?.seq ?? 0;
  }

  emit(type: EventType, fields: Omit<ToolEvent, "seq" | "ts" | "session" | "type"> = {}): ToolEvent {
    const event: ToolEvent = {
      seq: ++this.lastSeq,
      ts: this.clock.now().toISOString(),
      session: this.session,
      type,
      ...fields,
    };
    if (this.retain) this.events.push(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  all(): readonly ToolEvent[] {
    return this.events;
  }

  toJsonl(): string {
    return this.events.map((event) => `${JSON.stringify(event)}\n`).join("");
  }
}
