import { lazy, Suspense, useEffect } from "react";
import { ApprovalDialog } from "./components/ApprovalDialog.tsx";
import { BootPanel } from "./components/BootPanel.tsx";
import { LessonAuthor } from "./components/LessonAuthor.tsx";
import { StatusBar } from "./components/StatusBar.tsx";
import { TopBar } from "./components/TopBar.tsx";
import { modalOpen } from "./layout/modal.ts";
import { cyclePane, focusPane, PANES } from "./layout/panes.tsx";
import { useAppState } from "./model.ts";

// The panes load while the sandbox boots, off the path to the first screen.
const loadingWorkbench = import("./components/Workbench.tsx");
const Workbench = lazy(() => loadingWorkbench.then((module) => ({ default: module.Workbench })));

/** Widgets that keep Tab for themselves (the terminal's shell, Monaco's indent): Escape then Tab leaves them. */
const TAB_KEEPERS = ".xterm, .monaco-editor";

export function App() {
  const booting = useAppState((state) => state.booting);
  const ready = useAppState((state) => state.workspace !== null);
  // Everything a pane holds (an event's details, a console result, the tree's folders) belongs to
  // one workspace: another workspace gets fresh panes.
  const workspace = useAppState((state) => state.workspace?.id);

  useEffect(() => {
    let escaped = false;
    // Capture phase: pane shortcuts work even where xterm or Monaco would take the key.
    const onKeyCapture = (event: KeyboardEvent) => {
      const wasEscaped = escaped;
      escaped = event.key === "Escape";
      if (event.key === "Tab" && wasEscaped && (event.target as Element | null)?.closest?.(TAB_KEEPERS)) {
        // Not for the widget: the browser moves focus on as Tab always does.
        event.stopPropagation();
        return;
      }
      // A dialog keeps focus until it is answered or closed.
      if (modalOpen()) return;
      const pane = event.altKey && !event.ctrlKey && PANES.find((candidate) => candidate.key === event.key);
      if (pane) {
        if (focusPane(pane.id)) {
          event.preventDefault();
          event.stopPropagation();
        }
        return;
      }
      if (event.key === "F6") {
        event.preventDefault();
        event.stopPropagation();
        cyclePane(event.shiftKey ? -1 : 1);
      }
    };
    const onKey = (event: KeyboardEvent) => {
      // Not behind a dialog: Ctrl+Enter in the lesson author's text must not run the console's call.
      if ((event.ctrlKey || event.metaKey) && event.key === "Enter" && !modalOpen()) {
        event.preventDefault();
        window.dispatchEvent(new Event("toolroom:run"));
      }
    };
    window.addEventListener("keydown", onKeyCapture, true);
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKeyCapture, true);
      window.removeEventListener("keydown", onKey);
    };
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
        <Suspense fallback={<main className="booting">Loading the panes…</main>}>
          <Workbench key={workspace} />
        </Suspense>
      )}
      <StatusBar />
      <ApprovalDialog />
      <LessonAuthor />
    </div>
  );
}
