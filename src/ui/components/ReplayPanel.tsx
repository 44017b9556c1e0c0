import { useState } from "react";
import { PaneToggle } from "../layout/panes.tsx";
import { getModel, useAppState } from "../model.ts";
import { Transcript } from "./AgentPane.tsx";

const VERDICT: Record<string, string> = {
  pending: "·",
  match: "✓",
  diverged: "✗",
  unrecorded: "?",
};

/** Paces a viewer can pick, in steps per second (0: as fast as the calls run). */
const PACES: [number, string][] = [
  [0.5, "0.5 steps/s"],
  [1, "1 step/s"],
  [2, "2 steps/s"],
  [5, "5 steps/s"],
  [0, "as fast as possible"],
];

/** The session being replayed: its task, its calls with their verdicts, Step and Play, and what the model said. */
export function ReplayPanel() {
  const model = getModel();
  const replay = useAppState((state) => state.replay);
  const busy = useAppState((state) => state.replayBusy);
  const playing = useAppState((state) => state.replayPlaying);
  const pace = useAppState((state) => state.replayPace);
  // Where the viewer drags the playhead to; the replay moves there when they let go.
  const [dragged, setDragged] = useState<number | null>(null);
  if (!replay) return null;
  const finished = replay.done === replay.steps.length;
  const position = dragged ?? replay.done;
  const commit = () => {
    if (dragged === null) return;
    setDragged(null);
    if (dragged !== replay.done) void model.replaySeek(dragged);
  };

  return (
    <section className="pane replay" aria-labelledby="replay-heading" data-testid="replay-panel">
      <header className="pane-header">
        <PaneToggle label="the replay" />
        <h2 id="replay-heading">Replay</h2>
        <span className="count" data-testid="replay-progress">
          {replay.done}/{replay.steps.length} · {replay.matched} matched · {replay.diverged} diverged
        </span>
      </header>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
      <section className="lesson-body" tabIndex={0} aria-label="Recorded calls">
        <p>
          <strong>{replay.title}</strong>
          {replay.recordedWith && <span className="count"> recorded with {replay.recordedWith}</span>}
        </p>
        {replay.description && <p className="count">{replay.description}</p>}
        {replay.task && (
          <p>
            Task: <em>{replay.task}</em>
          </p>
        )}
        <ol className="replay-steps" aria-label="Recorded calls">
          {replay.steps.map((step) => (
            <li
              key={step.index}
              data-verdict={step.verdict}
              data-testid="replay-step"
              className={step.index === replay.done && !finished ? "next" : ""}
            >
              <span className="verdict" title={step.verdict}>
                {VERDICT[step.verdict]}
              </span>{" "}
              {step.label}
              {step.requestId && <span className="count"> {step.requestId}</span>}
              {step.divergences.length > 0 && (
                <pre className="divergence" data-testid="replay-divergence">
                  {step.divergences.join("\n")}
                </pre>
              )}
            </li>
          ))}
        </ol>
        {finished && (
          <p className={replay.diverged ? "banner warn" : "banner"} data-testid="replay-summary">
            {replay.summary}
          </p>
        )}
        {replay.transcript.length > 0 && (
          <details className="replay-transcript">
            <summary>What the model said</summary>
            <Transcript entries={replay.transcript} />
          </details>
        )}
      </section>
      <div className="replay-controls lesson-actions">
        <label className="playhead">
          <span className="visually-hidden">Playhead: steps replayed</span>
          <input
            type="range"
            min={0}
            max={replay.steps.length}
            step={1}
            value={position}
            aria-valuetext={`${position} of ${replay.steps.length} steps replayed`}
            onChange={(event) => setDragged(Number(event.target.value))}
            onPointerUp={commit}
            onKeyUp={commit}
            onBlur={commit}
            data-testid="replay-playhead"
          />
        </label>
        <div className="row">
          {playing ? (
            <button
              type="button"
              className="primary"
              onClick={() => void model.replayPause()}
              data-testid="replay-pause"
            >
              Pause
            </button>
          ) : (
            <button
              type="button"
              className="primary"
              onClick={() => void model.replayPlay()}
              disabled={busy}
              data-testid="replay-play"
            >
              {finished ? "Play again" : replay.done > 0 ? "Play on" : "Play"}
            </button>
          )}
          <button
            type="button"
            onClick={() => void model.replayStep()}
            disabled={busy || finished}
            data-testid="replay-step-button"
          >
            Step
          </button>
          <label title="How many steps a second Play replays">
            Pace
            <select
              value={pace}
              onChange={(event) => model.setReplayPace(Number(event.target.value))}
              data-testid="replay-pace"
            >
              {PACES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => void model.closeReplay()}>
            Close
          </button>
        </div>
      </div>
    </section>
  );
}
