import { useEffect, useRef } from "react";
import { pretty } from "../download.ts";
import { useModal } from "../layout/modal.ts";
import { useAppState } from "../model.ts";

/** The worker asks before a mutating or command call when the dialect's policy (or the person) says "ask". */
export function ApprovalDialog() {
  const approvals = useAppState((state) => state.approvals);
  const first = approvals[0];
  const allowButton = useRef<HTMLButtonElement>(null);
  const overlay = useRef<HTMLDivElement>(null);
  useModal(overlay, first !== undefined);

  useEffect(() => {
    if (first) allowButton.current?.focus();
  }, [first]);

  useEffect(() => {
    if (!first) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLElement && event.target.closest("textarea, input")) return;
      const key = event.key.toLowerCase();
      if (key === "y") first.answer("allow");
      else if (key === "a") first.answer("allow_always");
      else if (key === "n" || key === "escape") first.answer("deny");
      else return;
      event.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [first]);

  if (!first) return null;
  const { request } = first;
  return (
    <div className="overlay" ref={overlay}>
      <div
        className="dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="approval-title"
        aria-describedby="approval-body"
        data-testid="approval-dialog"
      >
        <h2 id="approval-title">
          Allow {request.tool} ({request.kind})?
        </h2>
        <div id="approval-body">
          <p>
            The {request.profile} dialect wants to run <strong>{request.tool}</strong>, which{" "}
            {request.kind === "command" ? "runs a command in the sandbox" : "changes files in the workspace"}.
            {approvals.length > 1 ? ` ${approvals.length - 1} more waiting.` : ""}
          </p>
          <pre>{pretty(request.params)}</pre>
        </div>
        <div className="row">
          <button ref={allowButton} type="button" className="primary" onClick={() => first.answer("allow")}>
            Allow once <kbd>Y</kbd>
          </button>
          <button type="button" onClick={() => first.answer("allow_always")}>
            Always for {request.tool} <kbd>A</kbd>
          </button>
          <button type="button" className="danger" onClick={() => first.answer("deny")}>
            Deny <kbd>N</kbd>
          </button>
        </div>
      </div>
    </div>
  );
}
