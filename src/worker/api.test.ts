import "fake-indexeddb/auto";
import { unzipSync } from "fflate";
import { describe, expect, it, vi } from "vitest";
import type { ToolEvent } from "../core/events.ts";
import type { ApprovalRequest } from "../core/runtime.ts";
import { CALLS_CHANNEL, StopBoard } from "../sandbox/stop-signal.ts";
import { stopLater } from "../sandbox/testing/stop-later.ts";
import { loadedRustRegex } from "../tools/rust-regex.ts";
import { type BootOptions, createWorkerApi, type WorkerApi } from "./api.ts";
import { workspaceToOpen } from "./first-workspace.ts";
import { type StoredWorkspace, WorkspaceStore } from "./store.ts";
import { DEFAULT_SETTINGS } from "./types.ts";

let databases = 0;
const seed = {
  name: "Starter",
  origin: "test",
  files: { files: { "README.md": "# hello\n", "src/app.js": "console.log(1);\n" } },
};
const embedded: BootOptions = { sandbox: "embedded", firstWorkspace: seed };

/** A fresh database, and a way to "reload the page": a second API instance on the same database. */
async function setup(): Promise<{ api: WorkerApi; reload: () => Promise<WorkerApi>; database: string }> {
  const database = `toolroom-test-${++databases}`;
  const api = createWorkerApi({ database });
  await api.boot(embedded);
  return {
    api,
    database,
    reload: async () => {
      const next = createWorkerApi({ database });
      await next.boot(embedded);
      return next;
    },
  };
}

const text = (value: Uint8Array) => new TextDecoder().decode(value);

