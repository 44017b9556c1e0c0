import { serializeLesson } from "../../lessons/lesson.ts";
import { lessonLink } from "../../lessons/share.ts";
import type { LessonComparison } from "../../worker/lessons.ts";
import { download } from "../download.ts";
import { PaneToggle } from "../layout/panes.tsx";
import { getModel, useAppState } from "../model.ts";
import { SafeMarkdown } from "./SafeMarkdown.tsx";

/** The open lesson: its instructions, its checks, and the learner's buttons. */
export function LessonPanel() {
  const model = getModel();
  const status = useAppState((state) => state.lesson);
  const comparison = useAppState((state) => state.lessonComparison);
  const agentBusy = useAppState((state) => state.agent?.status !== "idle");
  if (!status) return null;
  const { lesson, results, hints, progress } = status;
  const passed = results?.filter((result) => result.passed).length ?? 0;

  const share = async () => {
    const link = lessonLink(lesson, location.href);
    if (!link) {
      download(`${lesson.id}.lesson.json`, serializeLesson(lesson), "application/json");
      model.notify(
        "info",
        "This lesson is too large for a link: it was downloaded as a file to share instead.",
      );
      return;
    }
    await navigator.clipboard?.writeText(link).catch(() => undefined);
    model.notify(
      "ok",
      "A link to this lesson was copied. Anyone who opens it gets the lesson, with nothing to install.",
    );
  };

  return (
    <section className="pane lesson" aria-labelledby="lesson-heading" data-testid="lesson-panel">
      <header className="pane-header">
        <PaneToggle label="the lesson" />
        <h2 id="lesson-heading">{status.byAgent ? "Lesson · the model's attempt" : "Lesson"}</h2>
        <span className="count" data-testid="lesson-progress">
          {progress.completed
            ? "complete ✓"
            : results
              ? `${passed} of ${lesson.checks.length} checks`
              : "not checked yet"}
        </span>
      </header>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
      <section className="lesson-body" tabIndex={0} aria-label="Instructions and checks">
        <div className="lesson-instructions" data-testid="lesson-instructions">
          <SafeMarkdown text={lesson.instructions} />
        </div>
        <ul className="checks" aria-label="Checks">
          {lesson.checks.map((check) => {
            const result = results?.find((candidate) => candidate.id === check.id);
            const state = result ? (result.passed ? "passed" : "failed") : "unknown";
            return (
              <li key={check.id} data-check={check.id} data-state={state}>
                <span aria-hidden="true">{state === "passed" ? "✓" : state === "failed" ? "✗" : "·"}</span>{" "}
                {check.title}
                {result && !result.passed && <div className="help">{result.detail}</div>}
              </li>
            );
          })}
        </ul>
        {comparison && <Comparison comparison={comparison} />}
        {hints.length > 0 && (
          <ol className="hints" aria-label="Hints" data-testid="lesson-hints">
            {hints.map((hint) => (
              <li key={hint}>{hint}</li>
            ))}
          </ol>
        )}
      </section>
      <div className="toolbar lesson-actions">
        <button
          type="button"
          className="primary"
          onClick={() => void model.lessonAction("check")}
          data-testid="lesson-check"
        >
          Check
        </button>
        <button
          type="button"
          onClick={() => void model.lessonAction("hint")}
          disabled={hints.length >= lesson.hints.length}
          data-testid="lesson-hint"
        >
          Hint ({hints.length}/{lesson.hints.length})
        </button>
        <button
          type="button"
          onClick={() => void model.showLessonSolution()}
          disabled={!lesson.solution}
          data-testid="lesson-solution"
        >
          Show solution
        </button>
        <button type="button" onClick={() => void model.lessonAction("reset")} data-testid="lesson-reset">
          Reset
        </button>
        <button
          type="button"
          onClick={() => void model.handLessonToAgent()}
          disabled={agentBusy}
          title="A connected model attempts the lesson in a workspace of its own, with the same tools and controls"
          data-testid="lesson-hand-to-agent"
        >
          {status.byAgent ? "Let the model try again" : "Hand to the model"}
        </button>
        <button type="button" onClick={() => void model.loadLessonComparison()} data-testid="lesson-compare">
          Compare calls
        </button>
        <button type="button" onClick={() => void share()}>
          Share
        </button>
        <button
          type="button"
          onClick={() => download(`${lesson.id}.lesson.json`, serializeLesson(lesson), "application/json")}
        >
          Export
        </button>
      </div>
    </section>
  );
}

/** The learner's calls beside the model's: what each called, in order, and how many checks passed. */
function Comparison({ comparison }: { comparison: LessonComparison }) {
  const columns = [
    { title: "You", attempt: comparison.learner },
    { title: "The model", attempt: comparison.agent },
  ];
  return (
    <div className="comparison" data-testid="lesson-comparison">
      {columns.map(({ title, attempt }) => (
        <div key={title} data-by={title === "You" ? "learner" : "agent"}>
          <h3>
            {title}
            {attempt?.results
              ? ` · ${attempt.results.filter((result) => result.passed).length}/${attempt.results.length} checks`
              : ""}
          </h3>
          {!attempt ? (
            <p className="count">{title === "You" ? "No attempt yet." : "Not handed to a model yet."}</p>
          ) : attempt.calls.length === 0 ? (
            <p className="count">No calls yet.</p>
          ) : (
            <ol>
              {attempt.calls.map((call) => (
                <li key={call.requestId} data-status={call.status} title={call.params}>
                  {call.tool} <span className="count">{call.status}</span>
                </li>
              ))}
            </ol>
          )}
        </div>
      ))}
    </div>
  );
}
