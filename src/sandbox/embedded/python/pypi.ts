import { unzipSync } from "fflate";
import type { PackageFile } from "./protocol.ts";
import { EMBEDDED_PYTHON_VERSION } from "./version.ts";

/**
 * Installs pure-Python packages from a package index's JSON API (PyPI's `/pypi/NAME/json`) for the
 * embedded Python: resolves each requirement's dependencies (markers evaluated for this
 * interpreter), downloads one `py3-none-any` wheel per package, checks its sha256 and unpacks it
 * into site-packages files. Packages with compiled code have no such wheel and are refused clearly.
 */

export const PYPI = "https://pypi.org/pypi";

export interface InstalledPackage {
  name: string;
  version: string;
}

export interface InstallProgress {
  /** What is happening now, in the user's words. */
  message: string;
  /** Packages resolved so far, and how many are known to be needed. */
  done: number;
  total: number;
}

export interface InstallOptions {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  index?: string;
  onProgress?: (progress: InstallProgress) => void;
  signal?: AbortSignal;
}

export interface InstalledFiles extends InstalledPackage {
  /** The wheel's files, relative to site-packages. */
  files: PackageFile[];
}

interface IndexFile {
  filename: string;
  url: string;
  packagetype?: string;
  yanked?: boolean;
  digests?: { sha256?: string };
}

interface IndexProject {
  info: { name: string; version: string; requires_dist?: string[] | null };
  urls?: IndexFile[];
  releases?: Record<string, IndexFile[]>;
}

export interface Requirement {
  name: string;
  specifiers: Array<{ op: string; version: string }>;
  marker: string | null;
}

/** The names PyPI treats as one: case, `_`, `.` and `-` runs do not matter (PEP 503). */
export function canonicalName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/gu, "-");
}

/** Parses one requirement: `name[extras] specifiers ; marker` (PEP 508, without URLs). */
export function parseRequirement(text: string): Requirement {
  const [head = "", ...markerParts] = text.split(";");
  const marker = markerParts.join(";").trim() || null;
  const match = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?([^)]*)\)?\s*$/u.exec(head);
  if (!match) throw new Error(`cannot read the requirement "${text}"`);
  const specifiers = match[2]!
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const spec = /^(~=|===|==|!=|<=|>=|<|>)\s*(\S+)$/u.exec(part);
      if (!spec) throw new Error(`cannot read the version specifier "${part}" in "${text}"`);
      return { op: spec[1]!, version: spec[2]! };
    });
  return { name: match[1]!, specifiers, marker };
}

// ---------------------------------------------------------------- versions (PEP 440, the common forms)

interface Version {
  release: number[];
  /** Pre-release: [0 a | 1 b | 2 rc, n]; absent for a final release. */
  pre: [number, number] | null;
  post: number | null;
  dev: number | null;
}

export function parseVersion(text: string): Version | null {
  const match =
    /^v?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|rc|c|pre|preview)[-_.]?(\d*))?(?:[-_.]?(?:post|rev|r)[-_.]?(\d*))?(?:[-_.]?dev[-_.]?(\d*))?(?:\+[a-z0-9.]+)?$/iu.exec(
      text.trim(),
    );
  if (!match) return null;
  const kind = match[2]?.toLowerCase();
  const preRank = kind === undefined ? -1 : kind.startsWith("a") ? 0 : kind.startsWith("b") ? 1 : 2;
  return {
    release: match[1]!.split(".").map(Number),
    pre: preRank < 0 ? null : [preRank, Number(match[3] || 0)],
    post: match[4] === undefined ? null : Number(match[4] || 0),
    dev: match[5] === undefined ? null : Number(match[5] || 0),
  };
}

