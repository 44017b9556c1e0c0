import { type CustomCommand, defineCommand } from "just-bash";
import { withLiveRunner } from "../tty.ts";
import type { NodeRuntimeOptions } from "./node-command.ts";
import { createNpmCommand, createNpxCommand } from "./npm-command.ts";

export type { NodeRuntimeOptions } from "./node-command.ts";

/** node's engine (QuickJS) and its core modules, loaded on the first `node`: a worker boots without them. */
const loadNode = () => import("./node-command.ts");

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
  const node = withLiveRunner(
    defineCommand("node", async (args, ctx) => (await loadNode()).runNode(args, { ctx, options })),
    async (args, ctx, live) => (await loadNode()).runNode(args, { ctx, options, live }),
  );
  return [node, createNpmCommand(), createNpxCommand()];
}
