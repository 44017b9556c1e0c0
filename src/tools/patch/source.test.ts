import { describe, expect, it } from "vitest";
import { resolveWorkspacePath } from "../../core/workspace-path.ts";
import { planPatch } from "./plan.ts";
import { sourceFromContext, sourceFromSandbox } from "./source.ts";
import { MemorySandbox, ROOT } from "./testing/memory.ts";

describe("sourceFromSandbox", () => {
  it("resolves through the workspace resolver and reads bytes, null when missing", async () => {
    const sandbox = new MemorySandbox({ "src/a.txt": "a\n" });
    const source = sourceFromSandbox(sandbox);
    const path = await source.resolve("./src//a.txt");
    expect(path).toEqual({ relative: "src/a.txt", absolute: `${ROOT}/src/a.txt` });
    expect(new TextDecoder().decode((await source.read(path))!)).toBe("a\n");
    expect(await source.read(await source.resolve("src/missing.txt"))).toBeNull();
    expect(await source.read(await source.resolve("src/a.txt/under-a-file"))).toBeNull();
  });

  it("refuses escapes and symlinks", async () => {
    const sandbox = new MemorySandbox({ "real/a.txt": "a\n" });
    await sandbox.symlink(`${ROOT}/real`, `${ROOT}/link`);
    const source = sourceFromSandbox(sandbox);
    await expect(source.resolve("../outside.txt")).rejects.toMatchObject({ code: "path_escape" });
    await expect(source.resolve("link/a.txt")).rejects.toMatchObject({ code: "symlink_blocked" });
  });

  it("follows symlinks that stay inside when asked to", async () => {
    const sandbox = new MemorySandbox({ "real/a.txt": "a\n" });
    await sandbox.symlink("real", `${ROOT}/link`);
    const source = sourceFromSandbox(sandbox, { symlinks: "inside" });
    expect((await source.resolve("link/a.txt")).relative).toBe("real/a.txt");
  });

  it("refuses a folder where the patch names a file", async () => {
    const sandbox = new MemorySandbox({ "dir/a.txt": "a\n" });
    const source = sourceFromSandbox(sandbox);
    await expect(source.read(await source.resolve("dir"))).rejects.toMatchObject({ code: "not_a_file" });
  });

  it("makes a patch through a symlink fail with symlink_blocked and write nothing", async () => {
    const sandbox = new MemorySandbox({ "real/a.txt": "a\n" });
    await sandbox.symlink(`${ROOT}/real/a.txt`, `${ROOT}/alias.txt`);
    await expect(
      planPatch(
        { kind: "text", text: "--- a/alias.txt\n+++ b/alias.txt\n@@ -1 +1 @@\n-a\n+b\n" },
        sourceFromSandbox(sandbox),
      ),
    ).rejects.toMatchObject({ code: "symlink_blocked" });
    expect(sandbox.files()).toEqual({ "real/a.txt": "a\n" });
  });

  it("from a tool context, resolves with the context's own resolver", async () => {
    const sandbox = new MemorySandbox({ "real/a.txt": "a\n" });
    await sandbox.symlink("real", `${ROOT}/link`);
    const asked: unknown[] = [];
    const source = sourceFromContext({
      sandbox,
      resolve: (path) => {
        asked.push(path);
        return resolveWorkspacePath(sandbox, path, { symlinks: "inside" });
      },
    });
    const path = await source.resolve("link/a.txt");
    expect(path.relative).toBe("real/a.txt");
    expect(new TextDecoder().decode((await source.read(path))!)).toBe("a\n");
    expect(asked).toEqual(["link/a.txt"]);
  });
});
