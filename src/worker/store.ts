import { type DBSchema, type IDBPDatabase, openDB } from "idb";
import type { Checkpoint } from "../core/checkpoints.ts";
import type { ToolEvent } from "../core/events.ts";
import type { SnapshotEntry, WorkspaceChange } from "../sandbox/types.ts";

/** A named workspace; its files, log, checkpoints and artifacts live in the other stores under its id. */
export interface WorkspaceMeta {
  id: string;
  name: string;
  /** The runtime session id: the log of a workspace is one session, continued across reloads. */
  session: string;
  createdAt: string;
  updatedAt: string;
  /** Where it came from: a starter's name, "folder", "import". */
  origin: string;
}

type Keyed<T> = T & { ws: string };

interface ToolroomDb extends DBSchema {
  workspaces: { key: string; value: WorkspaceMeta };
  files: { key: [string, string]; value: Keyed<SnapshotEntry> };
  events: { key: [string, number]; value: Keyed<{ event: ToolEvent }> };
  checkpoints: { key: [string, number]; value: Keyed<{ step: number; checkpoint: Checkpoint }> };
  artifacts: { key: [string, string]; value: Keyed<{ path: string; data: Uint8Array }> };
  settings: { key: string; value: { key: string; value: unknown } };
}

type StoreName = "files" | "events" | "checkpoints" | "artifacts";
const PER_WORKSPACE: StoreName[] = ["files", "events", "checkpoints", "artifacts"];

/** Everything one mutating step leaves behind, written in a single transaction. */
export interface Commit {
  /** Workspace paths with their entry after the step (null: removed). */
  changes?: WorkspaceChange[];
  /** Replaces every file of the workspace (a restore, a starter). */
  replaceFiles?: SnapshotEntry[];
  checkpoints?: Checkpoint[];
  events?: ToolEvent[];
  artifacts?: { path: string; data: Uint8Array }[];
}

/** Everything stored for one workspace: what opening it needs. */
export interface StoredWorkspace {
  files: SnapshotEntry[];
  events: ToolEvent[];
  checkpoints: Checkpoint[];
  artifacts: { path: string; data: Uint8Array }[];
}

/**
 * IndexedDB persistence: several named workspaces, each with its files, event log, checkpoints and
 * artifacts, plus settings. A commit is one transaction, so a step is stored whole or not at all.
 */
export class WorkspaceStore {
  /** Workspaces being read ahead of their opening (see preload); any write to one drops its read. */
  private readonly preloaded = new Map<string, Promise<StoredWorkspace>>();

  private constructor(private readonly db: IDBPDatabase<ToolroomDb>) {}

  static async open(name = "toolroom"): Promise<WorkspaceStore> {
    const db = await openDB<ToolroomDb>(name, 1, {
      upgrade(database) {
        database.createObjectStore("workspaces", { keyPath: "id" });
        database.createObjectStore("files", { keyPath: ["ws", "path"] });
        database.createObjectStore("events", { keyPath: ["ws", "event.seq"] });
        database.createObjectStore("checkpoints", { keyPath: ["ws", "step"] });
        database.createObjectStore("artifacts", { keyPath: ["ws", "path"] });
        database.createObjectStore("settings", { keyPath: "key" });
      },
    });
    return new WorkspaceStore(db);
  }

  close(): void {
    this.db.close();
  }

