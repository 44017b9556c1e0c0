import { useRef } from "react";
import { sessionFileName } from "../../session/export.ts";
import type { SessionFile } from "../../session/format.ts";
import { download } from "../download.ts";
import { getModel, type SharedSession, useAppState } from "../model.ts";
import { DemoList } from "./DemoList.tsx";

/** Demo sessions to play, a session file to import, and the agent's conversation to export or share. */
export function SessionsMenu() {
  const model = getModel();
  // A conversation with anything in it has been recorded as a session.
  const recorded = useAppState((state) => (state.agent?.transcript.length ?? 0) > 0);
  const recording = useAppState((state) => state.recording);
  const upload = useRef<HTMLInputElement>(null);
  const menu = useRef<HTMLDetailsElement>(null);

  const close = () => menu.current?.removeAttribute("open");

  const exportFile = async (text: string | null) => {
    if (text === null) return;
    download(sessionFileName(JSON.parse(text) as SessionFile), text, "application/json");
    close();
  };

  const share = async (shared: SharedSession | null) => {
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
    <details
      className="menu"
      data-testid="sessions-menu"
      ref={menu}
      onToggle={(event) => {
        if (event.currentTarget.open) void model.refreshRecording();
      }}
    >
      <summary>Sessions</summary>
      <div className="menu-body stack wide">
        <p className="count">Watch a recorded agent at work (one click plays it):</p>
        <DemoList onPlay={close} />
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
            onClick={async () => exportFile(await model.exportSession())}
            data-testid="session-export"
          >
            Export session
          </button>
          <button
            type="button"
            disabled={!recorded}
            onClick={async () => share(await model.shareSession())}
            data-testid="session-share"
          >
            Copy share link
          </button>
        </div>
        {!recorded && <p className="count">Give the agent a task first; its run becomes a session.</p>}
        <p className="count">Your own calls (console, editor, terminal):</p>
        {recording ? (
          <div className="row" data-testid="recording">
            <span className="count">
              ● recording since {new Date(recording.startedAt).toLocaleTimeString()}, {recording.calls} call
              {recording.calls === 1 ? "" : "s"}
            </span>
            <button
              type="button"
              onClick={async () => exportFile(await model.exportRecording())}
              data-testid="recording-export"
            >
              Export
            </button>
            <button
              type="button"
              onClick={async () => share(await model.shareRecording())}
              data-testid="recording-share"
            >
              Copy link
            </button>
            <button type="button" onClick={() => void model.stopRecording()}>
              Stop recording
            </button>
          </div>
        ) : (
          <div className="row">
            <button type="button" onClick={() => void model.startRecording()} data-testid="recording-start">
              Record my calls
            </button>
          </div>
        )}
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
