import { deserializeWorkspace } from "../sandbox/snapshot.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { asRepository } from "./new-repository.ts";
import type { WorkspaceMeta, WorkspaceStore } from "./store.ts";
import type { WorkspaceSeed } from "./types.ts";

/**
 * Makes a workspace from a seed and stores it. `asIs`: keep the files exactly (a session's initial
 * workspace); otherwise it becomes a repository. `shell` makes an embedded sandbox, needed only for
 * a seed with symlinks (see asRepository).
 */
export async function createWorkspace(
  store: WorkspaceStore,
  seed: WorkspaceSeed,
  shell: () => Promise<Sandbox>,
  asIs = false,
): Promise<WorkspaceMeta> {
  const now = new Date().toISOString();
  const meta: WorkspaceMeta = {
    id: randomId(),
    name: seed.name,
    session: randomId(),
    origin: seed.origin,
    createdAt: now,
    updatedAt: now,
  };
  const entries = deserializeWorkspace(seed.files).entries;
  await store.createWorkspace(meta, asIs ? entries : await asRepository(entries, shell));
  return meta;
}

/**
 * The workspace a boot opens: the current one, else the first, else a new one made from the seed.
 * Kept apart from the runtime so the browser's worker can choose it (on a first visit, make it)
 * while the runtime is still downloading.
 */
export async function workspaceToOpen(
  store: WorkspaceStore,
  seed: WorkspaceSeed,
  shell: () => Promise<Sandbox>,
): Promise<WorkspaceMeta> {
  const [workspaces, wanted] = await Promise.all([
    store.listWorkspaces(),
    store.getSetting<string>("currentWorkspace"),
  ]);
  return (
    workspaces.find((candidate) => candidate.id === wanted) ??
    workspaces[0] ??
    (await createWorkspace(store, seed, shell))
  );
}

function randomId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
