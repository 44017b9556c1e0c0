import { InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { SyncFs } from "./sync-fs.ts";
import { findTestFiles, isDefaultTestFile } from "./test-files.ts";

describe("node --test file discovery", () => {
  it("matches Node 20's default patterns", () => {
    for (const path of [
      "a.test.js",
      "src/b.test.mjs",
      "c-test.cjs",
      "d_test.js",
      "test-e.js",
      "test.js",
      "test/f.js",
      "x/test/deep/g.mjs",
    ]) {
      expect(isDefaultTestFile(path), path).toBe(true);
    }
    for (const path of ["index.js", "src/testing.js", "latest.js", "a.test.ts", "contest.js", "tests/h.js"]) {
      expect(isDefaultTestFile(path), path).toBe(false);
    }
  });

  it("searches the folder, skips node_modules, sorts, and takes files and folders as arguments (no globs in Node 20)", async () => {
    const fs = new InMemoryFs();
    for (const path of [
      "/p/b.test.js",
      "/p/a.test.js",
      "/p/test/x.js",
      "/p/node_modules/dep/c.test.js",
      "/p/lib/util.js",
      "/p/lib/util.spec.js",
    ]) {
      await fs.writeFile(path, "");
    }
    const mirror = await SyncFs.load(fs, ["/p"]);
    expect(findTestFiles(mirror, "/p", []).files).toEqual(["/p/a.test.js", "/p/b.test.js", "/p/test/x.js"]);
    expect(findTestFiles(mirror, "/p", ["lib/util.spec.js", "test"]).files).toEqual([
      "/p/lib/util.spec.js",
      "/p/test/x.js",
    ]);
    expect(findTestFiles(mirror, "/p", ["lib"]).files).toEqual([]);
    expect(findTestFiles(mirror, "/p", ["nope.js", "lib/*.js"]).missing).toEqual(["nope.js", "lib/*.js"]);
  });
});
