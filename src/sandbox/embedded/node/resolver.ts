import { normalizePath, type SyncFs } from "./sync-fs.ts";

/** How a resolved module is loaded. */
export type ModuleFormat = "builtin" | "commonjs" | "module" | "json";

export interface ResolvedModule {
  /** Absolute path, or `node:name` for a builtin. */
  path: string;
  format: ModuleFormat;
}

/** Builtin modules the embedded node provides (with or without the `node:` prefix). */
export const BUILTIN_MODULES: ReadonlySet<string> = new Set([
  "assert",
  "assert/strict",
  "buffer",
  "child_process",
  "console",
  "crypto",
  "events",
  "fs",
  "fs/promises",
  "module",
  "os",
  "path",
  "path/posix",
  "process",
  "readline",
  "readline/promises",
  "stream",
  "string_decoder",
  "timers",
  "timers/promises",
  "url",
  "util",
  "util/types",
]);
/** Builtins that exist only under the `node:` scheme, as in Node. */
const SCHEME_ONLY = new Set(["test"]);

/** A failed resolution, with Node's error code (MODULE_NOT_FOUND, ERR_MODULE_NOT_FOUND, …). */
export class ResolveError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The builtin's canonical name (`fs`, `test`, …), or null when `request` names no builtin. */
export function builtinName(request: string): string | null {
  const bare = request.startsWith("node:") ? request.slice(5) : request;
  if (BUILTIN_MODULES.has(bare)) return bare;
  if (request.startsWith("node:") && SCHEME_ONLY.has(bare)) return bare;
  return null;
}

function dirname(path: string): string {
  const index = path.lastIndexOf("/");
  return index <= 0 ? "/" : path.slice(0, index);
}

function join(base: string, request: string): string {
  return normalizePath(request.startsWith("/") ? request : `${base}/${request}`);
}

function isFile(fs: SyncFs, path: string): boolean {
  return fs.lookup(path)?.kind === "file";
}

function readPackageJson(fs: SyncFs, dir: string): Record<string, unknown> | null {
  const text = fs.readText(`${dir === "/" ? "" : dir}/package.json`);
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The package.json `type` that governs `path` ("module" or "commonjs"). */
export function packageTypeOf(fs: SyncFs, path: string): "module" | "commonjs" {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const pkg = readPackageJson(fs, dir);
    if (pkg) return pkg["type"] === "module" ? "module" : "commonjs";
    if (dir === "/" || dir.endsWith("/node_modules")) return "commonjs";
  }
}

/** The format Node gives a file: by extension, then by the nearest package.json `type`. */
export function formatOf(fs: SyncFs, path: string): ModuleFormat {
  if (path.endsWith(".mjs")) return "module";
  if (path.endsWith(".cjs")) return "commonjs";
  if (path.endsWith(".json")) return "json";
  if (path.endsWith(".js")) return packageTypeOf(fs, path);
  return "commonjs";
}

function loadAsFile(fs: SyncFs, path: string): string | null {
  if (isFile(fs, path)) return path;
  for (const extension of [".js", ".json", ".node"]) {
    if (isFile(fs, path + extension)) return path + extension;
  }
  return null;
}

