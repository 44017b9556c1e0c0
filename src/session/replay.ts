import { stepNumber } from "../core/artifacts.ts";
import type { ToolEvent } from "../core/events.ts";
import type { ApprovalMode, ToolCall } from "../core/profile.ts";

import type { ApprovalDecision, Approver, CallOutcome, Runtime } from "../core/runtime.ts";
import { type CompareOptions, compareValues, type Divergence, formatDivergence } from "./compare.ts";
import type { SessionFile } from "./format.ts";

/** One thing the recording did to the workspace, in order: a tool call, or a restore to a checkpoint. */
export type ReplayAction =
  | {
      kind: "call";
      /** Position in the plan, 0-based. */
      index: number;
      seq: number;
      profile: string;
      tool: string;
      params: Record<string, unknown>;
      requestId: string;
      step: number | undefined;
      /** What the recording got back; absent when the recording ended before the call did. */
      expected: { status: "success" | "error"; envelope: unknown } | undefined;
    }
  | {
      kind: "restore";
      index: number;
      seq: number;
      beforeStep: number;
      /** The files the recorded restore touched. */
      expectedFiles: string[];
    };

export interface ReplayStepResult {
  action: ReplayAction;
  /** match: same result; diverged: see `divergences`; unrecorded: nothing to compare against. */
  verdict: "match" | "diverged" | "unrecorded";
  divergences: Divergence[];
  /** The replayed call's outcome (calls only). */
  outcome?: CallOutcome;
  /** The step this replay's runtime gave it: the workspace goes back to before it on a rewind. */
  ranAt?: number;
}

export interface ReplayReport {
  steps: ReplayStepResult[];
  matched: number;
  diverged: number;
  /** Every divergence, readable, one block per step. */
  summary: string;
}

/** The steps a replay has done and how far its step numbers are shifted: what a reload needs. */
export interface ReplayProgress {
  results: ReplayStepResult[];
  stepShift?: number;
}

export interface ReplayOptions {
  /** Builds the runtime to replay in from the session's initial workspace; the embedded one by default. */
  createRuntime?: (session: SessionFile, approver: Approver) => Promise<Runtime>;
  /** What counts as volatile: VOLATILE_KEYS and VOLATILE_TEXT by default. */
  compare?: CompareOptions;
  /** How calls reach the runtime (the web app's worker stores each call's log); runtime.invoke by default. */
  invoke?: (profile: string, call: ToolCall) => Promise<CallOutcome>;
}

/** The calls and restores of a recording, in order, each call paired with its recorded result. */
export function replayPlan(session: SessionFile): ReplayAction[] {
  const plan: ReplayAction[] = [];
  const open = new Map<string, Extract<ReplayAction, { kind: "call" }>[]>();
  for (const event of session.events) {
    if (event.type === "tool_call_started" && event.request_id && event.tool) {
      const action: Extract<ReplayAction, { kind: "call" }> = {
        kind: "call",
        index: plan.length,
        seq: event.seq,
        profile: typeof event.data?.profile === "string" ? event.data.profile : session.profile,
        tool: event.tool,
        params: (event.params ?? {}) as Record<string, unknown>,
        requestId: event.request_id,
        step: typeof event.data?.step === "number" ? event.data.step : undefined,
        expected: undefined,
      };
      plan.push(action);
      open.set(event.request_id, [...(open.get(event.request_id) ?? []), action]);
    } else if (event.type === "tool_call_finished" && event.request_id) {
      const waiting = open.get(event.request_id);
      const action = waiting?.shift();
      if (action) {
        action.expected = {
          status: event.status === "error" ? "error" : "success",
          envelope: event.data?.envelope,
        };
      }
    } else if (event.type === "checkpoint_restored" && typeof event.data?.before_step === "number") {
      plan.push({
        kind: "restore",
        index: plan.length,
        seq: event.seq,
        beforeStep: event.data.before_step,
        expectedFiles: Array.isArray(event.data.files) ? (event.data.files as string[]) : [],
      });
    }
  }
  return plan;
}

/** How the recording decided one call's approval: by policy, by the person's answer, or not at all. */
export interface RecordedApproval {
  mode: ApprovalMode;
  decision?: ApprovalDecision;
}

/**
 * The approvals of a recording, per request: a call the person was asked about is asked again and
 * answered as they did; a call the policy refused is refused by policy; any other ran without asking.
 */
