import { type ReactNode, useId } from "react";
import {
  CHECK_KINDS,
  type CheckDraft,
  type CheckField,
  type CheckKind,
  emptyDraft,
  listOf,
} from "./check-drafts.ts";

interface Props {
  drafts: CheckDraft[];
  onChange(drafts: CheckDraft[]): void;
  /** The tools the learner may use: what a tool check can name. */
  tools: string[];
  /** The workspace's files, offered (not imposed: a check may name a file the learner creates). */
  paths: string[];
}

/** The lesson's checks as a form: a kind, a title the learner reads, and the kind's own fields. */
export function ChecksForm({ drafts, onChange, tools, paths }: Props) {
  const pathList = useId();
  const update = (index: number, next: CheckDraft) =>
    onChange(drafts.map((draft, at) => (at === index ? next : draft)));

  return (
    <div className="check-drafts" data-testid="checks-form">
      <datalist id={pathList}>
        {paths.map((path) => (
          <option key={path} value={path} />
        ))}
      </datalist>
      {drafts.map((draft, index) => (
        <fieldset
          // biome-ignore lint/suspicious/noArrayIndexKey: a draft has no identity of its own until it has a title
          key={index}
          className="check-draft"
          data-testid="check-draft"
        >
          <legend>Check {index + 1}</legend>
          <Labelled label="Kind">
            {(id) => (
              <select
                id={id}
                value={draft.kind}
                onChange={(event) => update(index, { ...draft, kind: event.target.value as CheckKind })}
              >
                {Object.entries(CHECK_KINDS).map(([kind, { label }]) => (
                  <option key={kind} value={kind}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Labelled>
          <Labelled label="Title" required>
            {(id) => (
              <input
                id={id}
                value={draft.title}
                placeholder="What the learner reads, e.g. “The bug is fixed”"
                onChange={(event) => update(index, { ...draft, title: event.target.value })}
              />
            )}
          </Labelled>
          {CHECK_KINDS[draft.kind].fields.map((field) => (
            <CheckFieldInput
              key={field.name}
              field={field}
              value={draft.values[field.name] ?? ""}
              tools={tools}
              pathList={pathList}
              onChange={(value) =>
                update(index, { ...draft, values: { ...draft.values, [field.name]: value } })
              }
            />
          ))}
          <div className="row">
            <button type="button" onClick={() => onChange(drafts.filter((_, at) => at !== index))}>
              Remove check {index + 1}
            </button>
          </div>
        </fieldset>
      ))}
      <div className="row">
        <button type="button" onClick={() => onChange([...drafts, emptyDraft()])} data-testid="add-check">
          Add a check
        </button>
      </div>
    </div>
  );
}

/** A label beside its control (not around it: a select's options are not part of its name). */
function Labelled({
  label,
  required = false,
  help,
  children,
}: {
  label: string;
  required?: boolean;
  help?: string;
  children(id: string, describedBy: string | undefined): ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id} className="field-name">
        {label}
        {required && <span aria-hidden="true"> *</span>}
      </label>
      {children(id, help ? `${id}-help` : undefined)}
      {help && (
        <span className="field-help" id={`${id}-help`}>
          {help}
        </span>
      )}
    </div>
  );
}

function CheckFieldInput({
  field,
  value,
  tools,
  pathList,
  onChange,
}: {
  field: CheckField;
  value: string;
  tools: string[];
  pathList: string;
  onChange(value: string): void;
}) {
  switch (field.type) {
    case "tools": {
      const chosen = listOf(value);
      return (
        <fieldset className="check-tools">
          <legend>{field.label}</legend>
          {tools.map((tool) => (
            <label key={tool} className="checkbox">
              <input
                type="checkbox"
                checked={chosen.includes(tool)}
                onChange={(event) =>
                  onChange(
                    (event.target.checked ? [...chosen, tool] : chosen.filter((item) => item !== tool)).join(
                      ", ",
                    ),
                  )
                }
              />
              {tool}
            </label>
          ))}
        </fieldset>
      );
    }
    case "tool":
      return (
        <Labelled label={field.label} required={field.required} help={field.help}>
          {(id, describedBy) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-required={field.required}
              value={value}
              onChange={(event) => onChange(event.target.value)}
            >
              <option value="">Pick a tool</option>
              {/* A tool named in the JSON but no longer offered stays visible. */}
              {[...tools, ...(value && !tools.includes(value) ? [value] : [])].map((tool) => (
                <option key={tool} value={tool}>
                  {tool}
                </option>
              ))}
            </select>
          )}
        </Labelled>
      );
    case "status":
      return (
        <Labelled label={field.label} help={field.help}>
          {(id, describedBy) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={value}
              onChange={(event) => onChange(event.target.value)}
            >
              <option value="">success or error</option>
              <option value="success">success</option>
              <option value="error">error</option>
            </select>
          )}
        </Labelled>
      );
    case "multiline":
      return (
        <Labelled label={field.label} required={field.required} help={field.help}>
          {(id, describedBy) => (
            <textarea
              id={id}
              aria-describedby={describedBy}
              aria-required={field.required}
              rows={2}
              className="mono"
              value={value}
              onChange={(event) => onChange(event.target.value)}
            />
          )}
        </Labelled>
      );
    default:
      return (
        <Labelled label={field.label} required={field.required} help={field.help}>
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              aria-required={field.required}
              type={field.type === "count" ? "number" : "text"}
              min={field.type === "count" ? 0 : undefined}
              step={field.type === "count" ? 1 : undefined}
              list={field.type === "path" ? pathList : undefined}
              className={field.type === "text" ? "mono" : undefined}
              value={value}
              onChange={(event) => onChange(event.target.value)}
            />
          )}
        </Labelled>
      );
  }
}
