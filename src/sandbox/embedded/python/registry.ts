import type { PythonRunner } from "./runner.ts";

/** Where a host's Python runs; null until the host registers one (see setPythonRunner). */
let runner: (() => PythonRunner) | null = null;

/**
 * Registers how this host runs Python: Node hosts register a worker_thread runner
 * (registerNodeAssets), the browser's runtime worker a Web Worker runner. Until then `python3`
 * says it is not available here. Apart from the command, so a host registers it before the shell loads.
 */
export function setPythonRunner(get: (() => PythonRunner) | null): void {
  runner = get;
}

export function pythonRunner(): PythonRunner | null {
  return runner?.() ?? null;
}
