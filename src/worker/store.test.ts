import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import type { ToolEvent } from "../core/events.ts";
import { type WorkspaceMeta, WorkspaceStore } from "./store.ts";

let databases = 0;
const bytes = (text: string) => new TextEncoder().encode(text);
const meta = (id: string): WorkspaceMeta => ({
  id,
  name: id,
  session: `s-${id}`,
  origin: "test",
  createdAt: "2026-11-27T00:00:00.000Z",
  updatedAt: "2026-11-27T00:00:00.000Z",
});
const event = (seq: number): ToolEvent => ({
  seq,
  ts: "2026-11-27T00:00:00.000Z",
  session: "s-a",
  type: "tool_call_started",
});

describe("a workspace read whole, and read ahead of its opening", () => {
  it("gives one workspace's files, log, checkpoints and artifacts, none of another's", async () => {
    const store = await WorkspaceStore.open(`toolroom-store-${++databases}`);
    await store.createWorkspace(meta("a"), [{ path: "a.txt", type: "file", data: bytes("a") }]);
    await store.createWorkspace(meta("b"), [{ path: "b.txt", type: "file", data: bytes("b") }]);
    await store.commit("a", {
      events: [event(1), event(2)],
      checkpoints: [{ step: 1, requestId: "r1", tool: "write_file", changes: [] }],
      artifacts: [{ path: "out.png", data: bytes("png") }],
    });
    const stored = await store.loadWorkspace("a");
    expect(stored.files.map((file) => file.path)).toEqual(["a.txt"]);
    expect(stored.files[0]).not.toHaveProperty("ws");
    expect(stored.events.map((one) => one.seq)).toEqual([1, 2]);
    expect(stored.checkpoints.map((one) => one.requestId)).toEqual(["r1"]);
    expect(stored.artifacts).toEqual([{ path: "out.png", data: bytes("png") }]);
    expect((await store.loadWorkspace("b")).events).toEqual([]);
    store.close();
  });

  it("a preload is taken by the next load only, and a write to the workspace meanwhile drops it", async () => {
    const store = await WorkspaceStore.open(`toolroom-store-${++databases}`);
    await store.createWorkspace(meta("a"), [{ path: "a.txt", type: "file", data: bytes("a") }]);
    store.preload("a");
    // Written after the read ahead began: the load must see it, not the older read.
    await store.commit("a", {
      changes: [
        { path: "new.txt", before: null, after: { path: "new.txt", type: "file", data: bytes("new") } },
      ],
      events: [event(1)],
    });
    const loaded = await store.loadWorkspace("a");
    expect(loaded.files.map((file) => file.path).sort()).toEqual(["a.txt", "new.txt"]);
    expect(loaded.events).toHaveLength(1);

    store.preload("a");
    const first = store.loadWorkspace("a");
    const second = store.loadWorkspace("a");
    expect(await first).toEqual(await second);
    expect((await first).events).toHaveLength(1);
    store.close();
  });

  it("a preload not taken because another workspace opened first is dropped, not served stale later", async () => {
    const database = `toolroom-store-${++databases}`;
    const store = await WorkspaceStore.open(database);
    await store.createWorkspace(meta("a"), [{ path: "a.txt", type: "file", data: bytes("a") }]);
    await store.createWorkspace(meta("b"), [{ path: "b.txt", type: "file", data: bytes("b") }]);
    store.preload("a");
    await store.loadWorkspace("b");
    // Another tab (its own connection, so this store hears of nothing) changes "a" meanwhile.
    const tab = await WorkspaceStore.open(database);
    await tab.commit("a", {
      changes: [
        { path: "a.txt", before: null, after: { path: "a.txt", type: "file", data: bytes("edited") } },
      ],
    });
    tab.close();
    const opened = await store.loadWorkspace("a");
    expect(opened.files.map((file) => file.type === "file" && new TextDecoder().decode(file.data))).toEqual([
      "edited",
    ]);
    store.close();
  });
});
