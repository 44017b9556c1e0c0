import { expose } from "comlink";
import { browserPythonPlatform } from "../sandbox/embedded/python/browser-platform.ts";
import { PythonRunner, setPythonRunner } from "../sandbox/embedded/python/index.ts";
import { createWorkerApi } from "./api.ts";

// python3 runs in Web Workers of its own, started (and CPython fetched) on the first run only.
let python: PythonRunner | null = null;
setPythonRunner(() => {
  python ??= new PythonRunner(browserPythonPlatform());
  return python;
});

/** The dedicated module Worker: the runtime, the sandbox (or its port) and the store live here. */
performance.mark("toolroom:worker");
expose(createWorkerApi({ eager: true }));
