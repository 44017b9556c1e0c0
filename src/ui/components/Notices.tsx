import { getModel, useAppState } from "../model.ts";

/** Messages that say what happened and what to do next; read out politely by screen readers. */
export function Notices() {
  const model = getModel();
  const notices = useAppState((state) => state.notices);
  return (
    <div className="notices" aria-live="polite" data-testid="notices">
      {notices.map((notice) => (
        <div
          key={notice.id}
          className={`notice ${notice.tone}`}
          role={notice.tone === "error" ? "alert" : "status"}
        >
          <span>{notice.text}</span>
          {notice.action && (
            <button
              type="button"
              onClick={() => {
                notice.action?.run();
                model.dismiss(notice.id);
              }}
            >
              {notice.action.label}
            </button>
          )}
          <button type="button" aria-label="Dismiss" onClick={() => model.dismiss(notice.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
