import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolContext } from "../../core/tool-context.ts";
import { EmbeddedSandbox } from "../../sandbox/embedded/embedded-sandbox.ts";
import { type DiffOptions, gitDiff } from "./diff.ts";
import { git, loadIntoSandbox, tempDir } from "./native-git.test-helpers.ts";

function write(root: string, path: string, content: string | Uint8Array) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

const lines = (n: number, tag: string) =>
  `${Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join("\n")}\n`;

const PY = `import os


class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return f"Hello, {self.name}"

    def shout(self):
        return self.greet().upper()


def main():
    greeter = Greeter("world")
    print(greeter.greet())
    print(greeter.shout())
    return 0


if __name__ == "__main__":
    main()
`;

/** A history of two commits, then staged and unstaged edits of every kind on top. */
function repoWithHistory(): string {
  const root = tempDir();
  git(root, "init", "-q");
  write(root, ".gitignore", "*.log\n");
  write(root, "app.py", PY);
  write(root, "long.txt", lines(120, "long"));
  write(root, "notes.md", "# Notes\n\nfirst\n");
  write(root, "gone.txt", "going away\n");
  write(root, "staged_gone.txt", "staged deletion\n");
  write(root, "rename_me.txt", lines(25, "rename"));
  write(root, "no_newline.txt", "a\nb");
  write(root, "image.bin", new Uint8Array([0, 1, 2, 3, 255]));
  write(root, "script.sh", "#!/bin/sh\necho hi\n");
  write(root, "empty_later.txt", "will be emptied\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "first");
  git(root, "tag", "v1");
  write(root, "notes.md", "# Notes\n\nfirst\nsecond\n");
  write(root, "added_in_second.txt", "hello\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "second");
  // unstaged edits
  write(
    root,
    "app.py",
    PY.replace('return f"Hello, {self.name}"', 'return f"Hi, {self.name}!"').replace(
      "    return 0\n",
      "    return 1\n",
    ),
  );
  write(
    root,
    "long.txt",
    lines(120, "long")
      .replace("long line 5\n", "long line five\n")
      .replace("long line 60\n", "")
      .replace("long line 118\n", "long line 118\ninserted\n"),
  );
  rmSync(join(root, "gone.txt"));
  write(root, "no_newline.txt", "a\nB");
  write(root, "image.bin", new Uint8Array([0, 1, 2, 3, 254]));
  write(root, "empty_later.txt", "");
  chmodSync(join(root, "script.sh"), 0o755);
  write(root, "untracked.txt", "not in any diff\n");
  write(root, "debug.log", "ignored\n");
  // staged edits
  write(root, "staged_new.txt", "brand new\nfile\n");
  write(root, "empty_new.txt", "");
  git(root, "add", "staged_new.txt", "empty_new.txt");
  git(root, "rm", "-q", "staged_gone.txt");
  mkdirSync(join(root, "moved"));
  git(root, "mv", "rename_me.txt", "moved/renamed.txt");
  write(root, "notes.md", "# Notes\n\nfirst\nsecond\nthird (staged)\n");
  git(root, "add", "notes.md");
  write(root, "notes.md", "# Notes\n\nfirst\nsecond\nthird (staged)\nfourth (unstaged)\n");
  return root;
}

function nativeArgs(options: DiffOptions): string[] {
  const args = ["diff"];
  if (options.staged) args.push("--cached");
  if (options.baseRef) args.push(options.baseRef);
  if (options.targetRef) args.push(options.baseRef ? options.targetRef : options.targetRef);
  if (options.targetRef && !options.baseRef) args.splice(1, 0, "HEAD");
  if (options.pathspec) args.push("--", ...options.pathspec);
  return args;
}

async function sandboxOf(root: string) {
  const sandbox = await EmbeddedSandbox.create();
  await loadIntoSandbox(root, sandbox);
  return createToolContext(sandbox);
}

describe("gitDiff agrees with native git diff", () => {
  const root = repoWithHistory();
  const cases: [string, DiffOptions][] = [
    ["unstaged (index → working tree)", {}],
    ["staged (HEAD → index)", { staged: true }],
    ["base_ref → working tree", { baseRef: "v1" }],
    ["base_ref → index", { baseRef: "HEAD~1", staged: true }],
    ["base_ref → target_ref", { baseRef: "v1", targetRef: "main" }],
    ["target_ref alone (HEAD → target)", { targetRef: "v1" }],
    ["pathspec: a file and a folder", { pathspec: ["app.py", "moved"], staged: false }],
    ["pathspec with staged", { pathspec: ["moved", "notes.md"], staged: true }],
  ];
  it.each(cases)("%s", async (_name, options) => {
    const context = await sandboxOf(root);
    const ours = await gitDiff(context, options);
    const native = git(root, ...nativeArgs(options));
    expect(ours.diff_text).toBe(native);
    const numstat = git(root, ...nativeArgs(options).toSpliced(1, 0, "--numstat"))
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [added, deleted, ...path] = line.split("\t");
        return {
          added: added === "-" ? 0 : Number(added),
          deleted: deleted === "-" ? 0 : Number(deleted),
          path: path.join("\t"),
        };
      });
    expect(
      ours.files_changed.map((file) => ({
        added: file.additions,
        deleted: file.deletions,
        path: file.old_path ? `${file.old_path} => ${file.path}` : file.path,
      })),
    ).toEqual(numstat);
  });

  it("reports per-file status, binary files and the compared sides", async () => {
    const context = await sandboxOf(root);
    const unstaged = await gitDiff(context, {});
    expect(unstaged.compared).toBe("index → working tree");
    const byPath = Object.fromEntries(unstaged.files_changed.map((file) => [file.path, file]));
    expect(byPath["gone.txt"]).toMatchObject({ status: "deleted", deletions: 1 });
    expect(byPath["image.bin"]).toMatchObject({ binary: true, additions: 0 });
    expect(byPath["untracked.txt"]).toBeUndefined();
    expect(byPath["app.py"]!.diff.startsWith("diff --git a/app.py b/app.py\n")).toBe(true);
    const staged = await gitDiff(context, { staged: true });
    expect(staged.files_changed.find((file) => file.status === "renamed")).toMatchObject({
      path: "moved/renamed.txt",
      old_path: "rename_me.txt",
    });
  });

  it("is empty on a clean tree and refuses unknown revisions", async () => {
    const clean = tempDir();
    git(clean, "init", "-q");
    write(clean, "a.txt", "a\n");
    git(clean, "add", ".");
    git(clean, "commit", "-qm", "a");
    const context = await sandboxOf(clean);
    expect(await gitDiff(context, {})).toMatchObject({ diff_text: "", files_changed: [] });
    await expect(gitDiff(context, { baseRef: "nope" })).rejects.toMatchObject({ code: "git_error" });
    await expect(gitDiff(context, { baseRef: "HEAD~5" })).rejects.toMatchObject({ code: "git_error" });
  });

  it("sees edits made in the sandbox", async () => {
    const clean = tempDir();
    git(clean, "init", "-q");
    write(clean, "a.txt", lines(10, "a"));
    git(clean, "add", ".");
    git(clean, "commit", "-qm", "a");
    const context = await sandboxOf(clean);
    await context.sandbox.writeFile("/workspace/a.txt", lines(10, "a").replace("a line 4\n", "changed\n"));
    const diff = await gitDiff(context, {});
    expect(diff.files_changed).toEqual([
      expect.objectContaining({ path: "a.txt", additions: 1, deletions: 1 }),
    ]);
    expect(diff.diff_text).toContain("-a line 4\n+changed\n");
  });
});
