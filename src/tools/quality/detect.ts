import type { ToolContext } from "../../core/profile.ts";
import { walkWorkspace } from "../walk.ts";
import type { TestParser } from "./test-parsers.ts";

type Context = Pick<ToolContext, "sandbox" | "signal" | "services">;

/**
 * Whether the backend can run a command: a command the sandbox registers itself (the embedded
 * backend's node, npm...), or, on a backend with native binaries, one `command -v` finds.
 */
export async function commandAvailable(context: Context, name: string): Promise<boolean> {
  const sandbox = context.sandbox;
  if (sandbox.capabilities.commands.includes(name)) return true;
  if (!sandbox.capabilities.nativeBinaries) return false;
  const result = await sandbox.exec(`command -v ${name}`, { timeoutMs: 10_000, signal: context.signal });
  return result.exitCode === 0 && result.stdout.trim() !== "";
}

/** A tool installed in the project's node_modules/.bin, runnable through npx. */
async function localBin(context: Context, name: string): Promise<boolean> {
  const stat = await context.sandbox
    .lstat(`${context.sandbox.workspaceRoot}/node_modules/.bin/${name}`)
    .catch(() => null);
  return stat !== null && (await commandAvailable(context, "npx"));
}

/** How to invoke a JavaScript tool: globally, through npx from node_modules, or not at all. */
export async function jsTool(context: Context, name: string): Promise<string | null> {
  if (await localBin(context, name)) return `npx ${name}`;
  if (await commandAvailable(context, name)) return name;
  return null;
}

export interface ProjectFacts {
  packageJson: {
    scripts?: Record<string, string>;
    devDependencies?: Record<string, string>;
    dependencies?: Record<string, string>;
  } | null;
  files: Set<string>;
  /** How many files of each extension (".py", ".ts"...) outside node_modules and ignored folders. */
  extensions: Map<string, number>;
}

const SCAN_LIMIT = 20_000;

/** What the workspace is made of: its package.json and the names of its files (ignored ones left out). */
export async function projectFacts(context: Context): Promise<ProjectFacts> {
  const files = new Set<string>();
  const extensions = new Map<string, number>();
  for await (const entry of walkWorkspace(context.sandbox, "", {
    gitignore: true,
    skipFolders: [".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build"],
    signal: context.signal,
  })) {
    if (entry.type !== "file") continue;
    files.add(entry.path);
    const dot = entry.path.lastIndexOf(".");
    if (dot > entry.path.lastIndexOf("/")) {
      const extension = entry.path.slice(dot);
      extensions.set(extension, (extensions.get(extension) ?? 0) + 1);
    }
    if (files.size >= SCAN_LIMIT) break;
  }
  let packageJson: ProjectFacts["packageJson"] = null;
  if (files.has("package.json")) {
    try {
      packageJson = JSON.parse(
        new TextDecoder().decode(
          await context.sandbox.readFile(`${context.sandbox.workspaceRoot}/package.json`),
        ),
      );
    } catch {
      packageJson = null;
    }
  }
  return { packageJson, files, extensions };
}

const count = (facts: ProjectFacts, ...extensions: string[]) =>
  extensions.reduce((sum, extension) => sum + (facts.extensions.get(extension) ?? 0), 0);
const NPM_PLACEHOLDER = /no test specified/u;

/** The runner a command line runs, read from its words (npm test: from the package.json script). */
export function runnerOf(command: string, facts?: ProjectFacts): TestParser | undefined {
  const script = /^\s*(?:npm|yarn|pnpm)\s+(?:run\s+)?test\b/u.test(command)
    ? (facts?.packageJson?.scripts?.test ?? "")
    : "";
  const text = `${command} ${script}`;
  if (/\bpytest\b|py\.test/u.test(text)) return "pytest";
  if (/\bunittest\b/u.test(text)) return "unittest";
  if (/\bvitest\b/u.test(text)) return "vitest";
  if (/\bjest\b/u.test(text)) return "jest";
  if (/\bnode\b.*--test\b/u.test(text))
    return /--test-reporter[= ]spec/u.test(text) ? "node-test-spec" : "node-test-tap";
  return undefined;
}

export interface Plan {
  command: string;
  /** What runs it, for the error when it cannot run here. */
  needs: string;
  /** A package the command runs through npx: declared in package.json, it may still be missing. */
  bin?: string;
  runner?: TestParser;
  why: string;
}

/** Quotes one shell word. */
export const shellWord = (word: string) =>
  /^[\w./:@%+=,-]+$/u.test(word) ? word : `'${word.replace(/'/gu, "'\\''")}'`;

