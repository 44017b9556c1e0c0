import type { ToolEvent } from "../core/events.ts";
import type { ToolCall } from "../core/profile.ts";
import type { CallOutcome, Runtime } from "../core/runtime.ts";
import { createToolContext } from "../core/tool-context.ts";
import { parentOf } from "../sandbox/paths.ts";
import { deserializeWorkspace } from "../sandbox/snapshot.ts";
import { initRepository } from "../tools/git/commit.ts";
import { type CheckResult, runChecks } from "./checks.ts";
import { applyLessonControls } from "./controls.ts";
import type { Lesson } from "./lesson.ts";

/** Where a learner is in a lesson, to carry it over a reload: what the app persists. */
export interface LessonRunState {
  /** Events up to this seq belong to before the lesson (or its last Reset). */
  firstEvent: number;
  hintsShown: number;
}

/**
 * A lesson opened in a runtime: its files loaded, its controls enforced, and the buttons a
 * learner has — Check, Hint (one at a time), Show solution, Reset.
 */
export class LessonRun {
  readonly lesson: Lesson;
  readonly runtime: Runtime;
  private readonly controls: { lift(): void };
  private firstEvent: number;
  private hintsShown: number;

  private constructor(lesson: Lesson, runtime: Runtime, state: LessonRunState) {
    this.lesson = lesson;
    this.runtime = runtime;
    this.firstEvent = state.firstEvent;
    this.hintsShown = state.hintsShown;
    this.controls = applyLessonControls(runtime, lesson, () => this.events());
  }

  /** Loads the lesson's starting files into the runtime's sandbox and enforces its controls. */
  static async open(
    lesson: Lesson,
    runtime: Runtime,
    afterRestore?: () => Promise<void>,
  ): Promise<LessonRun> {
    const run = new LessonRun(lesson, runtime, { firstEvent: 0, hintsShown: 0 });
    await run.reset(afterRestore);
    return run;
  }

  /** Takes up a lesson where the learner left it (after a reload): files as they are, controls back on. */
  static attach(lesson: Lesson, runtime: Runtime, state: LessonRunState): LessonRun {
    return new LessonRun(lesson, runtime, state);
  }

  state(): LessonRunState {
    return { firstEvent: this.firstEvent, hintsShown: this.hintsShown };
  }

  /** Calls a tool as the learner (the lesson's guards apply). */
  call(profile: string, call: ToolCall): Promise<CallOutcome> {
    return this.runtime.invoke(profile, call);
  }

  /** The events since the lesson was opened or last reset. */
  events(): ToolEvent[] {
    return this.runtime.events.all().filter((event) => event.seq > this.firstEvent);
  }

  check(): Promise<CheckResult[]> {
    return runChecks(this.lesson, this.runtime.sandbox, this.events());
  }

  /** The next hint, or null when all have been shown. */
  nextHint(): string | null {
    const hint = this.lesson.hints[this.hintsShown] ?? null;
    if (hint !== null) this.hintsShown++;
    return hint;
  }

  hintsRevealed(): string[] {
    return this.lesson.hints.slice(0, this.hintsShown);
  }

  /**
   * Puts the starting files back and starts the lesson's count of calls and events over.
   * `afterRestore` runs before the count starts (the app stores the restored files there).
   */
  async reset(afterRestore?: () => Promise<void>): Promise<void> {
    const sandbox = this.runtime.sandbox;
    await sandbox.restore(deserializeWorkspace({ files: this.lesson.files }));
    if (this.lesson.repository) {
      await initRepository(createToolContext(sandbox), { message: `${this.lesson.repository.message}\n` });
      for (const [path, content] of Object.entries(this.lesson.repository.uncommitted ?? {})) {
        const absolute = `${sandbox.workspaceRoot}/${path}`;
        await sandbox.mkdir(parentOf(absolute), { recursive: true });
        await sandbox.writeFile(absolute, content);
      }
    }
    await afterRestore?.();
    this.firstEvent = this.runtime.events.all().at(-1)?.seq ?? 0;
    this.hintsShown = 0;
  }

  close(): void {
    this.controls.lift();
  }
}
