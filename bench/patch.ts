/**
 * Patch engine benchmark: a 200-hunk unified diff on a 20,000-line file, planned (parse, locate,
 * apply, diff) and committed to an in-memory sandbox; GNU `patch -p1` on the same input when it is
 * installed, as the reference. Also the same change as a 200-chunk apply_patch envelope, whose
 * header-less chunks are located by searching. Run alone with `npx tsx bench/patch.ts`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createTwoFilesPatch } from "diff";
import { commitPatch, planPatch } from "../src/tools/patch/index.ts";
import { MemorySandbox, mapSource, ROOT } from "../src/tools/patch/testing/memory.ts";
import type { BenchRow } from "./types.ts";

const LINES = 20_000;
const HUNKS = 200;
const RUNS = 31;
/** The changed line of each 100: a `return` line, two lines below its function's first line. */
const CHANGED = 52;

/** Code-like lines: mostly unique, with the blank lines and braces that make context repeat. */
function sourceFile(): string[] {
  const lines: string[] = [];
  for (let i = 0; lines.length < LINES; i++) {
    lines.push(`export function step${i}(input: number): number {`);
    lines.push(`  const scaled = input * ${(i % 17) + 2};`);
    lines.push(`  return scaled + ${i};`);
    lines.push("}");
    lines.push("");
  }
  return lines.slice(0, LINES);
}

/** One change every 100 lines: a line rewritten and a line added after it. */
function changedFile(lines: readonly string[]): string[] {
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (i % (LINES / HUNKS) === CHANGED) {
      out.push(line.replace("return", "return /* checked */"), "  // reviewed");
    } else {
      out.push(line);
    }
  });
  return out;
}

function envelopeFor(before: readonly string[]): string {
  const out = ["*** Begin Patch", "*** Update File: src/big.ts"];
  // Built from the known change pattern: anchor on the function line, 1 line of context each side.
  for (let i = CHANGED; i < LINES; i += LINES / HUNKS) {
    out.push(`@@ ${before[i - 2]}`, ` ${before[i - 1]}`, `-${before[i]}`);
    out.push(
      `+${before[i]!.replace("return", "return /* checked */")}`,
      "+  // reviewed",
      ` ${before[i + 1]}`,
    );
  }
  out.push("*** End Patch");
  return `${out.join("\n")}\n`;
}

async function median(run: () => Promise<void> | void): Promise<number> {
  await run(); // warm-up: JIT and caches
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function gnuPatch(): { name: string } | undefined {
  const found = spawnSync("which", ["patch"], { encoding: "utf8" });
  if (found.status !== 0) return undefined;
  const version = execFileSync("patch", ["--version"], { encoding: "utf8" }).split("\n")[0]!.trim();
  return { name: version };
}

export async function benchPatch(): Promise<BenchRow[]> {
  const before = sourceFile();
  const after = changedFile(before);
  const beforeText = `${before.join("\n")}\n`;
  const afterText = `${after.join("\n")}\n`;
  const diff = createTwoFilesPatch(
    "a/src/big.ts",
    "b/src/big.ts",
    beforeText,
    afterText,
    undefined,
    undefined,
    {
      context: 3,
    },
  );
  const hunkCount = diff.split("\n").filter((line) => line.startsWith("@@")).length;
  if (hunkCount !== HUNKS) throw new Error(`bench input has ${hunkCount} hunks, not ${HUNKS}`);
  const files = new Map([["src/big.ts", beforeText]]);
  const source = mapSource(files);

  const check = await planPatch({ kind: "text", text: diff }, source);
  if (check.files[0]?.after !== afterText)
    throw new Error("the engine's result differs from the expected file");

  const rows: BenchRow[] = [];
  const name = `unified diff, ${HUNKS} hunks on a ${LINES.toLocaleString("en")}-line file`;
  const plan = await median(async () => {
    await planPatch({ kind: "text", text: diff }, source);
  });
  const commit = await median(async () => {
    const sandbox = new MemorySandbox({ "src/big.ts": beforeText });
    const planned = await planPatch({ kind: "text", text: diff }, mapSource(files));
    await commitPatch(planned, sandbox, ROOT);
  });

  const gnu = gnuPatch();
  let reference: BenchRow["reference"];
  if (gnu) {
    const dir = mkdtempSync(join(tmpdir(), "toolroom-bench-patch-"));
    try {
      const target = join(dir, "src", "big.ts");
      writeFileSync(join(dir, "change.patch"), diff);
      execFileSync("mkdir", ["-p", join(dir, "src")]);
      let result = "";
      const ms = await median(() => {
        writeFileSync(target, beforeText);
        const run = spawnSync("patch", ["-p1", "-s", "-i", "change.patch"], { cwd: dir, encoding: "utf8" });
        if (run.status !== 0) throw new Error(`GNU patch failed: ${run.stderr || run.stdout}`);
        result = readFileSync(target, "utf8");
      });
      if (result !== afterText) throw new Error("GNU patch's result differs from the expected file");
      reference = { name: `${gnu.name} (-p1, process spawn and file I/O included)`, ms };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  rows.push({
    name: `${name}: planPatch (parse, locate, apply, diff)`,
    ms: plan,
    ...(reference ? { reference } : {}),
  });
  rows.push({
    name: `${name}: planPatch + commitPatch (in-memory sandbox)`,
    ms: commit,
    ...(reference ? { reference } : {}),
  });

  const envelope = envelopeFor(before);
  const envelopeCheck = await planPatch({ kind: "text", text: envelope }, source);
  if (envelopeCheck.files[0]?.after !== afterText)
    throw new Error("the envelope's result differs from the expected file");
  const envelopeMs = await median(async () => {
    await planPatch({ kind: "text", text: envelope }, source);
  });
  rows.push({
    name: `apply_patch envelope, ${HUNKS} @@-anchored chunks on the same file: planPatch`,
    ms: envelopeMs,
  });
  return rows;
}

function format(rows: readonly BenchRow[]): string {
  return rows
    .map((row) => {
      const own = `${row.name}: ${row.ms.toFixed(2)} ms`;
      if (!row.reference) return own;
      const ratio = row.ms / row.reference.ms;
      return `${own}\n  reference ${row.reference.name}: ${row.reference.ms.toFixed(2)} ms (ratio ${ratio.toFixed(2)}×)`;
    })
    .join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(format(await benchPatch()));
}