/** Whether a focus entry names a file or folder of the workspace (a pytest node id by its file); else it is a test name. */
export function isPathFocus(entry: string, facts: ProjectFacts): boolean {
  const path = entry.split("::")[0]!.replace(/^\.\//u, "").replace(/\/+$/u, "");
  if (path === "" || path === ".") return true;
  if (facts.files.has(path)) return true;
  for (const file of facts.files) if (file.startsWith(`${path}/`)) return true;
  return false;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/gu, "\\$&");

/**
 * A test command with `focus` added as its runner takes it: files and folders as arguments; test
 * names as node's --test-name-pattern (one each, right after --test, before any file), or vitest's
 * and jest's -t (one alternation). Other runners get every entry as an argument.
 */
export function withFocus(
  command: string,
  runner: TestParser | undefined,
  focus: string[],
  facts: ProjectFacts,
): string {
  if (focus.length === 0) return command;
  const paths = focus.filter((entry) => isPathFocus(entry, facts));
  const names = focus.filter((entry) => !isPathFocus(entry, facts));
  const files = paths.map(shellWord).join(" ");
  const append = (text: string, extra: string) => (extra === "" ? text : `${text} ${extra}`);
  if ((runner === "node-test-tap" || runner === "node-test-spec") && /\bnode\s+--test\b/u.test(command)) {
    const patterns = names.map((name) => shellWord(`--test-name-pattern=${escapeRegExp(name)}`)).join(" ");
    return append(
      command.replace(/\bnode\s+--test\b/u, (match) => append(match, patterns)),
      files,
    );
  }
  if ((runner === "vitest" || runner === "jest") && names.length > 0) {
    return append(append(command, `-t ${shellWord(names.map(escapeRegExp).join("|"))}`), files);
  }
  return append(command, focus.map(shellWord).join(" "));
}

/** The test command the workspace's files call for, or null when nothing looks like tests. */
export function planTests(facts: ProjectFacts, focus: string[] = []): Plan | null {
  const args = focus.map(shellWord).join(" ");
  const script = facts.packageJson?.scripts?.test;
  const deps = { ...facts.packageJson?.dependencies, ...facts.packageJson?.devDependencies };
  const pythonTests =
    [...facts.files].some((file) => /(?:^|\/)(?:test_[^/]*|[^/]*_test)\.py$/u.test(file)) ||
    facts.files.has("pytest.ini") ||
    facts.files.has("conftest.py");
  if (script && !NPM_PLACEHOLDER.test(script)) {
    const runner = runnerOf("npm test", facts);
    const names = focus.filter((entry) => !isPathFocus(entry, facts));
    // npm appends focus after the script's own files, where node would read a pattern as a file:
    // a node --test script focused by test name runs with the patterns put in its command.
    if (names.length > 0 && (runner === "node-test-tap" || runner === "node-test-spec")) {
      return {
        command: withFocus(script, runner, focus, facts),
        needs: "node",
        runner,
        why: `package.json's test script (${script}), with the focus as --test-name-pattern`,
      };
    }
    return {
      command: `npm test${args ? ` -- ${args}` : ""}`,
      needs: "npm",
      ...(runner ? { runner } : {}),
      why: `package.json has a test script (${script})`,
    };
  }
  if (pythonTests)
    return {
      command: `pytest${args ? ` ${args}` : ""}`,
      needs: "pytest",
      runner: "pytest",
      why: "Python test files (test_*.py) or pytest configuration",
    };
  if (deps.vitest || [...facts.files].some((file) => /(?:^|\/)vitest\.config\.[cm]?[jt]s$/u.test(file))) {
    return {
      command: withFocus("npx vitest run", "vitest", focus, facts),
      needs: "npx",
      bin: "vitest",
      runner: "vitest",
      why: "vitest in package.json or a vitest config",
    };
  }
  if (deps.jest)
    return {
      command: withFocus("npx jest", "jest", focus, facts),
      needs: "npx",
      bin: "jest",
      runner: "jest",
      why: "jest in package.json",
    };
  if (
    [...facts.files].some((file) => /\.test\.[cm]?js$/u.test(file)) ||
    (count(facts, ".js", ".mjs") > 0 && [...facts.files].some((file) => file.startsWith("test/")))
  ) {
    return {
      command: withFocus("node --test", "node-test-tap", focus, facts),
      needs: "node",
      runner: "node-test-tap",
      why: "*.test.js files for node's test runner",
    };
  }
  return null;
}

export interface LintPlan extends Plan {
  parser: "ruff" | "eslint";
}

export function isPythonProject(facts: ProjectFacts): boolean {
  return count(facts, ".py") > 0 || facts.files.has("pyproject.toml");
}

export function isTypeScriptProject(facts: ProjectFacts): boolean {
  return facts.files.has("tsconfig.json") || count(facts, ".ts", ".tsx", ".mts", ".cts") > 0;
}

export function hasEslintConfig(facts: ProjectFacts): boolean {
  return (
    [...facts.files].some((file) => /^(?:eslint\.config\.[cm]?[jt]s|\.eslintrc(?:\.\w+)?)$/u.test(file)) ||
    Boolean(facts.packageJson && "eslintConfig" in facts.packageJson)
  );
}

const PYTHON_TEST_FILE = /(?:^|\/)(?:test_[^/]*|[^/]*_test)\.py$/u;
/** Test files read to decide whether unittest can run them. */
const UNITTEST_SCAN_LIMIT = 200;

/**
 * Whether `python -m unittest` runs the workspace's tests as pytest would: no pytest configuration
 * or conftest.py, and every test file is unittest's (imports unittest, never pytest). Plain
 * `def test_…` functions are pytest's alone.
 */
export async function unittestCompatible(context: Context, facts: ProjectFacts): Promise<boolean> {
  if ([...facts.files].some((file) => /(?:^|\/)(?:conftest\.py|pytest\.ini)$/u.test(file))) return false;
  const tests = [...facts.files].filter((file) => PYTHON_TEST_FILE.test(file));
  if (tests.length === 0 || tests.length > UNITTEST_SCAN_LIMIT) return false;
  for (const file of tests) {
    const bytes = await context.sandbox
      .readFile(`${context.sandbox.workspaceRoot}/${file}`)
      .catch(() => new Uint8Array());
    const source = new TextDecoder().decode(bytes);
    if (/^\s*(?:import|from)\s+pytest\b/mu.test(source)) return false;
    if (!/^\s*(?:import|from)\s+unittest\b/mu.test(source)) return false;
  }
  return true;
}
