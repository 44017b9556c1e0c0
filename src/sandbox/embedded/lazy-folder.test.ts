import { describe, expect, it } from "vitest";
import { diffSnapshots } from "../snapshot.ts";
import type { SnapshotEntry, WorkspaceChange } from "../types.ts";
import { EmbeddedSandbox } from "./embedded-sandbox.ts";
import type { FolderEntry, FolderSource } from "./lazy-folder.ts";

/** A folder in memory that counts what was asked of it. */
class CountingFolder implements FolderSource {
  readonly listed: string[] = [];
  readonly reads: string[] = [];
  constructor(
    private readonly files: Record<string, string | { symlink: string } | { mode: number; text: string }>,
  ) {}

  list(relative: string): FolderEntry[] {
    this.listed.push(relative);
    const prefix = relative === "" ? "" : `${relative}/`;
    const names = new Map<string, FolderEntry>();
    for (const [path, value] of Object.entries(this.files)) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const name = rest.split("/")[0]!;
      const common = { name, mtimeMs: 1_700_000_000_000, size: 0, mode: 0o755 };
      if (rest.includes("/")) names.set(name, { ...common, type: "directory" });
      else if (typeof value === "object" && "symlink" in value)
        names.set(name, { ...common, type: "symlink", target: value.symlink });
      else {
        const text = typeof value === "string" ? value : value.text;
        const mode = typeof value === "string" ? 0o644 : value.mode;
        names.set(name, { ...common, type: "file", mode, size: new TextEncoder().encode(text).length });
      }
    }
    return [...names.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  readFile(relative: string): Uint8Array {
    const value = this.files[relative];
    if (value === undefined || (typeof value === "object" && "symlink" in value))
      throw new Error(`ENOENT ${relative}`);
    return new TextEncoder().encode(typeof value === "string" ? value : value.text);
  }

  read = (relative: string): Uint8Array => {
    this.reads.push(relative);
    return this.readFile(relative);
  };
}

async function mounted(files: ConstructorParameters<typeof CountingFolder>[0]) {
  const source = new CountingFolder(files);
  const sandbox = await EmbeddedSandbox.create();
  sandbox.mountFolder(source, { mode: 0o755, mtimeMs: 1_700_000_000_000 });
  return { source, sandbox };
}

/** The same files loaded whole, the way the CLI loaded a folder before: what lazy must match. */
async function loadedWhole(files: ConstructorParameters<typeof CountingFolder>[0]) {
  const source = new CountingFolder(files);
  const entries: SnapshotEntry[] = [];
  const walk = (relative: string) => {
    for (const entry of source.list(relative)) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.type === "directory") {
        entries.push({ path, type: "directory" });
        walk(path);
      } else if (entry.type === "symlink") entries.push({ path, type: "symlink", target: entry.target! });
      else
        entries.push({
          path,
          type: "file",
          data: source.readFile(path),
          mode: entry.mode,
          mtimeMs: entry.mtimeMs,
        });
    }
  };
  walk("");
  const sandbox = await EmbeddedSandbox.create();
  await sandbox.restore({ entries });
  for (const entry of entries) {
    const path = `/workspace/${entry.path}`;
    if (entry.type === "file") await sandbox.fs.chmod(path, entry.mode!);
    // Folders keep their time on disk, as the lazy folder shows it.
    if (entry.type === "directory") await sandbox.fs.utimes(path, new Date(0), new Date(1_700_000_000_000));
  }
  await sandbox.fs.utimes("/workspace", new Date(0), new Date(1_700_000_000_000));
  return { sandbox, initial: { entries } };
}

const summary = (changes: WorkspaceChange[]) =>
  changes.map((change) => `${change.before ? (change.after ? "~" : "-") : "+"} ${change.path}`);

const FILES = {
  "README.md": "# demo\n",
  "src/a.ts": "export const a = 1;\n",
  "src/b.ts": "export const b = 2;\n",
  "bin/run.sh": { mode: 0o755, text: "#!/bin/sh\necho run\n" },
  link: { symlink: "src/a.ts" },
  "node_modules/big/index.js": "module.exports = 'x'.repeat(10);\n",
  "node_modules/big/lib/deep.js": "deep\n",
};

