import { useEffect, useMemo, useState } from "react";
import type { ToolEvent } from "../../core/events.ts";
import type { FileDiff } from "../../worker/api.ts";
import { download, pretty } from "../download.ts";
import { formatWait } from "../format.ts";
import { PaneToggle } from "../layout/panes.tsx";
import { getModel, message, useAppState } from "../model.ts";
import { VirtualList } from "./VirtualList.tsx";

const ROW_HEIGHT = 24;
type StatusFilter = "any" | "success" | "error";

/** Every event as it happens; filter, inspect one (params, envelope, changes), restore, download. */
export function EventLog() {
  const model = getModel();
  const eventsVersion = useAppState((state) => state.eventsVersion);
  const [tool, setTool] = useState("");
  const [type, setType] = useState("");
  const [status, setStatus] = useState<StatusFilter>("any");
  const [active, setActive] = useState(-1);
  const [selected, setSelected] = useState<ToolEvent | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: eventsVersion says when model.events grew in place
  const { tools, types } = useMemo(() => {
    const toolNames = new Set<string>();
    const typeNames = new Set<string>();
    for (const event of model.events) {
      if (event.tool) toolNames.add(event.tool);
      typeNames.add(event.type);
    }
    return { tools: [...toolNames].sort(), types: [...typeNames].sort() };
  }, [eventsVersion, model]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: as above
  const shown = useMemo(
    () =>
      model.events.filter(
        (event) =>
          (tool === "" || event.tool === tool) &&
          (type === "" || event.type === type) &&
          (status === "any" || event.status === status),
      ),
    [eventsVersion, model, tool, type, status],
  );

  const copy = async () => {
    const jsonl = await model.host.api.eventsJsonl();
    try {
      await navigator.clipboard.writeText(jsonl);
      model.notify("ok", `Copied ${jsonl.split("\n").length - 1} events as JSONL.`);
    } catch {
      download("events.jsonl", jsonl, "application/x-ndjson");
      model.notify("info", "The clipboard is not available here, so the log was downloaded as events.jsonl.");
    }
  };

  return (
    <section className="pane log" aria-labelledby="log-heading">
      <header className="pane-header">
        <PaneToggle label="the event log" />
        <h2 id="log-heading">Event log</h2>
        <div className="toolbar" role="toolbar" aria-label="Event log">
          <button type="button" onClick={() => void copy()}>
            Copy JSONL
          </button>
          <button
            type="button"
            onClick={() =>
              void model.host.api
                .eventsJsonl()
                .then((jsonl) => download("events.jsonl", jsonl, "application/x-ndjson"))
            }
          >
            Download
          </button>
          <ArtifactsMenu />
        </div>
      </header>
      <div className="filters">
        <label>
          Tool
          <select value={tool} onChange={(event) => setTool(event.target.value)} data-testid="filter-tool">
            <option value="">all</option>
            {tools.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select
            value={status}
            onChange={(event) => setStatus(event.target.value as StatusFilter)}
            data-testid="filter-status"
          >
            <option value="any">any</option>
            <option value="success">success</option>
            <option value="error">error</option>
          </select>
        </label>
        <label>
          Type
          <select value={type} onChange={(event) => setType(event.target.value)} data-testid="filter-type">
            <option value="">all</option>
            {types.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <span className="count">
          {shown.length} of {model.events.length}
        </span>
      </div>
      {shown.length === 0 ? (
        <p className="empty">
          {model.events.length === 0
            ? "No events yet. Run a tool from the console, save a file, or type in the terminal."
            : "No event matches these filters."}
        </p>
      ) : (
        <VirtualList
          items={shown}
          rowHeight={ROW_HEIGHT}
          label="Events"
          role="listbox"
          testId="event-log"
          follow
          activeIndex={active}
          onActiveChange={(index) => {
            setActive(index);
            setSelected(shown[index] ?? null);
          }}
          onKey={(key, index) => {
            if (key !== "Enter" && key !== " ") return false;
            setSelected(shown[index] ?? null);
            return true;
          }}
          rowId={(index) => `event-row-${index}`}
          renderRow={(event, index, isActive) => (
            <div
              id={`event-row-${index}`}
              role="option"
              tabIndex={-1}
              aria-selected={selected === event}
              className={`event-row ${isActive ? "active" : ""} ${event.status ?? ""}`}
              data-type={event.type}
              data-request={event.request_id ?? ""}
              onClick={() => {
                setActive(index);
                setSelected(event);
              }}
              onKeyDown={() => undefined}
            >
              <span className="seq">{event.seq}</span>
              <span className="time">{event.ts.slice(11, 23)}</span>
              <span className="type">{event.type}</span>
              <span className="tool">{event.tool ?? ""}</span>
              <span className="status">{event.status ?? ""}</span>
              <span
                className="duration"
                title={
                  event.approval_wait_sec !== undefined
                    ? `ran ${event.duration_sec?.toFixed(3)} s; waited ${formatWait(event.approval_wait_sec)} for approval`
                    : undefined
                }
              >
                {event.duration_sec !== undefined ? `${event.duration_sec.toFixed(3)} s` : ""}
                {event.approval_wait_sec !== undefined ? " ⏸" : ""}
              </span>
            </div>
          )}
        />
      )}
      {selected && <EventDetails event={selected} onClose={() => setSelected(null)} />}
    </section>
  );
}

/** One event, with the call it belongs to: params, envelope, changed files, artifacts, restore. */
function EventDetails({ event, onClose }: { event: ToolEvent; onClose(): void }) {
  const model = getModel();
  const eventsVersion = useAppState((state) => state.eventsVersion);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the call's later events arrive in place
  const call = useMemo(() => {
    const related = event.request_id
      ? model.events.filter((other) => other.request_id === event.request_id)
      : [];
    return {
      started: related.find((other) => other.type === "tool_call_started"),
      finished: related.find((other) => other.type === "tool_call_finished"),
      others: related.filter(
        (other) => other.type !== "tool_call_started" && other.type !== "tool_call_finished",
      ),
    };
  }, [event, eventsVersion, model]);
  const step =
    typeof call.finished?.data?.step === "number"
      ? call.finished.data.step
      : event.type === "checkpoint_restored" && typeof event.data?.step === "number"
        ? event.data.step
        : null;
  const [changes, setChanges] = useState<FileDiff[] | null>(null);
  const [artifacts, setArtifacts] = useState<string[]>([]);

  useEffect(() => {
    setChanges(null);
    setArtifacts([]);
    if (step === null) return;
    let current = true;
    model.host.api.checkpoints.diff(step).then(
      (diffs) => current && setChanges(diffs),
      () => current && setChanges([]),
    );
    const tag = String(step).padStart(4, "0");
    void model.host.api.artifacts
      .list()
      .then((paths) => current && setArtifacts(paths.filter((path) => path.includes(`_${tag}`))));
    return () => {
      current = false;
    };
  }, [step, model]);

  const envelope = call.finished?.data?.envelope;
  const isRestore = event.type === "checkpoint_restored";
  return (
    <section className="event-details" aria-label={`Event ${event.seq} details`} data-testid="event-details">
      <div className="details-head">
        <strong>
          #{event.seq} {event.type} {event.tool ?? ""}
        </strong>
        {step !== null && (
          <button
            type="button"
            onClick={() => void model.restoreBefore(step)}
            title="Puts every file back as it was before this call (undoable)"
          >
            {isRestore ? "Undo this restore" : "Restore to before this call"}
          </button>
        )}
        <button type="button" onClick={onClose} aria-label="Close details">
          Close
        </button>
      </div>
      {call.started?.params !== undefined && (
        <details open>
          <summary>Params</summary>
          <pre data-testid="event-params">{pretty(call.started.params)}</pre>
        </details>
      )}
      {envelope !== undefined && (
        <details open>
          <summary>
            Envelope ({call.finished?.status}, {call.finished?.duration_sec?.toFixed(3)} s
            {call.finished?.approval_wait_sec !== undefined
              ? `, + ${formatWait(call.finished.approval_wait_sec)} waiting for approval`
              : ""}
            )
          </summary>
          <pre data-testid="event-envelope">{pretty(envelope)}</pre>
        </details>
      )}
      {changes !== null && (
        <details open>
          <summary>Files changed ({changes.length})</summary>
          {changes.length === 0 ? (
            <p className="empty">This call changed no files.</p>
          ) : (
            <ul className="changes">
              {changes.map((change) => (
                <li key={change.path}>
                  <span className={`change ${change.change}`}>{change.change}</span> {change.path}{" "}
                  <button type="button" onClick={() => model.showDiff(change)}>
                    Diff
                  </button>
                </li>
              ))}
            </ul>
          )}
        </details>
      )}
      {artifacts.length > 0 && (
        <details open>
          <summary>Artifacts</summary>
          <ul>
            {artifacts.map((path) => (
              <li key={path}>
                <ArtifactLink path={path} />
              </li>
            ))}
          </ul>
        </details>
      )}
      {call.others.length > 0 && (
        <details>
          <summary>Other events of this call ({call.others.length})</summary>
          <pre>{pretty(call.others)}</pre>
        </details>
      )}
      <details>
        <summary>Raw event</summary>
        <pre>{pretty(event)}</pre>
      </details>
    </section>
  );
}

function ArtifactLink({ path }: { path: string }) {
  const model = getModel();
  return (
    <button
      type="button"
      className="link"
      onClick={() =>
        void model.host.api.artifacts
          .get(path)
          .then((data) => download(path.replaceAll("/", "_"), data))
          .catch((error: unknown) => model.notify("error", `Could not download ${path}: ${message(error)}`))
      }
    >
      {path}
    </button>
  );
}

function ArtifactsMenu() {
  const model = getModel();
  const [paths, setPaths] = useState<string[] | null>(null);
  return (
    <details
      className="menu"
      onToggle={(event) => {
        if ((event.currentTarget as HTMLDetailsElement).open)
          void model.host.api.artifacts.list().then(setPaths);
      }}
    >
      <summary>Artifacts</summary>
      <div className="menu-body">
        {paths === null ? (
          <p>Loading…</p>
        ) : paths.length === 0 ? (
          <p>No artifacts yet: run logs and patches appear here.</p>
        ) : (
          <ul>
            {paths.map((path) => (
              <li key={path}>
                <ArtifactLink path={path} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </details>
  );
}