export function recordedApprovals(events: readonly ToolEvent[]): Map<string, RecordedApproval> {
  const approvals = new Map<string, RecordedApproval>();
  for (const event of events) {
    if (!event.request_id) continue;
    if (event.type === "approval_requested")
      approvals.set(event.request_id, { mode: "ask", decision: "deny" });
    else if (event.type === "approval_granted") {
      approvals.set(event.request_id, {
        mode: "ask",
        decision: event.data?.always === true ? "allow_always" : "allow",
      });
    } else if (event.type === "approval_denied") {
      approvals.set(
        event.request_id,
        event.data?.by === "policy" ? { mode: "deny" } : { mode: "ask", decision: "deny" },
      );
    }
  }
  return approvals;
}

/** Answers approval prompts as the recording did, so the replay asks nobody. */
export function recordedApprover(events: readonly ToolEvent[]): Approver {
  const approvals = recordedApprovals(events);
  return async (request) => approvals.get(request.requestId)?.decision ?? "deny";
}

/** Loaded on use: the shell it starts is not part of what a host needs to answer its first call. */
async function defaultRuntime(session: SessionFile, approver: Approver): Promise<Runtime> {
  const { createEmbeddedRuntime } = await import("../host/create-runtime.ts");
  return createEmbeddedRuntime({
    files: session.workspace,
    approver,
    ...(session.meta.sessionId ? { session: session.meta.sessionId } : {}),
  });
}

/**
 * A session being replayed against a fresh runtime on its initial workspace: step through the
 * calls one at a time, or play them all; each result is checked against the recorded one.
 */
export class SessionReplay {
  readonly session: SessionFile;
  readonly runtime: Runtime;
  readonly plan: readonly ReplayAction[];
  readonly results: ReplayStepResult[] = [];
  private readonly compare: CompareOptions;
  private readonly approvals: Map<string, RecordedApproval>;
  private readonly invoke: (profile: string, call: ToolCall) => Promise<CallOutcome>;
  /** Replayed step minus recorded step, fixed by the first call. */
  private stepShift: number | undefined;

  private constructor(session: SessionFile, runtime: Runtime, options: ReplayOptions) {
    this.session = session;
    this.runtime = runtime;
    this.invoke = options.invoke ?? ((profile, call) => runtime.invoke(profile, call));
    this.plan = replayPlan(session);
    this.compare = options.compare ?? {};
    this.approvals = recordedApprovals(session.events);
  }

  /** Where a replay stands, as plain data to keep across a reload (the outcomes are left out). */
  progress(): ReplayProgress {
    return {
      results: this.results.map(({ action, verdict, divergences, ranAt }) => ({
        action,
        verdict,
        divergences,
        ...(ranAt !== undefined ? { ranAt } : {}),
      })),
      ...(this.stepShift !== undefined ? { stepShift: this.stepShift } : {}),
    };
  }

  /**
   * Goes on with a replay after a reload: `runtime` is the workspace as the replayed calls left it,
   * and `progress` what they were found to be.
   */
  static resume(
    session: SessionFile,
    runtime: Runtime,
    progress: ReplayProgress,
    options: ReplayOptions = {},
  ): SessionReplay {
    const replay = new SessionReplay(session, runtime, options);
    replay.results.push(...structuredClone(progress.results));
    replay.stepShift = progress.stepShift;
    return replay;
  }

  static async start(session: SessionFile, options: ReplayOptions = {}): Promise<SessionReplay> {
    const approver = recordedApprover(session.events);
    const runtime = await (options.createRuntime ?? defaultRuntime)(session, approver);
    return new SessionReplay(session, runtime, options);
  }

  /** The next action to replay, or undefined when all are done. */
  get next(): ReplayAction | undefined {
    return this.plan[this.results.length];
  }

  get done(): boolean {
    return this.results.length >= this.plan.length;
  }

  /** Replays the next action and checks it; null when there is none left. */
  async step(): Promise<ReplayStepResult | null> {
    const action = this.next;
    if (!action) return null;
    const result = action.kind === "call" ? await this.replayCall(action) : await this.replayRestore(action);
    this.results.push(result);
    return result;
  }

  /**
   * Goes back to before plan step `index` (to play again, or to a dragged playhead): the workspace
   * is restored to before the first step replayed from there, and those steps' results are dropped.
   */
  async rewind(index: number): Promise<void> {
    const target = Math.max(0, Math.min(index, this.results.length));
    if (target === this.results.length) return;
    const first = this.results.slice(target).find((result) => result.ranAt !== undefined)?.ranAt;
    if (first === undefined) {
      throw new Error(
        "This replay cannot go back: its steps were replayed before their places were kept. Close it and open the session again.",
      );
    }
    const restore = await this.runtime.restoreBefore(first);
    this.results.length = target;
    // The steps from here get new numbers: the restore took one, each action after it takes one.
    const call = this.plan
      .slice(target)
      .find((action) => action.kind === "call" && action.step !== undefined);
    this.stepShift =
      call?.kind === "call" && call.step !== undefined
        ? restore.step + 1 + (call.index - target) - call.step
        : undefined;
  }

