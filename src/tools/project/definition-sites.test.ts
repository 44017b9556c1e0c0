import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parser } from "@lezer/python";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { mayBeDefinitionAt, mayDefine, type SourceLanguage } from "./definition-sites.ts";
import { pythonSymbols, type SymbolDefinition, typescriptSymbols } from "./symbols.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..");

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1))
    starts.push(index + 1);
  return starts;
}

/** Definitions whose name, on its line, is at no occurrence the pre-filter keeps: each one a missed result. */
function missed(text: string, symbols: SymbolDefinition[], language: SourceLanguage): string[] {
  const starts = lineStarts(text);
  const wrong: string[] = [];
  for (const symbol of symbols) {
    const name = symbol.symbol.replace(/^#/u, "");
    if (!/^[\p{ID_Continue}$]+$/u.test(name)) continue;
    const from = starts[symbol.line - 1]!;
    const to = starts[symbol.line] ?? text.length;
    let kept = false;
    for (
      let found = text.indexOf(name, from);
      found !== -1 && found < to;
      found = text.indexOf(name, found + 1)
    )
      if (mayBeDefinitionAt(text, found, name.length, language)) kept = true;
    if (!kept) wrong.push(`${symbol.symbol} (line ${symbol.line}): ${text.slice(from, to).trim()}`);
  }
  return wrong;
}

function filesUnder(folder: string, pattern: RegExp, limit: number): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (out.length >= limit) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) visit(path);
      } else if (pattern.test(entry.name)) out.push(path);
    }
  };
  visit(folder);
  return out;
}

describe("the definition-site pre-filter never hides a definition", () => {
  it("on this project's own TypeScript and on large JavaScript bundles", () => {
    const files = [
      ...filesUnder(join(ROOT, "src"), /\.tsx?$/u, 2000),
      join(ROOT, "node_modules/isomorphic-git/index.js"),
      join(ROOT, "node_modules/fflate/esm/browser.js"),
      join(ROOT, "node_modules/ajv/dist/compile/validate/index.js"),
    ].filter(existsSync);
    expect(files.length).toBeGreaterThan(200);
    const wrong: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const language = file.endsWith(".js") ? "javascript" : "typescript";
      for (const miss of missed(text, typescriptSymbols(ts, text, file), language))
        wrong.push(`${file}: ${miss}`);
    }
    expect(wrong).toEqual([]);
  });

  it("on Python's standard library", () => {
    const stdlib = execFileSync("python3", ["-c", "import os; print(os.path.dirname(os.__file__))"], {
      encoding: "utf8",
    }).trim();
    const files = [
      ...filesUnder(join(stdlib, "json"), /\.py$/u, 20),
      ...filesUnder(join(stdlib, "email"), /\.py$/u, 40),
      ...["argparse.py", "dataclasses.py", "typing.py", "enum.py", "textwrap.py", "inspect.py", "ast.py"].map(
        (name) => join(stdlib, name),
      ),
    ].filter(existsSync);
    expect(files.length).toBeGreaterThan(30);
    const wrong: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const miss of missed(text, pythonSymbols(parser, text), "python")) wrong.push(`${file}: ${miss}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("the uses it sees past", () => {
  const ts$ = (text: string, needle = "helper") => mayDefine(text, text, needle, "typescript");
  const py = (text: string, needle = "helper") => mayDefine(text, text, needle, "python");

  it("imports, calls and member accesses are not definitions", () => {
    expect(ts$('import { helper } from "./shared";\nexport const x = helper(1);\n')).toBe(false);
    expect(ts$('import {\n  other,\n  helper,\n} from "./shared";\nfoo.helper();\nreturn helper(2);\n')).toBe(
      false,
    );
    expect(
      ts$('import type { HelperOptions } from "./x";\nconst y = a?.helperOptions;\n', "helperoptions"),
    ).toBe(false);
    expect(
      py("from shared import helper, other\nimport helper_mod as h\nx = helper(1)\nself.helper = 2\n"),
    ).toBe(false);
  });

  it("keeps whatever might be one", () => {
    expect(ts$("export function helper() {}\n")).toBe(true);
    expect(ts$("const { a, helper } = obj;\n")).toBe(true);
    expect(ts$("class A {\n  x = y!\n  helper() {}\n}\n")).toBe(true);
    expect(ts$("class A {\n  @dec()\n  helper() {}\n}\n")).toBe(true);
    expect(ts$("class A {\n  static *helper() {}\n}\n")).toBe(true);
    expect(ts$("// see x.\nclass A { m() {}\n helper() {}\n}\n")).toBe(true);
    expect(ts$("/* a. */ helper() {}\n")).toBe(true);
    expect(ts$("namespace Outer.helper {}\n")).toBe(true);
    expect(ts$("// import\nconst { helper } = x;\n")).toBe(true);
    expect(ts$('class A { "my-helper"() {} }\n', "my-helper")).toBe(true);
    expect(py("def helper():\n    pass\n")).toBe(true);
    expect(py("class Helper(Base):\n    pass\n", "helper".replace("h", "H"))).toBe(true);
    expect(py("import os\nhelper, other = 1, 2\n")).toBe(true);
    expect(py("# note.\nhelper = 1\n")).toBe(true);
    expect(py("def \\\n    helper():\n    pass\n")).toBe(true);
  });
});
