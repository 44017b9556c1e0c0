import { describe, expect, it } from "vitest";
import { FAKE_INDEX, fakePackageIndex } from "../../../test-support/fake-package-index.ts";
import {
  compareVersions,
  evaluateMarker,
  installFromIndex,
  matchesSpecifiers,
  parseRequirement,
} from "./pypi.ts";

describe("requirements, versions and markers", () => {
  it("reads PEP 508 requirements, old-style parentheses and extras included", () => {
    expect(parseRequirement("pluggy (<2.0,>=0.12)")).toEqual({
      name: "pluggy",
      specifiers: [
        { op: "<", version: "2.0" },
        { op: ">=", version: "0.12" },
      ],
      marker: null,
    });
    expect(parseRequirement("attrs[tests] ; extra == 'cov'")).toEqual({
      name: "attrs",
      specifiers: [],
      marker: "extra == 'cov'",
    });
    expect(() => parseRequirement("not a requirement!")).toThrow(/cannot read/u);
  });

  it("orders versions as PEP 440 does and checks specifiers", () => {
    const sorted = ["1.0.post1", "1.0", "1.0rc1", "1.0.dev1", "0.9", "1.0a2", "1.0b1", "1.0.0.1"].sort(
      compareVersions,
    );
    expect(sorted).toEqual(["0.9", "1.0.dev1", "1.0a2", "1.0b1", "1.0rc1", "1.0", "1.0.post1", "1.0.0.1"]);
    expect(matchesSpecifiers("1.0.0", parseRequirement("pluggy<2.0,>=0.12").specifiers)).toBe(true);
    expect(matchesSpecifiers("2.0", parseRequirement("pluggy<2.0,>=0.12").specifiers)).toBe(false);
    expect(matchesSpecifiers("2.2.9", parseRequirement("x~=2.2").specifiers)).toBe(true);
    expect(matchesSpecifiers("3.0", parseRequirement("x~=2.2").specifiers)).toBe(false);
    expect(matchesSpecifiers("1.4.7", parseRequirement("x==1.4.*").specifiers)).toBe(true);
  });

  it("evaluates markers for the embedded CPython 3.13 on Emscripten", () => {
    expect(evaluateMarker('python_version < "3.11"')).toBe(false);
    expect(evaluateMarker('python_version >= "3.8" and sys_platform != "win32"')).toBe(true);
    expect(evaluateMarker("extra == 'testing'")).toBe(false);
    expect(
      evaluateMarker(
        '(os_name == "nt" or platform_system == "Emscripten") and python_full_version >= "3.13.0"',
      ),
    ).toBe(true);
    expect(() => evaluateMarker('nonsense_var == "1"')).toThrow(/unknown marker variable/u);
  });
});

describe("installFromIndex (PyPI's JSON API, served from Debian's python3-pytest)", () => {
  it("resolves pytest's dependencies for this interpreter, checks each wheel's sha256 and unpacks it", async () => {
    const index = await fakePackageIndex();
    const progress: string[] = [];
    const packages = await installFromIndex(["pytest"], {
      fetch: index.fetch,
      index: FAKE_INDEX,
      onProgress: (p) => progress.push(p.message),
    });
    expect(packages.map((p) => `${p.name} ${p.version}`).sort()).toEqual([
      "attrs 22.2.0",
      "iniconfig 1.1.1",
      "packaging 23.0",
      "pluggy 1.0.0",
      "pytest 7.2.1",
    ]);
    const paths = new Set(packages.flatMap((p) => p.files.map((file) => file.path)));
    expect(paths.has("pytest/__init__.py")).toBe(true);
    expect(paths.has("_pytest/assertion/rewrite.py")).toBe(true);
    expect(paths.has("pytest-7.2.1.dist-info/entry_points.txt")).toBe(true);
    // Markers kept out what this interpreter does not need (tomli, exceptiongroup, colorama, extras).
    expect(index.requests.some((url) => /tomli|exceptiongroup|colorama|hypothesis/u.test(url))).toBe(false);
    expect(progress[0]).toBe("Resolving pytest");
    expect(progress.at(-1)).toMatch(/^Installed pytest 7\.2\.1, /u);
  });

  it("refuses a package the index does not have, and a wheel whose bytes do not match", async () => {
    const index = await fakePackageIndex();
    await expect(
      installFromIndex(["no-such-package"], { fetch: index.fetch, index: FAKE_INDEX }),
    ).rejects.toThrow(/no package at/u);
    const tampering: typeof fetch = async (input, init) => {
      const response = await index.fetch(input, init);
      if (!String(input).endsWith(".whl")) return response;
      const bytes = new Uint8Array(await response.arrayBuffer());
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
      return new Response(bytes);
    };
    await expect(installFromIndex(["iniconfig"], { fetch: tampering, index: FAKE_INDEX })).rejects.toThrow(
      /does not match the sha256/u,
    );
  });
});
