import Markdown from "react-markdown";
import { serializeLesson } from "../../lessons/lesson.ts";
import { lessonLink } from "../../lessons/share.ts";
import { download } from "../download.ts";
import { getModel, useAppState } from "../model.ts";

/** Only http(s) and mailto links are followed out of a lesson's Markdown; anything else is dropped. */
function safeUrl(url: string): string {
  return /^(?:https?:|mailto:|#)/iu.test(url) ? url : "";
}

/** The open lesson: its instructions, its checks, and the learner's buttons. */
export function LessonPanel() {
  const model = getModel();
  const status = useAppState((state) => state.lesson);
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
        <h2 id="lesson-heading">Lesson</h2>
        <span className="count" data-testid="lesson-progress">
          {progress.completed
            ? "complete ✓"
            : results
              ? `${passed} of ${lesson.checks.length} checks`
              : "not checked yet"}
        </span>
      </header>
      <div className="lesson-body">
        <div className="lesson-instructions" data-testid="lesson-instructions">
          <Markdown skipHtml urlTransform={safeUrl}>
            {lesson.instructions}
          </Markdown>
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
        {hints.length > 0 && (
          <ol className="hints" aria-label="Hints" data-testid="lesson-hints">
            {hints.map((hint) => (
              <li key={hint}>{hint}</li>
            ))}
          </ol>
        )}
      </div>
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
