import { useEffect, useMemo, useState } from "react";
import type { ApprovalMode } from "../../core/profile.ts";
import type { CallOutcome } from "../../core/runtime.ts";
import type { ToolInfo } from "../../worker/api.ts";
import { buildParams, type Field, type FieldValue, fieldsOf, initialValues } from "../console/schema-form.ts";
import { pretty } from "../download.ts";
import { formatWait } from "../format.ts";
import { getModel, message, useAppState } from "../model.ts";

/** Run any tool of any dialect from a form built from its JSON Schema; see its envelope as the dialect returns it. */
export function ToolConsole() {
  const model = getModel();
  const profiles = useAppState((state) => state.profiles);
  const sessionVersion = useAppState((state) => state.sessionVersion);
  const lesson = useAppState((state) => state.lesson?.lesson ?? null);
  // In a lesson, the console offers what the lesson allows (the runtime's guard refuses the rest anyway).
  const published = useMemo(
    () =>
      profiles.filter(
        (profile) =>
          !profile.internal && (!lesson || lesson.profiles.some((entry) => entry.profile === profile.name)),
      ),
    [profiles, lesson],
  );
  const [profile, setProfile] = useState(model.consoleChoice.profile);
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const [toolName, setToolName] = useState(model.consoleChoice.tool);
  const [values, setValues] = useState<Record<string, FieldValue>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [requestId, setRequestId] = useState("");
  const [running, setRunning] = useState<{ since: number; requestId: string } | null>(null);
  const [outcome, setOutcome] = useState<CallOutcome | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [, tick] = useState(0);

  useEffect(() => {
    if ((!profile || !published.some((entry) => entry.name === profile)) && published[0])
      setProfile(published[0].name);
  }, [profile, published]);
  useEffect(() => {
    model.consoleChoice.profile = profile;
    model.consoleChoice.tool = toolName;
  }, [model, profile, toolName]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: sessionVersion: approval modes may change after a restart
  useEffect(() => {
    if (!profile) return;
    let current = true;
    model.host.api.listTools(profile).then(
      (all) => {
        if (!current) return;
        const allowed = lesson?.profiles.find((entry) => entry.profile === profile)?.tools;
        const list = allowed ? all.filter((tool) => allowed.includes(tool.name)) : all;
        setTools(list);
        setToolName((name) => (list.some((tool) => tool.name === name) ? name : (list[0]?.name ?? "")));
      },
      (error: unknown) => model.notify("error", `Could not list the tools of ${profile}: ${message(error)}`),
    );
    return () => {
      current = false;
    };
  }, [profile, model, sessionVersion, lesson]);

  const tool = tools.find((candidate) => candidate.name === toolName);
  const fields = useMemo(() => (tool ? fieldsOf(tool.inputSchema) : []), [tool]);
  useEffect(() => {
    setValues(initialValues(fields));
    setErrors({});
  }, [fields]);

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => tick((value) => value + 1), 200);
    return () => clearInterval(timer);
  }, [running]);

  const run = async () => {
    if (!tool || running) return;
    const built = buildParams(fields, values);
    if (!built.ok) {
      setErrors(built.errors);
      return;
    }
    setErrors({});
    setFailure(null);
    // A request id names one call (and what Cancel stops): the next run gets a fresh one unless the person types another.
    const id = requestId.trim() || model.newRequestId();
    setRunning({ since: performance.now(), requestId: id });
    setRequestId("");
    try {
      const result = await model.run(profile, { tool: tool.name, params: built.params, request_id: id });
      setOutcome(result);
    } catch (error) {
      setOutcome(null);
      setFailure(`${message(error)}`);
    } finally {
      setRunning(null);
    }
  };

  // Ctrl+Enter anywhere runs the console's tool (App dispatches it).
  useEffect(() => {
    const onRun = () => void run();
    window.addEventListener("toolroom:run", onRun);
    return () => window.removeEventListener("toolroom:run", onRun);
  });

  const setApproval = async (mode: ApprovalMode | "default") => {
    if (!tool) return;
    await model.host.api.approvals.set(profile, tool.name, mode);
    setTools(await model.host.api.listTools(profile));
  };

  return (
    <section className="pane console" aria-labelledby="console-heading">
      {/* The tab above says which pane this is; the heading stays for screen readers. */}
      <h2 id="console-heading" className="visually-hidden">
        Tool console
      </h2>
      <form
        className="console-form"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        {/* The fields scroll; the Run row below them never leaves the pane. */}
        <div className="console-fields" data-testid="console-fields">
          <div className="row">
            <label>
              Dialect
              <select
                value={profile}
                onChange={(event) => setProfile(event.target.value)}
                data-testid="console-profile"
              >
                {published.map((item) => (
                  <option key={item.name} value={item.name}>
                    {item.title}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Tool
              <select
                value={toolName}
                onChange={(event) => setToolName(event.target.value)}
                data-testid="console-tool"
              >
                {tools.map((item) => (
                  <option key={item.name} value={item.name}>
                    {item.name}
                  </option>
                ))}
              </select>
            </label>
            {tool && tool.kind !== "read" && (
              <label title="How a call of this tool is approved">
                Approval
                <select
                  value={tool.approval}
                  onChange={(event) => void setApproval(event.target.value as ApprovalMode)}
                  data-testid="console-approval"
                >
                  <option value="auto">run without asking</option>
                  <option value="ask">ask me each time</option>
                  <option value="deny">never allow</option>
                </select>
              </label>
            )}
          </div>
          {tool && (
            <p className="help">
              <span className={`kind ${tool.kind}`}>{tool.kind}</span> {tool.description}
            </p>
          )}
          {fields.map((field) => (
            <FieldInput
              key={`${toolName}:${field.name}`}
              field={field}
              value={values[field.name] ?? ""}
              error={errors[field.name]}
              onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
            />
          ))}
          <label className="field">
            <span className="field-name">request_id</span>
            <input
              value={requestId}
              placeholder="optional; one is made up when empty"
              onChange={(event) => setRequestId(event.target.value)}
            />
          </label>
        </div>
        <div className="row console-actions">
          <button
            type="submit"
            className="primary"
            disabled={!tool}
            // Not disabled while running: focus stays on Run (a disabled button drops it), run() ignores it.
            aria-disabled={running !== null}
            data-testid="console-run"
            title="Run (Ctrl+Enter)"
          >
            {running ? `Running… ${((performance.now() - running.since) / 1000).toFixed(1)} s` : "Run"}
          </button>
          {running && (
            <button
              type="button"
              onClick={() => model.cancel(running.requestId)}
              data-testid="console-cancel"
              title="Stop this call now; what it printed so far is kept"
            >
              Cancel
            </button>
          )}
          <span className="hint">
            <kbd>Ctrl</kbd>+<kbd>Enter</kbd>
          </span>
        </div>
      </form>
      {failure && (
        <p className="banner error" role="alert">
          {failure}
        </p>
      )}
      {outcome && (
        <section
          className="result"
          aria-live="polite"
          data-testid="console-result"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
          tabIndex={0}
          aria-label="Result"
        >
          <p className="result-line">
            <span className={`status ${outcome.status}`} data-testid="console-status">
              {outcome.status}
            </span>{" "}
            step {outcome.step} · {outcome.requestId} ·{" "}
            <span data-testid="console-duration">{outcome.durationSec.toFixed(3)} s</span>
            {outcome.approvalWaitSec !== undefined && (
              <span className="count" data-testid="console-approval-wait">
                {" "}
                (+ {formatWait(outcome.approvalWaitSec)} waiting for approval)
              </span>
            )}
            {outcome.changes.length > 0 ? ` · ${outcome.changes.length} paths changed` : ""}
          </p>
          <pre data-testid="console-envelope">{pretty(outcome.envelope)}</pre>
        </section>
      )}
    </section>
  );
}

function FieldInput(props: {
  field: Field;
  value: FieldValue;
  error: string | undefined;
  onChange(value: FieldValue): void;
}) {
  const { field, value, error, onChange } = props;
  const id = `field-${field.name}`;
  const describedBy = `${id}-help`;
  const label = (
    <span className="field-name">
      {field.name}
      {field.required ? <abbr title="required"> *</abbr> : null}
    </span>
  );
  const help = (
    <span className="field-help" id={describedBy}>
      {field.description}
      {field.kind === "json" ? ` (JSON: ${field.hint})` : field.kind === "lines" ? " (one per line)" : ""}
      {error ? <span className="field-error"> {error}</span> : null}
    </span>
  );
  const common = {
    id,
    "aria-describedby": describedBy,
    "aria-invalid": error ? true : undefined,
    "data-testid": `param-${field.name}`,
  };
  if (field.kind === "boolean") {
    return (
      <label className="field checkbox" htmlFor={id}>
        <input
          {...common}
          type="checkbox"
          checked={value === true}
          onChange={(event) => onChange(event.target.checked)}
        />
        {label}
        {help}
      </label>
    );
  }
  let input: React.ReactNode;
  const text = typeof value === "string" ? value : "";
  if (field.kind === "enum") {
    input = (
      <select {...common} value={text} onChange={(event) => onChange(event.target.value)}>
        {!field.required && <option value="">(default)</option>}
        {field.options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  } else if (field.kind === "text" || field.kind === "json" || field.kind === "lines") {
    input = (
      <textarea
        {...common}
        rows={field.kind === "text" ? 3 : 2}
        spellCheck={false}
        value={text}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  } else {
    input = (
      <input
        {...common}
        type={field.kind === "string" ? "text" : "number"}
        step={field.kind === "integer" ? 1 : "any"}
        value={text}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  }
  return (
    <label className="field" htmlFor={id}>
      {label}
      {input}
      {help}
    </label>
  );
}
