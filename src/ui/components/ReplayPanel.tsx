import { PaneToggle } from "../layout/panes.tsx";
import { getModel, useAppState } from "../model.ts";
import { Transcript } from "./AgentPane.tsx";

const VERDICT: Record<string, string> = {
  pending: "·",
  match: "✓",
  diverged: "✗",
  unrecorded: "?",
};

/** The session being replayed: its task, its calls with their verdicts, Step and Play, and what the model said. */
export function ReplayPanel() {
  const model = getModel();
  const replay = useAppState((state) => state.replay);
  const busy = useAppState((state) => state.replayBusy);
  if (!replay) return null;
  const finished = replay.done === replay.steps.length;

  return (
    <section className="pane replay" aria-labelledby="replay-heading" data-testid="replay-panel">
      <header className="pane-header">
        <PaneToggle label="the replay" />
        <h2 id="replay-heading">Replay</h2>
        <span className="count" data-testid="replay-progress">
          {replay.done}/{replay.steps.length} · {replay.matched} matched · {replay.diverged} diverged
        </span>
      </header>
      <div className="lesson-body">
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
      </div>
      <div className="row lesson-actions">
        <button
          type="button"
          onClick={() => void model.replayStep()}
          disabled={busy || finished}
          data-testid="replay-step-button"
        >
          Step
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => void model.replayPlay()}
          disabled={busy || finished}
          data-testid="replay-play"
        >
          {busy ? "Playing…" : "Play all"}
        </button>
        <button type="button" onClick={() => void model.closeReplay()}>
          Close
        </button>
      </div>
    </section>
  );
}
