export {
  createPythonCommands,
  DEFAULT_MEMORY_LIMIT_BYTES,
  PYTEST_MISSING,
  type PythonCommandOptions,
} from "./command.ts";
export type { PackageFile } from "./protocol.ts";
export { pythonRunner, setPythonRunner } from "./registry.ts";
export { type PythonPlatform, PythonRunner } from "./runner.ts";
export { EMBEDDED_PYTHON_VERSION } from "./version.ts";
