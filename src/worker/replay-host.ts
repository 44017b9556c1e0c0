import type { TranscriptEntry } from "../agent/transcript.ts";
import type { ToolCall } from "../core/profile.ts";
import type { ApprovalDecision, ApprovalRequest } from "../core/runtime.ts";
import { formatDivergence } from "../session/compare.ts";
import type { SessionFile } from "../session/format.ts";
import {
  type ReplayProgress,
  type ReplayStepResult,
  recordedApprover,
  SessionReplay,
} from "../session/replay.ts";
import type { WorkspaceStore } from "./store.ts";
import type { WorkspaceSession } from "./workspace-session.ts";

interface StoredReplay {
  session: SessionFile;
  progress: ReplayProgress;
}

const replayKey = (workspaceId: string) => `replay:${workspaceId}`;

interface Playing {
  paused: boolean;
  /** Ends the wait between two steps at once (a pause). */
  wake?: () => void;
  finished: Promise<unknown>;
}

/** One step of a replay as the replay bar shows it. */
export interface ReplayStepView {
  index: number;
  kind: "call" | "restore";
  /** The tool, or "restore" for a restore to a checkpoint. */
  label: string;
  requestId?: string;
  verdict: "pending" | "match" | "diverged" | "unrecorded";
  /** Readable divergences, one per difference. */
  divergences: string[];
}

/** The session being replayed in the open workspace. */
export interface ReplayStatus {
  title: string;
  description: string;
  task: string | null;
  profile: string;
  /** Where it was recorded: provider and model, when an agent made it. */
  recordedWith: string | null;
  steps: ReplayStepView[];
  done: number;
  matched: number;
  diverged: number;
  /** What the model said along the way, for reading beside the calls. */
  transcript: TranscriptEntry[];
  summary: string;
}

/**
 * A recorded session replayed in a workspace of its own, made from the session's initial files:
 * the calls go through that workspace's runtime (so the tree, the editor and the log follow them),
 * approvals are answered as the recording answered them, and each result is checked.
 */
export class ReplayHost {
  private replay: SessionReplay | null = null;
  private workspaceId: string | null = null;
  private approver: ((request: ApprovalRequest) => Promise<ApprovalDecision>) | null = null;
  private playing: Playing | null = null;

  constructor(private readonly store: WorkspaceStore) {}

  /** Starts replaying `session` in the workspace just opened for it. */
  async start(session: SessionFile, workspace: WorkspaceSession): Promise<ReplayStatus> {
    const replay = await SessionReplay.start(session, {
      ...this.options(workspace),
      createRuntime: async () => workspace.runtime,
    });
    this.take(workspace, replay);
    await this.save();
    return this.status()!;
  }

  /** Called whenever a workspace opens: a replay begun there goes on where it stood (after a reload too). */
  async attach(workspace: WorkspaceSession): Promise<void> {
    if (workspace.meta.id === this.workspaceId && this.replay) return;
    this.forget();
    const stored = await this.store.getSetting<StoredReplay>(replayKey(workspace.meta.id));
    if (!stored) return;
    this.take(
      workspace,
      SessionReplay.resume(stored.session, workspace.runtime, stored.progress, this.options(workspace)),
    );
  }

  /** Calls go through the workspace, so each one's log is stored before the next. */
  private options(workspace: WorkspaceSession) {
    return { invoke: (profile: string, call: ToolCall) => workspace.call(profile, call) };
  }

  private take(workspace: WorkspaceSession, replay: SessionReplay): void {
    this.replay = replay;
    this.approver = recordedApprover(replay.session.events);
    this.workspaceId = workspace.meta.id;
  }

  /** Closes the replay panel for good: the workspace stays as the replayed calls left it. */
  async close(): Promise<void> {
    await this.pause();
    if (this.workspaceId) await this.store.setSetting(replayKey(this.workspaceId), undefined);
    this.forget();
  }

