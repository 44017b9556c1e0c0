import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { zipSync } from "fflate";
import { readPackageFolder } from "../host/python-packages.ts";
import { DEBIAN_DIST_PACKAGES } from "./python-packages.ts";

/**
 * A package index with PyPI's JSON API, serving wheels made from Debian's python3-pytest and what
 * it imports (the fixture source of pytest for the tests; nothing is copied into the project). Used
 * by the installer's unit tests (as `fetch`) and by the e2e (through page.route).
 */
interface Project {
  name: string;
  version: string;
  /** Top-level entries of dist-packages that make up the wheel. */
  entries: string[];
  /** Its metadata folder, for Requires-Dist. */
  metadata: string;
}

const PROJECTS: Project[] = [
  {
    name: "pytest",
    version: "7.2.1",
    entries: ["pytest", "_pytest", "py.py"],
    metadata: "pytest-7.2.1.dist-info",
  },
  { name: "pluggy", version: "1.0.0", entries: ["pluggy"], metadata: "pluggy-1.0.0+repack.egg-info" },
  { name: "iniconfig", version: "1.1.1", entries: ["iniconfig"], metadata: "iniconfig-1.1.1.egg-info" },
  { name: "packaging", version: "23.0", entries: ["packaging"], metadata: "packaging-23.0.dist-info" },
  { name: "attrs", version: "22.2.0", entries: ["attr", "attrs"], metadata: "attrs-22.2.0.dist-info" },
];

export const FAKE_INDEX = "https://pypi.org/pypi";
const FILES = "https://files.pythonhosted.org/packages/fake";

export interface FakeIndex {
  /** The index's answer for a URL, or null when the URL is not the index's. */
  respond(url: string): { status: number; contentType: string; body: Uint8Array } | null;
  /** The same, as a fetch. */
  fetch: typeof fetch;
  requests: string[];
}

async function requiresDist(metadata: string): Promise<string[]> {
  const folder = `${DEBIAN_DIST_PACKAGES}/${metadata}`;
  const text = await readFile(`${folder}/METADATA`, "utf8").catch(() =>
    readFile(`${folder}/PKG-INFO`, "utf8"),
  );
  return text
    .split("\n")
    .filter((line) => line.startsWith("Requires-Dist: "))
    .map((line) => line.slice("Requires-Dist: ".length).trim());
}

export async function fakePackageIndex(): Promise<FakeIndex> {
  const json = new Map<string, unknown>();
  const wheels = new Map<string, Uint8Array>();
  for (const project of PROJECTS) {
    const files = await readPackageFolder(DEBIAN_DIST_PACKAGES, [...project.entries, project.metadata]);
    const wheel = zipSync(Object.fromEntries(files.map((file) => [file.path, file.data])));
    const filename = `${project.name}-${project.version}-py3-none-any.whl`;
    wheels.set(`${FILES}/${filename}`, wheel);
    const file = {
      filename,
      url: `${FILES}/${filename}`,
      packagetype: "bdist_wheel",
      yanked: false,
      digests: { sha256: createHash("sha256").update(wheel).digest("hex") },
    };
    const info = {
      name: project.name,
      version: project.version,
      requires_dist: await requiresDist(project.metadata),
    };
    const body = { info, urls: [file], releases: { [project.version]: [file] } };
    json.set(`${FAKE_INDEX}/${project.name}/json`, body);
    json.set(`${FAKE_INDEX}/${project.name}/${project.version}/json`, body);
  }
  const requests: string[] = [];
  const respond: FakeIndex["respond"] = (url) => {
    if (!url.startsWith(FAKE_INDEX) && !url.startsWith(FILES)) return null;
    requests.push(url);
    const wheel = wheels.get(url);
    if (wheel) return { status: 200, contentType: "application/octet-stream", body: wheel };
    const body = json.get(url);
    if (body)
      return {
        status: 200,
        contentType: "application/json",
        body: new TextEncoder().encode(JSON.stringify(body)),
      };
    return { status: 404, contentType: "text/plain", body: new TextEncoder().encode("Not Found") };
  };
  return {
    respond,
    requests,
    fetch: (async (input: RequestInfo | URL) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const answer = respond(url);
      if (!answer) throw new TypeError(`fetch failed: ${url} is not reachable from the tests`);
      return new Response(answer.body as Uint8Array<ArrayBuffer>, {
        status: answer.status,
        headers: { "content-type": answer.contentType },
      });
    }) as typeof fetch,
  };
}
