import { useEffect } from "react";
import type { BackendChoice } from "../../worker/api.ts";
import { keepMenusInView } from "../layout/menus.ts";
import { getModel, useAppState } from "../model.ts";
import { LessonMenu } from "./LessonMenu.tsx";
import { SandboxBadge } from "./SandboxBadge.tsx";
import { SessionsMenu } from "./SessionsMenu.tsx";
import { WorkspaceMenu } from "./WorkspaceMenu.tsx";

export function TopBar() {
  const model = getModel();
  const settings = useAppState((state) => state.settings);
  useEffect(keepMenusInView, []);
  return (
    <header className="top-bar">
      <h1>Toolroom</h1>
      <WorkspaceMenu />
      <LessonMenu />
      <SessionsMenu />
      <SandboxBadge />
      {settings && (
        <label className="setting" title="Which sandbox runs the workspace (from the next reload)">
          Sandbox
          <select
            value={settings.backend}
            onChange={(event) => void model.setBackend(event.target.value as BackendChoice)}
            data-testid="backend-setting"
          >
            <option value="auto">auto: WebContainer if it boots</option>
            <option value="embedded">embedded only</option>
            <option value="webcontainer">WebContainer</option>
          </select>
        </label>
      )}
    </header>
  );
}
