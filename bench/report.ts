import type { BenchRow } from "./types.ts";

const format = (ms: number) => (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(2)} ms`);

/** Prints a section: each row's time, its reference (native where there is one) and the ratio between them. */
export function printRows(title: string, rows: BenchRow[]): void {
  console.log(`\n## ${title}`);
  for (const row of rows) {
    let line = `  ${row.name.padEnd(58)} ${format(row.ms).padStart(11)}`;
    if (row.reference) {
      const ratio = row.ms / row.reference.ms;
      line += `   vs ${row.reference.name}: ${format(row.reference.ms)}  → ${ratio.toFixed(2)}× the reference`;
    }
    if (row.note) line += `   (${row.note})`;
    console.log(line);
  }
}
