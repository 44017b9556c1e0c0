import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createToolContext } from "../../core/tool-context.ts";
import { registerNodeAssets } from "../../host/node-assets.ts";
import { EmbeddedSandbox } from "../../sandbox/embedded/embedded-sandbox.ts";
import { tempDir } from "../git/native-git.test-helpers.ts";
import { parseRuffJson } from "./issue-parsers.ts";
import { lintPythonInWorker } from "./ruff-wasm.ts";

beforeAll(() => registerNodeAssets());

const BAD =
  "import os\nimport sys\n\n\ndef f(x: int) -> str:\n    unused = 1\n    return x + 1\n\n\ndef g():\n    return undefined_name\n";

const PROJECT: Record<string, string> = {
  "bad.py": BAD,
  "pkg/mod.py": "from typing import List\n\nx = 1\nif x == None:\n    pass\nl = lambda: 0\n",
  "pkg/ok.py": "VALUE = 1\n",
  "build/generated.py": "import os\n",
  ".gitignore": "build/\n",
};

async function workspace(files: Record<string, string>) {
  const sandbox = await EmbeddedSandbox.create();
  for (const [path, content] of Object.entries(files)) {
    await sandbox.mkdir(`/workspace/${dirname(path)}`, { recursive: true });
    await sandbox.writeFile(`/workspace/${path}`, content);
  }
  return createToolContext(sandbox);
}

describe("lintPythonInWorker (ruff 0.16.9 as WebAssembly)", () => {
  it("finds what ruff check finds with its default rules", async () => {
    const result = await lintPythonInWorker(await workspace({ "bad.py": BAD }));
    expect(result.issues.map((issue) => [issue.line, issue.col, issue.rule])).toEqual([
      [1, 8, "F401"],
      [2, 8, "F401"],
      [6, 5, "F841"],
      [11, 12, "F821"],
    ]);
    expect(result.version).toBe("0.16.9");
    expect(result.rawOutput.split("\n")[0]).toBe("bad.py:1:8: F401 `os` imported but unused");
  });

  it("applies the project's [tool.ruff] settings, .gitignore and paths", async () => {
    const context = await workspace({
      ...PROJECT,
      "pyproject.toml": '[project]\nname = "x"\n[tool.ruff.lint]\nselect = ["E711", "E731"]\n',
    });
    const result = await lintPythonInWorker(context);
    expect(result.configSource).toBe("pyproject.toml [tool.ruff]");
    expect(result.issues.map((issue) => `${issue.file}:${issue.line} ${issue.rule}`)).toEqual([
      "pkg/mod.py:4 E711",
      "pkg/mod.py:6 E731",
    ]);
    expect((await lintPythonInWorker(context, { paths: ["bad.py"] })).issues).toEqual([]);
    expect(result.filesChecked).toBe(3);
  });

  it("excludes and names paths as ruff 0.16.9 does: defaults and [tool.ruff] exclude, unless named; E902 for a missing path", async () => {
    // Observed with ruff 0.16.9: `ruff check .` lints build/b.py (build is not a default exclude),
    // skips gen/ (excluded) and .venv/; `ruff check build/b.py gen/c.py` and `ruff check gen` lint
    // what they name; `ruff check nope.py` is E902 "No such file or directory (os error 2)".
    const context = await workspace({
      "a.py": "import os\n",
      "build/b.py": "import sys\n",
      "gen/c.py": "import re\n",
      "gen/.venv/d.py": "import json\n",
      ".venv/e.py": "import abc\n",
      "pyproject.toml": '[tool.ruff]\nexclude = ["gen"]\n',
    });
    const files = async (paths?: string[]) =>
      (await lintPythonInWorker(context, paths ? { paths } : {})).issues.map(
        (issue) => `${issue.file} ${issue.rule}`,
      );
    expect(await files()).toEqual(["a.py F401", "build/b.py F401"]);
    expect(await files(["build/b.py", "gen/c.py"])).toEqual(["build/b.py F401", "gen/c.py F401"]);
    expect(await files(["gen"])).toEqual(["gen/c.py F401"]);
    const missing = await lintPythonInWorker(context, { paths: ["nope.py", "a.py"] });
    expect(missing.issues).toEqual([
      { file: "a.py", line: 1, col: 8, rule: "F401", message: "`os` imported but unused", severity: "error" },
      {
        file: "nope.py",
        line: 1,
        col: 1,
        rule: "E902",
        message: "No such file or directory (os error 2)",
        severity: "error",
      },
    ]);
    await expect(lintPythonInWorker(context, { paths: ["../x.py"] })).rejects.toMatchObject({
      code: "path_escape",
    });
  });

  it("applies per-file-ignores as ruff does: paths from the root, bare names, prefixes, negation", async () => {
    const context = await workspace({
      ...PROJECT,
      "tests/deep/test_x.py": "import os\nimport sys\n",
      "__init__.py": "import os\n",
      "pyproject.toml": [
        "[tool.ruff.lint]",
        'select = ["F", "E711"]',
        "[tool.ruff.lint.per-file-ignores]",
        '"__init__.py" = ["F401"]',
        '"tests/*" = ["F"]',
        '"!pkg/*" = ["E7"]',
        "[tool.ruff.lint.extend-per-file-ignores]",
        '"bad.py" = ["F841", "F821"]',
        "",
      ].join("\n"),
    });
    const result = await lintPythonInWorker(context);
    expect(result.issues.map((issue) => `${issue.file}:${issue.line} ${issue.rule}`)).toEqual([
      "bad.py:1 F401",
      "bad.py:2 F401",
      "pkg/mod.py:1 F401",
      "pkg/mod.py:4 E711",
    ]);
  });

  const native = spawnSync("ruff", ["--version"], { encoding: "utf8" });
  it.skipIf(native.status !== 0 || !native.stdout.includes("0.16.9"))(
    "agrees with native ruff 0.16.9 on the same project",
    async () => {
      const root = tempDir("toolroom-ruff-");
      // ruff honours .gitignore inside a git repository, as the workspace is.
      execFileSync("git", ["init", "-q"], { cwd: root });
      for (const [path, content] of Object.entries(PROJECT)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), content);
      }
      let output = "";
      try {
        output = execFileSync("ruff", ["check", "--output-format=json", "."], {
          cwd: root,
          encoding: "utf8",
        });
      } catch (error) {
        output = (error as { stdout: string }).stdout;
      }
      const expected = parseRuffJson(output, root)!.issues;
      expect((await lintPythonInWorker(await workspace(PROJECT))).issues).toEqual(expected);
    },
  );
});
