import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { printRows } from "./report.ts";
import type { BenchRow } from "./types.ts";

/**
 * `npm run bench`: runs every `bench*` function exported by the files in bench/, one after the
 * other (timings are not to be shared with a neighbour), printing ratios against the native
 * reference measured in the same run.
 */
const SUPPORT = new Set(["run.ts", "types.ts", "measure.ts", "report.ts", "workspace.ts"]);
const only = process.argv.slice(2);
const folder = import.meta.dirname;
for (const file of readdirSync(folder)
  .filter((name) => name.endsWith(".ts") && !SUPPORT.has(name))
  .sort()) {
  const module = (await import(pathToFileURL(join(folder, file)).href)) as Record<string, unknown>;
  for (const [name, value] of Object.entries(module)) {
    if (!name.startsWith("bench") || typeof value !== "function") continue;
    if (only.length > 0 && !only.some((filter) => file.includes(filter) || name.includes(filter))) continue;
    const started = performance.now();
    const rows = (await (value as () => Promise<BenchRow[]>)()) ?? [];
    printRows(`${file} · ${name} (${((performance.now() - started) / 1000).toFixed(1)} s)`, rows);
  }
}
