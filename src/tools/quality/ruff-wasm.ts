import picomatch from "picomatch/posix";
import { parse as parseToml } from "smol-toml";
import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import { normalizeWorkspacePath } from "../../core/workspace-path.ts";
import { decodeText } from "../text.ts";
import { walkWorkspace } from "../walk.ts";
import type { Issue } from "./issue-parsers.ts";

type RuffModule = typeof import("@astral-sh/ruff-wasm-web");
/** What the wasm initialiser accepts: the module's bytes, a URL or a Response. */
export type RuffWasmSource = () => Promise<BufferSource | URL | Response | WebAssembly.Module>;

let wasmSource: RuffWasmSource | undefined;
let loading: Promise<RuffModule> | undefined;

/**
 * Where the in-worker ruff finds its 11 MB WebAssembly module. A browser bundle can leave it unset
 * (the package locates its .wasm beside itself); Node hosts (the CLI, tests) hand over the bytes.
 */
export function setRuffWasm(source: RuffWasmSource | undefined): void {
  wasmSource = source;
  loading = undefined;
}

async function loadRuff(): Promise<RuffModule> {
  loading ??= (async () => {
    const module = await import("@astral-sh/ruff-wasm-web");
    await module.default(wasmSource ? { module_or_path: await wasmSource() } : undefined);
    return module;
  })();
  try {
    return await loading;
  } catch (error) {
    loading = undefined;
    throw new ToolFailure(
      "tool_unavailable",
      `The in-worker ruff (WebAssembly) could not load: ${(error as Error).message}. The host must register its .wasm with setRuffWasm.`,
      { missing: "ruff wasm" },
    );
  }
}

/** The version of the in-worker ruff, loading it if need be; null when it cannot load here. */
export async function ruffWasmVersion(): Promise<string | null> {
  try {
    return (await loadRuff()).Workspace.version();
  } catch {
    return null;
  }
}

/** ruff's default `exclude` (ruff 0.16.9 --show-settings), besides what .gitignore ignores. */
const RUFF_EXCLUDED = [
  ".bzr",
  ".direnv",
  ".eggs",
  ".git",
  ".git-rewrite",
  ".hg",
  ".ipynb_checkpoints",
  ".mypy_cache",
  ".nox",
  ".pants.d",
  ".pyenv",
  ".pytest_cache",
  ".pytype",
  ".ruff_cache",
  ".svn",
  ".tox",
  ".venv",
  ".vscode",
  "__pypackages__",
  "_build",
  "buck-out",
  "dist",
  "node_modules",
  "site-packages",
  "venv",
];

/**
 * The project's `exclude` and `extend-exclude`, as ruff matches them: a pattern matches a file or
 * folder by its name, or by its path from the project root.
 */
