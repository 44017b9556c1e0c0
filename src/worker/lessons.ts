import type { ToolEvent } from "../core/events.ts";
import type { CheckResult } from "../lessons/checks.ts";
import type { Lesson } from "../lessons/lesson.ts";
import { LessonRun, type LessonRunState } from "../lessons/lesson-run.ts";
import type { WorkspaceStore } from "./store.ts";
import type { WorkspaceSession } from "./workspace-session.ts";

/** A learner's progress in one lesson, kept in the browser across reloads. */
export interface LessonProgress {
  lessonId: string;
  title: string;
  /** Check ids that passed at the last Check. */
  passed: string[];
  total: number;
  hintsShown: number;
  completed: boolean;
  updatedAt: string;
}

/** What the lesson panel shows. */
export interface LessonStatus {
  lesson: Lesson;
  /** null until the learner presses Check. */
  results: CheckResult[] | null;
  hints: string[];
  progress: LessonProgress;
  /** This workspace is a model's attempt at the lesson (handed over from the learner's). */
  byAgent: boolean;
}

/** The origin of a lesson's own workspace: one per lesson, reused when the lesson is opened again. */
export const lessonOrigin = (lessonId: string) => `lesson:${lessonId}`;
/** The origin of the workspace where a connected model attempts the lesson, beside the learner's. */
export const lessonAgentOrigin = (lessonId: string) => `lesson-agent:${lessonId}`;

/** One call of an attempt at a lesson, as the comparison lists it. */
export interface AttemptCall {
  requestId: string;
  profile: string;
  tool: string;
  /** The parameters as compact JSON, cut to a readable length. */
  params: string;
  status: "success" | "error" | "unfinished";
}

/** An attempt at a lesson: the learner's by hand, or a model's. */
export interface LessonAttempt {
  by: "learner" | "agent";
  workspaceId: string;
  calls: AttemptCall[];
  /** The checks as last run, or null if Check was never pressed there. */
  results: CheckResult[] | null;
}

/** The learner's calls beside the model's, for the same lesson. */
export interface LessonComparison {
  lessonId: string;
  learner: LessonAttempt | null;
  agent: LessonAttempt | null;
}

const lessonKey = (workspaceId: string) => `lesson:${workspaceId}`;
const PROGRESS_KEY = "lesson-progress";

interface StoredLesson {
  lesson: Lesson;
  state: LessonRunState;
  results: CheckResult[] | null;
  /** A model's attempt: its checks do not count as the learner's progress. */
  byAgent?: boolean;
}

/**
 * The lesson of the open workspace, if it is a lesson's workspace: its run (controls on the
 * runtime), its state and the learner's progress, stored as the learner goes.
 */
export class LessonHost {
  private run: LessonRun | null = null;
  private results: CheckResult[] | null = null;
  private byAgent = false;

  constructor(private readonly store: WorkspaceStore) {}

  /** Called for every workspace that opens: takes its lesson up again, if it has one. */
  async attach(session: WorkspaceSession): Promise<void> {
    this.detach();
    const stored = await this.store.getSetting<StoredLesson>(lessonKey(session.meta.id));
    if (!stored) return;
    // The lesson module (and Ajv, which checks lessons) loads when a workspace has a lesson.
    const { checkLesson } = await import("../lessons/lesson.ts");
    this.run = LessonRun.attach(checkLesson(stored.lesson), session.runtime, stored.state);
    this.results = stored.results;
    this.byAgent = stored.byAgent === true;
  }

  detach(): void {
    this.run?.close();
    this.run = null;
    this.results = null;
    this.byAgent = false;
  }

  /** Starts a lesson in a session whose workspace was just created for it. */
  async start(
    session: WorkspaceSession,
    lesson: Lesson,
    options: { byAgent?: boolean } = {},
  ): Promise<LessonStatus> {
    this.detach();
    this.byAgent = options.byAgent === true;
    this.run = await LessonRun.open(lesson, session.runtime, async () => {
      await session.syncExternal("lesson_start");
    });
    await this.save(session);

    return this.status();
  }

  current(): LessonRun | null {
    return this.run;
  }

  async check(session: WorkspaceSession): Promise<LessonStatus> {
    const run = this.require();
    this.results = await run.check();
    await this.save(session);
    return this.status();
  }

  async hint(session: WorkspaceSession): Promise<LessonStatus> {
    this.require().nextHint();
    await this.save(session);
    return this.status();
  }

  async reset(session: WorkspaceSession): Promise<LessonStatus> {
    await this.require().reset(async () => {
      await session.syncExternal("lesson_reset");
    });
    this.results = null;
    await this.save(session);
    return this.status();
  }

  async status(): Promise<LessonStatus> {
    const run = this.require();
    return {
      lesson: run.lesson,
      results: this.results,
      hints: run.hintsRevealed(),
      progress: (await this.progress())[run.lesson.id] ?? this.progressOf(run),
      byAgent: this.byAgent,
    };
  }

  async progress(): Promise<Record<string, LessonProgress>> {
    return (await this.store.getSetting<Record<string, LessonProgress>>(PROGRESS_KEY)) ?? {};
  }

  /** The calls and check results of an attempt made in a workspace, from its log (`events`). */
  async attempt(workspaceId: string, events: readonly ToolEvent[]): Promise<LessonAttempt | null> {
    const stored = await this.store.getSetting<StoredLesson>(lessonKey(workspaceId));
    if (!stored) return null;
    const finished = new Map<string, "success" | "error">();
    for (const event of events) {
      if (event.type === "tool_call_finished" && event.request_id)
        finished.set(event.request_id, event.status === "error" ? "error" : "success");
    }
    const calls = events
      .filter((event) => event.seq > stored.state.firstEvent && event.type === "tool_call_started")
      .map((event) => {
        const params = JSON.stringify(event.params ?? {});
        return {
          requestId: event.request_id ?? String(event.seq),
          profile: typeof event.data?.profile === "string" ? event.data.profile : "",
          tool: event.tool ?? "",
          params: params.length > 160 ? `${params.slice(0, 160)}…` : params,
          status: finished.get(event.request_id ?? "") ?? ("unfinished" as const),
        };
      });
    return { by: stored.byAgent ? "agent" : "learner", workspaceId, calls, results: stored.results };
  }

  private progressOf(run: LessonRun): LessonProgress {
    const passed = (this.results ?? []).filter((result) => result.passed).map((result) => result.id);
    return {
      lessonId: run.lesson.id,
      title: run.lesson.title,
      passed,
      total: run.lesson.checks.length,
      hintsShown: run.hintsRevealed().length,
      completed: passed.length === run.lesson.checks.length,
      updatedAt: new Date().toISOString(),
    };
  }

  private async save(session: WorkspaceSession): Promise<void> {
    const run = this.require();
    const stored: StoredLesson = {
      lesson: run.lesson,
      state: run.state(),
      results: this.results,
      ...(this.byAgent ? { byAgent: true } : {}),
    };
    await this.store.setSetting(lessonKey(session.meta.id), stored);
    if (this.byAgent) return;
    const progress = await this.progress();
    const previous = progress[run.lesson.id];
    const next = this.progressOf(run);
    // Completion is kept once reached: a later Reset does not take it away from the learner.
    progress[run.lesson.id] = { ...next, completed: next.completed || (previous?.completed ?? false) };
    await this.store.setSetting(PROGRESS_KEY, progress);
  }

  private require(): LessonRun {
    if (!this.run) throw new Error("No lesson is open in this workspace. Open one from the Lessons menu.");
    return this.run;
  }
}
