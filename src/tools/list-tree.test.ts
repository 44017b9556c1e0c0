import { describe, expect, it } from "vitest";
import { createToolContext } from "../core/tool-context.ts";
import { loadFiles } from "../host/create-runtime.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { listTree } from "./list-tree.ts";
import { walkWorkspace } from "./walk.ts";

async function setup() {
  const sandbox = await EmbeddedSandbox.create();
  await loadFiles(sandbox, {
    "README.md": "",
    "b.txt": "",
    ".env": "",
    ".git/HEAD": "",
    "src/main.py": "",
    "src/core/loop.py": "",
    "src/core/deep/x.py": "",
    "a/z.txt": "",
  });
  await sandbox.symlink("src", "/workspace/link");
  return { sandbox, context: createToolContext(sandbox) };
}

const show = (entries: { relative: string; type: string }[]) =>
  entries.map(
    (entry) => entry.relative + (entry.type === "directory" ? "/" : entry.type === "symlink" ? "@" : ""),
  );

describe("listTree", () => {
  it("lists level by level in breadth order, directories first when asked", async () => {
    const { context } = await setup();
    const entries = await listTree(context, "", { maxDepth: 2, order: "breadth", directoriesFirst: true });
    expect(show(entries)).toEqual([
      ".git/",
      "a/",
      "src/",
      ".env",
      "README.md",
      "b.txt",
      "link@",
      "a/z.txt",
      "src/core/",
      "src/main.py",
    ]);
  });

  it("lists each folder followed by its contents in tree order", async () => {
    const { context } = await setup();
    const entries = await listTree(context, "src", { maxDepth: 3, order: "tree" });
    expect(show(entries)).toEqual(["core/", "core/deep/", "core/deep/x.py", "core/loop.py", "main.py"]);
    expect(entries.map((entry) => entry.depth)).toEqual([1, 2, 3, 2, 1]);
    expect(entries[0]).toMatchObject({ path: "src/core", name: "core" });
  });

  it("stops at the depth asked, and shows .git without entering it", async () => {
    const { context } = await setup();
    expect(show(await listTree(context, "", { maxDepth: 1, order: "tree" }))).toEqual([
      ".env",
      ".git/",
      "README.md",
      "a/",
      "b.txt",
      "link@",
      "src/",
    ]);
    const all = await listTree(context, "", { maxDepth: 10, order: "tree" });
    expect(show(all).filter((entry) => entry.startsWith(".git"))).toEqual([".git/"]);
  });
});

describe("walkWorkspace opaqueFolders", () => {
  it("yields an opaque folder but not its contents", async () => {
    const { sandbox } = await setup();
    const paths: string[] = [];
    for await (const entry of walkWorkspace(sandbox, "", {
      skipFolders: [],
      opaqueFolders: [".git", "core"],
    })) {
      paths.push(entry.path);
    }
    expect(paths).toContain(".git");
    expect(paths).toContain("src/core");
    expect(paths.filter((path) => path.startsWith(".git/") || path.startsWith("src/core/"))).toEqual([]);
  });
});
