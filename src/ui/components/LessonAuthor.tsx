import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import { checkLesson, type Lesson, serializeLesson } from "../../lessons/lesson.ts";
import { lessonLink } from "../../lessons/share.ts";
import type { ToolInfo } from "../../worker/api.ts";
import { download } from "../download.ts";
import { useModal } from "../layout/modal.ts";
import { ChecksForm } from "../lesson-author/ChecksForm.tsx";
import {
  type CheckDraft,
  checksFromDrafts,
  draftsFromJson,
  draftsToJson,
  emptyDraft,
} from "../lesson-author/check-drafts.ts";
import { getModel, message, useAppState } from "../model.ts";

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/gu, "-")
    .replace(/^-+|-+$/gu, "") || "my-lesson";

const list = (text: string) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

const lessonsButton = () => document.querySelector<HTMLElement>('[data-testid="lesson-menu"] > summary');

/** Writes a lesson from the open workspace: its files are the lesson's starting files. */
export function LessonAuthor() {
  const model = getModel();
  const open = useAppState((state) => state.authoringLesson);
  const profiles = useAppState((state) => state.profiles);
  const published = useMemo(() => profiles.filter((profile) => !profile.internal), [profiles]);
  const [title, setTitle] = useState("");
  const [instructions, setInstructions] = useState(
    "# Task\n\nDescribe what the learner should do, and with which tools.",
  );
  const [profile, setProfile] = useState("agentbench");
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const [chosen, setChosen] = useState<string[]>([]);
  const [hints, setHints] = useState("");
  const [drafts, setDrafts] = useState<CheckDraft[]>([emptyDraft()]);
  // The form, or the same checks as JSON text (for pasting, or fields the form has no widget for).
  const [checksView, setChecksView] = useState<"form" | "json">("form");
  const [checksJson, setChecksJson] = useState("");
  const filesVersion = useAppState((state) => state.filesVersion);
  // biome-ignore lint/correctness/useExhaustiveDependencies: model.files changes in place; filesVersion says when
  const paths = useMemo(
    () =>
      [...model.files]
        .filter(([path, type]) => type === "file" && !path.startsWith(".git/"))
        .map(([path]) => path)
        .sort(),
    [model, filesVersion],
  );
  const [readOnly, setReadOnly] = useState("");
  const [commands, setCommands] = useState("");
  const [maxCalls, setMaxCalls] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const overlay = useRef<HTMLDivElement>(null);
  const titleInput = useRef<HTMLInputElement>(null);
  // Back to the Lessons menu's button when the menu that opened the dialog has closed.
  useModal(overlay, open, lessonsButton);
  useEffect(() => {
    if (open) titleInput.current?.focus();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    void model.host.api.listTools(profile).then((next) => {
      setTools(next);
      setChosen(next.map((tool) => tool.name));
    });
  }, [open, profile, model]);

  if (!open) return null;

  const build = async (): Promise<Lesson | null> => {
    try {
      const snapshot = await model.host.api.snapshot();
      const files = Object.fromEntries(
        Object.entries(snapshot.files).filter(([path]) => !path.startsWith(".git/")),
      );
      const controls = {
        ...(list(readOnly).length > 0 ? { readOnlyPaths: list(readOnly) } : {}),
        ...(list(commands).length > 0 ? { allowedCommands: list(commands) } : {}),
        ...(maxCalls.trim() ? { maxCalls: Number(maxCalls) } : {}),
      };
      const checks = checksFromDrafts(checksView === "form" ? drafts : draftsFromJson(checksJson), chosen);
      const lesson = checkLesson({
        format: "toolroom-lesson",
        version: 1,
        id: slug(title),
        title: title.trim(),
        instructions,
        profiles: [{ profile, tools: chosen }],
        files,
        hints: hints
          .split("\n")
          .map((line) => line.trim())
          .filter(Boolean),
        ...(Object.keys(controls).length > 0 ? { controls } : {}),
        checks,
      });
      setProblem(null);
      return lesson;
    } catch (error) {
      setProblem(message(error));
      return null;
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const lesson = await build();
    if (!lesson) return;
    model.setAuthoringLesson(false);
    await model.openLesson(lesson);
  };

  return (
    <div className="overlay" role="presentation" ref={overlay}>
      <form
        className="dialog wide-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="author-heading"
        onSubmit={(event) => void submit(event)}
        onKeyDown={(event) => {
          // Escape closes, as Cancel does; what was written stays for the next time it opens.
          if (event.key === "Escape") {
            event.preventDefault();
            model.setAuthoringLesson(false);
          }
        }}
      >
        <h2 id="author-heading">Write a lesson</h2>
        <p className="help">The open workspace's files become the lesson's starting files.</p>
        <label className="field">
          <span className="field-name">Title</span>
          <input
            ref={titleInput}
            value={title}
            onChange={(event) => setTitle(event.target.value)}
            required
            data-testid="author-title"
          />
        </label>
        <label className="field">
          <span className="field-name">Instructions (Markdown)</span>
          <textarea rows={5} value={instructions} onChange={(event) => setInstructions(event.target.value)} />
        </label>
        <label className="field">
          <span className="field-name">Dialect</span>
          <select value={profile} onChange={(event) => setProfile(event.target.value)}>
            {published.map((item) => (
              <option key={item.name} value={item.name}>
                {item.title}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Tools the learner may use</legend>
          {tools.map((tool) => (
            <label key={tool.name} className="checkbox">
              <input
                type="checkbox"
                checked={chosen.includes(tool.name)}
                onChange={(event) =>
                  setChosen((current) =>
                    event.target.checked
                      ? [...current, tool.name]
                      : current.filter((name) => name !== tool.name),
                  )
                }
              />
              {tool.name}
            </label>
          ))}
        </fieldset>
        <label className="field">
          <span className="field-name">Hints, one per line</span>
          <textarea rows={3} value={hints} onChange={(event) => setHints(event.target.value)} />
        </label>
        <fieldset className="author-checks">
          <legend>Checks: when the lesson is done</legend>
          <div className="row">
            <span className="help">Edit them as</span>
            <button
              type="button"
              aria-pressed={checksView === "form"}
              onClick={() => {
                if (checksView === "form") return;
                try {
                  setDrafts(draftsFromJson(checksJson));
                  setChecksView("form");
                  setProblem(null);
                } catch (error) {
                  setProblem(`${message(error)} Fix the JSON to go back to the form.`);
                }
              }}
              data-testid="checks-as-form"
            >
              Form
            </button>
            <button
              type="button"
              aria-pressed={checksView === "json"}
              onClick={() => {
                if (checksView === "json") return;
                setChecksJson(draftsToJson(drafts));
                setChecksView("json");
              }}
              data-testid="checks-as-json"
            >
              JSON
            </button>
          </div>
          {checksView === "form" ? (
            <ChecksForm drafts={drafts} onChange={setDrafts} tools={chosen} paths={paths} />
          ) : (
            <label className="field">
              <span className="field-name">Checks (JSON)</span>
              <textarea
                rows={10}
                value={checksJson}
                onChange={(event) => setChecksJson(event.target.value)}
                className="mono"
                data-testid="checks-json"
              />
            </label>
          )}
        </fieldset>
        <label className="field">
          <span className="field-name">Read-only paths (globs, comma-separated)</span>
          <input
            value={readOnly}
            onChange={(event) => setReadOnly(event.target.value)}
            placeholder="tests/**, README.md"
          />
        </label>
        <label className="field">
          <span className="field-name">Allowed commands (prefixes, comma-separated; empty: any)</span>
          <input
            value={commands}
            onChange={(event) => setCommands(event.target.value)}
            placeholder="npm test, node"
          />
        </label>
        <label className="field">
          <span className="field-name">At most this many calls</span>
          <input
            type="number"
            min={1}
            value={maxCalls}
            onChange={(event) => setMaxCalls(event.target.value)}
          />
        </label>
        {problem && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
        <div className="row">
          <button type="submit" className="primary">
            Open it
          </button>
          <button
            type="button"
            onClick={() =>
              void build().then(
                (lesson) =>
                  lesson && download(`${lesson.id}.lesson.json`, serializeLesson(lesson), "application/json"),
              )
            }
          >
            Export file
          </button>
          <button
            type="button"
            onClick={() =>
              void build().then(async (lesson) => {
                if (!lesson) return;
                const link = lessonLink(lesson, location.href);
                if (!link) {
                  setProblem("This lesson is too large for a link; export it as a file instead.");
                  return;
                }
                await navigator.clipboard?.writeText(link).catch(() => undefined);
                model.notify("ok", "A link to the lesson was copied.");
              })
            }
          >
            Copy link
          </button>
          <button type="button" onClick={() => model.setAuthoringLesson(false)}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
