import { proxy } from "comlink";
import { useEffect, useRef, useState } from "react";
import { PaneToggle } from "../layout/panes.tsx";
import { getModel, message, useAppState } from "../model.ts";

/** A person's shell on the sandbox (a PTY session), in xterm; reopened when the worker or workspace changes. */
export function TerminalPane() {
  const model = getModel();
  const sessionVersion = useAppState((state) => state.sessionVersion);
  const backend = useAppState((state) => state.sandbox?.backend);
  const host = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState("Starting the shell…");

  useEffect(() => {
    if (sessionVersion === 0 || !host.current) return;
    let disposed = false;
    let cleanup: () => void = () => undefined;
    void (async () => {
      const [{ Terminal }, { FitAddon }] = await Promise.all([
        import("@xterm/xterm"),
        import("@xterm/addon-fit"),
      ]);
      await import("@xterm/xterm/css/xterm.css");
      if (disposed || !host.current) return;
      const terminal = new Terminal({
        convertEol: true,
        cursorBlink: true,
        fontSize: 13,
        theme: { background: "#111418" },
        screenReaderMode: false,
      });
      const fit = new FitAddon();
      terminal.loadAddon(fit);
      terminal.open(host.current);
      fit.fit();
      const api = model.host.api;
      let id: string;
      try {
        id = await api.terminal.open(
          { cols: terminal.cols, rows: terminal.rows },
          proxy((chunk: string) => terminal.write(chunk)),
        );
      } catch (error) {
        setStatus(`The shell did not start: ${message(error)}`);
        terminal.dispose();
        return;
      }
      setStatus("");
      // Ctrl-C goes through shared memory first: a busy command keeps the worker from reading the keystroke.
      const channel = await api.terminal.channel(id).catch(() => null);
      const input = terminal.onData((data) => {
        if (channel !== null && data.includes("\u0003")) model.host.interruptTerminal(channel);
        void api.terminal.write(id, data).catch((error: unknown) => {
          terminal.write(`\r\n[${message(error)}]\r\n`);
        });
      });
      const observer = new ResizeObserver(() => {
        fit.fit();
        void api.terminal.resize(id, terminal.cols, terminal.rows).catch(() => undefined);
      });
      observer.observe(host.current);
      cleanup = () => {
        observer.disconnect();
        input.dispose();
        void api.terminal.kill(id).catch(() => undefined);
        terminal.dispose();
      };
      if (disposed) cleanup();
    })();
    return () => {
      disposed = true;
      cleanup();
    };
  }, [sessionVersion, model]);

  return (
    <section className="pane terminal" aria-labelledby="terminal-heading">
      <header className="pane-header">
        <PaneToggle label="the terminal" />
        <h2 id="terminal-heading">Terminal</h2>
        <span
          className="hint"
          title={
            backend === "embedded"
              ? "bash emulated by just-bash in this tab: coreutils, grep, sed, awk, jq, git, node (QuickJS) — no native binaries"
              : "jsh in the WebContainer"
          }
        >
          {backend === "embedded" ? "just-bash in this tab, no native binaries" : "jsh in the WebContainer"}
        </span>
        <span className="hint keys" data-testid="terminal-keys">
          <kbd>Esc</kbd> then <kbd>Tab</kbd> leaves the terminal
        </span>
      </header>
      {status && <p className="empty">{status}</p>}
      <div ref={host} className="terminal-host" data-pane-focus="" data-testid="terminal" />
    </section>
  );
}
