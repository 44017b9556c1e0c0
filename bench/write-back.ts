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

const CALLS = 20;
const FOLDER_FILES = 2000;

/**
 * What writing back after each call adds to a call: the same small edit (file_write of a one-line
 * file) run CALLS times with --write-back and without, on a folder of 2,000 files listed first, so
 * a cost that grew with the folder (a walk of it per call) would show.
 */
async function perCallRow(
  name = "a one-line file_write",
  tool = "file_write",
  params: (i: number) => Record<string, unknown> = (i) => ({ path: "notes.txt", content: `call ${i}\n` }),
  note = "per call; the difference is the plan of the call's own paths + temp + fsync + rename",
): Promise<BenchRow> {
  const { openHostRuntime } = await import("../src/cli/host-runtime.ts");
  const dir = mkdtempSync(join(tmpdir(), "toolroom-bench-calls-"));
  for (let i = 0; i < FOLDER_FILES; i++) {
    if (i % 100 === 0) mkdirSync(join(dir, `part${i / 100}`));
    writeFileSync(join(dir, `part${Math.floor(i / 100)}`, `file${i}.ts`), `export const v = ${i};\n`);
  }
  const perCall = async (writeBack: boolean): Promise<number> => {
    const host = await openHostRuntime({ workspace: dir, approve: "auto", networkAllowList: [], writeBack });
    const call = (tool: string, params: Record<string, unknown>) =>
      host.invoke("coding-agent", { tool, params }, () => null);
    await call("file_list", { path: ".", recursive: true });
    const ms = await medianMs(
      async () => {
        const started = performance.now();
        for (let i = 0; i < CALLS; i++) {
          const { outcome } = await call(tool, params(i));
          if (outcome.status !== "success") throw new Error(JSON.stringify(outcome.envelope));
        }
        return (performance.now() - started) / CALLS;
      },
      RUNS,
      1,
      true,
    );
    // The run's end line goes to stderr; the bench's table is what counts.
    await host.finish({ answered: 0 });
    return ms;
  };
  const without = await perCall(false);
  const withWriteBack = await perCall(true);
  rmSync(dir, { recursive: true, force: true });
  return {
    name: `write-back after each call: ${name} (${FOLDER_FILES}-file folder)`,
    ms: withWriteBack,
    reference: { name: "the same call, no write-back", ms: without },
    note,
  };
}

export async function benchWriteBack(): Promise<BenchRow[]> {
  return [
    await perCallRow(),
    await perCallRow(
      "a shell call rewriting 4 files",
      "shell",
      (i) => ({ command: `for f in a b c d; do echo call ${i} > $f.txt; done` }),
      "per call; a call of several changes also writes its journal: staged files and journal fsync'd together, then the renames, then the commit and the folders fsync'd",
    ),
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
