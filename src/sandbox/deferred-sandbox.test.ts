import { describe, expect, it, vi } from "vitest";
import { createEmbeddedSandbox } from "../host/create-runtime.ts";
import { DeferredSandbox } from "./deferred-sandbox.ts";
import { createNodeCommands } from "./embedded/node/index.ts";
import { memorySandbox } from "./memory-files.ts";
import { describeSandboxContract } from "./sandbox-contract.ts";
import type { Sandbox, SnapshotEntry } from "./types.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** A workspace with what reads meet: nested folders, an empty one, modes, bytes, symlinks. */
const ENTRIES: SnapshotEntry[] = [
  { path: "README.md", type: "file", data: bytes("# hi\n"), mtimeMs: 1_700_000_000_000 },
  { path: "bin.dat", type: "file", data: new Uint8Array([0, 1, 2, 255]), mtimeMs: 1_700_000_001_000 },
  { path: "empty", type: "directory" },
  { path: "run.sh", type: "file", data: bytes("echo hi\n"), mode: 0o755, mtimeMs: 1_700_000_002_000 },
  { path: "src", type: "directory" },
  { path: "src/a.ts", type: "file", data: bytes("export const a = 1;\n"), mtimeMs: 1_700_000_003_000 },
  { path: "src/deep", type: "directory" },
  { path: "src/deep/b.ts", type: "file", data: bytes("b\n"), mtimeMs: 1_700_000_004_000 },
  { path: "link.md", type: "symlink", target: "README.md" },
  { path: "srclink", type: "symlink", target: "src" },
  { path: "dangling", type: "symlink", target: "nowhere" },
];

/** Paths worth asking about: plain ones the early files answer, and every kind they leave to the shell. */
const PATHS = [
  "/workspace",
  "/workspace/README.md",
  "/workspace/bin.dat",
  "/workspace/empty",
  "/workspace/run.sh",
  "/workspace/src",
  "/workspace/src/deep/b.ts",
  "/workspace/missing.txt",
  "/workspace/no/such/file",
  "/workspace/src/missing",
  "/workspace/README.md/inside",
  "/workspace/link.md",
  "/workspace/srclink/a.ts",
  "/workspace/dangling",
  "/workspace/src/",
  "/workspace//src",
  "/workspace/src/../README.md",
  "/workspace/./README.md",
  "/tmp",
  "/",
];

/** What the early files leave to the shell: anything off a plain path, a link to follow, odd readdirs and readlinks. */
function needsShell(operation: string, path: string): boolean {
  if (!path.startsWith("/workspace") || /\/\/|\/\.|\/$|README\.md\/inside|srclink/u.test(path)) return true;
  const link = /link\.md|dangling/u.test(path);
  if (operation === "readlink") return !link;
  if (operation === "lstat") return false;
  if (link) return true;
  return operation === "readdir" && /\.(md|dat|sh|ts|txt)$/u.test(path) && !path.includes("missing");
}

type Outcome = { value: unknown } | { code: string; message: string };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    const value = await run();
    return { value: value instanceof Uint8Array ? [...value] : value };
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
}

/** Folders' and links' times are when each sandbox made them, and ino is the shell's own numbering. */
function comparable(result: Outcome): Outcome {
  if (!("value" in result) || typeof result.value !== "object" || result.value === null) return result;
  if (!("mtimeMs" in result.value)) return result;
  const { ino: _ino, ...stat } = result.value as { type: string; mtimeMs: number; ino?: number };
  return { value: stat.type === "file" ? stat : { ...stat, mtimeMs: "when made" } };
}

async function both(): Promise<{ deferred: DeferredSandbox; shell: Sandbox; waits: string[] }> {
  const waits: string[] = [];
  const deferred = new DeferredSandbox(
    { kind: "embedded", workspaceRoot: "/workspace", backend: () => createEmbeddedSandbox() },
    (operation) => waits.push(operation),
  );
  await deferred.restore({ entries: ENTRIES });
  const shell = await createEmbeddedSandbox();
  await shell.restore({ entries: ENTRIES });
  return { deferred, shell, waits };
}

