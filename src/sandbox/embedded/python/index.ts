export {
  createPythonCommands,
  DEFAULT_MEMORY_LIMIT_BYTES,
  type PythonCommandOptions,
  pythonRunner,
  setPythonRunner,
} from "./command.ts";
export type { PackageFile } from "./protocol.ts";
export { type PythonPlatform, PythonRunner } from "./runner.ts";

/** The CPython the embedded sandbox runs (just-bash's vendored Emscripten build). */
export const EMBEDDED_PYTHON_VERSION = "3.13.2";
