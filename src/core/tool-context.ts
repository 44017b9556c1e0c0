import type { Sandbox } from "../sandbox/types.ts";
import { MemoryArtifacts } from "./artifacts.ts";
import { systemClock } from "./events.ts";
import type { Services, ToolContext } from "./profile.ts";
import { resolveWorkspacePath, type SymlinkPolicy } from "./workspace-path.ts";

/** Services plus the owner's side: disposing the registry disposes every service that can be. */
export interface ServiceRegistry extends Services {
  dispose(): Promise<void>;
}

/**
 * A service registry backed by a Map: one instance per key for the registry's lifetime. A
 * service with a `dispose()` method (PTY sessions) is disposed with the registry, newest first.
 */
export function serviceRegistry(store = new Map<string, unknown>()): ServiceRegistry {
  return {
    get<T>(key: string, create: () => T): T {
      if (!store.has(key)) store.set(key, create());
      return store.get(key) as T;
    },
    async dispose(): Promise<void> {
      const services = [...store.values()].reverse();
      store.clear();
      for (const service of services) {
        const dispose = (service as { dispose?: unknown } | null)?.dispose;
        if (typeof dispose === "function") await dispose.call(service);
      }
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
