import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The word the search benchmark looks for; it appears on about one line in 200. */
export const NEEDLE = "retryBudget";

/**
 * A deterministic TypeScript-looking workspace: `fileCount` files of `linesPerFile` lines in
 * nested folders. 2,000 × 50 gives the 100,000-line workspace the benchmarks name.
 */
export function generateWorkspace(fileCount = 2000, linesPerFile = 50): Record<string, string> {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const words = [
    "value",
    "count",
    "index",
    "result",
    "items",
    "config",
    "handler",
    "cache",
    "buffer",
    "options",
  ];
  const files: Record<string, string> = {};
  for (let f = 0; f < fileCount; f++) {
    const path = `src/module${f % 20}/part${Math.floor(f / 20) % 10}/file${f}.ts`;
    const lines: string[] = [`import { helper } from "../shared";`, ""];
    for (let l = 2; l < linesPerFile; l++) {
      const word = words[Math.floor(random() * words.length)]!;
      const line =
        random() < 0.005
          ? `  const ${NEEDLE} = ${word}.length * ${l};`
          : l % 10 === 2
            ? `export function ${word}${f}_${l}(input: number): number {`
            : l % 10 === 9
              ? "}"
              : `  const ${word}${l} = helper(input, ${Math.floor(random() * 1000)});`;
      lines.push(line);
    }
    files[path] = `${lines.join("\n")}\n`;
  }
  return files;
}

/** Writes files to a fresh temp folder on disk, for the native tools to run on. */
export function writeToDisk(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "toolroom-bench-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}
