/**
 * The plan's diff must be a real patch: applied by GNU patch and by git apply to the files
 * before, it gives exactly the files the engine planned. Node-only (like every test); skipped
 * where the tools are not installed.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planPatch } from "../plan.ts";
import { mapSource } from "../testing/memory.ts";
import type { PatchCase } from "./case.ts";
import { envelopeCases } from "./envelope.ts";
import { structuredCases } from "./structured.ts";
import { unifiedCases } from "./unified.ts";

const installed = (tool: string) => spawnSync("which", [tool]).status === 0;
const scratch = mkdtempSync(join(tmpdir(), "toolroom-patch-reference-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function writeTree(root: string, files: Record<string, string>): void {
  mkdirSync(root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function readTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(root, { recursive: true }) as string[]) {
    const full = join(root, entry);
    if (statSync(full).isFile()) out[entry] = readFileSync(full, "utf8");
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const succeeding = [...unifiedCases, ...envelopeCases, ...structuredCases].filter(
  (c): c is PatchCase & { expect: { files: Record<string, string> } } =>
    "files" in c.expect && Object.values(c.files).every((content) => typeof content === "string"),
);

const tools: [string, (dir: string, patchFile: string) => string[]][] = [
  [
    "GNU patch",
    (_dir, patchFile) => ["patch", "-p1", "--batch", "--silent", "--no-backup-if-mismatch", "-i", patchFile],
  ],
  ["git apply", (_dir, patchFile) => ["git", "apply", "--whitespace=nowarn", patchFile]],
];

for (const [tool, command] of tools) {
  describe.skipIf(!installed(command("", "")[0]!))(`the plan's diff applied by ${tool}`, () => {
    succeeding.forEach((c, n) => {
      it(c.name, async () => {
        const files = new Map(Object.entries(c.files as Record<string, string>));
        const plan = await planPatch(c.request, mapSource(files));
        if (plan.diff === "") return;
        const dir = join(scratch, `${tool.replace(" ", "-")}-${n}`);
        writeTree(dir, c.files as Record<string, string>);
        const patchFile = join(scratch, `${tool.replace(" ", "-")}-${n}.patch`);
        writeFileSync(patchFile, plan.diff);
        const [program, ...args] = command(dir, patchFile);
        const run = spawnSync(program!, args, { cwd: dir, encoding: "utf8" });
        expect(run.stderr + run.stdout).toBe("");
        expect(run.status).toBe(0);
        expect(readTree(dir)).toEqual(c.expect.files);
      });
    });
  });
}
