import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolContext } from "../../core/tool-context.ts";
import { EmbeddedSandbox } from "../../sandbox/embedded/embedded-sandbox.ts";
import { tempDir } from "../git/native-git.test-helpers.ts";
import { parseTsc } from "./issue-parsers.ts";
import { typecheckWithCompiler } from "./typescript-check.ts";

const PROJECT: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: {
      strict: true,
      target: "es2022",
      module: "esnext",
      moduleResolution: "bundler",
      noEmit: true,
      types: [],
    },
    include: ["src"],
  }),
  "src/a.ts":
    'import { helper } from "./b";\nexport function f(x: number): string {\n  return x + helper;\n}\nconst y: number = "s";\n',
  "src/b.ts": "export const helper = 1;\nexport const z: string = undefinedThing;\n",
  "src/ok.ts": "export const fine: number = 1;\n",
  "other/ignored.ts": "const wrong: number = 'x';\n",
};

async function sandboxWith(files: Record<string, string>) {
  const sandbox = await EmbeddedSandbox.create();
  for (const [path, content] of Object.entries(files)) {
    await sandbox.mkdir(`/workspace/${dirname(path)}`, { recursive: true });
    await sandbox.writeFile(`/workspace/${path}`, content);
  }
  return createToolContext(sandbox);
}

describe("typecheckWithCompiler", () => {
  it("reports what native tsc reports on the same project", async () => {
    const context = await sandboxWith(PROJECT);
    const ours = await typecheckWithCompiler(context);
    const disk = tempDir("toolroom-tsc-");
    for (const [path, content] of Object.entries(PROJECT)) {
      mkdirSync(dirname(join(disk, path)), { recursive: true });
      writeFileSync(join(disk, path), content);
    }
    let native = "";
    try {
      execFileSync(
        join(import.meta.dirname, "../../../node_modules/.bin/tsc"),
        ["-p", ".", "--pretty", "false"],
        { cwd: disk, encoding: "utf8" },
      );
    } catch (error) {
      native = (error as { stdout: string }).stdout;
    }
    expect(ours.issues).toEqual(parseTsc(native)!.issues);
    expect(ours.rawOutput).toBe(native);
    expect(ours.configFile).toBe("tsconfig.json");
    expect(ours.filesChecked).toBe(3);
  }, 120_000); // runs native tsc as well as the in-worker compiler: slow on a busy machine

  it("re-checks after an edit, reusing what did not change", async () => {
    const context = await sandboxWith(PROJECT);
    expect((await typecheckWithCompiler(context)).issues).toHaveLength(3);
    await context.sandbox.writeFile("/workspace/src/b.ts", "export const helper = '1';\n");
    await context.sandbox.writeFile(
      "/workspace/src/a.ts",
      'import { helper } from "./b";\nexport const s: string = helper;\n',
    );
    expect((await typecheckWithCompiler(context)).issues).toEqual([]);
  });

  it("limits the report to paths, and works without a tsconfig.json", async () => {
    const context = await sandboxWith(PROJECT);
    const only = await typecheckWithCompiler(context, { paths: ["src/b.ts"] });
    expect(only.issues.map((issue) => issue.file)).toEqual(["src/b.ts"]);
    const bare = await sandboxWith({ "main.ts": "const n: number = 'x';\n" });
    const result = await typecheckWithCompiler(bare);
    expect(result.issues).toEqual([
      {
        file: "main.ts",
        line: 1,
        col: 7,
        rule: "TS2322",
        message: "Type 'string' is not assignable to type 'number'.",
        severity: "error",
      },
    ]);
    expect(result.warnings[0]).toContain("No tsconfig.json");
  });
});

describe("setTypeScriptLibs", () => {
  it("type-checks with lib files from a registered loader (how a browser build provides them)", async () => {
    const { setTypeScriptLibs } = await import("./typescript-check.ts");
    const { readFileSync, readdirSync } = await import("node:fs");
    const folder = join(import.meta.dirname, "../../../node_modules/typescript/lib");
    let loads = 0;
    setTypeScriptLibs(async () => {
      loads++;
      const files: Record<string, string> = {};
      for (const name of readdirSync(folder).filter((file) => /^lib\..*\.d\.ts$/u.test(file)))
        files[name] = readFileSync(join(folder, name), "utf8");
      return files;
    });
    try {
      const context = await sandboxWith({
        "main.ts": "const n: number = 'x';\nconst m: string = [1].at(0);\n",
      });
      const result = await typecheckWithCompiler(context);
      expect(result.issues.map((issue) => issue.rule)).toEqual(["TS2322", "TS2322"]);
      await typecheckWithCompiler(context);
      expect(loads).toBe(1);
      setTypeScriptLibs(async () => ({}));
      const empty = await typecheckWithCompiler(await sandboxWith({ "main.ts": "export {};\n" }));
      expect(empty.issues.some((issue) => issue.rule === "TS6053" || issue.rule === "TS2318")).toBe(true);
    } finally {
      setTypeScriptLibs(undefined);
    }
  });
});
