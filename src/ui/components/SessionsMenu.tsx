import { useRef } from "react";
import { sessionFileName } from "../../session/export.ts";
import type { SessionFile } from "../../session/format.ts";
import { download } from "../download.ts";
import { getModel, useAppState } from "../model.ts";

/** Demo sessions to play, a session file to import, and the agent's conversation to export or share. */
export function SessionsMenu() {
  const model = getModel();
  const recorded = useAppState((state) => state.agent?.recorded ?? false);
  const demos = useAppState((state) => state.demos);
  const upload = useRef<HTMLInputElement>(null);
  const menu = useRef<HTMLDetailsElement>(null);

  const close = () => menu.current?.removeAttribute("open");

  const exportFile = async () => {
    const text = await model.exportSession();
    if (text === null) return;
    download(sessionFileName(JSON.parse(text) as SessionFile), text, "application/json");
    close();
  };

  const share = async () => {
    const shared = await model.shareSession();
    if (!shared) return;
    close();
    if ("url" in shared) {
      await navigator.clipboard?.writeText(shared.url).catch(() => undefined);
      model.notify(
        "ok",
        "A share link was copied. Whoever opens it can replay this session, with no install.",
      );
      return;
    }
    download("toolroom-session.json", shared.file, "application/json");
    model.notify("info", shared.reason);
  };

  return (
    <details className="menu" data-testid="sessions-menu" ref={menu}>
      <summary>Sessions</summary>
      <div className="menu-body stack wide">
        <p className="count">Watch a recorded agent at work (one click plays it):</p>
        <ul className="lesson-list">
          {demos.map((demo) => (
            <li key={demo.id}>
              <button
                type="button"
                className="link"
                title={demo.description}
                data-demo={demo.id}
                onClick={() => {
                  close();
                  void model.openDemo(demo.id);
                }}
              >
                ▶ {demo.title}
              </button>
            </li>
          ))}
        </ul>
        <div className="row">
          <button type="button" onClick={() => upload.current?.click()} data-testid="session-import">
            Import session file…
          </button>
        </div>
        <p className="count">The agent's conversation in this workspace:</p>
        <div className="row">
          <button
            type="button"
            disabled={!recorded}
            onClick={() => void exportFile()}
            data-testid="session-export"
          >
            Export session
          </button>
          <button type="button" disabled={!recorded} onClick={() => void share()} data-testid="session-share">
            Copy share link
          </button>
        </div>
        {!recorded && <p className="count">Give the agent a task first; its run becomes a session.</p>}
        <input
          ref={upload}
          type="file"
          accept=".json,application/json"
          hidden
          data-testid="session-file"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = "";
            if (!file) return;
            close();
            void file.text().then((text) => model.openSession(text));
          }}
        />
      </div>
    </details>
  );
}
