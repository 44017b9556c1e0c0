/**
 * Patch engine benchmark: a 200-hunk unified diff on a 20,000-line file, planned (parse, locate,
 * apply, diff) and then also committed to the embedded sandbox; GNU `patch -p1` on the same input
 * in the same run when it is installed, as the reference. Also the same change as a 200-chunk
 * apply_patch envelope, whose @@-anchored chunks are located by searching. Run alone with
 * `npx tsx bench/patch.ts`, or with the others through `npm run bench`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createTwoFilesPatch } from "diff";
import { EmbeddedSandbox } from "../src/sandbox/embedded/embedded-sandbox.ts";
import { commitPatch } from "../src/tools/patch/commit.ts";
import { planPatch } from "../src/tools/patch/plan.ts";
import { sourceFromSandbox } from "../src/tools/patch/source.ts";
import { mapSource } from "../src/tools/patch/testing/memory.ts";
import { hasCommand, medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";

const LINES = 20_000;
const HUNKS = 200;
const RUNS = 31;
/** Unmeasured runs first, so that every row is timed on optimized code whatever its order. */
const WARMUP = 10;
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
    if (i % (LINES / HUNKS) === CHANGED)
      out.push(line.replace("return", "return /* checked */"), "  // reviewed");
    else out.push(line);
  });
  return out;
}

/** The same change as an envelope: each chunk anchored on its function's line, 1 line of context each side. */
function envelopeFor(before: readonly string[]): string {
  const out = ["*** Begin Patch", "*** Update File: src/big.ts"];
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

/** GNU patch on the diff, in a temporary folder: the median of runs that each restore the file first. */
async function gnuPatchMs(
  diff: string,
  beforeText: string,
  afterText: string,
): Promise<BenchRow["reference"]> {
  if (!(await hasCommand("patch"))) return undefined;
  const version = spawnSync("patch", ["--version"], { encoding: "utf8" }).stdout.split("\n")[0]!.trim();
  const dir = mkdtempSync(join(tmpdir(), "toolroom-bench-patch-"));
  try {
    mkdirSync(join(dir, "src"));
    const target = join(dir, "src", "big.ts");
    writeFileSync(join(dir, "change.patch"), diff);
    const run = () => {
      writeFileSync(target, beforeText);
      const result = spawnSync("patch", ["-p1", "-s", "-i", "change.patch"], { cwd: dir, encoding: "utf8" });
      if (result.status !== 0) throw new Error(`GNU patch failed: ${result.stderr || result.stdout}`);
    };
    run();
    if (readFileSync(target, "utf8") !== afterText)
      throw new Error("GNU patch's result differs from the expected file");
    return {
      name: `${version}, -p1 (process start and file I/O included)`,
      ms: await medianMs(run, RUNS, WARMUP),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchPatch(): Promise<BenchRow[]> {
  const before = sourceFile();
  const beforeText = `${before.join("\n")}\n`;
  const afterText = `${changedFile(before).join("\n")}\n`;
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
  if (hunkCount !== HUNKS) throw new Error(`the bench diff has ${hunkCount} hunks, not ${HUNKS}`);
  const source = mapSource(new Map([["src/big.ts", beforeText]]));
  const unified = { kind: "text" as const, text: diff };
  if ((await planPatch(unified, source)).files[0]?.after !== afterText) {
    throw new Error("the engine's result differs from the expected file");
  }
  const reference = await gnuPatchMs(diff, beforeText, afterText);
  const size = `${HUNKS} hunks, ${LINES.toLocaleString("en")}-line file`;
  const rows: BenchRow[] = [];
  rows.push({
    name: `patch: unified diff, ${size}: plan`,
    ms: await medianMs(() => planPatch(unified, source), RUNS, WARMUP),
    ...(reference ? { reference } : {}),
    note: "parse, locate, apply, diff; in memory",
  });

  const sandbox = await EmbeddedSandbox.create();
  const path = `${sandbox.workspaceRoot}/src/big.ts`;
  await sandbox.mkdir(`${sandbox.workspaceRoot}/src`, { recursive: true });
  rows.push({
    name: `patch: unified diff, ${size}: plan + commit`,
    ms: await medianMs(
      async () => {
        await sandbox.writeFile(path, beforeText);
        const plan = await planPatch(unified, sourceFromSandbox(sandbox));
        await commitPatch(plan, sandbox, sandbox.workspaceRoot);
      },
      RUNS,
      WARMUP,
    ),
    ...(reference ? { reference } : {}),
    note: "embedded sandbox; includes rewriting the original file before each run",
  });
  await sandbox.dispose();

  const envelope = { kind: "text" as const, text: envelopeFor(before) };
  if ((await planPatch(envelope, source)).files[0]?.after !== afterText) {
    throw new Error("the envelope's result differs from the expected file");
  }
  rows.push({
    name: `patch: envelope, ${HUNKS} @@ chunks, same file: plan`,
    ms: await medianMs(() => planPatch(envelope, source), RUNS, WARMUP),
    note: "chunks located by anchor and context search",
  });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("patch engine", await benchPatch());
}