describe("a folder read on demand", () => {
  it("lists nothing at start, then only the folders looked into, and reads only the files read", async () => {
    const { source, sandbox } = await mounted(FILES);
    expect(source.listed).toEqual([]);
    expect(new TextDecoder().decode(await sandbox.readFile("/workspace/src/a.ts"))).toBe(
      "export const a = 1;\n",
    );
    expect(source.listed).toEqual(["", "src"]);
    expect(source.reads).toEqual(["src/a.ts"]);
    // A stat knows the size and mode without reading; a listing reads no file.
    expect((await sandbox.stat("/workspace/src/b.ts")).size).toBe(20);
    expect((await sandbox.lstat("/workspace/bin/run.sh")).mode).toBe(0o755);
    await sandbox.exec("ls -la src bin > /dev/null; test -x bin/run.sh");
    expect(source.reads).toEqual(["src/a.ts"]);
    // A file never written is not kept: each read goes to the source (memory stays flat).
    await sandbox.readFile("/workspace/src/a.ts");
    expect(source.reads).toEqual(["src/a.ts", "src/a.ts"]);
    // Command lookup looks into node_modules/.bin (PATH): names at the top only.
    expect(source.listed).not.toContain("node_modules/big");
  });

  it("reads many files at once as stat and readFile do, each from the source once", async () => {
    const { source, sandbox } = await mounted(FILES);
    const paths = ["src/a.ts", "src/b.ts", "bin/run.sh", "link", "src", "missing.txt"].map(
      (path) => `/workspace/${path}`,
    );
    const read = await sandbox.readFiles(paths);
    expect(source.reads).toEqual(["src/a.ts", "src/b.ts", "bin/run.sh", "src/a.ts"]);
    for (const [index, path] of paths.entries()) {
      const expected = await sandbox
        .stat(path)
        .then(async (stat) => ({ stat, data: await sandbox.readFile(path) }))
        .catch(() => null);
      expect(read[index], path).toEqual(expected);
    }
    expect(read.map((file) => (file ? new TextDecoder().decode(file.data) : null))).toEqual([
      "export const a = 1;\n",
      "export const b = 2;\n",
      "#!/bin/sh\necho run\n",
      "export const a = 1;\n",
      null,
      null,
    ]);
    expect(read[2]!.stat.mode).toBe(0o755);
  });

  it("answers the shell as the folder loaded whole does", async () => {
    const scripts = [
      "cat link; ls src/*.ts; grep -rl 'const b' src; find . -name deep.js | sort",
      "ls -la; ls -R node_modules; wc -c src/a.ts bin/run.sh; test -x bin/run.sh && echo executable",
      "cat missing.txt; cd node_modules/big && cat index.js && ls ../..",
      "echo '# changed' > README.md && echo new > src/c.ts && rm src/b.ts && chmod -x bin/run.sh",
      "mv src/a.ts src/moved.ts && rm -r node_modules/big/lib && mkdir -p docs/inner && echo d > docs/inner/d.md",
      "rm link; echo 'not a link' > link; cat link README.md; ls -la . src docs",
      "cp -r src src2 && mv docs documents && find . | sort",
    ];
    const lazy = await mounted(FILES);
    const whole = await loadedWhole(FILES);
    // ls -l shows a link's own time; a snapshot keeps none, so loaded whole a link has the load's.
    const linkTimeless = (result: { stdout: string }) => ({
      ...result,
      stdout: result.stdout.replace(
        /^(l\S+ 1 user user +\S+ )[A-Z][a-z]{2} [ \d]\d (?:\d\d:\d\d| {1,2}\d{4})/gmu,
        "$1…",
      ),
    });
    for (const script of scripts) {
      const [got, want] = [await lazy.sandbox.exec(script), await whole.sandbox.exec(script)];
      expect({ script, ...linkTimeless(got) }).toEqual({ script, ...linkTimeless(want) });
    }
    const expected = diffSnapshots(whole.initial, await whole.sandbox.snapshot());
    expect(summary(lazy.sandbox.folderChanges())).toEqual(summary(expected));
    // The same tree, bytes and modes (files written during the test differ only in their times).
    const timeless = (snapshot: { entries: SnapshotEntry[] }) =>
      snapshot.entries.map((entry) => ({ ...entry, mtimeMs: undefined }));
    expect(timeless(await lazy.sandbox.snapshot())).toEqual(timeless(await whole.sandbox.snapshot()));
  });

  it("reports no change after reads, and each kind of change after writes, without reading untouched files", async () => {
    const { source, sandbox } = await mounted(FILES);
    await sandbox.exec("cat README.md src/*.ts > /dev/null; ls -R node_modules > /dev/null");
    expect(sandbox.folderChanges()).toEqual([]);
    // The link goes first: just-bash's rm leaves a dangling link in place (it stats through it).
    const script = [
      "rm -f link && echo 'not a link' > link",
      "echo '# changed' > README.md",
      "echo new > src/c.ts",
      "rm src/b.ts",
      "chmod -x bin/run.sh",
      "mv src/a.ts src/moved.ts",
      "rm -r node_modules/big/lib",
      "mkdir -p docs/inner && echo doc > docs/inner/d.md",
    ].join(" && ");
    const run = await sandbox.exec(script);
    expect(run.stderr).toBe("");
    source.reads.length = 0;
    const changes = sandbox.folderChanges();
    expect(summary(changes)).toEqual([
      "~ README.md",
      "~ bin/run.sh",
      "+ docs",
      "+ docs/inner",
      "+ docs/inner/d.md",
      "~ link",
      "- node_modules/big/lib",
      "- node_modules/big/lib/deep.js",
      "- src/a.ts",
      "- src/b.ts",
      "+ src/c.ts",
      "+ src/moved.ts",
    ]);
    // Only a file written over is read (to compare); other bodies are read when write-back asks.
    expect(source.reads).toEqual(["README.md"]);
    const moved = changes.find((change) => change.path === "src/moved.ts")!;
    expect(new TextDecoder().decode(moved.after?.type === "file" ? moved.after.data : undefined)).toBe(
      "export const a = 1;\n",
    );
    const mode = changes.find((change) => change.path === "bin/run.sh")!;
    expect(mode.after).toMatchObject({ type: "file", mode: 0o644 });
    expect(mode.before).toMatchObject({ type: "file", mode: 0o755 });
  });

  it("takes a file rewritten with the same bytes as unchanged, and a folder replaced by a file as its whole subtree gone", async () => {
    const { sandbox } = await mounted(FILES);
    await sandbox.exec(
      "cp README.md /tmp/r && cat /tmp/r > README.md && rm -r node_modules && echo x > node_modules",
    );
    expect(summary(sandbox.folderChanges())).toEqual([
      "~ node_modules",
      "- node_modules/big",
      "- node_modules/big/index.js",
      "- node_modules/big/lib",
      "- node_modules/big/lib/deep.js",
    ]);
  });

  it("records a call's changes without reading what it deletes", async () => {
    const { source, sandbox } = await mounted(FILES);
    const stop = await sandbox.recordChanges();
    await sandbox.exec("rm -rf node_modules");
    const changes = await stop();
    expect(summary(changes)).toContain("- node_modules/big/lib/deep.js");
    expect(source.reads).toEqual([]);
  });
});
