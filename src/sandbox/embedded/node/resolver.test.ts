import { InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { builtinName, formatOf, resolveExports, resolveImport, resolveRequire } from "./resolver.ts";
import { SyncFs } from "./sync-fs.ts";

async function tree(files: Record<string, string>) {
  const fs = new InMemoryFs();
  for (const [path, text] of Object.entries(files)) await fs.writeFile(path, text);
  return SyncFs.load(fs, ["/p"]);
}

describe("module resolution", () => {
  it("knows the builtins, node:test only with its scheme", () => {
    expect(builtinName("fs")).toBe("fs");
    expect(builtinName("node:fs/promises")).toBe("fs/promises");
    expect(builtinName("node:test")).toBe("test");
    expect(builtinName("test")).toBeNull();
  });

  it("require: extensions, index files, package main and JSON", async () => {
    const fs = await tree({
      "/p/a.js": "",
      "/p/data.json": "{}",
      "/p/lib/index.js": "",
      "/p/node_modules/m/package.json": JSON.stringify({ main: "src/main" }),
      "/p/node_modules/m/src/main.js": "",
      "/p/node_modules/plain/index.js": "",
    });
    expect(resolveRequire(fs, "./a", "/p")).toEqual({ path: "/p/a.js", format: "commonjs" });
    expect(resolveRequire(fs, "./data.json", "/p")).toEqual({ path: "/p/data.json", format: "json" });
    expect(resolveRequire(fs, "./lib", "/p")?.path).toBe("/p/lib/index.js");
    expect(resolveRequire(fs, "m", "/p/lib")?.path).toBe("/p/node_modules/m/src/main.js");
    expect(resolveRequire(fs, "plain", "/p")?.path).toBe("/p/node_modules/plain/index.js");
    expect(resolveRequire(fs, "./missing", "/p")).toBeNull();
    expect(resolveRequire(fs, "node:fs", "/p")).toEqual({ path: "node:fs", format: "builtin" });
  });

  it("exports: conditions, subpaths and patterns", () => {
    const exports = {
      ".": { import: "./esm.mjs", require: "./cjs.cjs" },
      "./feature/*": { default: "./features/*.js" },
      "./fixed": "./fixed.js",
    };
    expect(resolveExports(exports, ".", ["node", "require"])).toBe("./cjs.cjs");
    expect(resolveExports(exports, ".", ["node", "import"])).toBe("./esm.mjs");
    expect(resolveExports(exports, "./feature/x/y", ["node", "import"])).toBe("./features/x/y.js");
    expect(resolveExports(exports, "./fixed", [])).toBe("./fixed.js");
    expect(resolveExports(exports, "./private", [])).toBeNull();
    expect(resolveExports("./only.js", ".", [])).toBe("./only.js");
  });

  it("formats follow the extension, then the nearest package.json type", async () => {
    const fs = await tree({
      "/p/package.json": JSON.stringify({ type: "module" }),
      "/p/a.js": "",
      "/p/cjs/package.json": "{}",
      "/p/cjs/b.js": "",
    });
    expect(formatOf(fs, "/p/a.js")).toBe("module");
    expect(formatOf(fs, "/p/cjs/b.js")).toBe("commonjs");
    expect(formatOf(fs, "/p/c.cjs")).toBe("commonjs");
    expect(formatOf(fs, "/p/cjs/d.mjs")).toBe("module");
  });

  it("import: no extension search, directory imports refused, packages by the import condition", async () => {
    const fs = await tree({
      "/p/a.js": "",
      "/p/dir/index.js": "",
      "/p/node_modules/dual/package.json": JSON.stringify({
        exports: { import: "./e.mjs", require: "./c.cjs" },
      }),
      "/p/node_modules/dual/e.mjs": "",
    });
    expect(resolveImport(fs, "./a.js", "/p/main.mjs").path).toBe("/p/a.js");
    expect(() => resolveImport(fs, "./a", "/p/main.mjs")).toThrowError(
      "Cannot find module '/p/a' imported from /p/main.mjs",
    );
    expect(() => resolveImport(fs, "./dir", "/p/main.mjs")).toThrowError(/Directory import/u);
    expect(resolveImport(fs, "dual", "/p/main.mjs")).toEqual({
      path: "/p/node_modules/dual/e.mjs",
      format: "module",
    });
    expect(() => resolveImport(fs, "absent", "/p/main.mjs")).toThrowError("Cannot find package 'absent'");
  });
});
