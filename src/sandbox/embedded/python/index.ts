export {
  createPythonCommands,
  DEFAULT_MEMORY_LIMIT_BYTES,
  PYTEST_MISSING,
  type PythonCommandOptions,
  pythonRunner,
  setPythonRunner,
} from "./command.ts";
export type { PackageFile } from "./protocol.ts";
export { type PythonPlatform, PythonRunner } from "./runner.ts";
export { EMBEDDED_PYTHON_VERSION } from "./version.ts";
