import { parser } from "@lezer/python";
import ts from "typescript";
import { describe, expect, it, vi } from "vitest";
import { createToolContext } from "../../core/tool-context.ts";
import { EmbeddedSandbox } from "../../sandbox/embedded/embedded-sandbox.ts";
import { pythonSymbols, searchSymbols, typescriptSymbols } from "./symbols.ts";

const PY = `"""Docstring mentioning def fake(): and class Fake:"""
import os
X = 1
Y: int = 2
a, b = 1, 2

class Foo(Base):
    attr = 3

    def method(self):
        local = 1
        def inner():
            pass
        return local

    @property
    def prop(self):
        return self.attr

async def bar(a, b=2):
    pass

if os.name == "nt":
    def windows_only():
        pass
`;

describe("pythonSymbols", () => {
  it("finds classes, functions, methods and module and class variables, not locals or strings", () => {
    expect(
      pythonSymbols(parser, PY).map(({ symbol, kind, line, detail, container }) => ({
        symbol,
        kind,
        line,
        detail,
        container,
      })),
    ).toEqual([
      { symbol: "X", kind: "variable", line: 3, detail: undefined, container: undefined },
      { symbol: "Y", kind: "variable", line: 4, detail: undefined, container: undefined },
      { symbol: "a", kind: "variable", line: 5, detail: undefined, container: undefined },
      { symbol: "b", kind: "variable", line: 5, detail: undefined, container: undefined },
      { symbol: "Foo", kind: "class", line: 7, detail: undefined, container: undefined },
      { symbol: "attr", kind: "variable", line: 8, detail: "attribute", container: "Foo" },
      { symbol: "method", kind: "function", line: 10, detail: "method", container: "Foo" },
      { symbol: "prop", kind: "function", line: 17, detail: "method", container: "Foo" },
      { symbol: "bar", kind: "function", line: 20, detail: undefined, container: undefined },
      { symbol: "windows_only", kind: "function", line: 24, detail: undefined, container: undefined },
    ]);
  });

  it("leaves out functions and classes defined inside a function: they are locals", () => {
    const source =
      "def outer():\n    def helper():\n        def deeper():\n            pass\n    class Local:\n        def m(self):\n            pass\n    return helper\n";
    expect(pythonSymbols(parser, source).map((symbol) => symbol.symbol)).toEqual(["outer"]);
  });

  it("recovers from syntax errors and marks what it recovered", () => {
    const symbols = pythonSymbols(
      parser,
      "def ok():\n    pass\n\ndef broken(:\n    pass\n\nclass After:\n    pass\n",
    );
    expect(symbols.find((symbol) => symbol.symbol === "ok")?.recovered).toBe(false);
    expect(symbols.find((symbol) => symbol.symbol === "After")).toMatchObject({ kind: "class", line: 7 });
  });
});

const TS = `// function fake() in a comment
export function f(a: number): string { const inner = 1; return ""; }
export const g = () => 1, h = 2;
const fn = function () {};
class K {
  prop = 1;
  #secret = 2;
  method() { const local = 1; }
  static s() {}
}
export interface I { x: number }
type T = string;
enum E { A }
let v;
export default class {}
`;

describe("typescriptSymbols", () => {
  it("finds functions (declared or assigned), classes, interfaces, types, enums, methods, properties and top-level variables", () => {
    expect(
      typescriptSymbols(ts, TS, "a.ts").map(({ symbol, kind, line, detail }) => [symbol, kind, line, detail]),
    ).toEqual([
      ["f", "function", 2, undefined],
      ["g", "function", 3, undefined],
      ["h", "variable", 3, undefined],
      ["fn", "function", 4, undefined],
      ["K", "class", 5, undefined],
      ["prop", "variable", 6, "property"],
      ["#secret", "variable", 7, "property"],
      ["method", "function", 8, "method"],
      ["s", "function", 9, "method"],
      ["I", "class", 11, "interface"],
      ["T", "class", 12, "type"],
      ["E", "class", 13, "enum"],
      ["v", "variable", 14, undefined],
    ]);
  });

  it("leaves out declarations inside functions (object literals' methods and accessors too); names destructured at module level count", () => {
    const source = [
      "export function outer() {",
      "  function helper() {}",
      "  class Local { m() {} }",
      "  const { hidden } = obj;",
      "  return helper;",
      "}",
      "const arrow = () => { function inArrow() {} };",
      "export const { alpha, beta: renamed, ...rest } = config;",
      "const [first, [second], { third = 3 }] = list;",
      "export const tool = { async run(params) { const listed = 1; function inner() {} }, get size() { const n = 2; return n; } };",
      "register({ handler() { const local = 3; } });",
    ].join("\n");
    expect(
      typescriptSymbols(ts, source, "m.ts").map(({ symbol, kind, line }) => [symbol, kind, line]),
    ).toEqual([
      ["outer", "function", 1],
      ["arrow", "function", 7],
      ["alpha", "variable", 8],
      ["renamed", "variable", 8],
      ["rest", "variable", 8],
      ["first", "variable", 9],
      ["second", "variable", 9],
      ["third", "variable", 9],
      ["tool", "variable", 10],
    ]);
  });

  it("recovers from syntax errors and marks what it recovered", () => {
    const symbols = typescriptSymbols(
      ts,
      "export function ok() {}\nfunction broken() {\n  const = 1;\n}\nclass After {}\n",
      "a.ts",
    );
    expect(symbols.find((symbol) => symbol.symbol === "ok")?.recovered).toBe(false);
    expect(symbols.find((symbol) => symbol.symbol === "broken")?.recovered).toBe(true);
    expect(symbols.find((symbol) => symbol.symbol === "After")).toMatchObject({
      kind: "class",
      line: 5,
      recovered: false,
    });
  });

  it("parses TSX and plain JavaScript", () => {
    expect(typescriptSymbols(ts, "export const App = () => <div>{x}</div>;\n", "App.tsx")[0]).toMatchObject({
      symbol: "App",
      kind: "function",
    });
    expect(
      typescriptSymbols(ts, "function add(a, b) { return a + b }\nmodule.exports = { add };\n", "a.js")[0],
    ).toMatchObject({ symbol: "add", kind: "function" });
  });
});

