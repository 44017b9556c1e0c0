import { useEffect } from "react";
import { ApprovalDialog } from "./components/ApprovalDialog.tsx";
import { BootPanel } from "./components/BootPanel.tsx";
import { EditorPane } from "./components/EditorPane.tsx";
import { EventLog } from "./components/EventLog.tsx";
import { FileTree } from "./components/FileTree.tsx";
import { LessonAuthor } from "./components/LessonAuthor.tsx";
import { LessonPanel } from "./components/LessonPanel.tsx";
import { Notices } from "./components/Notices.tsx";
import { TerminalPane } from "./components/TerminalPane.tsx";
import { ToolConsole } from "./components/ToolConsole.tsx";
import { TopBar } from "./components/TopBar.tsx";
import { useAppState } from "./model.ts";

/** Alt+1…5 move focus between the panes; Ctrl+Enter runs the console's tool. */
const PANES = ["files-heading", "editor-heading", "terminal-heading", "log-heading", "console-heading"];

export function App() {
  const booting = useAppState((state) => state.booting);
  const ready = useAppState((state) => state.workspace !== null);
  const lessonOpen = useAppState((state) => state.lesson !== null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
        event.preventDefault();
        window.dispatchEvent(new Event("toolroom:run"));
        return;
      }
      if (event.altKey && /^[1-5]$/u.test(event.key)) {
        const pane = document.getElementById(PANES[Number(event.key) - 1]!)?.closest("section");
        const target = pane?.querySelector<HTMLElement>(
          "[tabindex='0'], button, select, input, textarea, .monaco-host textarea",
        );
        if (target) {
          event.preventDefault();
          target.focus();
        }
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <div className="app" data-ready={ready && !booting ? "true" : "false"} data-testid="app">
      <TopBar />
      {!ready ? (
        <main className="booting">
          <h2>Starting the sandbox</h2>
          <BootPanel />
        </main>
      ) : (
        <main className="workbench">
          <div className={lessonOpen ? "left with-lesson" : "left"}>
            <FileTree />
            <LessonPanel />
          </div>
          <div className="center">
            <EditorPane />
            <TerminalPane />
          </div>
          <div className="side">
            <EventLog />
            <ToolConsole />
          </div>
        </main>
      )}
      <ApprovalDialog />
      <LessonAuthor />
      <Notices />
    </div>
  );
}
