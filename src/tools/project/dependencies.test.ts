import { describe, expect, it } from "vitest";
import { parsePackageJson, parsePyproject, parseRequirement, parseRequirements } from "./dependencies.ts";

describe("parseRequirement (PEP 508)", () => {
  it.each([
    ["requests", { name: "requests", version: null }],
    ["requests>=2.0,<3", { name: "requests", version: ">=2.0,<3" }],
    ["requests[socks] >= 2.0 ; python_version > '3.8'", { name: "requests", version: ">= 2.0" }],
    ["Django (>=4.2)", { name: "Django", version: ">=4.2" }],
    ["pkg @ https://example.com/pkg.whl", { name: "pkg", version: "@ https://example.com/pkg.whl" }],
    ["zope.interface==6.0", { name: "zope.interface", version: "==6.0" }],
  ])("%s", (spec, expected) => {
    expect(parseRequirement(spec)).toEqual(expected);
  });
});

describe("parseRequirements", () => {
  it("skips comments, options and includes (with a warning), joins continuation lines", () => {
    const parsed = parseRequirements(
      "# comment\nflask==3.0 # web\n--index-url https://x\n-r base.txt\nnumpy>=1.26 \\\n  ; python_version>'3.9'\n-e git+https://x/y.git#egg=mylib\n",
    );
    expect(parsed.all).toEqual([
      { name: "flask", version: "==3.0", dev: false },
      { name: "numpy", version: ">=1.26", dev: false },
      { name: "mylib", version: null, dev: false, group: "editable" },
    ]);
    expect(parsed.warnings[0]).toContain("-r base.txt");
  });

  it("reads hash-pinned requirements without their --hash options (pip-compile --generate-hashes)", () => {
    const parsed = parseRequirements(
      "numpy==1.26.4 \\\n    --hash=sha256:0123abcd \\\n    --hash=sha256:4567ef01\n    # via pandas\nsix==1.16.0 --hash=sha256:89ab\n",
    );
    expect(parsed.all).toEqual([
      { name: "numpy", version: "==1.26.4", dev: false },
      { name: "six", version: "==1.16.0", dev: false },
    ]);
    expect(parsed.warnings).toEqual([]);
  });

  it("lists VCS and URL requirements by their egg name (or the repository's), the URL as version", () => {
    const parsed = parseRequirements(
      "git+https://github.com/org/tool.git@v1.2#egg=tool-core\nhg+https://hg.example.com/lib#egg=lib\ngit+https://github.com/org/noname.git@main\n",
    );
    expect(parsed.all).toEqual([
      { name: "tool-core", version: "@ git+https://github.com/org/tool.git@v1.2", dev: false },
      { name: "lib", version: "@ hg+https://hg.example.com/lib", dev: false },
      { name: "noname", version: "@ git+https://github.com/org/noname.git@main", dev: false },
    ]);
    expect(parsed.warnings).toEqual([
      expect.stringContaining('no #egg= name; listed as "noname" after its repository'),
    ]);
  });
});

describe("parsePyproject", () => {
  it("reads PEP 621, optional extras, PEP 735 groups and Poetry tables", () => {
    const parsed = parsePyproject(`
[project]
name = "demo"
dependencies = ["httpx>=0.27", "pydantic[email]~=2.6"]
[project.optional-dependencies]
test = ["pytest>=8"]
postgres = ["psycopg>=3"]
[dependency-groups]
lint = ["ruff"]
[tool.poetry.dependencies]
python = "^3.11"
rich = { version = "^13.0", optional = true }
[tool.poetry.group.dev.dependencies]
mypy = "^1.8"
`);
    expect(parsed.all).toEqual([
      { name: "httpx", version: ">=0.27", dev: false },
      { name: "pydantic", version: "~=2.6", dev: false },
      { name: "pytest", version: ">=8", dev: true, group: "test" },
      { name: "psycopg", version: ">=3", dev: false, group: "postgres" },
      { name: "ruff", version: null, dev: true, group: "lint" },
      { name: "rich", version: "^13.0", dev: false },
      { name: "mypy", version: "^1.8", dev: true, group: "dev" },
    ]);
  });

  it("refuses invalid TOML as read_error with the line", () => {
    expect(() => parsePyproject('[project]\nname = "x\n')).toThrow(
      expect.objectContaining({ code: "read_error", details: expect.objectContaining({ line: 2 }) }),
    );
  });
});

describe("parsePackageJson", () => {
  it("reads dependencies, optional and dev dependencies", () => {
    const parsed = parsePackageJson(
      JSON.stringify({
        dependencies: { react: "^19.0.0" },
        optionalDependencies: { fsevents: "*" },
        devDependencies: { vitest: "^4.0.0" },
        peerDependencies: { "react-dom": ">=18" },
      }),
    );
    expect(parsed.all).toEqual([
      { name: "react", version: "^19.0.0", dev: false },
      { name: "fsevents", version: "*", dev: false, group: "optional" },
      { name: "vitest", version: "^4.0.0", dev: true },
      { name: "react-dom", version: ">=18", dev: false, group: "peer" },
    ]);
    expect(() => parsePackageJson("{")).toThrow(expect.objectContaining({ code: "read_error" }));
  });
});
