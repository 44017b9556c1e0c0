import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildCli } from "../scripts/build-cli.mjs";
import type { BenchRow } from "./types.ts";

const BIN = join(import.meta.dirname, "..", "bin", "toolroom");
const MB = 1024 * 1024;

/**
 * A project folder of about `megabytes` MB: a small source tree, and the rest as node_modules
 * (packages of many small files and a few large bundles, as npm leaves them).
 */
function projectFolder(megabytes: number): string {
  const root = mkdtempSync(join(tmpdir(), `toolroom-bench-mcp-${megabytes}mb-`));
  writeFileSync(join(root, "package.json"), '{"name":"bench","version":"1.0.0"}\n');
  mkdirSync(join(root, "src"));
  const line = "export const value = compute(input, options); // a line of source\n";
  for (let i = 0; i < 20; i++) writeFileSync(join(root, "src", `module${i}.ts`), line.repeat(200));
  let left = megabytes * MB - 20 * 200 * line.length;
  const small = "module.exports = function () { return 42; };\n".repeat(230); // ~10 KB
  for (let pkg = 0; left > 0; pkg++) {
    const dir = join(root, "node_modules", `package-${pkg}`, "lib");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "..", "package.json"), `{"name":"package-${pkg}","main":"lib/index.js"}\n`);
    for (let file = 0; file < 40 && left > 0; file++) {
      writeFileSync(join(dir, `file${file}.js`), small);
      left -= small.length;
    }
    if (pkg % 25 === 0 && left > 0) {
      const bundle = Buffer.alloc(Math.min(left, 4 * MB), "x");
      writeFileSync(join(dir, "bundle.min.js"), bundle);
      left -= bundle.length;
    }
  }
  return root;
}

/** High-water mark of a process's resident memory (Linux). */
function peakBytes(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB/mu.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb ?? Number.NaN) * 1024;
}

/**
 * What a desktop agent waits for: `toolroom mcp` started on `folder`, initialize, then a first
 * tools/call (read a file) answered. Timed from the spawn; peak memory read at the answer.
 */
function firstAnswer(folder: string, fromSource = false): Promise<{ ms: number; peak: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(BIN, ["mcp", "--workspace", folder, "--profile", "coding-agent"], {
      stdio: ["pipe", "pipe", "ignore"],
      env: fromSource ? { ...process.env, TOOLROOM_CLI_FROM_SOURCE: "1" } : process.env,
    });
    let buffer = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      for (const line of buffer.split("\n").slice(0, -1)) {
        const message = JSON.parse(line) as { id?: unknown; result?: { isError?: boolean } };
        if (message.id !== 2) continue;
        const ms = performance.now() - started;
        const peak = peakBytes(child.pid!);
        child.stdin.end();
        if (message.result?.isError !== false) reject(new Error(`the call failed: ${line}`));
        else resolve({ ms, peak });
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
    child.on("error", reject);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "file_read", arguments: { path: "package.json" } },
    });
  });
}

/** `toolroom --help`: the CLI's own start-up (node, loading the prebuilt modules), with no folder. */
function helpMs(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(BIN, ["--help"], { stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

/** Median time and largest peak over `runs` starts. */
async function measure(folder: string, runs = 3, fromSource = false): Promise<{ ms: number; peak: number }> {
  const results: { ms: number; peak: number }[] = [];
  for (let i = 0; i < runs; i++) results.push(await firstAnswer(folder, fromSource));
  const times = results.map((result) => result.ms).sort((a, b) => a - b);
  return {
    ms: times[Math.floor(times.length / 2)]!,
    peak: Math.max(...results.map((result) => result.peak)),
  };
}

/**
 * `toolroom mcp` on a 400 MB folder with node_modules against a 1 MB one, in the same run: start-up
 * must not depend on the folder's size (the goal: within 2× and under 1 s), nor memory.
 */
export async function benchMcpStart(): Promise<BenchRow[]> {
  // bin/toolroom runs the prebuilt CLI (dist-cli) only when it is built from the current sources.
  await buildCli();
  const small = projectFolder(1);
  const large = projectFolder(400);
  try {
    // Warm the disk cache (the 400 MB just written may still be flushing) and tsx's transform cache.
    await firstAnswer(small);
    await firstAnswer(large);
    await firstAnswer(small, true);
    const onSmall = await measure(small);
    const onLarge = await measure(large);
    const fromSource = await measure(small, 3, true);
    const help: number[] = [];
    for (let i = 0; i < 3; i++) help.push(await helpMs());
    help.sort((a, b) => a - b);
    const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;
    return [
      {
        name: "mcp: spawn → initialize → first tools/call answer, 400 MB folder with node_modules",
        ms: onLarge.ms,
        reference: { name: "the same on a 1 MB folder", ms: onSmall.ms },
        note: `peak memory ${mb(onLarge.peak)} vs ${mb(onSmall.peak)}`,
      },
      {
        name: "mcp: spawn → first tools/call answer, 1 MB folder",
        ms: onSmall.ms,
        reference: { name: "toolroom --help (start-up alone)", ms: help[1]! },
      },
      {
        name: "mcp: spawn → first tools/call answer, 1 MB folder, the prebuilt CLI (dist-cli)",
        ms: onSmall.ms,
        reference: { name: "the same from source through tsx", ms: fromSource.ms },
      },
    ];
  } finally {
    rmSync(small, { recursive: true, force: true });
    rmSync(large, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("toolroom mcp start-up against folder size", await benchMcpStart());
}
