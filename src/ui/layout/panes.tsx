import { createContext, useCallback, useContext, useEffect, useRef, useState } from "react";
import type { GroupImperativeHandle, Layout, PanelImperativeHandle, PanelSize } from "react-resizable-panels";

/**
 * The panes a person moves between, in Tab and F6 order, with their Alt+digit shortcut. `tools` is
 * the agent or the console (whichever tab is shown), `lesson` the lesson or the replay when open.
 */
export const PANES = [
  { id: "files", key: "1", label: "Files" },
  { id: "editor", key: "2", label: "Editor" },
  { id: "terminal", key: "3", label: "Terminal" },
  { id: "log", key: "4", label: "Event log" },
  { id: "tools", key: "5", label: "Agent or tool console" },
  { id: "lesson", key: "6", label: "Lesson or replay" },
] as const;

export type PaneId = (typeof PANES)[number]["id"];

type ColumnId = "left" | "side";

/** Which column holds a pane: a collapsed column opens before the pane in it is focused. */
const COLUMN: Partial<Record<PaneId, ColumnId>> = {
  files: "left",
  lesson: "left",
  log: "side",
  tools: "side",
};

/** The panels on screen, so a shortcut can open a collapsed pane before focusing it. */
const panels = new Map<PaneId | ColumnId, PanelImperativeHandle>();

export function registerPanel(id: PaneId | ColumnId, handle: PanelImperativeHandle | null): void {
  if (handle) panels.set(id, handle);
  else panels.delete(id);
}

function expand(id: PaneId | ColumnId | undefined): void {
  const panel = id ? panels.get(id) : undefined;
  if (panel?.isCollapsed()) panel.expand();
}

function paneElement(id: PaneId): HTMLElement | null {
  return document.querySelector<HTMLElement>(`[data-pane="${id}"]`);
}

/**
 * Moves focus into a pane (opening it if collapsed): to its own focus target if it marks one
 * (`data-pane-focus`: the tree, Monaco, xterm…), else to its first control.
 */
export function focusPane(id: PaneId): boolean {
  expand(COLUMN[id]);
  expand(id);
  const pane = paneElement(id);
  if (!pane) return false;
  const shown = (selector: string) =>
    [...pane.querySelectorAll<HTMLElement>(selector)].find((element) => element.getClientRects().length > 0);
  const target =
    shown("[data-pane-focus] textarea, [data-pane-focus][tabindex]") ??
    shown("[tabindex='0'], button:not(:disabled), select, input, textarea, summary, a[href]") ??
    pane;
  // A freshly expanded panel is laid out on the next frame.
  requestAnimationFrame(() => target.focus());
  target.focus();
  return true;
}

/** F6 / Shift+F6: the next or previous pane on screen, from the one holding focus. */
export function cyclePane(direction: 1 | -1): void {
  const present = PANES.filter((pane) => paneElement(pane.id));
  if (present.length === 0) return;
  const current = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>("[data-pane]")?.dataset
    .pane;
  const at = present.findIndex((pane) => pane.id === current);
  const next = present[(at + direction + present.length) % present.length]!;
  focusPane(next.id);
}

interface PaneState {
  id: PaneId;
  collapsed: boolean;
  toggle(): void;
}

const PaneContext = createContext<PaneState | null>(null);
export const PaneProvider = PaneContext.Provider;

/** A pane's own collapse button, in its header; absent where the pane cannot collapse. */
export function PaneToggle({ label }: { label: string }) {
  const pane = useContext(PaneContext);
  if (!pane) return null;
  return (
    <button
      type="button"
      className="pane-toggle"
      aria-expanded={!pane.collapsed}
      aria-label={`${pane.collapsed ? "Expand" : "Collapse"} ${label}`}
      title={`${pane.collapsed ? "Expand" : "Collapse"} ${label}`}
      onClick={pane.toggle}
      data-testid={`toggle-${pane.id}`}
    >
      <span aria-hidden="true">{pane.collapsed ? "▸" : "▾"}</span>
    </button>
  );
}

