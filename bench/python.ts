import { spawnSync } from "node:child_process";
import type { Runtime } from "../src/core/runtime.ts";
import { createEmbeddedRuntime } from "../src/host/create-runtime.ts";
import { registerNodeAssets } from "../src/host/node-assets.ts";
import { PythonRunner, setPythonRunner } from "../src/sandbox/embedded/python/index.ts";
import { nodePythonPlatform } from "../src/sandbox/embedded/python/node-platform.ts";
import { debianPytest } from "../src/test-support/python-packages.ts";
import { PYTHON_STARTER } from "../src/ui/starters/python.ts";
import { medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";
import { writeToDisk } from "./workspace.ts";

const NATIVE = "/usr/bin/python3";

async function runTests(runtime: Runtime, command: string): Promise<Record<string, unknown>> {
  const result = (await runtime.call("coding-agent", { tool: "run_tests", params: { command } })) as {
    ok: boolean;
    message: string;
    data: Record<string, unknown>;
  };
  if (!result.ok) throw new Error(`run_tests failed: ${result.message}`);
  return result.data;
}

/**
 * The embedded Python (CPython 3.13 as WebAssembly, in a worker_thread) against Debian's native
 * python3 3.11: `python3 -c pass` cold (a new worker: start, compile CPython, run) and warm, and the
 * Python starter's tests through run_tests (unittest, and pytest 7.2.1 from Debian's python3-pytest)
 * against the same runners natively.
 */
export async function benchPython(): Promise<BenchRow[]> {
  registerNodeAssets();
  const rows: BenchRow[] = [];
  const runner = new PythonRunner(nodePythonPlatform());
  setPythonRunner(() => runner);
  const runtime = await createEmbeddedRuntime({ files: PYTHON_STARTER, trackChanges: false });
  const native =
    (...args: string[]) =>
    () => {
      const result = spawnSync(NATIVE, args, { cwd: disk });
      if (result.error) throw result.error;
    };
  const disk = writeToDisk(PYTHON_STARTER);
  const nativePass = await medianMs(native("-c", "pass"), 5, 1);

  const started = performance.now();
  const cold = await runtime.sandbox.exec("python3 -c pass");
  if (cold.exitCode !== 0) throw new Error(`python3 -c pass failed: ${cold.stderr}`);
  rows.push({
    name: "python3 -c pass, cold (new worker: start, compile CPython, run)",
    ms: performance.now() - started,
    reference: { name: "python3 -c pass (native 3.11)", ms: nativePass },
  });
  rows.push({
    name: "python3 -c pass, warm (a fresh interpreter per run)",
    ms: await medianMs(() => runtime.sandbox.exec("python3 -c pass"), 5, 1),
    reference: { name: "python3 -c pass (native 3.11)", ms: nativePass },
  });

  const unittest = await runTests(runtime, "python3 -m unittest");
  rows.push({
    name: "run_tests: the Python starter with python3 -m unittest",
    ms: await medianMs(() => runTests(runtime, "python3 -m unittest"), 5, 1),
    reference: {
      name: "python3 -m unittest (native 3.11)",
      ms: await medianMs(native("-m", "unittest"), 5, 1),
    },
    note: String(unittest.summary),
  });

  runner.setPackages(await debianPytest());
  const pytestCold = performance.now();
  const pytest = await runTests(runtime, "pytest -p no:cacheprovider");
  const pytestColdMs = performance.now() - pytestCold;
  const nativePytest = await medianMs(native("-m", "pytest", "-p", "no:cacheprovider"), 5, 1);
  rows.push({
    name: "run_tests: the Python starter with pytest 7.2.1, first run (compiles pytest)",
    ms: pytestColdMs,
    reference: { name: "python3 -m pytest (native 3.11, Debian's pytest)", ms: nativePytest },
    note: String(pytest.summary),
  });
  rows.push({
    name: "run_tests: the Python starter with pytest, warm",
    ms: await medianMs(() => runTests(runtime, "pytest -p no:cacheprovider"), 5, 1),
    reference: { name: "python3 -m pytest (native 3.11, Debian's pytest)", ms: nativePytest },
  });
  runner.dispose();
  setPythonRunner(null);
  return rows;
}
