import type { ReactNode } from "react";
import { Group, Panel, Separator } from "react-resizable-panels";
import {
  type PaneId,
  PaneProvider,
  registerPanel,
  usePaneState,
  useWorkspaceLayout,
} from "../layout/panes.tsx";
import { useAppState } from "../model.ts";
import { EditorPane } from "./EditorPane.tsx";
import { EventLog } from "./EventLog.tsx";
import { FileTree } from "./FileTree.tsx";
import { LessonPanel } from "./LessonPanel.tsx";
import { ReplayPanel } from "./ReplayPanel.tsx";
import { SideTabs } from "./SideTabs.tsx";
import { TerminalPane } from "./TerminalPane.tsx";

/** A collapsed pane keeps its header: its name and the button that opens it again. */
const HEADER = "32px";

/**
 * The panes, in three resizable columns: files (and the lesson or replay), editor over terminal,
 * event log over the agent and the console. Sizes and collapsed panes are remembered per workspace.
 */
export function Workbench() {
  const workspace = useAppState((state) => state.workspace?.id ?? "");
  const lessonOpen = useAppState((state) => state.lesson !== null || state.replay !== null);
  const columns = useWorkspaceLayout(workspace, "columns", {
    "panel-left": 20,
    "panel-center": 50,
    "panel-side": 30,
  });
  const center = useWorkspaceLayout(workspace, "center", { "panel-editor": 62, "panel-terminal": 38 });
  const side = useWorkspaceLayout(workspace, "side", { "panel-log": 38, "panel-tools": 62 });
  return (
    <main className="workbench" data-testid="workbench">
      <Group
        id="layout-columns"
        orientation="horizontal"
        groupRef={columns.groupRef}
        defaultLayout={columns.defaultLayout}
        onLayoutChanged={columns.onLayoutChanged}
      >
        <Panel
          id="panel-left"
          minSize="160px"
          collapsible
          collapsedSize="0px"
          className="column"
          panelRef={(handle) => registerPanel("left", handle)}
        >
          {lessonOpen ? (
            <LeftWithLesson workspace={workspace} />
          ) : (
            <Slot id="files">
              <FileTree />
            </Slot>
          )}
        </Panel>
        <Separator className="separator vertical" aria-label="Resize the files column" />
        <Panel id="panel-center" minSize="280px" className="column">
          <Group
            id="layout-center"
            orientation="vertical"
            groupRef={center.groupRef}
            defaultLayout={center.defaultLayout}
            onLayoutChanged={center.onLayoutChanged}
          >
            <Pane id="editor" minSize="120px">
              <EditorPane />
            </Pane>
            <Separator className="separator horizontal" aria-label="Resize the editor and the terminal" />
            <Pane id="terminal" minSize="90px">
              <TerminalPane />
            </Pane>
          </Group>
        </Panel>
        <Separator className="separator vertical" aria-label="Resize the log and console column" />
        <Panel
          id="panel-side"
          minSize="300px"
          collapsible
          collapsedSize="0px"
          className="column"
          panelRef={(handle) => registerPanel("side", handle)}
        >
          <Group
            id="layout-side"
            orientation="vertical"
            groupRef={side.groupRef}
            defaultLayout={side.defaultLayout}
            onLayoutChanged={side.onLayoutChanged}
          >
            <Pane id="log" minSize="150px">
              <EventLog />
            </Pane>
            <Separator className="separator horizontal" aria-label="Resize the event log and the console" />
            <Pane id="tools" minSize="200px">
              <SideTabs />
            </Pane>
          </Group>
        </Panel>
      </Group>
    </main>
  );
}

function LeftWithLesson({ workspace }: { workspace: string }) {
  const left = useWorkspaceLayout(workspace, "left-lesson", { "panel-files": 35, "panel-lesson": 65 });
  return (
    <Group
      id="layout-left"
      orientation="vertical"
      groupRef={left.groupRef}
      defaultLayout={left.defaultLayout}
      onLayoutChanged={left.onLayoutChanged}
    >
      <Pane id="files" minSize="100px">
        <FileTree />
      </Pane>
      <Separator className="separator horizontal" aria-label="Resize the files and the lesson" />
      <Pane id="lesson" minSize="160px">
        <LessonPanel />
        <ReplayPanel />
      </Pane>
    </Group>
  );
}

/** A collapsible panel of a vertical group, down to its header. */
function Pane({ id, minSize, children }: { id: PaneId; minSize: string; children: ReactNode }) {
  const { state, panelRef, onResize } = usePaneState(id);
  return (
    <Panel
      id={`panel-${id}`}
      minSize={minSize}
      collapsible
      collapsedSize={HEADER}
      panelRef={panelRef}
      onResize={onResize}
      className="pane-panel"
    >
      <PaneProvider value={state}>
        <Slot id={id} collapsed={state.collapsed}>
          {children}
        </Slot>
      </PaneProvider>
    </Panel>
  );
}

/** Where a pane lives on the page, found by shortcuts and F6 (`data-pane`). */
function Slot({ id, collapsed = false, children }: { id: PaneId; collapsed?: boolean; children: ReactNode }) {
  return (
    <div className={collapsed ? "pane-slot collapsed" : "pane-slot"} data-pane={id}>
      {children}
    </div>
  );
}
