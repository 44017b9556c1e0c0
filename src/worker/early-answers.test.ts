import { describe, expect, it } from "vitest";
import { Runtime } from "../core/runtime.ts";
import { createEmbeddedSandbox } from "../host/create-runtime.ts";
import { PROFILES } from "../profiles/index.ts";
import { DeferredSandbox } from "../sandbox/deferred-sandbox.ts";
import type { Sandbox, SnapshotEntry } from "../sandbox/types.ts";
import { asRepository } from "./new-repository.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const APP = Array.from(
  { length: 40 },
  (_, i) => `export function add${i}(a: number) {\n  return a + ${i};\n}\n`,
).join("");
/** Past every dialect's read limit (lines, bytes, tokens), so each truncates its own way. */
const BIG = Array.from({ length: 12_000 }, (_, i) => `line ${i} ${"x".repeat(60)}`).join("\n");
const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0,
  1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0, 1, 0,
  0, 5, 0, 1, 0x0d, 0x0a, 0x2d, 0xb4, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
]);
const T = 1_700_000_000_000;
const FILES: SnapshotEntry[] = [
  { path: ".gitignore", type: "file", data: bytes("dist/\n"), mtimeMs: T },
  { path: "README.md", type: "file", data: bytes("# Demo\n\nAdds numbers.\n"), mtimeMs: T + 1000 },
  {
    path: "package.json",
    type: "file",
    data: bytes('{"name":"demo","dependencies":{"left-pad":"1.0.0"}}\n'),
    mtimeMs: T + 2000,
  },
  { path: "data.json", type: "file", data: bytes('{"a":[1,2,3],"b":"two"}\n'), mtimeMs: T + 3000 },
  { path: "big.txt", type: "file", data: bytes(BIG), mtimeMs: T + 4000 },
  { path: "bin.dat", type: "file", data: new Uint8Array([0, 1, 2, 0, 255, 254]), mtimeMs: T + 5000 },
  { path: "pixel.png", type: "file", data: PNG, mtimeMs: T + 6000 },
  { path: "empty", type: "directory" },
  { path: "src", type: "directory" },
  { path: "src/app.ts", type: "file", data: bytes(APP), mtimeMs: T + 7000 },
  { path: "src/util", type: "directory" },
  {
    path: "src/util/math.py",
    type: "file",
    data: bytes("def add(a, b):\n    return a + b\n"),
    mtimeMs: T + 8000,
  },
  { path: "notes.txt", type: "symlink", target: "README.md" },
];

type Call = { profile: string; tool: string; params: Record<string, unknown>; early?: true };

/**
 * The read-only calls of each profile: the first answers a person or an agent asks for, and the
 * errors they meet (a missing file, a folder, binary bytes, a file past the read limit, an escape).
 * `early`: answered from the stored files, without waiting for the shell.
 */
const CALLS: Call[] = [
  { profile: "agentbench", tool: "list_files", params: {}, early: true },
  { profile: "agentbench", tool: "list_files", params: { root: "src", glob: "*.ts" }, early: true },
  { profile: "agentbench", tool: "list_files", params: { root: "nope" }, early: true },
  { profile: "agentbench", tool: "read_file", params: { path: "src/app.ts" }, early: true },
  { profile: "agentbench", tool: "read_file", params: { path: "missing.ts" }, early: true },
  { profile: "agentbench", tool: "read_file", params: { path: "src" }, early: true },
  { profile: "agentbench", tool: "read_file", params: { path: "bin.dat" }, early: true },
  { profile: "agentbench", tool: "read_file", params: { path: "big.txt" }, early: true },
  { profile: "agentbench", tool: "read_file", params: { path: "../etc/passwd" }, early: true },
  { profile: "agentbench", tool: "read_file", params: { path: "notes.txt" }, early: true },
  { profile: "agentbench", tool: "search", params: { query: "add1" }, early: true },
  {
    profile: "coding-agent",
    tool: "file_read",
    params: { path: "src/app.ts", offset: 3, limit: 5 },
    early: true,
  },
  { profile: "coding-agent", tool: "file_read", params: { path: "big.txt" }, early: true },
  { profile: "coding-agent", tool: "file_read", params: { path: "bin.dat" }, early: true },
  { profile: "coding-agent", tool: "file_read", params: { path: "missing.ts" }, early: true },
  { profile: "coding-agent", tool: "file_read", params: { path: "empty" }, early: true },
  { profile: "coding-agent", tool: "file_list", params: {}, early: true },
  { profile: "coding-agent", tool: "file_list", params: { path: "src", depth: 1 }, early: true },
  { profile: "coding-agent", tool: "glob", params: { pattern: "**/*.ts" }, early: true },
  { profile: "coding-agent", tool: "grep", params: { pattern: "add[0-9]+", max_results: 5 }, early: true },
  // git refreshes its index's stat data on a fresh sandbox: a write, so these wait for the shell.
  { profile: "coding-agent", tool: "git_status", params: {} },
  { profile: "coding-agent", tool: "git_diff", params: {} },
  // It asks the shell which programs run here.
  { profile: "coding-agent", tool: "workspace_info", params: {} },
  { profile: "coding-agent", tool: "dependencies_read", params: {}, early: true },
  { profile: "coding-agent", tool: "symbols_index", params: { query: "add" }, early: true },
  { profile: "sandboxed", tool: "read_file", params: { path: "data.json" }, early: true },
  { profile: "sandboxed", tool: "read_file", params: { path: "big.txt" }, early: true },
  { profile: "sandboxed", tool: "read_file", params: { path: "missing.txt" }, early: true },
  { profile: "sandboxed", tool: "grep", params: { pattern: "add1", file: "src/app.ts" }, early: true },
  { profile: "sandboxed", tool: "sed", params: { expression: "2,3p", file: "README.md" }, early: true },
  { profile: "sandboxed", tool: "awk", params: { script: "{ print $1 }", file: "README.md" }, early: true },
  {
    profile: "baseagent",
    tool: "read_file",
    params: { file_path: "/workspace/src/app.ts", limit: 4 },
    early: true,
  },
  { profile: "baseagent", tool: "read_file", params: { file_path: "/workspace/missing.ts" }, early: true },
  { profile: "baseagent", tool: "read_file", params: { file_path: "/workspace/big.txt" }, early: true },
  { profile: "baseagent", tool: "list_dir", params: { dir_path: "/workspace", depth: 3 }, early: true },
  { profile: "baseagent", tool: "list_dir", params: { dir_path: "/workspace/nope" }, early: true },
  { profile: "baseagent", tool: "view_image", params: { path: "/workspace/pixel.png" }, early: true },
  { profile: "baseagent", tool: "grep_files", params: { pattern: "add", path: "/workspace" }, early: true },
  {
    profile: "toolrouter",
    tool: "list_dir",
    params: { path: "/workspace", depth: 2, offset: 1, limit: 25 },
    early: true,
  },
  {
    profile: "toolrouter",
    tool: "read_file",
    params: { path: "/workspace/src/app.ts", offset: 2, limit: 3, mode: "slice", indent: {} },
    early: true,
  },
  {
    profile: "toolrouter",
    tool: "read_file",
    params: { path: "/workspace/missing.ts", offset: 1, limit: 3, mode: "slice", indent: {} },
    early: true,
  },
  {
    profile: "toolrouter",
    tool: "grep_files",
    params: { pattern: "add", path: "/workspace", limit: 5 },
    early: true,
  },
];

