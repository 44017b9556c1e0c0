import { systemClock } from "../core/events.ts";
import { Runtime, type RuntimeOptions } from "../core/runtime.ts";
import { createToolContext } from "../core/tool-context.ts";
import { PROFILES } from "../profiles/index.ts";
import { EmbeddedSandbox, type EmbeddedSandboxOptions } from "../sandbox/embedded/embedded-sandbox.ts";
import { createNodeCommands } from "../sandbox/embedded/node/index.ts";
import { createPythonCommands } from "../sandbox/embedded/python/index.ts";
import { deserializeWorkspace, type SerializedWorkspace } from "../sandbox/snapshot.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { initRepository } from "../tools/git/commit.ts";
import { gitShellCommand } from "./git-command.ts";

export interface EmbeddedRuntimeOptions extends Omit<RuntimeOptions, "sandbox" | "profiles"> {
  /** Starting files: path → text (or the serialized workspace form). */
  files?: Record<string, string> | SerializedWorkspace;
  sandbox?: EmbeddedSandboxOptions;
  /**
   * Make the workspace a git repository (branch main, an initial commit of everything not
   * ignored) when it has no .git yet. Off by default: tests and the CLI want the folder exactly as
   * given. The app turns it on (APP_RUNTIME_DEFAULTS), so git_status and git_diff work from the start.
   */
  gitInit?: boolean;
}

/** What the app's worker passes: every new workspace starts as a git repository. */
export const APP_RUNTIME_DEFAULTS = { gitInit: true } as const satisfies Partial<EmbeddedRuntimeOptions>;

/**
 * The embedded sandbox as every host uses it: node, npm and npx (QuickJS), python3 and python
 * (CPython, wherever the host registered a Python runner) unless the caller names
 * its own commands, and Toolroom's git unless it brings one.
 */
export async function createEmbeddedSandbox(
  options: EmbeddedSandboxOptions = {},
  clock?: EmbeddedRuntimeOptions["clock"],
): Promise<EmbeddedSandbox> {
  const commands = options.commands ?? [...createNodeCommands(), ...createPythonCommands()];
  const git = commands.some((command) => command.name === "git")
    ? []
    : [gitShellCommand(() => sandbox, clock)];
  const sandbox: EmbeddedSandbox = await EmbeddedSandbox.create({
    ...options,
    commands: [...commands, ...git],
  });
  return sandbox;
}

/** The embedded sandbox, every profile, one runtime: what the CLI, the tests and the worker start from. */
export async function createEmbeddedRuntime(options: EmbeddedRuntimeOptions = {}): Promise<Runtime> {
  const { files, sandbox: sandboxOptions, gitInit = false, ...runtimeOptions } = options;
  const sandbox = await createEmbeddedSandbox(sandboxOptions, runtimeOptions.clock);
  if (files) await loadFiles(sandbox, files);
  if (gitInit) {
    const clock = runtimeOptions.clock ?? systemClock;
    await initRepository(createToolContext(sandbox), { now: clock.now() });
  }
  return new Runtime({ ...runtimeOptions, sandbox, profiles: [...PROFILES] });
}

export async function loadFiles(
  sandbox: Sandbox,
  files: Record<string, string> | SerializedWorkspace,
): Promise<void> {
  const serialized: SerializedWorkspace =
    "files" in files && typeof files.files === "object"
      ? (files as SerializedWorkspace)
      : { files: files as Record<string, string> };
  await sandbox.restore(deserializeWorkspace(serialized));
}
