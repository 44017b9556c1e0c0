import { readDependencies } from "../../tools/project/dependencies.ts";
import { type SymbolLanguage, searchSymbols } from "../../tools/project/symbols.ts";
import { probeWorkspace, type WorkspaceInfo } from "../../tools/project/workspace-info.ts";
import { sessionState } from "../../tools/state.ts";
import { type AnyTool, plural, report } from "./result.ts";

const dependenciesRead: AnyTool = {
  name: "dependencies_read",
  description:
    "Parse dependency files in the workspace and return structured dependency lists. Supports pyproject.toml (PEP 621, PEP 735 groups, Poetry), requirements.txt and package.json. When given a directory, auto-detects the first supported file found, in that order. Errors: NO_DEPENDENCY_FILE, READ_ERROR, UNSUPPORTED_FORMAT.",
  inputSchema: {
    type: "object",
    properties: {
      path: {
        type: "string",
        default: ".",
        description: "A dependency file, or a folder to look in. Default: the workspace root.",
      },
    },
    required: [],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params: { path: string }, context) {
    const list = await readDependencies(context, params.path);
    const total = list.dependencies.length + list.devDependencies.length;
    return report(
      {
        format: list.format,
        file: list.file,
        dependencies: list.dependencies,
        dev_dependencies: list.devDependencies,
        total_count: total,
      },
      {
        message: `${list.file}: ${plural(list.dependencies.length, "dependency", "dependencies")}, ${list.devDependencies.length} dev.`,
        warnings: list.warnings,
      },
    );
  },
};

const stateSet: AnyTool = {
  name: "state_set",
  description:
    "Store a JSON-serializable value under a key for the current session. State is in-memory only and not persisted across restarts. Use sparingly — prefer scaffolding-level state when available. Errors: INVALID_KEY, NOT_SERIALIZABLE.",
  inputSchema: {
    type: "object",
    properties: {
      key: {
        type: "string",
        description: "1–128 characters: letters, digits and . _ : / - (e.g. 'plan.step3').",
      },
      value: { description: "Any JSON value: object, array, string, number, boolean or null." },
    },
    required: ["key", "value"],
    additionalProperties: false,
  },
  kind: "read",
  changesSession: true,
  deadlineMs: 5_000,
  async run(params: { key: string; value: unknown }, context) {
    const stored = sessionState(context.services).set(params.key, params.value);
    return report(
      { key: stored.key, stored: true },
      { message: `Stored ${stored.key} (${plural(stored.bytes, "byte")} of JSON).` },
    );
  },
};

const stateGet: AnyTool = {
  name: "state_get",
  description:
    "Retrieve a value previously stored with state_set. Returns found=false (not an error) when the key is missing, whatever its shape.",
  inputSchema: {
    type: "object",
    properties: { key: { type: "string", description: "The key given to state_set." } },
    required: ["key"],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 5_000,
  async run(params: { key: string }, context) {
    const got = sessionState(context.services).get(params.key);
    return report(
      { key: got.key, value: got.value, found: got.found },
      { message: got.found ? `Found ${got.key}.` : `No value stored under ${got.key}.` },
    );
  },
};

const workspaceInfo: AnyTool = {
  name: "workspace_info",
  description:
    "Detect installed runtimes and CLI tools on the running backend (probed through its shell: command -v, --version), plus the tools Toolroom runs itself (built_in: git, the TypeScript compiler). Result is cached after first call; refresh=true probes again.",
  inputSchema: {
    type: "object",
    properties: {
      refresh: {
        type: "boolean",
        default: false,
        description: "Probe again instead of returning the cached result.",
      },
    },
    required: [],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 30_000,
  async run(params: { refresh: boolean }, context) {
    const cache = context.services.get("workspace_info", () => ({ info: null as WorkspaceInfo | null }));
    const cached = cache.info !== null && !params.refresh;
    if (!cached) cache.info = await probeWorkspace(context);
    const info = cache.info!;
    const present = Object.entries(info.tools)
      .filter(([, version]) => version !== null)
      .map(([name]) => name);
    const runtimes = Object.entries(info.runtimes)
      .filter(([, version]) => version !== null)
      .map(([name]) => name);
    return report(
      { ...info, cached },
      {
        message: `${info.backend} backend: runtimes ${runtimes.join(", ") || "none"}; tools ${present.join(", ") || "none"}; built in: ${info.built_in.map((tool) => tool.name).join(", ")}${cached ? " (cached)" : ""}.`,
      },
    );
  },
};

const symbolsIndex: AnyTool = {
  name: "symbols_index",
  description:
    "Search for symbols (functions, classes, variables) by name across the workspace. A file is parsed only when the name occurs in it where a definition may be (an import, a call or a member access cannot be one): Python with a Python parser (@lezer/python), TypeScript/JavaScript with the TypeScript compiler's parser. Module-level and class-level definitions are found (locals are not); interfaces, types and enums count as class, methods as function. Results within 2 seconds on repos up to 100k lines; each file is parsed once per content.",
  inputSchema: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        description: "The name, or part of it (case-insensitive unless exact).",
      },
      lang: {
        type: "string",
        enum: ["python", "typescript", "javascript"],
        description:
          "python, or typescript (TS and JS files; javascript for JS files only). Default: all languages.",
      },
      exact: { type: "boolean", default: false, description: "Require the exact name, case included." },
      max_results: {
        type: "integer",
        minimum: 1,
        maximum: 1000,
        default: 50,
        description: "Maximum number of results.",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 30_000,
  async run(params: { query: string; lang?: SymbolLanguage; exact: boolean; max_results: number }, context) {
    const found = await searchSymbols(context, {
      query: params.query,
      exact: params.exact,
      maxResults: params.max_results,
      ...(params.lang ? { lang: params.lang } : {}),
    });
    return report(
      { query: params.query, results: found.results, result_count: found.results.length },
      {
        message: `${plural(found.total, "symbol")} named like "${params.query}" (${plural(found.filesParsed, "file")} parsed of ${found.filesScanned} source files).`,
        warnings:
          found.total > found.results.length
            ? [
                `Returned the best ${found.results.length} of ${found.total}; raise max_results or use exact=true.`,
              ]
            : [],
      },
    );
  },
};

export const PROJECT_TOOLS: AnyTool[] = [workspaceInfo, dependenciesRead, symbolsIndex];
export const STATE_TOOLS: AnyTool[] = [stateSet, stateGet];
