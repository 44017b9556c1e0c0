import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { bundleIfFresh, freshness, MANIFEST, sourceStamps, sourcesHash } from "../../bin/cli-bundle.mjs";
import { buildCli } from "../../scripts/build-cli.mjs";
import { type CliRun, runToolroom } from "../test-support/toolroom-cli.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/** Runs the built bundle itself (not bin/toolroom, which would fall back to tsx were it stale). */
async function runBundle(args: string[], input: string): Promise<CliRun> {
  const entry = pathToFileURL(join(ROOT, "dist-cli", "cli-main.mjs")).href;
  // A file, not `node -e`: workers inherit the process's flags, and jq's would choke on --input-type.
  const runner = join(mkdtempSync(join(tmpdir(), "toolroom-cli-bundle-run-")), "run.mjs");
  writeFileSync(
    runner,
    `const cli = await import(${JSON.stringify(entry)});\nprocess.exitCode = await cli.main(process.argv.slice(2));\n`,
  );
  try {
    return await runToolroom(
      [runner, ...args],
      input,
      { ...process.env, TOOLROOM_DEBUG: "1" },
      process.execPath,
    );
  } finally {
    rmSync(dirname(runner), { recursive: true, force: true });
  }
}

describe("the CLI bundle (dist-cli)", () => {
  it("is built from the current sources, and its workers are prebuilt modules, not TypeScript", async () => {
    await buildCli();
    expect(bundleIfFresh(ROOT)).toBe(pathToFileURL(join(ROOT, "dist-cli", "cli-main.mjs")).href);
    for (const name of readdirSync(join(ROOT, "dist-cli")).filter((file) => file.endsWith(".mjs"))) {
      const code = readFileSync(join(ROOT, "dist-cli", name), "utf8");
      expect(code, name).not.toMatch(/new URL\("[^"]*\.ts"/u);
    }
  });

  it("runs every tool with a worker or WebAssembly: jq, the rg regex engine, python3, node, TypeScript, ruff, git", async () => {
    await buildCli();
    const workspace = mkdtempSync(join(tmpdir(), "toolroom-cli-bundle-"));
    try {
      writeFileSync(join(workspace, "a.py"), "import os\n");
      writeFileSync(join(workspace, "b.ts"), "export const n: number = 'x';\n");
      writeFileSync(join(workspace, "words.txt"), "plain\nnaïve_7\n");
      const calls = [
        { tool: "shell", params: { command: `echo '{"a":[1,2,3]}' | jq -c '.a | map(. * 2)'` } },
        // \pL is ripgrep's syntax, which only the Rust regex engine (rregex, WebAssembly) has.
        { tool: "grep", params: { pattern: "^\\pL+_\\d$" } },
        { tool: "shell", params: { command: "python3 -c 'print(sum(range(10)))'" } },
        { tool: "shell", params: { command: "node -e 'console.log([1, 2].map((x) => x * 3).join())'" } },
        { tool: "typecheck", params: {} },
        { tool: "run_lint", params: {} },
        {
          tool: "shell",
          params: { command: "git init -q && git add . && git commit -qm first && git log --oneline" },
        },
      ];
      const { code, stdout, stderr } = await runBundle(
        ["batch", "--workspace", workspace, "--profile", "coding-agent"],
        calls.map((call) => `${JSON.stringify(call)}\n`).join(""),
      );
      expect(stderr).not.toMatch(/internal error/u);
      expect(code).toBe(0);
      const [jq, grep, python, node, types, lint, git] = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(jq).toMatchObject({ ok: true, data: { exit_code: 0, stdout: "[2,4,6]\n" } });
      expect(JSON.stringify(grep)).toContain("naïve_7");
      expect(JSON.stringify(grep)).not.toContain("plain");
      expect(python).toMatchObject({ ok: true, data: { exit_code: 0, stdout: "45\n" } });
      expect(node).toMatchObject({ ok: true, data: { exit_code: 0, stdout: "3,6\n" } });
      expect(types).toMatchObject({ ok: true, data: { parser_used: "typescript-api", issue_count: 1 } });
      expect(lint).toMatchObject({ ok: true, data: { parser_used: "ruff-wasm", issue_count: 1 } });
      expect(git).toMatchObject({
        ok: true,
        data: { exit_code: 0, stdout: expect.stringMatching(/^[0-9a-f]{7} first\n$/u) },
      });
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("bundleIfFresh: bin/toolroom never runs a bundle older than the sources", () => {
  const BUILT_AT = new Date("2026-01-02T03:04:05Z");

  function builtTree(): string {
    const root = mkdtempSync(join(tmpdir(), "toolroom-cli-fresh-"));
    mkdirSync(join(root, "src"));
    mkdirSync(join(root, "dist-cli"));
    writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(root, "src", "b.ts"), "export const b = 2;\n");
    const files = ["src/a.ts", "src/b.ts"];
    for (const file of files) utimesSync(join(root, file), BUILT_AT, BUILT_AT);
    const manifest = { files, hash: sourcesHash(root, files), stamps: sourceStamps(root, files) };
    writeFileSync(join(root, MANIFEST), JSON.stringify(manifest));
    return root;
  }

  it("takes the bundle built from exactly these sources, by their sizes and times alone", () => {
    const root = builtTree();
    expect(freshness(root)).toBe("stamps");
    expect(bundleIfFresh(root)).toBe(pathToFileURL(join(root, "dist-cli", "cli-main.mjs")).href);
  });

  it("reads the sources through when a time changed but not the contents (a touch)", () => {
    const root = builtTree();
    utimesSync(join(root, "src", "a.ts"), new Date(), new Date(Date.now() + 5000));
    expect(freshness(root)).toBe("hash");
  });

  it("runs from source once a source changes, even by one byte and with the same size", () => {
    const root = builtTree();
    writeFileSync(join(root, "src", "b.ts"), "export const b = 3;\n");
    expect(bundleIfFresh(root)).toBeNull();
    // Even with its old time put back (as cp -p or tar would): its change time says it changed.
    utimesSync(join(root, "src", "b.ts"), BUILT_AT, BUILT_AT);
    expect(statSync(join(root, "src", "b.ts")).mtimeMs).toBe(BUILT_AT.getTime());
    expect(bundleIfFresh(root)).toBeNull();
  });

  it("runs from source when a source is gone, the manifest is missing or is not JSON", () => {
    const gone = builtTree();
    rmSync(join(gone, "src", "a.ts"));
    expect(bundleIfFresh(gone)).toBeNull();
    const missing = builtTree();
    rmSync(join(missing, MANIFEST));
    expect(bundleIfFresh(missing)).toBeNull();
    const broken = builtTree();
    writeFileSync(join(broken, MANIFEST), "{");
    expect(bundleIfFresh(broken)).toBeNull();
  });
});