  private forget(): void {
    // A replay playing in a workspace left behind stops after its step under way.
    if (this.playing) {
      this.playing.paused = true;
      this.playing.wake?.();
    }
    this.replay = null;
    this.workspaceId = null;
    this.approver = null;
  }

  private async save(): Promise<void> {
    if (!this.replay || !this.workspaceId) return;
    const stored: StoredReplay = { session: this.replay.session, progress: this.replay.progress() };
    await this.store.setSetting(replayKey(this.workspaceId), stored);
  }

  /** While a replay runs, approvals are answered as recorded; otherwise nobody here answers. */
  answer(request: ApprovalRequest): Promise<ApprovalDecision> | undefined {
    return this.approver?.(request);
  }

  async step(): Promise<ReplayStatus> {
    await this.require().step();
    await this.save();
    return this.status()!;
  }

  /**
   * Replays the steps left at `stepsPerSecond` (0: as fast as they run) until the end or a pause;
   * `onStep` hears after each. A finished replay plays again from its first step.
   */
  async play(onStep?: (status: ReplayStatus) => void, stepsPerSecond = 0): Promise<ReplayStatus> {
    if (this.playing) throw new Error("The replay is already playing.");
    const replay = this.require();
    if (replay.done) await this.seek(0);
    let finish: (value?: unknown) => void = () => undefined;
    const playing: Playing = { paused: false, finished: new Promise((resolve) => (finish = resolve)) };
    this.playing = playing;
    try {
      while (!playing.paused && !replay.done) {
        // Not onStep?.(await this.step()): optional chaining would skip the step when nobody listens.
        const status = await this.step();
        onStep?.(status);
        if (replay.done || playing.paused || stepsPerSecond <= 0) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000 / stepsPerSecond);
          playing.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      this.playing = null;
      finish();
    }
    return this.status()!;
  }

  /** Stops a playing replay after the step under way; play goes on from there. */
  async pause(): Promise<ReplayStatus | null> {
    const playing = this.playing;
    if (playing) {
      playing.paused = true;
      playing.wake?.();
      await playing.finished;
    }
    return this.status();
  }

  /**
   * Moves the playhead: back, the workspace is restored to before step `index` (its results
   * dropped); forward, the steps in between are replayed at once. Pauses a playing replay first.
   */
  async seek(index: number): Promise<ReplayStatus> {
    await this.pause();
    const replay = this.require();
    const target = Math.max(0, Math.min(index, replay.plan.length));
    if (target < replay.results.length) await replay.rewind(target);
    while (replay.results.length < target) await replay.step();
    await this.save();
    return this.status()!;
  }

  status(): ReplayStatus | null {
    const replay = this.replay;
    if (!replay) return null;
    const { session } = replay;
    const agent = session.meta.agent;
    const steps: ReplayStepView[] = replay.plan.map((action, index) => view(action, replay.results[index]));
    const report = replay.report();
    return {
      title: session.meta.title,
      description: session.meta.description ?? "",
      task: session.meta.task ?? null,
      profile: session.profile,
      recordedWith: agent ? `${agent.model} (${agent.provider})` : null,
      steps,
      done: replay.results.length,
      matched: report.matched,
      diverged: report.diverged,
      transcript: structuredClone(session.transcript),
      summary: replay.done
        ? report.summary
        : `${replay.results.length} of ${replay.plan.length} steps replayed.`,
    };
  }

  private require(): SessionReplay {
    if (!this.replay) throw new Error("No session is being replayed here. Open one from the Sessions menu.");
    return this.replay;
  }
}

function view(action: SessionReplay["plan"][number], result: ReplayStepResult | undefined): ReplayStepView {
  return {
    index: action.index,
    kind: action.kind,
    label: action.kind === "call" ? action.tool : `restore before step ${action.beforeStep}`,
    ...(action.kind === "call" ? { requestId: action.requestId } : {}),
    verdict: result?.verdict ?? "pending",
    divergences: (result?.divergences ?? []).map((divergence) => formatDivergence(divergence)),
  };
}
