import { Runtime, type RuntimeOptions } from "../core/runtime.ts";
import { PROFILES } from "../profiles/index.ts";
import { EmbeddedSandbox, type EmbeddedSandboxOptions } from "../sandbox/embedded/embedded-sandbox.ts";
import { createNodeCommands } from "../sandbox/embedded/node/index.ts";
import { deserializeWorkspace, type SerializedWorkspace } from "../sandbox/snapshot.ts";
import type { Sandbox } from "../sandbox/types.ts";

export interface EmbeddedRuntimeOptions extends Omit<RuntimeOptions, "sandbox" | "profiles"> {
  /** Starting files: path → text (or the serialized workspace form). */
  files?: Record<string, string> | SerializedWorkspace;
  sandbox?: EmbeddedSandboxOptions;
}

/** The embedded sandbox, every profile, one runtime: what the CLI, the tests and the worker start from. */
export async function createEmbeddedRuntime(options: EmbeddedRuntimeOptions = {}): Promise<Runtime> {
  const { files, sandbox: sandboxOptions, ...runtimeOptions } = options;
  // node, npm and npx unless the caller names its own commands.
  const sandbox = await EmbeddedSandbox.create({ commands: createNodeCommands(), ...sandboxOptions });
  if (files) await loadFiles(sandbox, files);
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