async function workspace(files: Record<string, string>) {
  const sandbox = await EmbeddedSandbox.create();
  for (const [path, content] of Object.entries(files)) {
    await sandbox.mkdir(`/workspace/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await sandbox.writeFile(`/workspace/${path}`, content);
  }
  return createToolContext(sandbox);
}

describe("searchSymbols", () => {
  const files = {
    "app/models.py": "class UserModel:\n    pass\n\ndef load_user():\n    pass\n",
    "app/views.py": "from .models import UserModel\n\ndef user_view():\n    return UserModel()\n",
    "web/src/user.ts": "export class User {}\nexport function loadUser(): User { return new User(); }\n",
    "web/src/user.js": "export const user = 1;\n",
    "node_modules/dep/index.js": "export function User() {}\n",
    ".hidden/x.py": "class User: pass\n",
    "notes.md": "class User\n",
  };

  it("matches by name (case-insensitive substring), ranked by closeness, with file, line, kind, confidence", async () => {
    const context = await workspace(files);
    const found = await searchSymbols(context, { query: "user", exact: false, maxResults: 50 });
    expect(
      found.results.map(({ symbol, file, line, kind, confidence }) => [symbol, file, line, kind, confidence]),
    ).toEqual([
      ["user", "web/src/user.js", 1, "variable", 1],
      ["User", "web/src/user.ts", 1, "class", 0.95],
      ["UserModel", "app/models.py", 1, "class", 0.85],
      ["user_view", "app/views.py", 3, "function", 0.85],
      ["load_user", "app/models.py", 4, "function", 0.7],
      ["loadUser", "web/src/user.ts", 2, "function", 0.7],
    ]);
  });

  it("honours exact, lang and max_results", async () => {
    const context = await workspace(files);
    expect(
      (await searchSymbols(context, { query: "User", exact: true, maxResults: 50 })).results.map(
        (r) => r.file,
      ),
    ).toEqual(["web/src/user.ts"]);
    expect(
      (
        await searchSymbols(context, { query: "user", exact: false, lang: "python", maxResults: 50 })
      ).results.every((r) => r.lang === "python"),
    ).toBe(true);
    expect(
      (
        await searchSymbols(context, { query: "user", exact: false, lang: "javascript", maxResults: 50 })
      ).results.map((r) => r.file),
    ).toEqual(["web/src/user.js"]);
    const capped = await searchSymbols(context, { query: "user", exact: false, maxResults: 2 });
    expect(capped.results).toHaveLength(2);
    expect(capped.total).toBe(6);
  });

  it("sees edits: the cache is keyed by size and mtime", async () => {
    const context = await workspace(files);
    await searchSymbols(context, { query: "user", exact: false, maxResults: 50 });
    await context.sandbox.writeFile("/workspace/app/models.py", "class AccountModel:\n    pass\n");
    const found = await searchSymbols(context, { query: "Model", exact: false, maxResults: 50 });
    expect(found.results.map((r) => r.symbol)).toEqual(["AccountModel"]);
  });
});

describe("searchSymbols on an unchanged workspace", () => {
  it("answers from what it read, and sees every kind of change the sandbox counts", async () => {
    const context = await workspace({ "a/one.ts": "export function first() {}\n" });
    const names = async (query: string) =>
      (await searchSymbols(context, { query, exact: false, maxResults: 50 })).results.map((r) => r.symbol);
    expect(await names("first")).toEqual(["first"]);
    // Unchanged: the same answer without reading the files again.
    const read = vi.spyOn(context.sandbox, "readFile");
    const stat = vi.spyOn(context.sandbox, "stat");
    expect(await names("first")).toEqual(["first"]);
    expect(read).not.toHaveBeenCalled();
    expect(stat).not.toHaveBeenCalled();
    // A shell command, an API write, a rename and a removal are each seen by the next call.
    await context.sandbox.exec("echo 'export class Second {}' > a/two.ts");
    expect(await names("second")).toEqual(["Second"]);
    await context.sandbox.writeFile("/workspace/a/one.ts", "export function renamed() {}\n");
    expect(await names("first")).toEqual([]);
    await context.sandbox.rename("/workspace/a/two.ts", "/workspace/a/two.txt");
    expect(await names("second")).toEqual([]);
    await context.sandbox.exec("echo '*.ts' > .gitignore");
    expect(await names("renamed")).toEqual([]);
  });
});
