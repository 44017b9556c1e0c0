import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../../sandbox/embedded/embedded-sandbox.ts";
import { SandboxError } from "../../sandbox/types.ts";
import { commitPatch } from "./commit.ts";
import { planPatch } from "./plan.ts";
import { sourceFromSandbox } from "./source.ts";
import { MemorySandbox, ROOT } from "./testing/memory.ts";
import type { PatchRequest } from "./types.ts";

function envelope(...lines: string[]): PatchRequest {
  return { kind: "text", text: ["*** Begin Patch", ...lines, "*** End Patch"].join("\n") };
}

async function planAndCommit(sandbox: MemorySandbox, request: PatchRequest): Promise<void> {
  const plan = await planPatch(request, sourceFromSandbox(sandbox));
  await commitPatch(plan, sandbox, ROOT);
}

describe("commitPatch", () => {
  it("writes, creates folders, deletes and moves", async () => {
    const sandbox = new MemorySandbox({ "keep.txt": "a\n", "old/name.txt": "n\n", "drop.txt": "d\n" });
    await planAndCommit(
      sandbox,
      envelope(
        "*** Update File: keep.txt",
        "-a",
        "+A",
        "*** Add File: new/deep/file.txt",
        "+hello",
        "*** Delete File: drop.txt",
        "*** Update File: old/name.txt",
        "*** Move to: moved/name.txt",
      ),
    );
    expect(sandbox.files()).toEqual({
      "keep.txt": "A\n",
      "moved/name.txt": "n\n",
      "new/deep/file.txt": "hello\n",
    });
    expect(sandbox.folders()).toEqual(["moved", "new", "new/deep", "old"]);
  });

  it("on a failed write restores every file already touched and removes the folders it made", async () => {
    const sandbox = new MemorySandbox({ "a.txt": "a\n", "gone.txt": "g\n", "z.txt": "z\n" });
    sandbox.failWrites.add(`${ROOT}/z.txt`);
    const plan = await planPatch(
      envelope(
        "*** Update File: a.txt",
        "-a",
        "+A",
        "*** Delete File: gone.txt",
        "*** Add File: sub/new.txt",
        "+n",
        "*** Update File: z.txt",
        "-z",
        "+Z",
      ),
      sourceFromSandbox(sandbox),
    );
    const failure = await commitPatch(plan, sandbox, ROOT).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      code: "sandbox_error",
      message: expect.stringContaining("Writing z.txt failed"),
      details: { path: "z.txt", cause: "EIO" },
    });
    expect((failure as Error).message).toContain("no file was changed");
    expect(sandbox.files()).toEqual({ "a.txt": "a\n", "gone.txt": "g\n", "z.txt": "z\n" });
    expect(sandbox.folders()).toEqual([]);
  });

  it("says which files it could not restore when the rollback fails too", async () => {
    const sandbox = new MemorySandbox({ "a.txt": "a\n", "z.txt": "z\n" });
    const plan = await planPatch(
      envelope("*** Update File: a.txt", "-a", "+A", "*** Update File: z.txt", "-z", "+Z"),
      sourceFromSandbox(sandbox),
    );
    const write = sandbox.writeFile.bind(sandbox);
    sandbox.writeFile = async (path, data) => {
      // z.txt fails, and from then on so does a.txt: the rollback cannot put it back.
      if (path.endsWith("/z.txt")) {
        sandbox.failWrites.add(`${ROOT}/z.txt`);
        sandbox.failWrites.add(`${ROOT}/a.txt`);
      }
      return write(path, data);
    };
    await expect(commitPatch(plan, sandbox, ROOT)).rejects.toMatchObject({
      code: "sandbox_error",
      message: expect.stringContaining("these files could not be restored: a.txt"),
      details: { path: "z.txt", unrestored: ["a.txt"] },
    });
  });

  it("refuses to write over a file that changed after planning, before writing anything", async () => {
    const sandbox = new MemorySandbox({ "a.txt": "a\n", "b.txt": "b\n" });
    const plan = await planPatch(
      envelope("*** Update File: a.txt", "-a", "+A", "*** Update File: b.txt", "-b", "+B"),
      sourceFromSandbox(sandbox),
    );
    sandbox.put(`${ROOT}/b.txt`, "someone else\n");
    await expect(commitPatch(plan, sandbox, ROOT)).rejects.toMatchObject({
      code: "hash_mismatch",
      details: { path: "b.txt" },
    });
    expect(sandbox.log).toEqual([]);
    expect(sandbox.files()).toEqual({ "a.txt": "a\n", "b.txt": "someone else\n" });
  });

  it("refuses a file under a path that is a file, and leaves everything as it was", async () => {
    const sandbox = new MemorySandbox({ "a.txt": "a\n", blocker: "file\n" });
    const plan = await planPatch(
      envelope("*** Update File: a.txt", "-a", "+A", "*** Add File: blocker/inner.txt", "+x"),
      sourceFromSandbox(sandbox),
    );
    await expect(commitPatch(plan, sandbox, ROOT)).rejects.toMatchObject({
      code: "not_a_directory",
      message: expect.stringContaining("blocker is a file"),
    });
    expect(sandbox.files()).toEqual({ "a.txt": "a\n", blocker: "file\n" });
  });

  it("accepts a root given with a trailing slash", async () => {
    const sandbox = new MemorySandbox({ "a.txt": "a\n" });
    const plan = await planPatch(envelope("*** Update File: a.txt", "-a", "+b"), sourceFromSandbox(sandbox));
    await commitPatch(plan, sandbox, `${ROOT}/`);
    expect(sandbox.files()).toEqual({ "a.txt": "b\n" });
  });

  it("writes CRLF and BOM files byte for byte", async () => {
    const sandbox = new MemorySandbox({ "w.txt": "\uFEFFa\r\nb\r\n" });
    await planAndCommit(sandbox, envelope("*** Update File: w.txt", " a", "-b", "+c"));
    expect(Array.from(await sandbox.readFile(`${ROOT}/w.txt`))).toEqual([
      0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0x63, 0x0d, 0x0a,
    ]);
  });

  it("does nothing for a plan with no files", async () => {
    const sandbox = new MemorySandbox({ "a.txt": "a\n" });
    await commitPatch({ format: "unified", files: [], hunks: [], diff: "" }, sandbox, ROOT);
    expect(sandbox.log).toEqual([]);
  });

  it("rolls back on the embedded sandbox too", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const root = sandbox.workspaceRoot;
    await sandbox.writeFile(`${root}/a.txt`, "a\n");
    await sandbox.writeFile(`${root}/z.txt`, "z\n");
    const plan = await planPatch(
      envelope(
        "*** Update File: a.txt",
        "-a",
        "+A",
        "*** Add File: n/new.txt",
        "+n",
        "*** Update File: z.txt",
        "-z",
        "+Z",
      ),
      sourceFromSandbox(sandbox),
    );
    const write = sandbox.writeFile.bind(sandbox);
    sandbox.writeFile = async (path, data) => {
      if (path === `${root}/z.txt`) throw new SandboxError("EIO", path);
      return write(path, data);
    };
    await expect(commitPatch(plan, sandbox, root)).rejects.toMatchObject({ code: "sandbox_error" });
    const left = (await sandbox.snapshot()).entries.map((entry) =>
      entry.type === "file" ? `${entry.path}=${new TextDecoder().decode(entry.data)}` : entry.path,
    );
    expect(left).toEqual(["a.txt=a\n", "z.txt=z\n"]);
  });
});
