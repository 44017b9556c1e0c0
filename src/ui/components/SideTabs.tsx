import { PaneToggle } from "../layout/panes.tsx";
import { getModel, useAppState } from "../model.ts";
import { AgentPane } from "./AgentPane.tsx";
import { ToolConsole } from "./ToolConsole.tsx";

/** The agent and the tool console share the lower right: a model works in one, a person in the other. */
export function SideTabs() {
  const model = getModel();
  const tab = useAppState((state) => state.sideTab);
  const tabs = [
    { id: "agent", label: "Agent" },
    { id: "console", label: "Tool console" },
  ] as const;
  return (
    <div className="side-tabs">
      <div className="tabs-row">
        <div className="tabs" role="tablist" aria-label="Agent or tool console">
          {tabs.map((item) => (
            <button
              key={item.id}
              type="button"
              role="tab"
              id={`tab-${item.id}`}
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
        <PaneToggle label="the agent and the tool console" />
      </div>
      <div id="side-tab-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} className="side-tab-panel">
        {tab === "agent" ? <AgentPane /> : <ToolConsole />}
      </div>
    </div>
  );
}