  async listWorkspaces(): Promise<WorkspaceMeta[]> {
    const all = await this.db.getAll("workspaces");
    return all.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  getWorkspace(id: string): Promise<WorkspaceMeta | undefined> {
    return this.db.get("workspaces", id);
  }

  async createWorkspace(meta: WorkspaceMeta, entries: SnapshotEntry[]): Promise<void> {
    this.preloaded.delete(meta.id);
    const tx = this.db.transaction(["workspaces", "files"], "readwrite");
    void tx.objectStore("workspaces").put(meta);
    const files = tx.objectStore("files");
    for (const entry of entries) void files.put({ ...entry, ws: meta.id });
    await tx.done;
  }

  async renameWorkspace(id: string, name: string): Promise<WorkspaceMeta> {
    const tx = this.db.transaction("workspaces", "readwrite");
    const meta = await tx.store.get(id);
    if (!meta) throw new Error(`No workspace with id ${id}.`);
    const renamed = { ...meta, name, updatedAt: new Date().toISOString() };
    await tx.store.put(renamed);
    await tx.done;
    return renamed;
  }

  /** Deletes a workspace with everything kept for it, settings named `<kind>:<id>` included. */
  async deleteWorkspace(id: string): Promise<void> {
    this.preloaded.delete(id);
    const tx = this.db.transaction(["workspaces", "settings", ...PER_WORKSPACE], "readwrite");
    void tx.objectStore("workspaces").delete(id);
    for (const store of PER_WORKSPACE) void tx.objectStore(store).delete(range(id));
    const settings = tx.objectStore("settings");
    for (const key of await settings.getAllKeys()) {
      if (typeof key === "string" && key.endsWith(`:${id}`)) void settings.delete(key);
    }
    await tx.done;
  }

  /**
   * Starts reading a workspace about to be opened (the browser's worker does while its runtime
   * downloads), for the next loadWorkspace of it to take.
   */
  preload(id: string): void {
    if (this.preloaded.has(id)) return;
    const reading = this.readWorkspace(id);
    reading.catch(() => undefined);
    this.preloaded.set(id, reading);
  }

  /**
   * Everything stored for a workspace, read in one transaction (or taken from its preload). A
   * preload is for the next opening only: one of another workspace is dropped (kept, it would be
   * served stale should another tab change that workspace before it is opened).
   */
  loadWorkspace(id: string): Promise<StoredWorkspace> {
    const early = this.preloaded.get(id);
    this.preloaded.clear();
    return early ?? this.readWorkspace(id);
  }

  private async readWorkspace(id: string): Promise<StoredWorkspace> {
    const tx = this.db.transaction(PER_WORKSPACE, "readonly");
    const [files, events, checkpoints, artifacts] = await Promise.all([
      tx.objectStore("files").getAll(range(id)),
      tx.objectStore("events").getAll(range(id)),
      tx.objectStore("checkpoints").getAll(range(id)),
      tx.objectStore("artifacts").getAll(range(id)),
    ]);
    return {
      files: files.map(({ ws: _ws, ...entry }) => entry as SnapshotEntry),
      events: events.map((row) => row.event),
      checkpoints: checkpoints.map((row) => row.checkpoint),
      artifacts: artifacts.map(({ path, data }) => ({ path, data })),
    };
  }

  async loadFiles(id: string): Promise<SnapshotEntry[]> {
    const rows = await this.db.getAll("files", range(id));
    return rows.map(({ ws: _ws, ...entry }) => entry as SnapshotEntry);
  }

  async loadEvents(id: string): Promise<ToolEvent[]> {
    return (await this.db.getAll("events", range(id))).map((row) => row.event);
  }

  /** Writes one step atomically and touches the workspace's updatedAt. */
  async commit(id: string, commit: Commit): Promise<void> {
    this.preloaded.delete(id);
    const tx = this.db.transaction(["workspaces", ...PER_WORKSPACE], "readwrite");
    const files = tx.objectStore("files");
    if (commit.replaceFiles) {
      void files.delete(range(id));
      for (const entry of commit.replaceFiles) void files.put({ ...entry, ws: id });
    }
    for (const change of commit.changes ?? []) {
      if (change.after) void files.put({ ...change.after, ws: id });
      else void files.delete([id, change.path]);
    }
    const checkpoints = tx.objectStore("checkpoints");
    for (const checkpoint of commit.checkpoints ?? [])
      void checkpoints.put({ ws: id, step: checkpoint.step, checkpoint });
    const events = tx.objectStore("events");
    for (const event of commit.events ?? []) void events.put({ ws: id, event });
    const artifacts = tx.objectStore("artifacts");
    for (const artifact of commit.artifacts ?? []) void artifacts.put({ ws: id, ...artifact });
    const workspaces = tx.objectStore("workspaces");
    const meta = await workspaces.get(id);
    if (meta) void workspaces.put({ ...meta, updatedAt: new Date().toISOString() });
    await tx.done;
  }

  async getSetting<T>(key: string): Promise<T | undefined> {
    return (await this.db.get("settings", key))?.value as T | undefined;
  }

  async setSetting(key: string, value: unknown): Promise<void> {
    await this.db.put("settings", { key, value });
  }
}

/** Every key of one workspace in a per-workspace store: arrays sort after strings and numbers. */
function range(id: string): IDBKeyRange {
  return IDBKeyRange.bound([id], [id, []]);
}