  /** Replays everything left and reports. */
  async playAll(): Promise<ReplayReport> {
    while (!this.done) await this.step();
    return this.report();
  }

  report(): ReplayReport {
    return replayReport(this.results);
  }

  private async replayCall(action: Extract<ReplayAction, { kind: "call" }>): Promise<ReplayStepResult> {
    // The recording's policy is not in the session, only what it decided: set it for this call, then put it back.
    const spec = this.runtime.listProfiles().find((profile) => profile.name === action.profile);
    const tool = spec?.tools.find((candidate) => candidate.name === action.tool);
    const before = spec && tool ? this.runtime.approvalMode(spec, tool) : undefined;
    this.runtime.setApproval(
      action.profile,
      action.tool,
      this.approvals.get(action.requestId)?.mode ?? "auto",
    );
    let outcome: CallOutcome;
    try {
      outcome = await this.invoke(action.profile, {
        tool: action.tool,
        params: structuredClone(action.params),
        request_id: action.requestId,
      });
    } finally {
      if (before !== undefined) this.runtime.setApproval(action.profile, action.tool, before);
    }
    // A recording that began mid-run numbers its steps from there; this runtime may start elsewhere.
    if (this.stepShift === undefined && action.step !== undefined)
      this.stepShift = outcome.step - action.step;
    const ranAt = outcome.step;
    if (!action.expected) return { action, verdict: "unrecorded", divergences: [], outcome, ranAt };
    const shift = this.stepShift ?? 0;
    const divergences = [
      ...compareValues(action.expected.status, outcome.status, this.compare, "status"),
      ...(action.step !== undefined
        ? compareValues(action.step + shift, outcome.step, this.compare, "step")
        : []),
      ...compareValues(
        shiftSteps(action.expected.envelope, shift),
        outcome.envelope,
        this.compare,
        "envelope",
      ),
    ];
    return { action, verdict: divergences.length > 0 ? "diverged" : "match", divergences, outcome, ranAt };
  }

  private async replayRestore(action: Extract<ReplayAction, { kind: "restore" }>): Promise<ReplayStepResult> {
    const checkpoint = await this.runtime.restoreBefore(action.beforeStep + (this.stepShift ?? 0));
    const files = checkpoint.changes.map((change) => change.path);
    const divergences = compareValues(action.expectedFiles, files, this.compare, "restored_files");
    return {
      action,
      verdict: divergences.length > 0 ? "diverged" : "match",
      divergences,
      ranAt: checkpoint.step,
    };
  }
}

/**
 * The recorded value with its step-numbered artifact names (logs/tool_step_0005_stdout.txt,
 * diffs/step_0005.patch) moved by `shift`, for a replay whose steps start at another number.
 */
export function shiftSteps(value: unknown, shift: number): unknown {
  if (shift === 0) return value;
  if (typeof value === "string") {
    return value.replace(/(?<=step_)\d{4,}/gu, (digits) => stepNumber(Number(digits) + shift));
  }
  if (Array.isArray(value)) return value.map((item) => shiftSteps(item, shift));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, shiftSteps(field, shift)]));
  }
  return value;
}

/** Replays a whole session on a fresh runtime and reports every divergence. */
export async function replaySession(
  session: SessionFile,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  return (await SessionReplay.start(session, options)).playAll();
}

/** Counts and a readable summary of replayed steps. */
export function replayReport(steps: readonly ReplayStepResult[]): ReplayReport {
  const diverged = steps.filter((step) => step.verdict === "diverged");
  const matched = steps.filter((step) => step.verdict === "match").length;
  const blocks = diverged.map((step) => {
    const { action } = step;
    const head =
      action.kind === "call"
        ? `Call ${action.index + 1} (${action.tool}, ${action.requestId}) diverged:`
        : `Restore ${action.index + 1} (before step ${action.beforeStep}) diverged:`;
    const lines = step.divergences.flatMap((divergence) => formatDivergence(divergence).split("\n"));
    return [head, ...lines.map((line) => `  ${line}`)].join("\n");
  });
  const summary =
    diverged.length === 0
      ? `All ${steps.length} replayed steps matched the recording.`
      : `${diverged.length} of ${steps.length} replayed steps diverged.\n${blocks.join("\n")}`;
  return { steps: [...steps], matched, diverged: diverged.length, summary };
}
