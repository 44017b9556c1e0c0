import { useEffect } from "react";
import { AgentPane } from "./components/AgentPane.tsx";
import { ApprovalDialog } from "./components/ApprovalDialog.tsx";
import { BootPanel } from "./components/BootPanel.tsx";
import { EditorPane } from "./components/EditorPane.tsx";
import { EventLog } from "./components/EventLog.tsx";
import { FileTree } from "./components/FileTree.tsx";
import { LessonAuthor } from "./components/LessonAuthor.tsx";
import { LessonPanel } from "./components/LessonPanel.tsx";
import { Notices } from "./components/Notices.tsx";
import { ReplayPanel } from "./components/ReplayPanel.tsx";
import { TerminalPane } from "./components/TerminalPane.tsx";
import { ToolConsole } from "./components/ToolConsole.tsx";
import { TopBar } from "./components/TopBar.tsx";
import { getModel, useAppState } from "./model.ts";

/** Alt+1…5 move focus between the panes (5: the agent or the console, whichever is shown); Ctrl+Enter runs the console's tool. */
const PANES = [
  ["files-heading"],
  ["editor-heading"],
  ["terminal-heading"],
  ["log-heading"],
  ["agent-heading", "console-heading"],
];

export function App() {
  const booting = useAppState((state) => state.booting);
  const ready = useAppState((state) => state.workspace !== null);
  const lessonOpen = useAppState((state) => state.lesson !== null || state.replay !== null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
        event.preventDefault();
        window.dispatchEvent(new Event("toolroom:run"));
        return;
      }
      if (event.altKey && /^[1-5]$/u.test(event.key)) {
        const pane = PANES[Number(event.key) - 1]!.map((id) => document.getElementById(id))
          .find(Boolean)
          ?.closest("section");
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
            <ReplayPanel />
          </div>
          <div className="center">
            <EditorPane />
            <TerminalPane />
          </div>
          <div className="side">
            <EventLog />
            <SideTabs />
          </div>
        </main>
      )}
      <ApprovalDialog />
      <LessonAuthor />
      <Notices />
    </div>
  );
}

/** The agent and the tool console share the lower right: a model works in one, a person in the other. */
function SideTabs() {
  const model = getModel();
  const tab = useAppState((state) => state.sideTab);
  const tabs = [
    { id: "agent", label: "Agent" },
    { id: "console", label: "Tool console" },
  ] as const;
  return (
    <div className="side-tabs">
      <div className="tabs" role="tablist" aria-label="Agent or tool console">
        {tabs.map((item) => (
          <button
            key={item.id}
            type="button"
            role="tab"
            aria-selected={tab === item.id}
            className={tab === item.id ? "tab active" : "tab"}
            tabIndex={tab === item.id ? 0 : -1}
            aria-controls="side-tab-panel"
            onClick={() => model.setSideTab(item.id)}
            onKeyDown={(event) => {
              // Arrow keys move between tabs, as in every tab list.
              if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
              event.preventDefault();
              const other = tabs.find((candidate) => candidate.id !== item.id)!;
              model.setSideTab(other.id);
              requestAnimationFrame(() =>
                document.querySelector<HTMLElement>(`[data-testid="tab-${other.id}"]`)?.focus(),
              );
            }}
            data-testid={`tab-${item.id}`}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div id="side-tab-panel" role="tabpanel" className="side-tab-panel">
        {tab === "agent" ? <AgentPane /> : <ToolConsole />}
      </div>
    </div>
  );
}
