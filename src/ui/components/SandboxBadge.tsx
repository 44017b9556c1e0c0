import { useState } from "react";
import { useAppState } from "../model.ts";
import { BootPanel } from "./BootPanel.tsx";
import { PythonPackages } from "./PythonPackages.tsx";

/** Which sandbox runs and why; for the embedded one, plainly what it cannot do. */
export function SandboxBadge() {
  const sandbox = useAppState((state) => state.sandbox);
  const readyMs = useAppState((state) => state.readyMs);
  // Python's packages are read from IndexedDB only when someone opens this.
  const [open, setOpen] = useState(false);
  if (!sandbox) return <span className="badge">Starting…</span>;
  const embedded = sandbox.backend === "embedded";
  return (
    <details className="menu badge-menu" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary
        className={`badge ${embedded ? "limited" : "full"}`}
        data-testid="sandbox-badge"
        data-backend={sandbox.backend}
      >
        {embedded
          ? "Embedded sandbox — no native binaries, no npm install"
          : "WebContainer — Node.js and npm"}
      </summary>
      <div className="menu-body wide">
        {embedded ? (
          <p data-testid="sandbox-limits">
            Commands run in <strong>just-bash</strong>, a bash emulator inside this tab, on an in-memory copy
            of the workspace: the usual Unix tools (ls, cat, grep, sed, awk, jq, find, diff…), git, a{" "}
            <code>node</code> on QuickJS with <code>npm run</code>/<code>npm test</code> and <code>npx</code>{" "}
            for local bins, and <code>python3</code> (CPython compiled to WebAssembly, loaded on first use).
            It cannot run native binaries (no compilers or native addons) and has no <code>npm install</code>:
            there is no npm registry here. Why this one: {sandbox.reason}.
          </p>
        ) : (
          <p>A WebContainer runs Node.js and npm in this tab. Why this one: {sandbox.reason}.</p>
        )}
        {readyMs !== null && <p>Ready {readyMs} ms after the page started.</p>}
        {embedded && open && <PythonPackages />}
        <BootPanel />
      </div>
    </details>
  );
}
