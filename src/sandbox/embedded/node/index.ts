import type { CustomCommand } from "just-bash";
import { createNodeCommand, type NodeRuntimeOptions } from "./node-command.ts";
import { createNpmCommand, createNpxCommand } from "./npm-command.ts";

export type { NodeRuntimeOptions } from "./node-command.ts";
export { DEFAULT_MEMORY_LIMIT_BYTES, DEFAULT_TIMEOUT_MS } from "./node-command.ts";
export { EMBEDDED_NODE_VERSION } from "./vm.ts";

/**
 * The embedded sandbox's `node`, `npm` and `npx`, as just-bash custom commands.
 *
 * `node` runs JavaScript in QuickJS (never as host code) with Node's core modules over the shell's
 * filesystem: scripts, `-e`/`-p`, CommonJS and ES modules, and `node --test` with TAP output.
 * Each program gets a fresh engine with a heap cap (`memoryLimitBytes`, default 256 MB) and a
 * deadline (`timeoutMs`, default the shell's maxJsTimeoutMs or 30 s, never past the shell's own
 * deadline); past either it is stopped with a clear message and the shell carries on.
 * `npm` runs package.json scripts through the shell; it cannot install. `npx` runs local bins only.
 */
export function createNodeCommands(options: NodeRuntimeOptions = {}): CustomCommand[] {
  return [createNodeCommand(options), createNpmCommand(), createNpxCommand()];
}
