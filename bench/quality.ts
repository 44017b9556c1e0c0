import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Runtime } from "../src/core/runtime.ts";
import { createEmbeddedRuntime } from "../src/host/create-runtime.ts";
import { registerNodeAssets } from "../src/host/node-assets.ts";
import { medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";
import { writeToDisk } from "./workspace.ts";

async function call(runtime: Runtime, tool: string, params: Record<string, unknown> = {}) {
  const result = (await runtime.call("coding-agent", { tool, params })) as {
    ok: boolean;
    message: string;
    data: Record<string, unknown>;
  };
  if (!result.ok) throw new Error(`${tool} failed: ${result.message}`);
  return result.data;
}

/** 2,000 well-typed TypeScript modules of 50 lines (100,000 lines) importing a shared one; one in a hundred has a type error. */
function typescriptWorkspace(): Record<string, string> {
  const files: Record<string, string> = {
    "src/shared.ts": "export function helper(input: number, n: number): number {\n  return input + n;\n}\n",
  };
  for (let f = 0; f < 2000; f++) {
    const lines = ['import { helper } from "../../shared";', ""];
    for (let n = 0; n < 8; n++) {
      lines.push(
        `export function step${f}_${n}(input: number): number {`,
        `  const value = helper(input, ${n});`,
        `  return value * ${n + 1};`,
        "}",
        "",
      );
    }
    lines.push(
      f % 100 === 0
        ? `export const broken${f}: string = step${f}_0(1);`
        : `export const total${f}: number = step${f}_0(1);`,
    );
    while (lines.length < 50) lines.push(`// line ${lines.length}`);
    files[`src/module${f % 20}/part${Math.floor(f / 20) % 10}/file${f}.ts`] = `${lines.join("\n")}\n`;
  }
  return files;
}

/** 400 Python modules of 50 lines: functions, a class, an unused import every tenth file. */
function pythonWorkspace(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < 400; f++) {
    const lines = [f % 10 === 0 ? "import os\nimport sys\n" : "import sys\n", ""];
    for (let n = 0; n < 8; n++)
      lines.push(
        `def handler_${f}_${n}(value):`,
        `    total = value * ${n}`,
        "    return total + len(sys.argv)",
        "",
        "",
      );
    lines.push(`class Model${f}:`, "    count = 0", "");
    files[`pkg/module${f % 20}/file${f}.py`] = `${lines.join("\n")}\n`;
  }
  return files;
}

/**
 * The quality loop without native binaries: typecheck with the in-worker TypeScript compiler on the
 * 2,000-file TypeScript workspace against native tsc, and run_lint with ruff's WebAssembly build on
 * 400 Python files against native ruff (when installed).
 */
export async function benchQuality(): Promise<BenchRow[]> {
  registerNodeAssets();
  const rows: BenchRow[] = [];
  const files = typescriptWorkspace();
  const runtime = await createEmbeddedRuntime({ files, trackChanges: false });
  const coldStarted = performance.now();
  const cold = await call(runtime, "typecheck");
  const coldMs = performance.now() - coldStarted;
  const disk = writeToDisk(files);
  writeFileSync(
    join(disk, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "es2022",
        module: "esnext",
        moduleResolution: "bundler",
        noEmit: true,
        skipLibCheck: true,
        allowImportingTsExtensions: true,
      },
    }),
  );
  const tsc = join(import.meta.dirname, "..", "node_modules", ".bin", "tsc");
  const nativeTsc = await medianMs(() => spawnSync(tsc, ["-p", "."], { cwd: disk }), 3, 0);
  rows.push({
    name: "typecheck (in-worker TypeScript), 2,000 files, cold",
    ms: coldMs,
    reference: { name: "tsc -p . (native Node, new process)", ms: nativeTsc },
    note: `${cold.issue_count} issues; includes loading the compiler and parsing lib.d.ts`,
  });
  rows.push({
    name: "typecheck again, nothing changed",
    ms: await medianMs(() => call(runtime, "typecheck"), 3, 0),
  });
  let edit = 0;
  rows.push({
    name: "typecheck after editing one file",
    ms: await medianMs(
      async () => {
        await runtime.sandbox.writeFile(
          "/workspace/src/module0/part0/file0.ts",
          `export const edited${edit++} = 1;\n`,
        );
        await call(runtime, "typecheck");
      },
      3,
      0,
    ),
  });

  const python = pythonWorkspace();
  const pyRuntime = await createEmbeddedRuntime({ files: python, trackChanges: false });
  const lintStarted = performance.now();
  const lint = await call(pyRuntime, "run_lint");
  const lintCold = performance.now() - lintStarted;
  const pyDisk = writeToDisk(python);
  mkdirSync(join(pyDisk, ".git"), { recursive: true });
  const hasRuff = spawnSync("ruff", ["--version"]).status === 0;
  rows.push({
    name: "run_lint (ruff WebAssembly), 400 Python files / 20,000 lines, cold",
    ms: lintCold,
    ...(hasRuff
      ? {
          reference: {
            name: "ruff check --no-cache (native)",
            ms: await medianMs(
              () => spawnSync("ruff", ["check", "--no-cache", "--output-format=json", "."], { cwd: pyDisk }),
              3,
            ),
          },
        }
      : {}),
    note: `${lint.issue_count} issues; includes compiling the 11 MB module`,
  });
  rows.push({ name: "run_lint again", ms: await medianMs(() => call(pyRuntime, "run_lint"), 3) });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("quality loop without native binaries", await benchQuality());
}
