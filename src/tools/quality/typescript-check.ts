import type * as TS from "typescript";
import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import { normalizeWorkspacePath } from "../../core/workspace-path.ts";
import { walkWorkspace } from "../walk.ts";
import type { Issue } from "./issue-parsers.ts";

type TypeScript = typeof TS;

/** Reads one of TypeScript's lib files (lib.es2022.d.ts ...) by name; undefined when it has none. */
export type LibReader = (fileName: string) => string | undefined;

/** Loads every lib file at once, by file name ("lib.es2022.d.ts" → its text). */
export type LibLoader = () => Promise<Record<string, string>>;

let registeredLibs: LibLoader | undefined;
let loadedLibs: Promise<LibReader> | undefined;

/**
 * Where the in-worker type checker finds TypeScript's lib .d.ts files. In Node they are read next
 * to the typescript package; a browser build registers a loader before the first typecheck, e.g.
 * with Vite: a lazy import.meta.glob of typescript/lib/lib.*.d.ts with ?raw, keyed by file name.
 */
export function setTypeScriptLibs(loader: LibLoader | undefined): void {
  registeredLibs = loader;
  loadedLibs = undefined;
}

let loading: Promise<TypeScript> | undefined;

/** The TypeScript compiler (about 9 MB), loaded on the first typecheck only. */
export function loadTypeScript(): Promise<TypeScript> {
  loading ??= import("typescript").then(
    (module) => ((module as { default?: TypeScript }).default ?? module) as TypeScript,
  );
  return loading;
}

async function libReaderFor(ts: TypeScript): Promise<LibReader | undefined> {
  if (registeredLibs) {
    const loader = registeredLibs;
    loadedLibs ??= loader().then((files) => (name: string) => files[name]);
    return loadedLibs;
  }
  const sys = ts.sys;
  if (!sys) return undefined;
  const executing = sys.getExecutingFilePath();
  const folder = executing.slice(0, executing.lastIndexOf("/"));
  return (name) => sys.readFile(`${folder}/${name}`);
}

const LIB_FOLDER = "/__typescript_lib__";
const SOURCE = /\.(?:[cm]?tsx?|[cm]?jsx?)$/u;
const DECLARATION = /\.d\.[cm]?ts$/u;
/** More files than this and the checker stops collecting (a warning says so). */
const MAX_FILES = 30_000;

export interface TypeScriptCheck {
  issues: Issue[];
  /** The diagnostics as tsc prints them (`file(line,col): error TSxxxx: message`). */
  rawOutput: string;
  filesChecked: number;
  configFile: string | null;
  warnings: string[];
}

interface Cache {
  sourceFiles: Map<string, { text: string; file: TS.SourceFile }>;
  builder?: TS.SemanticDiagnosticsBuilderProgram;
  versions: number;
}

/**
 * Type-checks the workspace's TypeScript with the compiler API, in the worker, over the sandbox's
 * files: what `tsc --noEmit -p .` reports, without a Node process. tsconfig.json is honoured; with
 * none, strict ES2022 bundler-style defaults apply. Parsed files are kept between calls, so a second
 * check after an edit re-parses only what changed.
 */
