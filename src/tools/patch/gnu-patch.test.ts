/**
 * AgentBench's apply_patch "uses the patch command with -p1": it is held to GNU patch -p1 at its
 * default fuzz, on the unified-diff reference suite (jsdiff's and GNU patch's own cases) and on
 * random diffs made by GNU diff and applied by the real `patch` to the same (sometimes stale) files.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../host/create-runtime.ts";
import { referenceSuitePath } from "../../test-support/reference-suites.ts";

const installed = (tool: string) => spawnSync("which", [tool]).status === 0;
const scratch = mkdtempSync(join(tmpdir(), "toolroom-gnu-patch-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Tree = Record<string, string>;

/** Every file under a folder, as latin1 text (byte for byte), sorted by path. */
function readTree(root: string): Tree {
  const out: Tree = {};
  if (!existsSync(root)) return out;
  for (const entry of readdirSync(root, { recursive: true }) as string[]) {
    const full = join(root, entry);
    if (statSync(full).isFile()) out[entry] = readFileSync(full, "latin1");
  }
  return sorted(out);
}

function writeTree(root: string, files: Tree): void {
  mkdirSync(root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), Buffer.from(text, "latin1"));
  }
}

function sorted(tree: Tree): Tree {
  return Object.fromEntries(Object.entries(tree).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Latin1 (byte) strings to UTF-8 text, as the workspace loader takes it. */
function asText(tree: Tree): Tree {
  return Object.fromEntries(
    Object.entries(tree).map(([k, v]) => [k, Buffer.from(v, "latin1").toString("utf8")]),
  );
}

/** agentbench apply_patch on a fresh workspace: the envelope and every file after it. */
async function agentbenchApply(files: Tree, patch: string) {
  const runtime = await createEmbeddedRuntime({ files: asText(files), session: "gnu-patch" });
  const envelope = (await runtime.call("agentbench", {
    tool: "apply_patch",
    params: { unified_diff: patch },
    request_id: "1",
  })) as { status: string; error: { error_type: string; message: string } | null; data: unknown };
  const after: Tree = {};
  for (const entry of (await runtime.sandbox.snapshot()).entries) {
    if (entry.type === "file") after[entry.path] = Buffer.from(entry.data).toString("latin1");
  }
  return { envelope, after: sorted(after) };
}

// ---- The unified-diff reference suite: its 74 cases read with -p1 ----

interface SuiteCase {
  name: string;
  expect: "after" | "error";
  strip: number;
}

function suiteCases(): SuiteCase[] {
  const rows = readFileSync(referenceSuitePath("unified-diff", "cases.tsv"), "utf8")
    .trim()
    .split("\n")
    .slice(1);
  return rows.map((row) => {
    const [name, expect, strip] = row.split("\t");
    return { name: name!, expect: expect as "after" | "error", strip: Number(strip) };
  });
}

/**
 * Where agentbench's apply_patch answers differently from the suite, on purpose: GNU patch's
 * default fuzz (2) applies these two hunks, as `patch -p1` does; the suite states the fuzz-0 outcome.
 */
const FUZZ_DIFFERENCES = [
  "gnu07_asymmetric_context_not_at_start_fails_fuzz0",
  "jsd23_context_mismatch_fails",
];

describe("agentbench apply_patch on the unified-diff reference suite (-p1 cases)", () => {
  const cases = suiteCases().filter((c) => c.strip === 1);
  const outcomes = new Map<string, boolean>();

  it("has the 74 -p1 cases", () => {
    expect(cases).toHaveLength(74);
  });

  for (const c of cases) {
    it(c.name, async () => {
      const dir = referenceSuitePath("unified-diff", c.name);
      const before = readTree(join(dir, "before"));
      const patch = readFileSync(join(dir, "patch.diff"), "utf8");
      const { envelope, after } = await agentbenchApply(before, patch);
      const want = c.expect === "after" ? readTree(join(dir, "after")) : before;
      const agrees =
        JSON.stringify(after) === JSON.stringify(want) &&
        (envelope.status === "error") === (c.expect === "error");
      outcomes.set(c.name, agrees);
      if (FUZZ_DIFFERENCES.includes(c.name)) {
        // GNU patch at its default fuzz applies it; so do we, and we say it needed fuzz.
        expect(envelope.status).toBe("success");
        expect(JSON.stringify(envelope.data)).toMatch(/"match":"fuzz"/u);
        return;
      }
      expect(envelope.status).toBe(c.expect === "error" ? "error" : "success");
      expect(after).toEqual(want);
    });
  }

  it("scores at least 71 of 74 (GNU patch's own score)", () => {
    const agreed = [...outcomes.values()].filter(Boolean).length;
    expect(outcomes.size).toBe(74);
    expect(agreed).toBeGreaterThanOrEqual(71);
  });
});

// ---- Random diffs: GNU diff makes them, GNU patch -p1 and agentbench apply them to the same files ----

/** mulberry32: a small seeded generator, so a failing case can be replayed by its number. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A few words, so that lines repeat and hunks have more than one place they could go. */
const WORDS = ["alpha", "beta", "gamma", "}", "", "return x;", "  x += 1;", "delta", "if (a) {", "end"];

function randomLines(next: () => number, count: number): string[] {
  return Array.from({ length: count }, () =>
    next() < 0.6 ? WORDS[Math.floor(next() * WORDS.length)]! : `line ${Math.floor(next() * 1000)}`,
  );
}

function edit(next: () => number, lines: readonly string[], edits: number): string[] {
  const out = [...lines];
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(next() * (out.length + 1));
    const kind = next();
    if (kind < 0.35 && out.length > 0) out.splice(Math.min(at, out.length - 1), 1 + Math.floor(next() * 2));
    else if (kind < 0.7) out.splice(at, 0, ...randomLines(next, 1 + Math.floor(next() * 3)));
    else if (out.length > 0) out[Math.min(at, out.length - 1)] = `changed ${Math.floor(next() * 1000)}`;
  }
  return out;
}

function joinText(lines: readonly string[], finalNewline: boolean): string {
  if (lines.length === 0) return "";
  return lines.join("\n") + (finalNewline ? "\n" : "");
}

interface RandomCase {
  files: Tree;
  patch: string;
}

/** Files, their edited versions diffed with `diff -u` (a/ b/ names), and the workspace the patch meets. */
function randomCase(seed: number): RandomCase {
  const next = random(seed);
  const dir = join(scratch, `make-${seed}`);
  const count = 1 + Math.floor(next() * 3);
  const context = [3, 3, 3, 1, 2, 0, 5][Math.floor(next() * 7)]!;
  const files: Tree = {};
  let patch = "";
  for (let f = 0; f < count; f++) {
    const name = `src/f${f}.txt`;
    const old = randomLines(next, 3 + Math.floor(next() * 30));
    const oldText = joinText(old, next() < 0.85);
    const newText = joinText(edit(next, old, 1 + Math.floor(next() * 4)), next() < 0.85);
    writeTree(join(dir, "a"), { [name]: oldText });
    writeTree(join(dir, "b"), { [name]: newText });
    const diff = spawnSync("diff", [`-U${context}`, `a/${name}`, `b/${name}`], {
      cwd: dir,
      encoding: "latin1",
    });
    patch += diff.stdout;
    // The workspace: the file as diffed, or a stale copy (edited since the diff was made).
    files[name] =
      next() < 0.4 ? joinText(edit(next, old, 1 + Math.floor(next() * 2)), next() < 0.85) : oldText;
  }
  return { files, patch };
}

/** GNU patch as AgentBench runs it: a dry run, then the real run only if the dry run applied everything. */
function gnuApply(files: Tree, patch: string, seed: number): { applied: boolean; after: Tree } {
  const dir = join(scratch, `gnu-${seed}`);
  writeTree(dir, files);
  const patchFile = join(scratch, `gnu-${seed}.patch`);
  writeFileSync(patchFile, Buffer.from(patch, "latin1"));
  const common = ["-p1", "-f", "--no-backup-if-mismatch", "-i", patchFile];
  const dry = spawnSync("patch", ["--dry-run", ...common], { cwd: dir, encoding: "utf8" });
  if (dry.status !== 0) return { applied: false, after: readTree(dir) };
  const run = spawnSync("patch", common, { cwd: dir, encoding: "utf8" });
  return { applied: run.status === 0, after: readTree(dir) };
}

describe.skipIf(!installed("patch") || !installed("diff"))(
  "agentbench apply_patch against GNU patch -p1 on random diffs",
  () => {
    const SEEDS = Array.from({ length: 80 }, (_, k) => 1000 + k);
    for (const seed of SEEDS) {
      it(`random diff #${seed}`, async () => {
        const c = randomCase(seed);
        if (c.patch === "") return;
        const gnu = gnuApply(c.files, c.patch, seed);
        const ours = await agentbenchApply(c.files, c.patch);
        expect({ applied: ours.envelope.status === "success", after: ours.after }).toEqual({
          applied: gnu.applied,
          after: gnu.after,
        });
      });
    }
  },
);

describe("agentbench apply_patch reads names as patch -p1", () => {
  const diff = "--- src/x.txt\n+++ src/x.txt\n@@ -1 +1 @@\n-old\n+new\n";

  it("patches x.txt, not src/x.txt, when -p1 names an existing file", async () => {
    const { envelope, after } = await agentbenchApply({ "x.txt": "old\n", "src/x.txt": "old\n" }, diff);
    expect(envelope.status).toBe("success");
    expect(after).toEqual({ "src/x.txt": "old\n", "x.txt": "new\n" });
  });

  it("tries the name as written when its -p1 reading does not exist", async () => {
    const { envelope, after } = await agentbenchApply({ "src/x.txt": "old\n" }, diff);
    expect(envelope.status).toBe("success");
    expect(after).toEqual({ "src/x.txt": "new\n" });
  });
});
