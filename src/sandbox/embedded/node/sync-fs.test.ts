import { InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { ContentMissing, FsError, normalizePath, SyncFs } from "./sync-fs.ts";

async function mirrorOf(files: Record<string, string>, roots = ["/w"]) {
  const fs = new InMemoryFs();
  for (const [path, text] of Object.entries(files)) await fs.writeFile(path, text);
  return { fs, mirror: await SyncFs.load(fs, roots, () => true) };
}

describe("SyncFs", () => {
  it("normalizes paths", () => {
    expect(normalizePath("/a//b/./c/../d/")).toBe("/a/b/d");
    expect(normalizePath("/../..")).toBe("/");
  });

  it("reads the loaded roots synchronously and nothing outside them", async () => {
    const { mirror } = await mirrorOf({ "/w/a.txt": "A", "/w/sub/b.txt": "B", "/other/c.txt": "C" });
    expect(mirror.readText("/w/sub/b.txt")).toBe("B");
    expect(mirror.readdir("/w").map((e) => `${e.name}:${e.kind}`)).toEqual(["a.txt:file", "sub:directory"]);
    expect(mirror.exists("/other/c.txt")).toBe(false);
    expect(() => mirror.readFile("/w/missing")).toThrowError(
      /ENOENT: no such file or directory, open '\/w\/missing'/u,
    );
  });

  it("changes the mirror at once and the real filesystem on flush, in order", async () => {
    const { fs, mirror } = await mirrorOf({ "/w/a.txt": "A" });
    mirror.mkdir("/w/new/deep", true);
    mirror.writeFile("/w/new/deep/f.txt", new TextEncoder().encode("one"));
    mirror.writeFile("/w/new/deep/f.txt", new TextEncoder().encode("+two"), true);
    mirror.rename("/w/a.txt", "/w/new/a.txt");
    mirror.rm("/w/new/deep", { recursive: true });
    expect(mirror.exists("/w/a.txt")).toBe(false);
    expect(await fs.exists("/w/a.txt")).toBe(true);
    expect(mirror.dirty).toBe(true);
    expect(await mirror.flush(fs)).toEqual([]);
    expect(await fs.exists("/w/a.txt")).toBe(false);
    expect(await fs.readFile("/w/new/a.txt")).toBe("A");
    expect(await fs.exists("/w/new/deep")).toBe(false);
  });

  it("raises Node's error codes", async () => {
    const { mirror } = await mirrorOf({ "/w/file": "x", "/w/dir/inner": "y" });
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error instanceof FsError ? `${error.code} ${error.syscall} ${error.errno}` : String(error);
      }
      return "no error";
    };
    expect(code(() => mirror.mkdir("/w/file", false))).toBe("EEXIST mkdir -17");
    expect(code(() => mirror.readdir("/w/file"))).toBe("ENOTDIR scandir -20");
    expect(code(() => mirror.readFile("/w/dir"))).toBe("EISDIR read -21");
    expect(code(() => mirror.rmdir("/w/dir"))).toBe("ENOTEMPTY rmdir -39");
    expect(code(() => mirror.writeFile("/w/nope/x", new Uint8Array()))).toBe("ENOENT open -2");
    expect(code(() => mirror.rm("/w/dir"))).toBe("ENOTEMPTY rm -39");
    expect(code(() => mirror.rm("/w/gone", { force: true }))).toBe("no error");
  });

  it("follows symlinks and reports their targets", async () => {
    const fs = new InMemoryFs();
    await fs.writeFile("/w/real/file.txt", "through the link");
    await fs.symlink("/w/real", "/w/link");
    const mirror = await SyncFs.load(fs, ["/w"], () => true);
    expect(mirror.readText("/w/link/file.txt")).toBe("through the link");
    expect(mirror.realpath("/w/link/file.txt")).toBe("/w/real/file.txt");
    expect(mirror.readlink("/w/link")).toBe("/w/real");
    expect(mirror.stat("/w/link", false).kind).toBe("symlink");
  });

  it("loads code up front and other contents on demand, knowing every name and size", async () => {
    const fs = new InMemoryFs();
    await fs.writeFile("/w/index.js", "code");
    await fs.writeFile("/w/package.json", "{}");
    await fs.writeFile("/w/data/big.csv", "a,b\n1,2\n");
    await fs.writeFile("/w/data/other.txt", "x");
    const mirror = await SyncFs.load(fs, ["/w"]);
    expect(mirror.readText("/w/index.js")).toBe("code");
    expect(mirror.readdir("/w/data").map((e) => e.name)).toEqual(["big.csv", "other.txt"]);
    expect(mirror.stat("/w/data/big.csv").size).toBe(8);
    expect(() => mirror.readFile("/w/data/big.csv")).toThrow(ContentMissing);
    await mirror.loadContents(fs, ["/w/data/big.csv"]);
    expect(mirror.readText("/w/data/big.csv")).toBe("a,b\n1,2\n");
    expect(mirror.readText("/w/data/other.txt")).toBe("x");
  });
});
