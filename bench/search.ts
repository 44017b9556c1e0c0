import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { createEmbeddedRuntime } from "../src/host/create-runtime.ts";
import { hasCommand, medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";
import { generateWorkspace, NEEDLE, writeToDisk } from "./workspace.ts";

/** agentbench search, read_file and list_files on 2,000 files (~100,000 lines), against ripgrep. */
export async function benchSearch(): Promise<BenchRow[]> {
  const files = generateWorkspace();
  const start = async () => {
    const runtime = await createEmbeddedRuntime({ files, trackChanges: false });
    const call = async (tool: string, params: Record<string, unknown>) => {
      const envelope = (await runtime.call("agentbench", { tool, params })) as {
        status: string;
        error: unknown;
      };
      if (envelope.status !== "success") throw new Error(`${tool} failed: ${JSON.stringify(envelope.error)}`);
      return envelope;
    };
    // The runtime's own first call (schemas compiled, and so on) is left out: a read comes first.
    await call("read_file", { path: "src/module3/part4/file83.ts" });
    return { runtime, call };
  };
  const rows: BenchRow[] = [];
  const lines = Object.values(files).reduce((sum, text) => sum + text.split("\n").length - 1, 0);
  const searchParams = { query: NEEDLE, max_results: 1000, context_lines: 2 };
  // The first search walks, reads and decodes every file; later ones reuse each file's text while
  // its version holds (and skip the walk while nothing changed). Each first search is a fresh
  // runtime's (one sample alone says more about the machine's load than about the search).
  const coldMs = await medianMs(
    async () => {
      const fresh = await start();
      const started = performance.now();
      await fresh.call("search", searchParams);
      const ms = performance.now() - started;
      await fresh.runtime.sandbox.dispose();
      return ms;
    },
    5,
    0,
    true,
  );
  const { runtime, call } = await start();
  const searchMs = await medianMs(() => call("search", searchParams), 9, 3);
  const root = writeToDisk(files);
  let reference: BenchRow["reference"];
  if (await hasCommand("rg")) {
    const rgMs = await medianMs(
      () =>
        spawnSync("rg", ["-n", "-i", "-F", "-C", "2", "--sort", "path", NEEDLE, root], {
          maxBuffer: 1 << 28,
        }),
      9,
      3,
    );
    reference = { name: "rg -n -i -F -C2 --sort path (native)", ms: rgMs };
  } else {
    const grepMs = await medianMs(() =>
      spawnSync("grep", ["-rniF", "-C", "2", NEEDLE, root], { maxBuffer: 1 << 28 }),
    );
    reference = { name: "grep -rniF -C2 (native; rg not installed)", ms: grepMs };
  }
  rows.push({ name: `search "${NEEDLE}" in 2,000 files / ${lines} lines`, ms: searchMs, reference });
  rows.push({
    name: "search, the first one (every file walked, read and decoded; median of 5 fresh runtimes)",
    ms: coldMs,
    ...(reference ? { reference } : {}),
  });
  const regex = "retry\\w+ = \\w+\\.length";
  const regexMs = await medianMs(
    () => call("search", { ...searchParams, query: regex, is_regex: true }),
    9,
    3,
  );
  const rgRegexMs = (await hasCommand("rg"))
    ? await medianMs(
        () => spawnSync("rg", ["-n", "-i", "-C", "2", "--sort", "path", regex, root], { maxBuffer: 1 << 28 }),
        9,
        3,
      )
    : undefined;
  rows.push({
    name: "search, regex (Rust regex engine, WebAssembly)",
    ms: regexMs,
    ...(rgRegexMs !== undefined
      ? { reference: { name: "rg -n -i -C2 --sort path (native)", ms: rgRegexMs } }
      : {}),
  });
  rows.push({
    name: "read_file, 50-line file",
    ms: await medianMs(() => call("read_file", { path: "src/module3/part4/file83.ts" }), 50),
  });
  rows.push({
    name: "list_files, 2,000 files",
    ms: await medianMs(() => call("list_files", { root: "." }), 10),
  });
  rows.push({
    name: "list_files with glob **/*.ts under src/module7",
    ms: await medianMs(() => call("list_files", { root: "src/module7", glob: "**/*.ts" }), 10),
  });
  await runtime.sandbox.dispose();
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("search, read and list", await benchSearch());
}
