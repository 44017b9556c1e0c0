import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EmbeddedSandbox } from "../src/sandbox/embedded/embedded-sandbox.ts";
import { createNodeCommands } from "../src/sandbox/embedded/node/index.ts";
import { tapCounts } from "../src/sandbox/embedded/node/tap-summary.ts";
import { medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";
import { generateWorkspace } from "./workspace.ts";

const FIXTURES = join(import.meta.dirname, "..", "src", "sandbox", "embedded", "node", "fixtures");

async function copyIn(sandbox: EmbeddedSandbox, from: string, to: string): Promise<void> {
  await sandbox.mkdir(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (statSync(source).isDirectory()) await copyIn(sandbox, source, `${to}/${name}`);
    else await sandbox.writeFile(`${to}/${name}`, readFileSync(source));
  }
}

/**
 * The embedded node against real Node on the same projects, in the same run: `node --test` on the
 * starter project (5 tests, 1 failing), a script that uses fs/util/events/Buffer, bare startup,
 * and bare startup beside 2,000 source files (the cost of mirroring the workspace for sync fs).
 */
export async function benchNode(): Promise<BenchRow[]> {
  const sandbox = await EmbeddedSandbox.create({ commands: createNodeCommands() });
  const real = mkdtempSync(join(tmpdir(), "toolroom-bench-node-"));
  const rows: BenchRow[] = [];
  try {
    for (const fixture of ["starter-node", "fs-util"]) {
      await copyIn(sandbox, join(FIXTURES, fixture), `/workspace/${fixture}`);
      cpSync(join(FIXTURES, fixture), join(real, fixture), { recursive: true });
    }
    const cases: Array<{
      name: string;
      fixture: string;
      sandbox?: EmbeddedSandbox;
      args: string[];
      check: (stdout: string) => void;
    }> = [
      {
        name: "node --test, starter project (5 tests, 1 failing)",
        fixture: "starter-node",
        args: ["--test"],
        check: (stdout) => {
          const counts = tapCounts(stdout);
          if (counts.pass !== 4 || counts.fail !== 1) throw new Error(`unexpected TAP summary:\n${stdout}`);
        },
      },
      {
        name: "node main.js (fs, util.inspect, events, Buffer)",
        fixture: "fs-util",
        args: ["main.js"],
        check: (stdout) => {
          if (!stdout.includes("promises")) throw new Error(`unexpected output:\n${stdout}`);
        },
      },
      {
        name: "node -e (startup and exit)",
        fixture: "starter-node",
        args: ["-e", "console.log(1)"],
        check: (stdout) => {
          if (stdout !== "1\n") throw new Error(`unexpected output: ${stdout}`);
        },
      },
    ];
    // A second sandbox whose workspace holds 2,000 files: node mirrors the workspace on every run.
    const crowded = await EmbeddedSandbox.create({ commands: createNodeCommands() });
    for (const [path, text] of Object.entries(generateWorkspace())) {
      const target = `/workspace/${path}`;
      await crowded.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
      await crowded.writeFile(target, text);
    }
    cases.push({
      name: "node -e beside 2,000 files (4 MB)",
      fixture: "",
      sandbox: crowded,
      args: ["-e", "console.log(1)"],
      check: (stdout) => {
        if (stdout !== "1\n") throw new Error(`unexpected output: ${stdout}`);
      },
    });
    for (const c of cases) {
      const command = `node ${c.args.map((arg) => (/^[\w.-]+$/u.test(arg) ? arg : `'${arg}'`)).join(" ")}`;
      const embeddedMs = await medianMs(async () => {
        const result = await (c.sandbox ?? sandbox).exec(command, { cwd: `/workspace/${c.fixture}` });
        c.check(result.stdout);
      });
      const realMs = await medianMs(() => {
        const cwd = join(real, c.fixture === "" ? "starter-node" : c.fixture);
        const result = spawnSync(process.execPath, c.args, { cwd, encoding: "utf8" });
        c.check(result.stdout);
      });
      rows.push({
        name: `${c.name}, embedded`,
        ms: embeddedMs,
        reference: { name: `real Node ${process.version} (process spawn included)`, ms: realMs },
      });
    }
    await crowded.dispose();
  } finally {
    rmSync(real, { recursive: true, force: true });
    await sandbox.dispose();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("embedded node against real Node", await benchNode());
}