describe("worker API", () => {
  // First in this file: nothing has searched in this module registry before it.
  it("loads the regex engine after the boot, before any search asks for it", async () => {
    expect(loadedRustRegex()).toBeNull();
    await setup();
    await vi.waitFor(() => expect(loadedRustRegex()).not.toBeNull(), { timeout: 30_000, interval: 50 });
  }, 60_000);

  it("boots the first workspace from its seed and lists the published profiles and their tools", async () => {
    const { api } = await setup();
    const files = await api.listFiles();
    expect(files).toEqual([
      { path: "README.md", type: "file" },
      { path: "src", type: "directory" },
      { path: "src/app.js", type: "file" },
    ]);
    const profiles = await api.listProfiles();
    expect(profiles.find((profile) => profile.name === "agentbench")?.internal).toBe(false);
    expect(profiles.find((profile) => profile.name === "editor")?.internal).toBe(true);
    const tools = await api.listTools("agentbench");
    expect(tools.map((tool) => tool.name)).toContain("run");
    expect(tools.find((tool) => tool.name === "run")).toMatchObject({ kind: "command", approval: "auto" });
  });

  it("prepare() makes the first workspace before boot (which opens it, once); a later visit opens the current one", async () => {
    const database = `toolroom-test-${++databases}`;
    const api = createWorkerApi({ database });
    await api.prepare(seed);
    const store = await WorkspaceStore.open(database);
    expect((await store.listWorkspaces()).map((workspace) => workspace.name)).toEqual(["Starter"]);
    const booted = await api.boot(embedded);
    expect((await store.listWorkspaces()).map((workspace) => workspace.id)).toEqual([booted.workspace.id]);
    expect((await api.listFiles()).map((file) => file.path)).toContain("src/app.js");

    const next = createWorkerApi({ database });
    await next.prepare({ ...seed, name: "Another" });
    expect((await next.boot(embedded)).workspace.id).toBe(booted.workspace.id);
    expect(await store.listWorkspaces()).toHaveLength(1);
    store.close();
  });

  it("prepare() opens the workspace the worker's first module chose while the runtime loaded (one workspace, made once)", async () => {
    const database = `toolroom-test-${++databases}`;
    const store = WorkspaceStore.open(database);
    const shell = () => Promise.reject(new Error("a starter without symlinks needs no shell"));
    // What src/worker/worker.ts does on the page's prepare(), before the runtime has loaded.
    const chosen = store.then((opened) => workspaceToOpen(opened, seed, shell));
    let asked = 0;
    const api = createWorkerApi({
      database,
      store,
      chooseFirstWorkspace: () => {
        asked++;
        return chosen;
      },
    });
    await api.prepare(seed);
    const booted = await api.boot(embedded);
    expect(booted.workspace.id).toBe((await chosen).id);
    expect(asked).toBe(1);
    const opened = await store;
    expect((await opened.listWorkspaces()).map((workspace) => workspace.name)).toEqual(["Starter"]);
    // Made a repository as every new workspace is.
    expect((await api.listFiles()).map((file) => file.path)).toContain("src/app.js");
    expect((await opened.loadFiles(booted.workspace.id)).some((entry) => entry.path === ".git/HEAD")).toBe(
      true,
    );
  });

  it("calls made before the first workspace opens wait for it and are validated as any other (a wrong type: invalid_params)", async () => {
    const database = `toolroom-test-${++databases}`;
    const { createEmbeddedSandbox } = await import("../host/create-runtime.ts");
    // As the browser's worker runs it: calls that come before the first boot wait for it.
    const api = createWorkerApi({ database, eager: true, embedded: () => createEmbeddedSandbox() });
    const read = api.call("agentbench", { tool: "read_file", params: { path: "README.md" } });
    const wrong = api.call("agentbench", { tool: "read_file", params: { path: 42 } });
    const unknownTool = api.call("agentbench", { tool: "read_everything", params: {} });
    await api.prepare(seed);
    expect((await read).status).toBe("success");
    const refused = await wrong;
    expect(refused.status).toBe("error");
    expect(JSON.stringify(refused.envelope)).toContain("must be string");
    expect((await unknownTool).status).toBe("error");
    await api.boot(embedded);
  });

  it("prepare() opens the workspace: reads are answered before boot, in the same log, and boot gives it its shell", async () => {
    const database = `toolroom-test-${++databases}`;
    let shells = 0;
    const { createEmbeddedSandbox } = await import("../host/create-runtime.ts");
    const api = createWorkerApi({
      database,
      embedded: () => {
        shells++;
        return createEmbeddedSandbox();
      },
    });
    await api.prepare(seed);
    const read = await api.call("agentbench", { tool: "read_file", params: { path: "README.md" } });
    expect(read.status).toBe("success");
    expect(JSON.stringify(read.envelope)).toContain("# hello");
    const missing = await api.call("agentbench", { tool: "read_file", params: { path: "nope.md" } });
    expect(missing.status).toBe("error");
    expect((await api.listFiles()).map((file) => file.path)).toContain("src/app.js");
    // A command waits for the sandbox boot chooses; it runs once boot has given it.
    const command = api.call("agentbench", { tool: "run", params: { command: "cat README.md > copy.md" } });
    const boot = await api.boot(embedded);
    expect(boot.backend).toBe("embedded");
    expect(boot.capabilities.commands).toContain("grep");
    expect((await command).status).toBe("success");
    expect((await api.readFile("copy.md")).text).toBe("# hello\n");
    expect(shells).toBe(1);
    const calls = (await api.events())
      .filter((event) => event.type === "tool_call_finished")
      .map((event) => event.tool);
    expect(calls).toEqual(["read_file", "read_file", "run"]);
    // Reloaded, the log of the early calls is there.
    const next = createWorkerApi({ database });
    await next.boot(embedded);
    expect((await next.events()).filter((event) => event.type === "tool_call_finished")).toHaveLength(3);
  });

  it("keeps symbols_index's parses across a reload: a file parsed before is not parsed again", async () => {
    const { api, reload } = await setup();
    await api.call("agentbench", {
      tool: "run",
      params: { command: "echo 'export function appMain() {}' > src/main.js" },
    });
    const search = async (worker: WorkerApi) => {
      const outcome = await worker.call("coding-agent", {
        tool: "symbols_index",
        params: { query: "appMain" },
      });
      return outcome.envelope as { ok: boolean; message: string; data: { results: { file: string }[] } };
    };
    const first = await search(api);
    expect(first.message).toContain("(1 file parsed of 2 source files)");
    expect(first.data.results.map((result) => result.file)).toEqual(["src/main.js"]);
    const again = await search(await reload());
    expect(again.message).toContain("(0 files parsed of 2 source files)");
    expect(again.data.results).toEqual(first.data.results);
  });

  it("stores a mutating call before acknowledging it, and a reload brings back files, log and checkpoints", async () => {
    const { api, reload, database } = await setup();
    const outcome = await api.call("agentbench", {
      tool: "run",
      params: { command: "echo changed > README.md" },
      request_id: "r1",
    });
    expect(outcome.status).toBe("success");
    expect(outcome.envelope).toMatchObject({
      request_id: "r1",
      tool: "run",
      status: "success",
      exit_code: 0,
    });

    // Read the store directly, right after the acknowledgement.
    const store = await WorkspaceStore.open(database);
    const [workspace] = await store.listWorkspaces();
    const stored = (await store.loadFiles(workspace!.id)).find((entry) => entry.path === "README.md");
    expect(stored?.type === "file" && text(stored.data)).toBe("changed\n");
    store.close();

    const again = await reload();
    expect((await again.readFile("README.md")).text).toBe("changed\n");
    const events = await again.events();
    expect(events.map((event) => event.type)).toContain("tool_call_finished");
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const checkpoints = await again.checkpoints.list();
    expect(checkpoints.map((checkpoint) => checkpoint.tool)).toEqual(["run"]);

    await again.checkpoints.restoreBefore(checkpoints[0]!.step);
    expect((await again.readFile("README.md")).text).toBe("# hello\n");
    const artifacts = await again.artifacts.list();
    expect(artifacts).toContain(`logs/tool_step_0001_stdout.txt`);
  });

  it("starts a workspace as a git repository, with node, npm and git in its shell, and hides .git from the tree", async () => {
    const { api } = await setup();
    expect((await api.listFiles()).some((entry) => entry.path.startsWith(".git"))).toBe(false);
    const status = await api.call("agentbench", { tool: "run", params: { command: "git status" } });
    expect(status.envelope).toMatchObject({ data: { stdout: expect.stringMatching(/working tree clean/u) } });
    const node = await api.call("agentbench", { tool: "run", params: { command: "node -p '6 * 7'" } });
    expect(node.envelope).toMatchObject({ data: { stdout: "42\n" } });
  });

  it("saves from the editor as a logged editor call, with the last change as a diff", async () => {
    const { api } = await setup();
    const seen: ToolEvent[] = [];
    await api.subscribe((event) => seen.push(event));
    const outcome = await api.writeFile("src/app.js", "console.log(2);\n");
    expect(outcome.envelope).toMatchObject({ ok: true, tool: "write_file" });
    expect(seen.map((event) => event.type)).toEqual([
      "tool_call_started",
      "file_changed",
      "tool_call_finished",
    ]);
    expect(seen[0]).toMatchObject({ tool: "write_file", params: { path: "src/app.js" } });
    const diff = await api.checkpoints.lastChange("src/app.js");
    expect(diff).toMatchObject({
      before: "console.log(1);\n",
      after: "console.log(2);\n",
      change: "modified",
    });
  });

  it("asks the person for calls whose approval is 'ask', and remembers 'always for this tool'", async () => {
    const { api, reload } = await setup();
    await api.approvals.set("agentbench", "run", "ask");
    const asked: ApprovalRequest[] = [];
    let answer: "deny" | "allow_always" = "deny";
    await api.approvals.setPrompt(async (request) => {
      asked.push(request);
      return answer;
    });
    const denied = await api.call("agentbench", { tool: "run", params: { command: "echo x > a.txt" } });
    expect(denied.status).toBe("error");
    expect(denied.envelope).toMatchObject({ error: { error_type: "approval_denied" } });
    expect(asked).toHaveLength(1);
    answer = "allow_always";
    expect((await api.call("agentbench", { tool: "run", params: { command: "true" } })).status).toBe(
      "success",
    );
    expect((await api.call("agentbench", { tool: "run", params: { command: "true" } })).status).toBe(
      "success",
    );
    expect(asked).toHaveLength(2);

    const again = await reload();
    expect((await again.listTools("agentbench")).find((tool) => tool.name === "run")?.approval).toBe("auto");
  });

  it("records a call the watchdog cut off with the dialect's timeout envelope, and keeps earlier work", async () => {
    const { api, database } = await setup();
    await api.call("agentbench", { tool: "run", params: { command: "echo kept > kept.txt" } });
    const restarted = createWorkerApi({ database });
    const result = await restarted.boot({
      ...embedded,
      interrupted: {
        profile: "agentbench",
        request: {
          tool: "run",
          params: { command: "awk 'BEGIN{while(1){}}'", timeout_sec: 1 },
          request_id: "loop",
        },
        deadlineMs: 1000,
        startedAt: new Date(Date.now() - 3000).toISOString(),
      },
    });
    expect(result.interrupted?.envelope).toMatchObject({
      request_id: "loop",
      tool: "run",
      status: "error",
      error: { error_type: "timeout" },
    });
    expect((await restarted.readFile("kept.txt")).text).toBe("kept\n");
    const events = await restarted.events();
    const finished = events.filter((event) => event.request_id === "loop");
    expect(finished.map((event) => event.type)).toEqual(["tool_call_started", "tool_call_finished"]);
    // The next call gets a step of its own, after the one the cut-off call had.
    const next = await restarted.call("agentbench", { tool: "run", params: { command: "true" } });
    expect(next.step).toBeGreaterThan(result.interrupted!.step);
  });

  it("logs and stores what a person's terminal command changes", async () => {
    const { api, reload } = await setup();
    const id = await api.terminal.open({ cols: 80, rows: 24 });
    await api.terminal.write(id, "echo typed > typed.txt\n");
    let output = "";
    for (let i = 0; i < 20 && !output.includes("$ "); i++)
      output += (await api.terminal.read(id, 500)).output;
    expect(output).toContain("echo typed > typed.txt");
    // A quiet read after the command's output is when changes are looked for.
    await api.terminal.read(id, 10);
    await waitFor(async () => (await api.events()).some((event) => event.tool === "terminal"));
    const change = (await api.events()).find((event) => event.tool === "terminal");
    expect(change).toMatchObject({ type: "file_changed", data: { path: "typed.txt", change: "created" } });
    const again = await reload();
    expect((await again.readFile("typed.txt")).text).toBe("typed\n");
  });

  it("keeps several named workspaces: create, switch, rename, delete, export as zip", async () => {
    const { api, reload } = await setup();
    const second = await api.workspaces.create({
      name: "Python",
      origin: "python",
      files: { files: { "main.py": "print('hi')\n" }, directories: ["empty"] },
    });
    const switched = await api.workspaces.switch(second.id);
    expect(switched.workspace).toMatchObject({ name: "Python", current: true });
    expect((await api.listFiles()).map((entry) => entry.path)).toEqual(["empty", "main.py"]);
    await api.workspaces.rename(second.id, "Snake");

    const zip = unzipSync(await api.workspaces.exportZip());
    expect(
      Object.keys(zip)
        .filter((path) => !path.startsWith(".git/"))
        .sort(),
    ).toEqual(["empty/", "main.py"]);
    expect(Object.keys(zip)).toContain(".git/HEAD");
    expect(text(zip["main.py"]!)).toBe("print('hi')\n");

    const again = await reload();
    const listed = await again.workspaces.list();
    expect(listed.map((workspace) => [workspace.name, workspace.current])).toEqual([
      ["Starter", false],
      ["Snake", true],
    ]);
    const reopened = await again.workspaces.delete(second.id);
    expect(reopened?.workspace.name).toBe("Starter");
    expect((await again.workspaces.list()).map((workspace) => workspace.name)).toEqual(["Starter"]);
  });

  it("replaces the workspace from a snapshot and logs each changed path", async () => {
    const { api, reload } = await setup();
    const snapshot = await api.snapshot();
    await api.call("agentbench", { tool: "run", params: { command: "rm README.md; echo n > new.txt" } });
    const changed = await api.restore(snapshot);
    expect(changed).toBe(2);
    const again = await reload();
    expect((await again.listFiles()).map((entry) => entry.path)).toEqual(["README.md", "src", "src/app.js"]);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("stopping through the page's shared memory", () => {
  const boot = async () => {
    const board = StopBoard.create();
    const api = createWorkerApi({ database: `toolroom-test-${++databases}` });
    await api.boot({ ...embedded, stops: board.buffer as SharedArrayBuffer });
    return { api, board };
  };

  it("cancels a running busy call from another thread, keeping what it printed", async () => {
    const { api, board } = await boot();
    const started = Date.now();
    stopLater(board, CALLS_CHANNEL, "running", 500);
    const outcome = await api.call("agentbench", {
      tool: "run",
      params: { command: "echo before; while true; do :; done", timeout_sec: 60 },
      request_id: "busy",
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(outcome.status).toBe("error");
    expect(JSON.stringify(outcome.envelope)).toContain("before\\n");
    // The worker goes on: the next call runs.
    expect((await api.call("agentbench", { tool: "run", params: { command: "echo next" } })).status).toBe(
      "success",
    );
  });

  it("stops a terminal's busy command on its channel (Ctrl-C) and keeps the shell", async () => {
    const { api, board } = await boot();
    const id = await api.terminal.open({ cols: 80, rows: 24 });
    const channel = await api.terminal.channel(id);
    expect(channel).not.toBeNull();
    await api.terminal.write(id, 'node -e "for (;;) {}"\n');
    stopLater(board, channel!, "running", 500);
    let output = "";
    for (let i = 0; i < 40 && !output.includes("$ "); i++)
      output += (await api.terminal.read(id, 500)).output;
    await api.terminal.write(id, "echo alive\n");
    for (let i = 0; i < 40 && !output.includes("alive\nalive"); i++)
      output += (await api.terminal.read(id, 500)).output;
    expect(output).toContain("alive\nalive\n");
  });

  it("gives back a terminal's stop channel when its workspace closes, so terminals of later workspaces get one", async () => {
    // Two channels for terminals: without them back, the third terminal's Ctrl-C could not stop a busy loop.
    const board = StopBoard.create(3);
    const api = createWorkerApi({ database: `toolroom-test-${++databases}` });
    const first = await api.boot({ ...embedded, stops: board.buffer as SharedArrayBuffer });
    const other = await api.workspaces.create({ name: "Other", origin: "test", files: { files: {} } });
    for (const id of [other.id, first.workspace.id, other.id]) {
      const terminal = await api.terminal.open({ cols: 80, rows: 24 });
      expect(await api.terminal.channel(terminal)).not.toBeNull();
      await api.workspaces.switch(id);
    }
    expect(await api.terminal.channel(await api.terminal.open({ cols: 80, rows: 24 }))).not.toBeNull();
  }, 60_000);

  it("cancels a call by request id while it waits", async () => {
    const { api } = await boot();
    const call = api.call("agentbench", {
      tool: "run",
      params: { command: "sleep 30" },
      request_id: "sleepy",
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await api.cancel("sleepy")).toBe(true);
    const outcome = await call;
    expect(outcome.status).toBe("error");
    expect(outcome.failure?.code).toBe("cancelled");
  });
});

/** Fails a promise that has not settled in `ms`: what a hang looks like here, rather than the test's own timeout. */
function answered<T>(promise: Promise<T>, what: string, ms = 15_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} never answered (${ms} ms)`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

describe("opening a workspace while another opens or closes", () => {
  const python = { name: "Python", origin: "python", files: { files: { "parity.py": "odd = 1\n" } } };
  /** Settings that have the person approve every shell command, and a person who never answers. */
  const askedForever = async (database: string) => {
    const store = await WorkspaceStore.open(database);
    await store.setSetting("settings", { ...DEFAULT_SETTINGS, approvals: { agentbench: { run: "ask" } } });
    store.close();
  };

  it("a boot that comes while prepare() still chooses the workspace opens it once, and its commands run", async () => {
    const database = `toolroom-test-${++databases}`;
    const store = await WorkspaceStore.open(database);
    // The first read of the workspace comes back after a second one, if there is a second one.
    const load = store.loadWorkspace.bind(store);
    let loads = 0;
    let secondRead: () => void = () => undefined;
    const second = new Promise<void>((resolve) => {
      secondRead = resolve;
    });
    store.loadWorkspace = async (id: string): Promise<StoredWorkspace> => {
      const which = ++loads;
      const read = await load(id);
      if (which === 1) await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 300))]);
      else secondRead();
      return read;
    };
    let choose: () => void = () => undefined;
    const chosen = new Promise<void>((resolve) => {
      choose = resolve;
    }).then(() => workspaceToOpen(store, seed, () => Promise.reject(new Error("no symlinks here"))));
    const api = createWorkerApi({
      database,
      store: Promise.resolve(store),
      chooseFirstWorkspace: () => chosen,
    });
    const prepared = api.prepare(seed);
    const booting = api.boot(embedded);
    await new Promise((resolve) => setTimeout(resolve, 50));
    choose();
    await prepared;
    await answered(booting, "boot");
    const run = await answered(
      api.call("agentbench", { tool: "run", params: { command: "echo hi" } }),
      "run",
    );
    expect(run.envelope).toMatchObject({ data: { stdout: "hi\n" } });
    expect(loads).toBe(1);
  }, 60_000);

  it("calls made before the first boot fail with the boot's error when it fails, rather than wait forever", async () => {
    const off = Promise.reject(new Error("IndexedDB is off in this browser"));
    off.catch(() => undefined);
    const { createEmbeddedSandbox } = await import("../host/create-runtime.ts");
    const api = createWorkerApi({
      database: `toolroom-test-${++databases}`,
      eager: true,
      store: off,
      embedded: () => createEmbeddedSandbox(),
    });
    const read = api.readFile("README.md");
    const call = api.call("agentbench", { tool: "read_file", params: { path: "README.md" } });
    await expect(api.boot(embedded)).rejects.toThrow("IndexedDB is off");
    await expect(answered(read, "readFile")).rejects.toThrow("IndexedDB is off");
    await expect(answered(call, "call")).rejects.toThrow("IndexedDB is off");
  }, 60_000);

  it("a switch answers while a call of the workspace it leaves still waits for approval", async () => {
    const database = `toolroom-test-${++databases}`;
    await askedForever(database);
    const api = createWorkerApi({ database });
    await api.boot(embedded);
    await api.approvals.setPrompt(() => new Promise(() => undefined));
    const waiting = api.call("agentbench", { tool: "run", params: { command: "echo left" } });
    waiting.catch(() => undefined);
    const created = await api.workspaces.create(python);
    const switched = await answered(api.workspaces.switch(created.id), "switch");
    expect(switched.workspace.name).toBe("Python");
    expect((await api.readFile("parity.py")).text).toBe("odd = 1\n");
    const id = await answered(api.terminal.open({ cols: 80, rows: 24 }), "terminal");
    await api.terminal.write(id, "cat parity.py\n");
    let output = "";
    for (let i = 0; i < 40 && !output.includes("odd = 1"); i++)
      output += (await api.terminal.read(id, 500)).output;
    expect(output).toContain("odd = 1");
  }, 60_000);

  it("two switches asked for at once end in the workspace asked for last, and both answer", async () => {
    const database = `toolroom-test-${++databases}`;
    const store = await WorkspaceStore.open(database);
    const api = createWorkerApi({ database, store: Promise.resolve(store) });
    await api.boot(embedded);
    const b = await api.workspaces.create({
      name: "B",
      origin: "test",
      files: { files: { "b.txt": "b\n" } },
    });
    const c = await api.workspaces.create({
      name: "C",
      origin: "test",
      files: { files: { "c.txt": "c\n" } },
    });
    // B's files come back slowly (a big workspace): C, asked for after it, must still be the one open.
    const load = store.loadWorkspace.bind(store);
    store.loadWorkspace = async (id: string): Promise<StoredWorkspace> => {
      const read = await load(id);
      if (id === b.id) await new Promise((resolve) => setTimeout(resolve, 300));
      return read;
    };
    const toB = api.workspaces.switch(b.id).then(
      (boot) => boot.workspace.name,
      (error: Error) => error.message,
    );
    const toC = api.workspaces.switch(c.id);
    expect((await answered(toC, "the switch to C")).workspace.name).toBe("C");
    // B opened, then closed by C's opening: its switch says so rather than claim B is open.
    expect(await answered(toB, "the switch to B")).toMatch(/closed/u);
    expect((await api.workspaces.list()).filter((one) => one.current).map((one) => one.name)).toEqual(["C"]);
    const run = await answered(api.call("agentbench", { tool: "run", params: { command: "ls" } }), "run");
    expect(run.envelope).toMatchObject({ data: { stdout: "c.txt\n" } });
  }, 60_000);

  /** An eager API whose first workspace is open but its shell held back for good (by a call waiting for approval). */
  const heldFirstOpening = async () => {
    const database = `toolroom-test-${++databases}`;
    await askedForever(database);
    const { createEmbeddedSandbox } = await import("../host/create-runtime.ts");
    const api = createWorkerApi({ database, eager: true, embedded: () => createEmbeddedSandbox() });
    await api.approvals.setPrompt(() => new Promise(() => undefined));
    // Made before the first workspace opens, it holds back that workspace's shell (and never ends).
    const waiting = api.call("agentbench", { tool: "run", params: { command: "echo first" } });
    waiting.catch(() => undefined);
    const booting = api.boot(embedded);
    booting.catch(() => undefined);
    await answered(
      (async () => {
        while ((await api.listFiles().catch(() => [])).length === 0)
          await new Promise((resolve) => setTimeout(resolve, 20));
      })(),
      "the first workspace's files",
    );
    return { api, booting };
  };
  const catParity = async (api: WorkerApi) => {
    await api.approvals.set("agentbench", "run", "auto");
    const run = await answered(
      api.call("agentbench", { tool: "run", params: { command: "cat parity.py" } }),
      "run",
    );
    expect(run.envelope).toMatchObject({ data: { stdout: "odd = 1\n" } });
  };

  it("an opening closed before its shell loaded fails clearly, and the workspace opened after it works", async () => {
    const { api, booting } = await heldFirstOpening();
    const created = await api.workspaces.create(python);
    const switched = await answered(api.workspaces.switch(created.id), "switch");
    expect(switched.workspace.name).toBe("Python");
    await expect(answered(booting, "boot")).rejects.toThrow(/closed before its shell had loaded/u);
    await catParity(api);
  }, 60_000);

  it("an opening whose workspace is deleted before its shell loaded fails clearly, and the next one opens", async () => {
    const { api, booting } = await heldFirstOpening();
    const first = (await api.workspaces.list())[0]!;
    await api.workspaces.create(python);
    const reopened = await answered(api.workspaces.delete(first.id), "delete");
    expect(reopened?.workspace.name).toBe("Python");
    await expect(answered(booting, "boot")).rejects.toThrow(/closed before its shell had loaded/u);
    await catParity(api);
  }, 60_000);
});
