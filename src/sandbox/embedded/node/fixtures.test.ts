import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../embedded-sandbox.ts";
import { createNodeCommands } from "./index.ts";
import { TAP_COUNT_KEYS, tapCounts, tapResults } from "./tap-summary.ts";

/** The acceptance suite: each fixture project runs under real Node and under the embedded node. */
const FIXTURES = join(import.meta.dirname, "fixtures");

interface Case {
  fixture: string;
  /** The shell command, run in the fixture's folder. */
  command: string;
  /** "tests": same exit code, counts and ok/not ok lines; "stdout": same exit code and stdout. */
  compare: "tests" | "stdout";
}

const CASES: Case[] = [
  { fixture: "starter-node", command: "node --test", compare: "tests" },
  { fixture: "starter-node", command: "node src/main.js", compare: "stdout" },
  { fixture: "cjs-modules", command: "node index.js", compare: "stdout" },
  { fixture: "esm-modules", command: "node main.js", compare: "stdout" },
  { fixture: "async-tests", command: "node --test", compare: "tests" },
  { fixture: "failing-asserts", command: "node --test", compare: "tests" },
  { fixture: "failing-asserts", command: "node asserts.test.js", compare: "tests" },
  { fixture: "thrown-errors", command: "node crash.js", compare: "stdout" },
  { fixture: "thrown-errors", command: "node --test", compare: "tests" },
  { fixture: "timers", command: "node order.js", compare: "stdout" },
  { fixture: "describe-hooks", command: "node --test", compare: "tests" },
  { fixture: "describe-hooks", command: "node test/stack.test.js", compare: "tests" },
  { fixture: "describe-hooks", command: "node --test --test-name-pattern=pop", compare: "tests" },
  {
    fixture: "describe-hooks",
    command: "node --test --test-name-pattern=/ORDER/i --test-name-pattern passes",
    compare: "tests",
  },
  {
    fixture: "describe-hooks",
    command: "node --test-name-pattern=grows test/stack.test.js",
    compare: "tests",
  },
  { fixture: "starter-node", command: "node --test --test-name-pattern=empty", compare: "tests" },
  { fixture: "skip-todo", command: "node --test", compare: "tests" },
  { fixture: "node-modules-exports", command: "node main.js", compare: "stdout" },
  { fixture: "node-modules-exports", command: "node --test", compare: "tests" },
  { fixture: "process-exit", command: "node exit3.js", compare: "stdout" },
  { fixture: "process-exit", command: "node exitcode.js", compare: "stdout" },
  { fixture: "process-exit", command: "node ok.js one two", compare: "stdout" },
  { fixture: "process-exit", command: "node --test", compare: "tests" },
  { fixture: "fs-util", command: "node main.js", compare: "stdout" },
  { fixture: "runner-edges", command: "node --test", compare: "tests" },
];

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function copyIntoSandbox(sandbox: EmbeddedSandbox, from: string, to: string): Promise<void> {
  await sandbox.mkdir(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (statSync(source).isDirectory()) await copyIntoSandbox(sandbox, source, `${to}/${name}`);
    else await sandbox.writeFile(`${to}/${name}`, readFileSync(source));
  }
}

describe("fixture projects: embedded node against real Node", () => {
  let sandbox: EmbeddedSandbox;
  let realRoot: string;

  beforeAll(async () => {
    sandbox = await EmbeddedSandbox.create({ commands: createNodeCommands() });
    for (const fixture of new Set(CASES.map((c) => c.fixture))) {
      await copyIntoSandbox(sandbox, join(FIXTURES, fixture), `/workspace/${fixture}`);
    }
    realRoot = mkdtempSync(join(tmpdir(), "toolroom-node-"));
  });

  afterAll(() => {
    rmSync(realRoot, { recursive: true, force: true });
  });

  async function runEmbedded(c: Case): Promise<Run> {
    const result = await sandbox.exec(c.command, { cwd: `/workspace/${c.fixture}` });
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  }

  function runReal(c: Case): Run {
    // A fresh copy per case, in a folder with the fixture's name, so that scripts that write see a clean tree.
    const cwd = join(mkdtempSync(join(realRoot, "case-")), c.fixture);
    cpSync(join(FIXTURES, c.fixture), cwd, { recursive: true });
    const [, ...args] = c.command.split(" ");
    const result = spawnSync(process.execPath, args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    return { exitCode: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  }

  it.each(CASES)("$fixture: $command", async (c) => {
    const real = runReal(c);
    const embedded = await runEmbedded(c);
    const context = `real stdout:\n${real.stdout}\nreal stderr:\n${real.stderr}\nembedded stdout:\n${embedded.stdout}\nembedded stderr:\n${embedded.stderr}`;
    expect(embedded.exitCode, context).toBe(real.exitCode);
    if (c.compare === "stdout") {
      expect(embedded.stdout, context).toBe(real.stdout);
    } else {
      const counts = tapCounts(real.stdout);
      expect(Object.keys(counts), context).toHaveLength(TAP_COUNT_KEYS.length);
      expect(tapCounts(embedded.stdout), context).toEqual(counts);
      expect(tapResults(embedded.stdout).map(withoutPaths), context).toEqual(
        tapResults(real.stdout).map(withoutPaths),
      );
      expect(embedded.stdout.startsWith("TAP version 13\n") || c.command !== "node --test", context).toBe(
        true,
      );
    }
  });
});

/** File-level entries name the file by absolute path, which differs between the two runs. */
function withoutPaths(line: string): string {
  return line.replace(/ - \/.*\/([^/]+)$/u, " - <dir>/$1");
}