// Everything a sandbox must do, done by a deferred one opened on an empty workspace (reads early, the rest by its shell).
describeSandboxContract("deferred, before and after its shell", async () => {
  const deferred = new DeferredSandbox({
    kind: "embedded",
    workspaceRoot: "/workspace",
    backend: () => createEmbeddedSandbox({ commands: createNodeCommands() }),
  });
  await deferred.restore({ entries: [] });
  return deferred;
});

describe("DeferredSandbox: the workspace's files answer reads while the shell loads", () => {
  it("answers every read as the embedded sandbox does, errors included, waiting only where it must", async () => {
    for (const operation of ["readFile", "readdir", "stat", "lstat", "readlink"] as const) {
      for (const path of PATHS) {
        const { deferred, shell, waits } = await both();
        const early = comparable(await outcome(() => deferred[operation](path)));
        const real = comparable(await outcome(() => shell[operation](path)));
        expect(early, `${operation} ${path}`).toEqual(real);
        expect(waits.length > 0, `${operation} ${path} waited: ${waits.join(", ")}`).toBe(
          needsShell(operation, path),
        );
        await deferred.dispose();
      }
    }
  });
  it("answers a bulk read (a search's first pass) as the embedded sandbox does, early and once the shell is in", async () => {
    const { deferred, shell, waits } = await both();
    const plain = PATHS.filter((path) => !needsShell("readFile", path) && !needsShell("stat", path));
    const comparableFiles = (read: Awaited<ReturnType<NonNullable<Sandbox["readFiles"]>>>) =>
      read.map((file) => file && comparable({ value: { ...file.stat, data: [...file.data] } }));
    const real = comparableFiles(await shell.readFiles!(PATHS));
    expect(comparableFiles(await deferred.readFiles(plain))).toEqual(
      comparableFiles(await shell.readFiles!(plain)),
    );
    expect(waits).toEqual([]);
    expect(comparableFiles(await deferred.readFiles(PATHS))).toEqual(real);
    expect(deferred.loaded).toBe(true);
    expect(comparableFiles(await deferred.readFiles(PATHS))).toEqual(real);
  });

  it("has writes wait for the shell, which gets the files first; from then on everything is the shell's", async () => {
    const { deferred, waits } = await both();
    expect(deferred.loaded).toBe(false);
    await deferred.writeFile("/workspace/src/new.ts", "new\n");
    expect(waits).toEqual(["writeFile"]);
    expect(deferred.loaded).toBe(true);
    expect(new TextDecoder().decode(await deferred.readFile("/workspace/src/new.ts"))).toBe("new\n");
    expect(new TextDecoder().decode(await deferred.readFile("/workspace/README.md"))).toBe("# hi\n");
    expect((await deferred.readlink("/workspace/link.md")).endsWith("README.md")).toBe(true);
    const snapshot = await deferred.snapshot();
    expect(snapshot.entries.map((entry) => entry.path)).toContain("src/new.ts");
    expect(snapshot.entries.length).toBe(ENTRIES.length + 1);
    expect(waits).toEqual(["writeFile"]);
  });

  it("loads nothing until asked, and reports no change before the shell arrives", async () => {
    let loads = 0;
    const deferred = new DeferredSandbox({
      kind: "embedded",
      workspaceRoot: "/workspace",
      backend: () => {
        loads++;
        return createEmbeddedSandbox();
      },
    });
    await deferred.restore({ entries: ENTRIES });
    await deferred.readFile("/workspace/src/a.ts");
    await deferred.readdir("/workspace/src");
    expect(loads).toBe(0);
    expect(deferred.changeCount()).toBe(-1);
    await deferred.start();
    expect(loads).toBe(1);
    const arrived = deferred.changeCount();
    expect(arrived).toBeGreaterThanOrEqual(0);
    await deferred.writeFile("/workspace/README.md", "changed\n");
    expect(deferred.changeCount()).not.toBe(arrived);
  });

  it("hands a later restore to the shell after the first one", async () => {
    const { deferred } = await both();
    await deferred.restore({ entries: [{ path: "only.txt", type: "file", data: bytes("x") }] });
    expect((await deferred.readdir("/workspace")).map((entry) => entry.name)).toEqual(["only.txt"]);
  });

  it("fails a read that needs the shell when the shell cannot load", async () => {
    const deferred = new DeferredSandbox({
      kind: "embedded",
      workspaceRoot: "/workspace",
      backend: () => Promise.reject(new Error("no shell")),
    });
    await deferred.restore({ entries: ENTRIES });
    expect(new TextDecoder().decode(await deferred.readFile("/workspace/README.md"))).toBe("# hi\n");
    await expect(deferred.readFile("/workspace/link.md")).rejects.toThrow("no shell");
    await expect(deferred.exec("ls")).rejects.toThrow("no shell");
  });

  it("closes at once when its shell never comes, and whatever waited for the shell is told", async () => {
    // A backend nobody chooses: the early workspace's, when another one is opened first.
    const deferred = new DeferredSandbox({
      kind: "embedded",
      workspaceRoot: "/workspace",
      backend: () => new Promise<Sandbox>(() => undefined),
    });
    await deferred.restore({ entries: ENTRIES });
    const command = deferred.exec("ls");
    const arrival = deferred.start();
    await deferred.dispose();
    await expect(arrival).rejects.toThrow("closed before its shell had loaded");
    await expect(command).rejects.toThrow("closed before its shell had loaded");
    await expect(deferred.arrived).rejects.toThrow("closed before its shell had loaded");
    await expect(deferred.writeFile("/workspace/x", "x")).rejects.toThrow("closed before");
  });

  it("disposes a shell that arrives after it was closed, and never hands it out", async () => {
    let arrive: (shell: Sandbox) => void = () => undefined;
    const deferred = new DeferredSandbox({
      kind: "embedded",
      workspaceRoot: "/workspace",
      backend: () => new Promise<Sandbox>((resolve) => (arrive = resolve)),
    });
    await deferred.restore({ entries: ENTRIES });
    const command = deferred.exec("echo hi");
    await deferred.dispose();
    const shell = await createEmbeddedSandbox();
    let disposed = false;
    shell.dispose = async () => {
      disposed = true;
    };
    arrive(shell);
    await expect(command).rejects.toThrow("closed before");
    await vi.waitFor(() => expect(disposed).toBe(true));
    expect(deferred.loaded).toBe(false);
  });
});

