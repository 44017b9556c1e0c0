import { getModel, useAppState } from "../model.ts";

/**
 * The bottom line of the page: the newest message (errors stay until dismissed, the rest go by
 * themselves), earlier ones on demand, and the keys that move between panes. It has a row of its
 * own, so a message never covers a control.
 */
export function StatusBar() {
  const model = getModel();
  const notices = useAppState((state) => state.notices);
  const history = useAppState((state) => state.noticeHistory);
  const hidden = notices.length - 1;
  return (
    <footer className="status-bar" data-testid="status-bar">
      <div className="notices" aria-live="polite" data-testid="notices">
        {notices.map((notice) => (
          <div
            key={notice.id}
            className={`notice ${notice.tone}`}
            role={notice.tone === "error" ? "alert" : "status"}
            data-testid="notice"
          >
            <span className="notice-text" title={notice.text}>
              {notice.text}
            </span>
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
            <button
              type="button"
              aria-label="Dismiss"
              title="Dismiss"
              onClick={() => model.dismiss(notice.id)}
            >
              ×
            </button>
          </div>
        ))}
      </div>
      {hidden > 0 && <span className="count">+{hidden} more</span>}
      {history.length > 0 && (
        <details className="menu up" data-testid="notice-history">
          <summary>Messages ({history.length})</summary>
          <div className="menu-body wide">
            <ol className="history">
              {[...history].reverse().map((notice) => (
                <li key={notice.id} className={notice.tone}>
                  <span className="count">{new Date(notice.at).toLocaleTimeString()}</span> {notice.text}
                </li>
              ))}
            </ol>
          </div>
        </details>
      )}
      <span className="keys" data-testid="key-hints">
        <kbd>F6</kbd> next pane · <kbd>Alt</kbd>+<kbd>1</kbd>…<kbd>6</kbd> jump to a pane · <kbd>Esc</kbd>{" "}
        <kbd>Tab</kbd> leaves the terminal or editor
      </span>
    </footer>
  );
}