export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return a < b ? -1 : a > b ? 1 : 0;
  const length = Math.max(x.release.length, y.release.length);
  for (let i = 0; i < length; i++) {
    const diff = (x.release[i] ?? 0) - (y.release[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  // 1.0.dev1 < 1.0a1 < 1.0 < 1.0.post1
  const rank = (v: Version): number[] => [
    v.pre ? v.pre[0] : v.dev !== null && v.post === null ? -1 : 3,
    v.pre ? v.pre[1] : 0,
    v.post ?? -1,
    v.dev ?? Number.POSITIVE_INFINITY,
  ];
  const [p, q] = [rank(x), rank(y)];
  for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return Math.sign(p[i]! - q[i]!);
  return 0;
}

export function isPreRelease(version: string): boolean {
  const parsed = parseVersion(version);
  return parsed === null || parsed.pre !== null || parsed.dev !== null;
}

function satisfies(version: string, op: string, wanted: string): boolean {
  if (op === "===") return version === wanted;
  if ((op === "==" || op === "!=") && wanted.endsWith(".*")) {
    const prefix = wanted.slice(0, -2).split(".");
    const parts = parseVersion(version)?.release ?? [];
    const same = prefix.every((part, i) => Number(part) === (parts[i] ?? 0));
    return op === "==" ? same : !same;
  }
  const order = compareVersions(version, wanted);
  switch (op) {
    case "==":
      return order === 0;
    case "!=":
      return order !== 0;
    case "<":
      return order < 0;
    case "<=":
      return order <= 0;
    case ">":
      return order > 0;
    case ">=":
      return order >= 0;
    case "~=": {
      const release = parseVersion(wanted)?.release ?? [];
      const upper = release.slice(0, Math.max(1, release.length - 1));
      upper[upper.length - 1]! += 1;
      return order >= 0 && compareVersions(version, upper.join(".")) < 0;
    }
    default:
      return false;
  }
}

export function matchesSpecifiers(version: string, specifiers: Requirement["specifiers"]): boolean {
  return specifiers.every(({ op, version: wanted }) => satisfies(version, op, wanted));
}

// ---------------------------------------------------------------- markers (PEP 508)

/** The embedded interpreter as markers see it. */
export const MARKER_ENVIRONMENT: Record<string, string> = {
  python_version: EMBEDDED_PYTHON_VERSION.split(".").slice(0, 2).join("."),
  python_full_version: EMBEDDED_PYTHON_VERSION,
  implementation_name: "cpython",
  implementation_version: EMBEDDED_PYTHON_VERSION,
  platform_python_implementation: "CPython",
  os_name: "posix",
  sys_platform: "emscripten",
  platform_system: "Emscripten",
  platform_machine: "wasm32",
  platform_release: "",
  platform_version: "",
  extra: "",
};

const VERSION_KEYS = new Set(["python_version", "python_full_version", "implementation_version"]);

/** Evaluates a marker for the embedded interpreter (no extras requested). */
export function evaluateMarker(marker: string, environment = MARKER_ENVIRONMENT): boolean {
  const tokens = marker.match(
    /\s*(\(|\)|'[^']*'|"[^"]*"|===|==|!=|<=|>=|~=|<|>|not\s+in\b|in\b|and\b|or\b|[A-Za-z_.]+)/gu,
  );
  if (!tokens || tokens.join("").replace(/\s+/gu, "") !== marker.replace(/\s+/gu, ""))
    throw new Error(`cannot read the marker "${marker}"`);
  const list = tokens.map((token) => token.trim().replace(/\s+/gu, " "));
  let position = 0;
  const peek = () => list[position];
  const value = (token: string): { text: string; key?: string } => {
    if (/^['"]/u.test(token)) return { text: token.slice(1, -1) };
    if (!(token in environment)) throw new Error(`unknown marker variable "${token}" in "${marker}"`);
    return { text: environment[token]!, key: token };
  };
  const comparison = (): boolean => {
    if (peek() === "(") {
      position++;
      const result = disjunction();
      if (list[position++] !== ")") throw new Error(`unbalanced parentheses in "${marker}"`);
      return result;
    }
    const left = value(list[position++]!);
    const op = list[position++]!;
    const right = value(list[position++]!);
    if (op === "in") return right.text.includes(left.text);
    if (op === "not in") return !right.text.includes(left.text);
    const versions = VERSION_KEYS.has(left.key ?? "") || VERSION_KEYS.has(right.key ?? "");
    if (versions && parseVersion(left.text) && parseVersion(right.text))
      return satisfies(left.text, op, right.text);
    if (op === "==" || op === "===") return left.text === right.text;
    if (op === "!=") return left.text !== right.text;
    throw new Error(`cannot compare "${left.text}" ${op} "${right.text}" in "${marker}"`);
  };
  const conjunction = (): boolean => {
    let result = comparison();
    while (peek() === "and") {
      position++;
      result = comparison() && result;
    }
    return result;
  };
  const disjunction = (): boolean => {
    let result = conjunction();
    while (peek() === "or") {
      position++;
      result = conjunction() || result;
    }
    return result;
  };
  const result = disjunction();
  if (position !== list.length) throw new Error(`cannot read the marker "${marker}"`);
  return result;
}

// ---------------------------------------------------------------- install

const PURE_WHEEL = /-(?:py3|py2\.py3)-none-any\.whl$/u;

async function getJson(options: InstallOptions, url: string): Promise<IndexProject> {
  const response = await options.fetch(url, options.signal ? { signal: options.signal } : {});
  if (response.status === 404) throw new Error(`no package at ${url}`);
  if (!response.ok) throw new Error(`the package index answered HTTP ${response.status} for ${url}`);
  return (await response.json()) as IndexProject;
}

function pickRelease(project: IndexProject, requirement: Requirement): { version: string; wheel: IndexFile } {
  const candidates = Object.entries(project.releases ?? {});
  if (project.urls && !(project.info.version in (project.releases ?? {})))
    candidates.push([project.info.version, project.urls]);
  const explicitPre = requirement.specifiers.some((spec) => isPreRelease(spec.version));
  const versions = candidates
    .filter(([version]) => explicitPre || !isPreRelease(version))
    .filter(([version]) => matchesSpecifiers(version, requirement.specifiers))
    .sort(([a], [b]) => compareVersions(b, a));
  for (const [version, files] of versions) {
    const wheel = files.find((file) => !file.yanked && PURE_WHEEL.test(file.filename));
    if (wheel) return { version, wheel };
  }
  const wanted = requirement.specifiers.map((spec) => `${spec.op}${spec.version}`).join(",");
  throw new Error(
    versions.length === 0
      ? `no release of ${requirement.name} matches ${wanted || "any version"}`
      : `${requirement.name} has no pure-Python wheel (py3-none-any) for ${wanted || "its releases"}: packages with compiled code cannot run in the embedded Python`,
  );
}

async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A wheel's files as site-packages holds them (`*.data/purelib` and `platlib` moved to the top). */
export function unpackWheel(wheel: Uint8Array): PackageFile[] {
  const files: PackageFile[] = [];
  for (const [path, data] of Object.entries(unzipSync(wheel))) {
    if (path.endsWith("/")) continue;
    const data_ = /^[^/]+\.data\/(purelib|platlib)\/(.+)$/u.exec(path);
    if (data_) files.push({ path: data_[2]!, data });
    else if (!/^[^/]+\.data\//u.test(path)) files.push({ path, data });
  }
  return files;
}

/** Resolves `names` and their dependencies, downloads and unpacks them. */
export async function installFromIndex(names: string[], options: InstallOptions): Promise<InstalledFiles[]> {
  const index = (options.index ?? PYPI).replace(/\/+$/u, "");
  const queue = names.map((name) => parseRequirement(name));
  const chosen = new Map<string, { requirement: Requirement; version: string; wheel: IndexFile }>();
  const progress = (message: string) =>
    options.onProgress?.({ message, done: chosen.size, total: chosen.size + queue.length });
  while (queue.length > 0) {
    const requirement = queue.shift()!;
    const key = canonicalName(requirement.name);
    const already = chosen.get(key);
    if (already) {
      if (!matchesSpecifiers(already.version, requirement.specifiers))
        throw new Error(
          `${requirement.name} ${already.version} was chosen, but another package needs ${requirement.specifiers.map((s) => s.op + s.version).join(",")}`,
        );
      continue;
    }
    progress(`Resolving ${requirement.name}`);
    const project = await getJson(options, `${index}/${encodeURIComponent(requirement.name)}/json`);
    const { version, wheel } = pickRelease(project, requirement);
    chosen.set(key, { requirement: { ...requirement, name: project.info.name }, version, wheel });
    const release =
      version === project.info.version
        ? project
        : await getJson(
            options,
            `${index}/${encodeURIComponent(requirement.name)}/${encodeURIComponent(version)}/json`,
          );
    for (const dependency of release.info.requires_dist ?? []) {
      const parsed = parseRequirement(dependency);
      if (parsed.marker === null || evaluateMarker(parsed.marker)) queue.push(parsed);
    }
  }
  const packages: InstalledFiles[] = [];
  let done = 0;
  for (const { requirement, version, wheel } of chosen.values()) {
    options.onProgress?.({ message: `Downloading ${wheel.filename}`, done, total: chosen.size });
    const response = await options.fetch(wheel.url, options.signal ? { signal: options.signal } : {});
    if (!response.ok) throw new Error(`could not download ${wheel.url}: HTTP ${response.status}`);
    const data = new Uint8Array(await response.arrayBuffer());
    const expected = wheel.digests?.sha256;
    if (expected && (await sha256Hex(data)) !== expected.toLowerCase())
      throw new Error(`${wheel.filename} does not match the sha256 the index gives: not installed`);
    packages.push({ name: requirement.name, version, files: unpackWheel(data) });
    done++;
  }
  options.onProgress?.({
    message: `Installed ${packages.map((p) => `${p.name} ${p.version}`).join(", ")}`,
    done,
    total: done,
  });
  return packages;
}