const CLOCK = { now: () => new Date(T) };

/** Timings differ between any two runs; everything else must not. */
function comparable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, inner) =>
      /^(duration|duration_sec|duration_ms|durationSec|elapsed|elapsed_ms|wall_time|took)$/u.test(key)
        ? "timing"
        : inner,
    ),
  );
}

async function runOn(sandbox: Sandbox, call: Call): Promise<unknown> {
  const runtime = new Runtime({ sandbox, profiles: [...PROFILES], clock: CLOCK, session: "early" });
  const outcome = await runtime.invoke(call.profile, {
    tool: call.tool,
    params: call.params,
    request_id: "r1",
  });
  return comparable({ status: outcome.status, envelope: outcome.envelope });
}

describe("first calls answered before the shell has loaded", () => {
  it("give the envelopes the full sandbox gives, errors and truncation included", async () => {
    const files = await asRepository(FILES, () => createEmbeddedSandbox(), { now: new Date(T) });
    const mismatched: string[] = [];
    for (const call of CALLS) {
      const full = await createEmbeddedSandbox();
      await full.restore({ entries: files });
      const waits: string[] = [];
      const deferred = new DeferredSandbox(
        { kind: "embedded", workspaceRoot: "/workspace", backend: () => createEmbeddedSandbox() },
        (operation) => waits.push(operation),
      );
      await deferred.restore({ entries: files });
      const name = `${call.profile} ${call.tool} ${JSON.stringify(call.params)}`;
      const early = await runOn(deferred, call);
      const expected = await runOn(full, call);
      expect(early, name).toEqual(expected);
      if ((waits.length === 0) !== (call.early === true))
        mismatched.push(`${name}: ${waits.length === 0 ? "answered early" : `waited (${waits.join(", ")})`}`);
      await deferred.dispose();
      await full.dispose();
    }
    expect(mismatched).toEqual([]);
  }, 120_000);

  it("make the same repository in plain memory as in the shell", async () => {
    const plain = FILES.filter((entry) => entry.type !== "symlink");
    const inMemory = await asRepository(plain, () => Promise.reject(new Error("no shell")), {
      now: new Date(T),
    });
    const shell = await createEmbeddedSandbox();
    await shell.restore({ entries: plain });
    const { initRepository } = await import("../tools/git/commit.ts");
    const { createToolContext } = await import("../core/tool-context.ts");
    await initRepository(createToolContext(shell), { now: new Date(T) });
    const inShell = (await shell.snapshot()).entries;
    // The index keeps each file's stat data (times, the shell's inode numbers): compare what it indexes.
    const { readIndex } = await import("../tools/git/index-file.ts");
    const described = async (entries: SnapshotEntry[]) => {
      const sandbox = await createEmbeddedSandbox();
      await sandbox.restore({ entries });
      const index = await readIndex({ sandbox, gitdir: "/workspace/.git" } as never);
      return index.entries.map((entry) => [entry.path, entry.oid, entry.mode]);
    };
    expect(await described(inMemory)).toEqual(await described(inShell));
    const files = (entries: SnapshotEntry[]) =>
      entries
        .filter((entry) => entry.path !== ".git/index")
        .map((entry) =>
          entry.type === "file" ? { path: entry.path, data: [...entry.data], mode: entry.mode } : entry,
        );
    expect(files(inMemory)).toEqual(files(inShell));
  });
});
