import { parse as parseToml } from "smol-toml";
import { ToolFailure } from "../../core/errors.ts";
import type { ToolContext } from "../../core/profile.ts";
import { isSandboxError } from "../../sandbox/types.ts";
import { decodeText } from "../text.ts";

export type DependencyFormat = "pyproject.toml" | "requirements.txt" | "package.json";

export interface Dependency {
  name: string;
  /** The version requirement as written ("^1.2.0", ">=2,<3"); null when the file gives none. */
  version: string | null;
  dev: boolean;
  /** Where it came from when that says more than dev/not dev: an extra, a group, a -r include. */
  group?: string;
}

export interface DependencyList {
  format: DependencyFormat;
  /** Workspace-relative path of the file read. */
  file: string;
  dependencies: Dependency[];
  devDependencies: Dependency[];
  warnings: string[];
}

/** The files a folder is searched for, in this order: the first one present is read. */
export const DEPENDENCY_FILES: readonly DependencyFormat[] = [
  "pyproject.toml",
  "requirements.txt",
  "package.json",
];

/** Optional-dependency groups and extras that are tooling, not runtime needs. */
const DEV_GROUP =
  /^(?:dev|develop|development|test|tests|testing|lint|linting|docs?|typing|types|check|ci|format|style)(?:[-_].*)?$/iu;

/**
 * Reads a dependency file into one shape for every ecosystem. A folder is searched for the
 * supported files in DEPENDENCY_FILES order; a file is read by its name.
 */
export async function readDependencies(context: ToolContext, input: unknown): Promise<DependencyList> {
  const target = await context.resolve(input ?? ".", { param: "path" });
  const stat = await context.sandbox.stat(target.absolute).catch((error: unknown) => {
    if (isSandboxError(error, "ENOENT") || isSandboxError(error, "ENOTDIR")) return null;
    throw error;
  });
  if (!stat) {
    throw new ToolFailure("no_dependency_file", `${String(input)} does not exist.`, { path: input });
  }
  let relative = target.relative;
  if (stat.type === "directory") {
    const names = new Set((await context.sandbox.readdir(target.absolute)).map((entry) => entry.name));
    const found = DEPENDENCY_FILES.find((name) => names.has(name));
    if (!found) {
      throw new ToolFailure(
        "no_dependency_file",
        `No dependency file in ${relative === "" ? "the workspace root" : relative}: looked for ${DEPENDENCY_FILES.join(", ")}.`,
        { path: relative === "" ? "." : relative, looked_for: [...DEPENDENCY_FILES] },
      );
    }
    relative = relative === "" ? found : `${relative}/${found}`;
  }
  const format = formatOf(relative);
  if (!format) {
    throw new ToolFailure(
      "unsupported_format",
      `${relative} is not a supported dependency file; supported: pyproject.toml, requirements*.txt, package.json.`,
      { path: relative },
    );
  }
  const absolute = `${context.sandbox.workspaceRoot}/${relative}`;
  let text: string | null;
  try {
    text = decodeText(await context.sandbox.readFile(absolute));
  } catch (error) {
    throw new ToolFailure("read_error", `Could not read ${relative}: ${(error as Error).message}.`, {
      path: relative,
    });
  }
  if (text === null)
    throw new ToolFailure("read_error", `${relative} is not UTF-8 text.`, { path: relative });
  const parsed =
    format === "package.json"
      ? parsePackageJson(text, relative)
      : format === "pyproject.toml"
        ? parsePyproject(text, relative)
        : parseRequirements(
            text,
            /(?:dev|test|lint|doc)/iu.test(relative.slice(relative.lastIndexOf("/") + 1)),
          );
  return {
    format,
    file: relative,
    dependencies: parsed.all.filter((dependency) => !dependency.dev),
    devDependencies: parsed.all.filter((dependency) => dependency.dev),
    warnings: parsed.warnings,
  };
}

function formatOf(path: string): DependencyFormat | null {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name === "package.json") return "package.json";
  if (name === "pyproject.toml") return "pyproject.toml";
  if (/^requirements.*\.(?:txt|in)$/iu.test(name) || /\.txt$/iu.test(name)) return "requirements.txt";
  return null;
}

interface Parsed {
  all: Dependency[];
  warnings: string[];
}

export function parsePackageJson(text: string, file = "package.json"): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ToolFailure("read_error", `${file} is not valid JSON: ${(error as Error).message}.`, {
      path: file,
    });
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ToolFailure("read_error", `${file} is not a JSON object.`, { path: file });
  }
  const record = json as Record<string, unknown>;
  const all: Dependency[] = [];
  const warnings: string[] = [];
  const take = (field: string, dev: boolean, group?: string) => {
    const table = record[field];
    if (table === undefined) return;
    if (typeof table !== "object" || table === null || Array.isArray(table)) {
      warnings.push(`${field} is not an object; skipped.`);
      return;
    }
    for (const [name, version] of Object.entries(table)) {
      all.push({
        name,
        version: typeof version === "string" ? version : null,
        dev,
        ...(group ? { group } : {}),
      });
    }
  };
  take("dependencies", false);
  take("optionalDependencies", false, "optional");
  take("devDependencies", true);
  take("peerDependencies", false, "peer");
  return { all, warnings };
}