function userExcludes(settings: Record<string, unknown>): (path: string) => boolean {
  const patterns = [settings.exclude, settings["extend-exclude"]]
    .flatMap((list) => (Array.isArray(list) ? list : []))
    .filter((pattern): pattern is string => typeof pattern === "string")
    .map((pattern) => pattern.replace(/^\.\//u, ""));
  if (patterns.length === 0) return () => false;
  const matchers = patterns.map((pattern) => picomatch(pattern, { dot: true }));
  return (path) => {
    const name = path.slice(path.lastIndexOf("/") + 1);
    return matchers.some((matches) => matches(name) || matches(path));
  };
}

/** The project's ruff settings: ruff.toml or .ruff.toml, else pyproject.toml's [tool.ruff]. */
async function ruffSettings(
  context: Pick<ToolContext, "sandbox">,
): Promise<{ settings: Record<string, unknown>; source: string | null }> {
  const root = context.sandbox.workspaceRoot;
  const read = async (name: string) => {
    try {
      return decodeText(await context.sandbox.readFile(`${root}/${name}`));
    } catch {
      return null;
    }
  };
  for (const name of ["ruff.toml", ".ruff.toml"]) {
    const text = await read(name);
    if (text !== null) return { settings: parseToml(text) as Record<string, unknown>, source: name };
  }
  const pyproject = await read("pyproject.toml");
  if (pyproject !== null) {
    const tool = (parseToml(pyproject) as { tool?: { ruff?: Record<string, unknown> } }).tool;
    if (tool?.ruff) return { settings: tool.ruff, source: "pyproject.toml [tool.ruff]" };
  }
  return { settings: {}, source: null };
}

/** One per-file-ignores entry: the files it covers and the rule codes (or prefixes) dropped there. */
interface PerFileIgnore {
  matches(path: string): boolean;
  rules: string[];
}

/**
 * The project's per-file-ignores (and extend-per-file-ignores, under [lint] or at the top level), as
 * ruff reads them: a pattern matches a file's path from the project root or its bare name, a single
 * `*` crosses folders (globset's default), and a leading `!` negates the pattern.
 */
function perFileIgnores(settings: Record<string, unknown>): PerFileIgnore[] {
  const lint = (settings.lint ?? {}) as Record<string, unknown>;
  const tables = [
    settings["per-file-ignores"],
    settings["extend-per-file-ignores"],
    lint["per-file-ignores"],
    lint["extend-per-file-ignores"],
  ];
  const out: PerFileIgnore[] = [];
  for (const table of tables) {
    if (typeof table !== "object" || table === null) continue;
    for (const [pattern, rules] of Object.entries(table as Record<string, unknown>)) {
      if (!Array.isArray(rules)) continue;
      const negated = pattern.startsWith("!");
      const glob = picomatch(negated ? pattern.slice(1) : pattern, { bash: true, dot: true });
      const matches = (path: string) => glob(path) || glob(path.slice(path.lastIndexOf("/") + 1));
      out.push({
        matches: negated ? (path) => !matches(path) : matches,
        rules: rules.filter((rule): rule is string => typeof rule === "string"),
      });
    }
  }
  return out;
}

function withoutPerFileIgnores(settings: Record<string, unknown>): Record<string, unknown> {
  const { "per-file-ignores": _a, "extend-per-file-ignores": _b, ...rest } = settings;
  if (typeof rest.lint !== "object" || rest.lint === null) return rest;
  const {
    "per-file-ignores": _c,
    "extend-per-file-ignores": _d,
    ...lint
  } = rest.lint as Record<string, unknown>;
  return { ...rest, lint };
}

/** Whether a diagnostic's code falls under a rule selector: a full code, a prefix, or ALL. */
function selects(selector: string, code: string): boolean {
  return selector === "ALL" || code.startsWith(selector);
}

export interface RuffCheck {
  issues: Issue[];
  /** The issues in ruff's concise format (`file:line:col: CODE message`). */
  rawOutput: string;
  filesChecked: number;
  configSource: string | null;
  version: string;
}

/**
 * `ruff check` without a Python or a ruff binary: ruff's own WebAssembly build, file by file, over
 * the sandbox's .py files (.gitignore and ruff's default excludes honoured), with the project's
 * ruff settings. The wasm build sees contents, not paths, so per-file-ignores are applied here.
 */
export async function lintPythonInWorker(
  context: Pick<ToolContext, "sandbox" | "signal">,
  request: { paths?: string[] } = {},
): Promise<RuffCheck> {
  const ruff = await loadRuff();
  const { settings, source } = await ruffSettings(context);
  let workspace: InstanceType<RuffModule["Workspace"]>;
  try {
    // The wasm checks every file under one made-up path: path-based ignores are applied here instead.
    workspace = new ruff.Workspace(withoutPerFileIgnores(settings), ruff.PositionEncoding.Utf32);
  } catch (error) {
    throw new ToolFailure(
      "invalid_params",
      `The ruff settings in ${source} are not valid: ${String(error)}.`,
      { config: source },
    );
  }
  const root = context.sandbox.workspaceRoot;
  // Named paths go through the path guard; "." or none is the whole workspace.
  const named = [
    ...new Set((request.paths ?? []).map((path) => normalizeWorkspacePath(path, root, "paths"))),
  ];
  const starts = named.length === 0 || named.includes("") ? [""] : named;
  const excluded = userExcludes(settings);
  const ignores = perFileIgnores(settings);
  const issues: Issue[] = [];
  const files = new Set<string>();
  for (const start of starts) {
    const stat =
      start === "" ? { type: "directory" } : await context.sandbox.stat(`${root}/${start}`).catch(() => null);
    if (!stat) {
      // As ruff: a named path that does not exist is an E902 diagnostic, not a clean run.
      issues.push({
        file: start,
        line: 1,
        col: 1,
        rule: "E902",
        message: "No such file or directory (os error 2)",
        severity: "error",
      });
      continue;
    }
    // A file named is linted whatever the excludes say (ruff's force-exclude is off).
    if (stat.type === "file") {
      files.add(start);
      continue;
    }
    for await (const entry of walkWorkspace(context.sandbox, start, {
      gitignore: true,
      skipFolders: RUFF_EXCLUDED,
      signal: context.signal,
    })) {
      if (entry.type !== "file" || !/\.pyi?$/u.test(entry.path)) continue;
      // Excludes apply below what was named, not to the named folder itself.
      const below = start === "" ? entry.path : entry.path.slice(start.length + 1);
      const parts = below.split("/");
      let hidden = false;
      for (let depth = 1; depth <= parts.length && !hidden; depth++) {
        const prefix =
          start === "" ? parts.slice(0, depth).join("/") : `${start}/${parts.slice(0, depth).join("/")}`;
        hidden = excluded(prefix);
      }
      if (!hidden) files.add(entry.path);
    }
  }
  let filesChecked = 0;
  try {
    for (const path of [...files].sort()) {
      const text = decodeText(await context.sandbox.readFile(`${root}/${path}`));
      if (text === null) continue;
      const entry = { path };
      filesChecked++;
      const diagnostics = workspace.check(text) as {
        code: string | null;
        message: string;
        start_location: { row: number; column: number };
      }[];
      const ignored = ignores
        .filter((ignore) => ignore.matches(entry.path))
        .flatMap((ignore) => ignore.rules);
      for (const diagnostic of diagnostics) {
        if (diagnostic.code && ignored.some((selector) => selects(selector, diagnostic.code!))) continue;
        issues.push({
          file: entry.path,
          line: diagnostic.start_location.row,
          col: diagnostic.start_location.column,
          rule: diagnostic.code ?? "invalid-syntax",
          message: diagnostic.message,
          severity: "error",
        });
      }
    }
  } finally {
    workspace.free();
  }
  // ruff reports by file, then position.
  issues.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.col - b.col));
  return {
    issues,
    rawOutput: issues
      .map((issue) => `${issue.file}:${issue.line}:${issue.col}: ${issue.rule} ${issue.message}\n`)
      .join(""),
    filesChecked,
    configSource: source,
    version: ruff.Workspace.version(),
  };
}