/** A collapsible panel's handle and whether it is collapsed now, for PaneProvider. */
export function usePaneState(id: PaneId): {
  state: PaneState;
  panelRef: (handle: PanelImperativeHandle | null) => void;
  onResize: (size: PanelSize) => void;
} {
  const handle = useRef<PanelImperativeHandle | null>(null);
  const [collapsed, setCollapsed] = useState(false);
  const panelRef = useCallback(
    (next: PanelImperativeHandle | null) => {
      handle.current = next;
      registerPanel(id, next);
    },
    [id],
  );
  const onResize = useCallback(() => setCollapsed(handle.current?.isCollapsed() ?? false), []);
  const toggle = useCallback(() => {
    const panel = handle.current;
    if (!panel) return;
    if (panel.isCollapsed()) panel.expand();
    else panel.collapse();
  }, []);
  return { state: { id, collapsed, toggle }, panelRef, onResize };
}

const LAYOUT_KEY = "toolroom.layout";

function readLayouts(workspace: string): Record<string, Layout> {
  try {
    const all = JSON.parse(localStorage.getItem(LAYOUT_KEY) ?? "{}") as Record<
      string,
      Record<string, Layout>
    >;
    return all[workspace] ?? {};
  } catch {
    return {};
  }
}

function saveLayout(workspace: string, group: string, layout: Layout): void {
  try {
    const all = JSON.parse(localStorage.getItem(LAYOUT_KEY) ?? "{}") as Record<
      string,
      Record<string, Layout>
    >;
    all[workspace] = { ...all[workspace], [group]: layout };
    localStorage.setItem(LAYOUT_KEY, JSON.stringify(all));
  } catch {
    // Storage may be off (private mode): the layout is a nicety.
  }
}

/** Forgets a deleted workspace's layout. */
export function forgetLayout(workspace: string): void {
  try {
    const all = JSON.parse(localStorage.getItem(LAYOUT_KEY) ?? "{}") as Record<string, unknown>;
    delete all[workspace];
    localStorage.setItem(LAYOUT_KEY, JSON.stringify(all));
  } catch {
    // Nothing kept, nothing to forget.
  }
}

/**
 * A group's layout, remembered per workspace: the person's sizes come back with the workspace
 * (after a reload or a switch), and a workspace never seen starts from `defaults`.
 */
export function useWorkspaceLayout(
  workspace: string,
  group: string,
  defaults: Layout,
): {
  groupRef: React.RefObject<GroupImperativeHandle | null>;
  defaultLayout: Layout;
  onLayoutChanged: (layout: Layout) => void;
} {
  const groupRef = useRef<GroupImperativeHandle | null>(null);
  const [initial] = useState(() => layoutFor(readLayouts(workspace)[group], defaults));
  const shown = useRef(workspace);
  const defaultsKey = Object.keys(defaults).join(",");

  // biome-ignore lint/correctness/useExhaustiveDependencies: defaults matter only through the panels they name
  useEffect(() => {
    if (shown.current === workspace) return;
    shown.current = workspace;
    groupRef.current?.setLayout(layoutFor(readLayouts(workspace)[group], defaults));
  }, [workspace, group, defaultsKey]);

  const onLayoutChanged = useCallback(
    // Sizes are percentages: a window resize leaves them as they were, so every change can be kept.
    (layout: Layout) => saveLayout(shown.current, group, layout),
    [group],
  );
  return { groupRef, defaultLayout: initial, onLayoutChanged };
}

/** A saved layout applies only if it names the same panels (a lesson adds one, for instance). */
function layoutFor(saved: Layout | undefined, defaults: Layout): Layout {
  if (!saved) return defaults;
  const keys = Object.keys(defaults);
  return keys.length === Object.keys(saved).length && keys.every((key) => key in saved) ? saved : defaults;
}