export async function typecheckWithCompiler(
  context: Pick<ToolContext, "sandbox" | "services" | "signal">,
  request: { paths?: string[] } = {},
): Promise<TypeScriptCheck> {
  const ts = await loadTypeScript();
  const readLib = await libReaderFor(ts);
  if (!readLib) {
    throw new ToolFailure(
      "tool_unavailable",
      "The in-worker TypeScript checker has no lib .d.ts files here: the app must register them with setTypeScriptLibs before typecheck runs.",
      { missing: "typescript lib files" },
    );
  }
  const root = context.sandbox.workspaceRoot;
  const warnings: string[] = [];
  const files = new Map<string, string>();
  const folders = new Set<string>([root]);
  const decoder = new TextDecoder();
  for await (const entry of walkWorkspace(context.sandbox, "", { signal: context.signal })) {
    const absolute = `${root}/${entry.path}`;
    if (entry.type === "directory") {
      folders.add(absolute);
      continue;
    }
    if (entry.type !== "file") continue;
    const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
    const inModules = entry.path.split("/").includes("node_modules");
    const wanted = inModules
      ? DECLARATION.test(name) || name === "package.json"
      : SOURCE.test(name) || name === "package.json" || /^[jt]sconfig.*\.json$/u.test(name);
    if (!wanted) continue;
    if (files.size >= MAX_FILES) {
      warnings.push(`Stopped reading files at ${MAX_FILES}; the rest were not type-checked.`);
      break;
    }
    files.set(absolute, decoder.decode(await context.sandbox.readFile(absolute)));
  }

  const entries = (path: string) => {
    const prefix = path.endsWith("/") ? path : `${path}/`;
    const childFiles = new Set<string>();
    const childFolders = new Set<string>();
    for (const file of files.keys())
      if (file.startsWith(prefix) && !file.slice(prefix.length).includes("/"))
        childFiles.add(file.slice(prefix.length));
    for (const folder of folders)
      if (folder.startsWith(prefix) && folder !== path && !folder.slice(prefix.length).includes("/"))
        childFolders.add(folder.slice(prefix.length));
    return { files: [...childFiles], directories: [...childFolders] };
  };
  const readFile = (path: string): string | undefined => {
    if (path.startsWith(`${LIB_FOLDER}/`)) return readLib(path.slice(LIB_FOLDER.length + 1));
    return files.get(path);
  };
  const fileExists = (path: string) => readFile(path) !== undefined;
  const directoryExists = (path: string) => folders.has(path.replace(/\/+$/u, "")) || path === LIB_FOLDER;
  const matchFiles = (ts as unknown as { matchFiles?: (...args: unknown[]) => string[] }).matchFiles;
  const readDirectory = (
    path: string,
    extensions?: readonly string[],
    excludes?: readonly string[],
    includes?: readonly string[],
    depth?: number,
  ): string[] => {
    if (matchFiles)
      return matchFiles(path, extensions, excludes, includes, true, root, depth, entries, (p: string) => p);
    return [...files.keys()].filter(
      (file) =>
        file.startsWith(`${path}/`) && (extensions ?? []).some((extension) => file.endsWith(extension)),
    );
  };

  const configPath = `${root}/tsconfig.json`;
  let options: TS.CompilerOptions;
  let rootNames: string[];
  let configFile: string | null = null;
  if (files.has(configPath)) {
    configFile = "tsconfig.json";
    const read = ts.readConfigFile(configPath, readFile);
    if (read.error) {
      return {
        issues: [toIssue(ts, read.error, root)],
        rawOutput: formatDiagnostics(ts, [read.error], root),
        filesChecked: 0,
        configFile,
        warnings,
      };
    }
    const parsed = ts.parseJsonConfigFileContent(
      read.config,
      { useCaseSensitiveFileNames: true, readDirectory, fileExists, readFile },
      root,
      undefined,
      configPath,
    );
    options = parsed.options;
    rootNames = parsed.fileNames;
    const configErrors = parsed.errors.filter((error) => error.code !== 18003);
    if (parsed.fileNames.length === 0) warnings.push("tsconfig.json matches no input files.");
    if (configErrors.length > 0)
      warnings.push(...configErrors.map((error) => ts.flattenDiagnosticMessageText(error.messageText, " ")));
  } else {
    options = {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      jsx: ts.JsxEmit.ReactJSX,
    };
    rootNames = [...files.keys()].filter(
      (file) => /\.[cm]?tsx?$/u.test(file) && !file.includes("/node_modules/"),
    );
    warnings.push("No tsconfig.json: checked every .ts/.tsx file with strict ES2022 defaults.");
  }
  options = { ...options, noEmit: true };

  const cache = context.services.get<Cache>("typescript.cache", () => ({
    sourceFiles: new Map(),
    versions: 0,
  }));
  const host: TS.CompilerHost = {
    getSourceFile(fileName, languageVersion) {
      const text = readFile(fileName);
      if (text === undefined) return undefined;
      const key = `${fileName}\u0000${typeof languageVersion === "object" ? languageVersion.languageVersion : languageVersion}`;
      const cached = cache.sourceFiles.get(key);
      if (cached && cached.text === text) return cached.file;
      const file = ts.createSourceFile(fileName, text, languageVersion, true);
      // The builder tells changed files from unchanged ones by this version.
      (file as TS.SourceFile & { version: string }).version = String(++cache.versions);
      cache.sourceFiles.set(key, { text, file });
      return file;
    },
    getDefaultLibFileName: (compilerOptions) => `${LIB_FOLDER}/${ts.getDefaultLibFileName(compilerOptions)}`,
    getDefaultLibLocation: () => LIB_FOLDER,
    writeFile: () => undefined,
    getCurrentDirectory: () => root,
    getDirectories: (path) => entries(path).directories,
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists,
    readFile,
    directoryExists,
    realpath: (path) => path,
  };
  // A builder program re-checks only the files an edit can affect; the rest keep their diagnostics.
  const builder = ts.createSemanticDiagnosticsBuilderProgram(rootNames, options, host, cache.builder);
  cache.builder = builder;
  const program = builder.getProgram();
  let diagnostics = [
    ...ts.sortAndDeduplicateDiagnostics([
      ...builder.getConfigFileParsingDiagnostics(),
      ...builder.getOptionsDiagnostics(),
      ...builder.getSyntacticDiagnostics(),
      ...builder.getGlobalDiagnostics(),
      ...builder.getSemanticDiagnostics(),
    ]),
  ];
  const named = (request.paths ?? []).map((path) => normalizeWorkspacePath(path, root, "paths"));
  const only = named.includes("") ? [] : named;
  // A path to report on that does not exist is said so, as tsc says of a file it cannot find.
  const notFound: Issue[] = [];
  for (const path of only) {
    if (!(await context.sandbox.stat(`${root}/${path}`).catch(() => null))) {
      notFound.push({
        file: path,
        line: 0,
        col: 0,
        rule: "TS6053",
        message: `File '${path}' not found.`,
        severity: "error",
      });
    }
  }
  if (only.length > 0) {
    diagnostics = diagnostics.filter((diagnostic) => {
      const file = diagnostic.file ? relative(diagnostic.file.fileName, root) : "";
      return only.some((path) => file === path || file.startsWith(`${path}/`));
    });
  }
  return {
    issues: [...notFound, ...diagnostics.map((diagnostic) => toIssue(ts, diagnostic, root))],
    rawOutput:
      notFound.map((issue) => `error ${issue.rule}: ${issue.message}\n`).join("") +
      formatDiagnostics(ts, diagnostics, root),
    filesChecked: program
      .getSourceFiles()
      .filter((file) => !file.fileName.startsWith(LIB_FOLDER) && !file.fileName.includes("/node_modules/"))
      .length,
    configFile,
    warnings,
  };
}

function relative(fileName: string, root: string): string {
  return fileName.startsWith(`${root}/`) ? fileName.slice(root.length + 1) : fileName;
}

const CATEGORY: Record<number, Issue["severity"]> = { 0: "warning", 1: "error", 2: "info", 3: "info" };

function toIssue(ts: TypeScript, diagnostic: TS.Diagnostic, root: string): Issue {
  const position =
    diagnostic.file && diagnostic.start !== undefined
      ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
      : null;
  return {
    file: diagnostic.file ? relative(diagnostic.file.fileName, root) : "",
    line: position ? position.line + 1 : 0,
    col: position ? position.character + 1 : 0,
    rule: `TS${diagnostic.code}`,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
    severity: CATEGORY[diagnostic.category] ?? "error",
  };
}

/** Diagnostics exactly as `tsc` prints them when not on a terminal. */
function formatDiagnostics(ts: TypeScript, diagnostics: readonly TS.Diagnostic[], root: string): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (fileName) => fileName,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  });
}
