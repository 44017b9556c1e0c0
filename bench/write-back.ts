/**
 * Write-back benchmark: the CLI's write-back (a checked plan, then each file through a temporary
 * file, fsync'd, renamed into place) of 300 new files and of one 60 MB file, against `cp -r` of
 * the same files on the same disk in the same run. Run alone with `npx tsx bench/write-back.ts`,
 * or with the others through `npm run bench`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeBackChanges } from "../src/cli/host-folder.ts";
import type { FileChange } from "../src/core/checkpoints.ts";
import { medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";

const RUNS = 5;
const FILES = 300;
const BIG = 60 * 1024 * 1024;

/** 300 source-like files of 1-4 KB in 10 folders, as created entries (folders first). */
function manyFiles(): FileChange[] {
  const changes: FileChange[] = [];
  for (let folder = 0; folder < 10; folder++) {
    const path = `src/part${folder}`;
    changes.push({ path, before: null, after: { path, type: "directory", mode: 0o755 } });
  }
  changes.unshift({ path: "src", before: null, after: { path: "src", type: "directory", mode: 0o755 } });
  for (let i = 0; i < FILES; i++) {
    const path = `src/part${i % 10}/file${i}.ts`;
    const data = new TextEncoder().encode(`export const value${i} = ${i};\n`.repeat(30 + (i % 100)));
    changes.push({ path, before: null, after: { path, type: "file", data, mode: 0o644 } });
  }
  return changes;
}

function bigFile(): FileChange[] {
  const data = new Uint8Array(BIG);
  for (let i = 0; i < BIG; i += 4096) data[i] = i % 251;
  return [{ path: "big.bin", before: null, after: { path: "big.bin", type: "file", data, mode: 0o644 } }];
}

/** The same entries as files on disk, for cp to copy. */
function onDisk(changes: FileChange[]): string {
  const dir = mkdtempSync(join(tmpdir(), "toolroom-bench-src-"));
  for (const change of changes) {
    const full = join(dir, change.path);
    if (change.after?.type === "directory") mkdirSync(full, { recursive: true });
    else if (change.after?.type === "file") writeFileSync(full, change.after.data);
  }
  return dir;
}

/** Median time of `work` into a fresh empty folder each run (making and removing it not timed). */
function intoFreshFolder(work: (dir: string) => Promise<unknown> | unknown): Promise<number> {
  return medianMs(
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "toolroom-bench-dest-"));
      const started = performance.now();
      await work(dir);
      const ms = performance.now() - started;
      rmSync(dir, { recursive: true, force: true });
      return ms;
    },
    RUNS,
    1,
    true,
  );
}

async function row(name: string, changes: FileChange[], note: string): Promise<BenchRow> {
  const source = onDisk(changes);
  const count = changes.filter((change) => change.after?.type === "file").length;
  const ms = await intoFreshFolder(async (dir) => {
    const report = await writeBackChanges(dir, changes);
    if (report.written.length !== changes.length)
      throw new Error(`wrote ${report.written.length} of ${changes.length}`);
  });
  const cp = await intoFreshFolder((dir) => {
    const run = spawnSync("cp", ["-r", `${source}/.`, dir]);
    if (run.status !== 0) throw new Error(`cp failed: ${run.stderr}`);
    if (readdirSync(dir).length === 0) throw new Error("cp copied nothing");
  });
  rmSync(source, { recursive: true, force: true });
  return {
    name: `write-back: ${name} (${count} file${count === 1 ? "" : "s"})`,
    ms,
    reference: { name: "cp -r", ms: cp },
    note,
  };
}

export async function benchWriteBack(): Promise<BenchRow[]> {
  return [
    await row(
      "300 new files in 11 folders",
      manyFiles(),
      "plan checked first, then temp + fsync + rename per file; cp does no fsync",
    ),
    await row("one 60 MB file", bigFile(), "temp file + fsync + rename; cp does no fsync"),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("write-back", await benchWriteBack());
}