/** One PEP 508 requirement: "requests[socks]>=2.0,<3 ; python_version>'3.8'" → name and version. */
export function parseRequirement(spec: string): { name: string; version: string | null } | null {
  const match =
    /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(\([^)]*\)|[^;@]*)?\s*(?:@\s*(\S+))?/u.exec(spec);
  if (!match) return null;
  const version = (match[2] ?? "")
    .trim()
    .replace(/^\((.*)\)$/u, "$1")
    .trim();
  if (version !== "") return { name: match[1]!, version };
  return { name: match[1]!, version: match[3] ? `@ ${match[3]}` : null };
}

/**
 * A URL or VCS requirement ("git+https://host/org/repo.git@v1#egg=name"): its #egg= name, else the
 * repository's (with a warning), and where it comes from without the fragment.
 */
function vcsRequirement(spec: string, raw: string): { name: string; location: string; warning?: string } {
  const [location = spec] = spec.split("#");
  const egg = /#egg=([A-Za-z0-9._-]+)/u.exec(raw)?.[1];
  if (egg) return { name: egg, location };
  const last =
    location
      .replace(/@[^/@]*$/u, "")
      .replace(/\/+$/u, "")
      .split("/")
      .pop() ?? location;
  const name = last.replace(/\.git$/u, "").replace(/\.(?:zip|tar\.gz|tgz|whl)$/u, "");
  return {
    name,
    location,
    warning: `"${spec}" has no #egg= name; listed as "${name}" after its repository (pip reads the real name from the package).`,
  };
}

export function parseRequirements(text: string, dev = false): Parsed {
  const all: Dependency[] = [];
  const warnings: string[] = [];
  const joined = text.replace(/\\\r?\n/gu, " ");
  for (const raw of joined.split(/\r?\n/u)) {
    const line = raw.replace(/(^|\s)#.*$/u, "").trim();
    if (line === "") continue;
    if (line.startsWith("-r ") || line.startsWith("--requirement") || line.startsWith("-c ")) {
      warnings.push(`"${line}" includes another file; read that file for its requirements.`);
      continue;
    }
    if (line.startsWith("-e ") || line.startsWith("--editable")) {
      const target = line.replace(/^(?:-e|--editable)[\s=]+/u, "");
      const egg = /#egg=([A-Za-z0-9._-]+)/u.exec(raw);
      all.push({ name: egg?.[1] ?? target, version: null, dev, group: "editable" });
      continue;
    }
    if (line.startsWith("-")) continue;
    // A requirement's own pip options (--hash=…, --config-settings …) say nothing about the version.
    const spec = line.replace(/\s+--[a-z][a-z-]*(?:[=\s]\S+)?/giu, "").trim();
    if (/^[a-z+]+:\/\//iu.test(spec)) {
      const url = vcsRequirement(spec, raw);
      if (url.warning) warnings.push(url.warning);
      all.push({ name: url.name, version: `@ ${url.location}`, dev });
      continue;
    }
    const requirement = parseRequirement(spec);
    if (requirement) all.push({ ...requirement, dev });
    else warnings.push(`Could not read the requirement "${line}".`);
  }
  return { all, warnings };
}

export function parsePyproject(text: string, file = "pyproject.toml"): Parsed {
  let toml: Record<string, unknown>;
  try {
    toml = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new ToolFailure(
      "read_error",
      `${file} is not valid TOML: ${(error as Error).message.split("\n")[0]}.`,
      {
        path: file,
        line: (error as { line?: number }).line,
        column: (error as { column?: number }).column,
      },
    );
  }
  const all: Dependency[] = [];
  const warnings: string[] = [];
  const table = (value: unknown): Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  const addSpecs = (specs: unknown, dev: boolean, group?: string) => {
    if (!Array.isArray(specs)) return;
    for (const spec of specs) {
      if (typeof spec !== "string") continue;
      const requirement = parseRequirement(spec);
      if (requirement) all.push({ ...requirement, dev, ...(group ? { group } : {}) });
      else warnings.push(`Could not read the requirement "${spec}".`);
    }
  };
  const addPoetry = (deps: unknown, dev: boolean, group?: string) => {
    for (const [name, value] of Object.entries(table(deps))) {
      if (name.toLowerCase() === "python") continue;
      const version =
        typeof value === "string"
          ? value
          : typeof table(value).version === "string"
            ? (table(value).version as string)
            : null;
      all.push({ name, version, dev, ...(group ? { group } : {}) });
    }
  };

  const project = table(toml.project);
  addSpecs(project.dependencies, false);
  for (const [group, specs] of Object.entries(table(project["optional-dependencies"]))) {
    addSpecs(specs, DEV_GROUP.test(group), group);
  }
  // PEP 735 dependency groups are development-only by definition.
  for (const [group, specs] of Object.entries(table(toml["dependency-groups"]))) addSpecs(specs, true, group);
  const tool = table(toml.tool);
  const poetry = table(tool.poetry);
  addPoetry(poetry.dependencies, false);
  addPoetry(poetry["dev-dependencies"], true, "dev");
  for (const [group, body] of Object.entries(table(poetry.group))) {
    addPoetry(table(body).dependencies, true, group);
  }
  for (const [group, specs] of Object.entries(table(table(tool.pdm)["dev-dependencies"])))
    addSpecs(specs, true, group);
  addSpecs(table(tool.uv)["dev-dependencies"], true, "dev");
  if (all.length === 0 && !("project" in toml) && !("poetry" in tool)) {
    warnings.push(`${file} has no [project] or [tool.poetry] table.`);
  }
  return { all, warnings };
}
