import { useRef } from "react";
import { BUILTIN_LESSONS } from "../../lessons/builtin/index.ts";
import { parseLesson } from "../../lessons/lesson.ts";
import { getModel, message, useAppState } from "../model.ts";

/** The built-in lessons with the learner's progress, a lesson file to import, and a way to write one. */
export function LessonMenu() {
  const model = getModel();
  const progress = useAppState((state) => state.lessonProgress);
  const upload = useRef<HTMLInputElement>(null);

  const importFile = async (file: File | undefined) => {
    if (!file) return;
    try {
      await model.openLesson(parseLesson(await file.text()));
    } catch (error) {
      model.notify("error", `${message(error)} Pick a .lesson.json file exported from Toolroom.`);
    }
  };

  return (
    <details className="menu" data-testid="lesson-menu">
      <summary>Lessons</summary>
      <div className="menu-body stack">
        <ul className="lesson-list">
          {BUILTIN_LESSONS.map((lesson) => {
            const mine = progress[lesson.id];
            return (
              <li key={lesson.id}>
                <button
                  type="button"
                  className="link"
                  onClick={(event) => {
                    event.currentTarget.closest("details")?.removeAttribute("open");
                    void model.openLesson(lesson);
                  }}
                  data-lesson={lesson.id}
                >
                  {lesson.title}
                </button>{" "}
                <span className="count">
                  {lesson.profiles.map((entry) => entry.profile).join(" + ")}
                  {mine ? (mine.completed ? " · complete ✓" : ` · ${mine.passed.length}/${mine.total}`) : ""}
                </span>
              </li>
            );
          })}
        </ul>
        <div className="row">
          <button type="button" onClick={() => upload.current?.click()}>
            Import lesson file…
          </button>
          <button type="button" onClick={() => model.setAuthoringLesson(true)} data-testid="lesson-author">
            Write a lesson…
          </button>
        </div>
        <input
          ref={upload}
          type="file"
          accept=".json,application/json"
          hidden
          onChange={(event) => {
            void importFile(event.target.files?.[0]);
            event.target.value = "";
          }}
        />
      </div>
    </details>
  );
}