function loadIndex(fs: SyncFs, dir: string): string | null {
  for (const name of ["index.js", "index.json"]) {
    if (isFile(fs, `${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

function loadAsDirectory(fs: SyncFs, dir: string): string | null {
  const pkg = readPackageJson(fs, dir);
  if (pkg && typeof pkg["main"] === "string" && pkg["main"] !== "") {
    const main = join(dir, pkg["main"]);
    const found = loadAsFile(fs, main) ?? loadIndex(fs, main);
    if (found) return found;
  }
  return loadIndex(fs, dir);
}

function splitPackage(request: string): { name: string; subpath: string } {
  const parts = request.split("/");
  const count = request.startsWith("@") ? 2 : 1;
  const name = parts.slice(0, count).join("/");
  const rest = parts.slice(count).join("/");
  return { name, subpath: rest === "" ? "." : `./${rest}` };
}

function matchConditions(target: unknown, conditions: readonly string[], star: string | null): string | null {
  if (typeof target === "string") return star === null ? target : target.split("*").join(star);
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = matchConditions(item, conditions, star);
      if (found) return found;
    }
    return null;
  }
  if (target && typeof target === "object") {
    for (const [key, value] of Object.entries(target)) {
      if (key === "default" || conditions.includes(key)) {
        const found = matchConditions(value, conditions, star);
        if (found) return found;
      }
    }
  }
  return null;
}

/** Resolves `subpath` ("." or "./x") through a package.json `exports` field. */
export function resolveExports(
  exports: unknown,
  subpath: string,
  conditions: readonly string[],
): string | null {
  const isSubpathMap =
    exports !== null &&
    typeof exports === "object" &&
    !Array.isArray(exports) &&
    Object.keys(exports).some((key) => key.startsWith("."));
  const map: Record<string, unknown> = isSubpathMap ? (exports as Record<string, unknown>) : { ".": exports };
  if (Object.hasOwn(map, subpath)) return matchConditions(map[subpath], conditions, null);
  let best: { key: string; star: string } | null = null;
  for (const key of Object.keys(map)) {
    const star = key.indexOf("*");
    if (star < 0) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      if (!best || prefix.length > best.key.indexOf("*")) {
        best = { key, star: subpath.slice(prefix.length, subpath.length - suffix.length) };
      }
    }
  }
  return best ? matchConditions(map[best.key], conditions, best.star) : null;
}

function nodeModulesDirs(from: string): string[] {
  const dirs: string[] = [];
  for (let dir = from; ; dir = dirname(dir)) {
    if (!dir.endsWith("/node_modules")) dirs.push(`${dir === "/" ? "" : dir}/node_modules`);
    if (dir === "/") return dirs;
  }
}

/**
 * CommonJS resolution (`require`): builtins, relative and absolute paths with extension and
 * index lookup, packages in node_modules with `exports` ("require" condition) or `main`.
 */
export function resolveRequire(fs: SyncFs, request: string, fromDir: string): ResolvedModule | null {
  const builtin = builtinName(request);
  if (builtin) return { path: `node:${builtin}`, format: "builtin" };
  if (request.startsWith("node:")) return null;
  let found: string | null = null;
  if (
    request.startsWith("/") ||
    request.startsWith("./") ||
    request.startsWith("../") ||
    request === "." ||
    request === ".."
  ) {
    const target = join(fromDir, request);
    found = loadAsFile(fs, target) ?? loadAsDirectory(fs, target);
  } else {
    found = resolvePackage(fs, request, fromDir, ["node", "require"], false);
  }
  if (!found) return null;
  const real = fs.realpath(found);
  return { path: real, format: formatOf(fs, real) === "json" ? "json" : formatOf(fs, real) };
}

function resolvePackage(
  fs: SyncFs,
  request: string,
  fromDir: string,
  conditions: readonly string[],
  esm: boolean,
): string | null {
  const { name, subpath } = splitPackage(request);
  for (const modules of nodeModulesDirs(fromDir)) {
    const dir = `${modules}/${name}`;
    if (fs.lookup(dir)?.kind !== "directory") continue;
    const pkg = readPackageJson(fs, dir);
    if (pkg && pkg["exports"] !== undefined && pkg["exports"] !== null) {
      const target = resolveExports(pkg["exports"], subpath, conditions);
      if (!target) {
        throw new ResolveError(
          "ERR_PACKAGE_PATH_NOT_EXPORTED",
          subpath === "."
            ? `No "exports" main defined in ${dir}/package.json`
            : `Package subpath '${subpath}' is not defined by "exports" in ${dir}/package.json`,
        );
      }
      const path = join(dir, target);
      return isFile(fs, path) ? path : null;
    }
    const target = subpath === "." ? dir : join(dir, subpath);
    if (esm && subpath !== ".") return isFile(fs, target) ? target : null;
    return loadAsFile(fs, target) ?? loadAsDirectory(fs, target);
  }
  return null;
}

/**
 * ES module resolution (`import`): relative and absolute specifiers must name the file (Node does
 * not add extensions for ESM); bare ones go through node_modules with the "import" condition.
 */
export function resolveImport(fs: SyncFs, specifier: string, fromFile: string): ResolvedModule {
  const builtin = builtinName(specifier);
  if (builtin) return { path: `node:${builtin}`, format: "builtin" };
  if (specifier.startsWith("node:")) {
    throw new ResolveError("ERR_UNKNOWN_BUILTIN_MODULE", `No such built-in module: ${specifier}`);
  }
  const spec = specifier.startsWith("file://") ? decodeURIComponent(specifier.slice(7)) : specifier;
  const fromDir = dirname(fromFile);
  let found: string | null;
  if (spec.startsWith("/") || spec.startsWith("./") || spec.startsWith("../")) {
    const target = join(fromDir, spec);
    const entry = fs.lookup(target);
    if (entry?.kind === "directory") {
      throw new ResolveError(
        "ERR_UNSUPPORTED_DIR_IMPORT",
        `Directory import '${target}' is not supported resolving ES modules imported from ${fromFile}`,
      );
    }
    found = entry ? target : null;
    if (!found) {
      throw new ResolveError(
        "ERR_MODULE_NOT_FOUND",
        `Cannot find module '${target}' imported from ${fromFile}`,
      );
    }
  } else {
    found = resolvePackage(fs, spec, fromDir, ["node", "import"], true);
    if (!found) {
      throw new ResolveError(
        "ERR_MODULE_NOT_FOUND",
        `Cannot find package '${splitPackage(spec).name}' imported from ${fromFile}`,
      );
    }
  }
  const real = fs.realpath(found);
  return { path: real, format: formatOf(fs, real) };
}