describe("memorySandbox: plain files in memory, for making a new repository without the shell", () => {
  it("writes, lists and snapshots as the embedded sandbox does", async () => {
    const plain = ENTRIES.filter((entry) => entry.type !== "symlink");
    const memory = memorySandbox("/workspace", plain);
    const shell = await createEmbeddedSandbox();
    await shell.restore({ entries: plain });
    for (const sandbox of [memory, shell]) {
      await sandbox.mkdir("/workspace/.git/objects/ab", { recursive: true });
      await sandbox.mkdir("/workspace/.git/objects/ab", { recursive: true });
      await sandbox.writeFile("/workspace/.git/HEAD", "ref: refs/heads/main\n");
      await sandbox.writeFile("/workspace/run.sh", "echo changed\n");
    }
    const strip = (entries: SnapshotEntry[]) =>
      entries.map((entry) =>
        entry.type === "file" ? { ...entry, mtimeMs: 0, data: [...entry.data] } : entry,
      );
    expect(strip((await memory.snapshot()).entries)).toEqual(strip((await shell.snapshot()).entries));
    // A replaced file keeps its mode, as an open(2) for writing does.
    expect((await memory.stat("/workspace/run.sh")).mode).toBe(0o755);
    for (const [path, code] of [
      ["/workspace/.git/HEAD", "EEXIST"],
      ["/workspace/src/a.ts", "EEXIST"],
    ] as const) {
      await expect(memory.mkdir(path)).rejects.toMatchObject({ code });
      await expect(shell.mkdir(path)).rejects.toMatchObject({ code });
    }
  });

  it("refuses loudly what it cannot do as the shell would", async () => {
    const memory = memorySandbox("/workspace", []);
    await expect(memory.writeFile("/workspace/no/folder.txt", "x")).rejects.toMatchObject({ code: "EIO" });
    await expect(memory.exec("ls")).rejects.toMatchObject({ code: "EIO" });
    await expect(memory.writeFile("/tmp/x", "x")).rejects.toMatchObject({ code: "EIO" });
  });
});
