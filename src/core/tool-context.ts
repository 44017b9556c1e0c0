import type { Sandbox } from "../sandbox/types.ts";
import { MemoryArtifacts } from "./artifacts.ts";
import { systemClock } from "./events.ts";
import type { Services, ToolContext } from "./profile.ts";
import { resolveWorkspacePath, type SymlinkPolicy } from "./workspace-path.ts";

/** A service registry backed by a Map: one instance per key for the registry's lifetime. */
export function serviceRegistry(store = new Map<string, unknown>()): Services {
  return {
    get<T>(key: string, create: () => T): T {
      if (!store.has(key)) store.set(key, create());
      return store.get(key) as T;
    },
  };
}

/**
 * A complete ToolContext with sensible defaults, for calling a capability outside a runtime
 * call (tests, benchmarks). The runtime builds its own per call with the same fields.
 */
export function createToolContext(
  sandbox: Sandbox,
  overrides: Partial<ToolContext> & { symlinks?: SymlinkPolicy } = {},
): ToolContext {
  const { symlinks = "block", ...rest } = overrides;
  return {
    sandbox,
    profile: "test",
    tool: "test",
    requestId: "test",
    step: 1,
    signal: new AbortController().signal,
    deadlineMs: 60_000,
    clock: systemClock,
    artifacts: new MemoryArtifacts(),
    resolve: (path, options) => resolveWorkspacePath(sandbox, path, { symlinks, ...options }),
    emit: () => undefined,
    fetch: undefined,
    services: serviceRegistry(),
    settings: { networkAllowList: [] },
    ...rest,
  };
}
