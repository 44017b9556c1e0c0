import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createEmbeddedRuntime } from "../src/host/create-runtime.ts";
import { hasCommand, medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";
import { generateWorkspace, NEEDLE, writeToDisk } from "./workspace.ts";

/** A runtime on the bench's workspace, its own first call (schemas compiled, and so on) done. */
async function startRuntime(files: Record<string, string>) {
  const runtime = await createEmbeddedRuntime({ files, trackChanges: false });
  const call = async (tool: string, params: Record<string, unknown>) => {
    const envelope = (await runtime.call("agentbench", { tool, params })) as {
      status: string;
      error: unknown;
    };
    if (envelope.status !== "success") throw new Error(`${tool} failed: ${JSON.stringify(envelope.error)}`);
    return envelope;
  };
  await call("read_file", { path: "src/module3/part4/file83.ts" });
  return { runtime, call };
}

const SEARCH_PARAMS = { query: NEEDLE, max_results: 1000, context_lines: 2 };

/** One runtime's first search (ms). */
async function firstSearchMs(files: Record<string, string>): Promise<number> {
  const fresh = await startRuntime(files);
  const started = performance.now();
  await fresh.call("search", SEARCH_PARAMS);
  const ms = performance.now() - started;
  await fresh.runtime.sandbox.dispose();
  return ms;
}

const FIRST_SEARCH_CHILD = "TOOLROOM_BENCH_FIRST_SEARCH";

/** The first search in a new process (ms): none of its code compiled by V8 yet, as in a new worker. */
function firstSearchInNewProcessMs(): number {
  const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url)], {
    cwd: dirname(import.meta.dirname),
    env: { ...process.env, [FIRST_SEARCH_CHILD]: "1" },
    encoding: "utf8",
  });
  const ms = Number(child.stdout.trim().split("\n").at(-1));
  if (child.status !== 0 || !Number.isFinite(ms))
    throw new Error(`the first-search process failed: ${child.stderr}`);
  return ms;
}

/** agentbench search, read_file and list_files on 2,000 files (~100,000 lines), against ripgrep. */
export async function benchSearch(): Promise<BenchRow[]> {
  const files = generateWorkspace();
  const start = () => startRuntime(files);
  const rows: BenchRow[] = [];
  const lines = Object.values(files).reduce((sum, text) => sum + text.split("\n").length - 1, 0);
  const searchParams = SEARCH_PARAMS;
  const { runtime, call } = await start();
  const searchMs = await medianMs(() => call("search", searchParams), 9, 3);
  const root = writeToDisk(files);
  const hasRg = await hasCommand("rg");
  const native: [string, string[]] = hasRg
    ? ["rg", ["-n", "-i", "-F", "-C", "2", "--sort", "path", NEEDLE, root]]
    : ["grep", ["-rniF", "-C", "2", NEEDLE, root]];
  const runNative = () => spawnSync(native[0], native[1], { maxBuffer: 1 << 28 });
  const reference: NonNullable<BenchRow["reference"]> = {
    name: hasRg ? "rg -n -i -F -C2 --sort path (native)" : "grep -rniF -C2 (native; rg not installed)",
    ms: await medianMs(runNative, 9, 3),
  };
  rows.push({ name: `search "${NEEDLE}" in 2,000 files / ${lines} lines`, ms: searchMs, reference });
  // The first search walks, reads and decodes every file; later ones reuse each file's text while
  // its version holds (and skip the walk while nothing changed). Each sample is a fresh runtime's
  // first search, with the reference run right after it: the load on this machine changes by the
  // second, and one sample alone, or a reference from another moment, measured the load. In a new
  // process (what a person's new session is) V8 also runs the search's code for the first time.
  const median = (times: number[]) => [...times].sort((x, y) => x - y)[Math.floor(times.length / 2)]!;
  const load = () => `load average ${loadavg()[0]!.toFixed(1)}`;
  for (const [label, first, samples] of [
    ["a new process", async () => firstSearchInNewProcessMs(), 5],
    ["a new runtime in this process", () => firstSearchMs(files), 7],
  ] as const) {
    const cold: number[] = [];
    const coldReference: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
      cold.push(await first());
      const nativeStarted = performance.now();
      runNative();
      coldReference.push(performance.now() - nativeStarted);
    }
    rows.push({
      name: `search, the first one of ${label} (every file walked, read and decoded; ${samples} samples, ${load()})`,
      ms: median(cold),
      reference: { name: reference.name, ms: median(coldReference) },
    });
  }
  const regex = "retry\\w+ = \\w+\\.length";
  const regexMs = await medianMs(
    () => call("search", { ...searchParams, query: regex, is_regex: true }),
    9,
    3,
  );
  const rgRegexMs = hasRg
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
  if (process.env[FIRST_SEARCH_CHILD]) {
    console.log(await firstSearchMs(generateWorkspace()));
    process.exit(0);
  }
  const { printRows } = await import("./report.ts");
  printRows("search, read and list", await benchSearch());
}
