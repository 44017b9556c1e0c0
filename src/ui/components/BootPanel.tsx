import { useAppState } from "../model.ts";

/** What the browser offers and what each boot step did: shown while booting, and on demand after. */
export function BootPanel() {
  const support = useAppState((state) => state.support);
  const steps = useAppState((state) => state.bootSteps);
  const waiting = useAppState((state) => state.waitingForWebContainer);
  return (
    <div className="boot-panel" data-testid="boot-panel">
      <h3>This browser</h3>
      <ul className="support">
        {support.map((line) => (
          <li key={line.key} className={line.ok ? "ok" : "missing"}>
            <span aria-hidden="true">{line.ok ? "✓" : "✗"}</span> <strong>{line.label}</strong>:{" "}
            {line.meaning}
          </li>
        ))}
      </ul>
      <h3>Boot</h3>
      <ol className="steps" data-testid="boot-steps">
        {steps.map((step) => (
          <li key={`${step.ms}-${step.text}`} className={step.tone}>
            <span className="ms">{(step.ms / 1000).toFixed(2)} s</span> {step.text}
          </li>
        ))}
        {waiting !== null && (
          <li className="info" aria-live="polite">
            Waiting for WebContainer… {(waiting / 1000).toFixed(1)} s left before falling back
          </li>
        )}
      </ol>
    </div>
  );
}
