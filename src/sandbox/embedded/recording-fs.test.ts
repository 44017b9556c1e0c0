import { InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { diffSnapshots, recordBySnapshots } from "../snapshot.ts";
import { EmbeddedSandbox } from "./embedded-sandbox.ts";

const SCRIPTS = [
  "echo hi > a.txt",
  "echo more >> existing.txt",
  "mkdir -p new/deep/er && echo y > new/deep/er/f",
  "rm existing.txt",
  "rm -r dir",
  "rm -rf dir && mkdir dir && echo q > dir/new",
  "mv dir moved",
  "mv existing.txt dir/",
  "mv existing.txt renamed.txt",
  "cp -r dir copy",
  "cp existing.txt dir/",
  "cp existing.txt dir/sub/copy.txt",
  "touch t && touch existing.txt",
  "sed -i 's/old/new/' existing.txt",
  "ln -s existing.txt link",
  "chmod +x existing.txt",
  "echo hi | tee out.txt",
  "echo outside > /tmp/x",
  "cd dir && echo z > inner && mkdir a && mkdir a/b",
  "echo 1 > a.txt; echo 2 > a.txt; rm a.txt",
  "echo same > existing.txt; echo old > existing.txt",
  "mkdir -p dir/sub/deeper && rm -r dir/sub && echo back > dir/sub",
];

async function fixture(): Promise<EmbeddedSandbox> {
  const sandbox = await EmbeddedSandbox.create();
  await sandbox.mkdir("/workspace/dir/sub", { recursive: true });
  await sandbox.writeFile("/workspace/existing.txt", "old\n");
  await sandbox.writeFile("/workspace/dir/one.txt", "1\n");
  await sandbox.writeFile("/workspace/dir/sub/two.txt", "2\n");
  return sandbox;
}

describe("recording changes through the filesystem", () => {
  for (const script of SCRIPTS) {
    it(`agrees with a snapshot diff: ${script}`, async () => {
      const sandbox = await fixture();
      const bySnapshots = await recordBySnapshots(sandbox);
      const byRecording = await sandbox.recordChanges();
      const result = await sandbox.exec(script);
      expect(result.stderr).toBe("");
      const expected = await bySnapshots();
      expect(await byRecording()).toEqual(expected);
    });
  }

  it("records changes made through the Sandbox fs API too", async () => {
    const sandbox = await fixture();
    const before = await sandbox.snapshot();
    const finish = await sandbox.recordChanges();
    await sandbox.writeFile("/workspace/dir/one.txt", "changed");
    await sandbox.rename("/workspace/dir/sub", "/workspace/moved");
    await sandbox.rm("/workspace/existing.txt");
    expect(await finish()).toEqual(diffSnapshots(before, await sandbox.snapshot()));
  });

  it("reports nothing once finished", async () => {
    const sandbox = await fixture();
    const finish = await sandbox.recordChanges();
    expect(await finish()).toEqual([]);
    await sandbox.exec("echo later > later.txt");
    expect(await finish()).toEqual([]);
  });
});

describe("folder listings from the children index", () => {
  /** just-bash's own listing, which scans every path: the reference the index must match. */
  const scanned = (sandbox: EmbeddedSandbox, path: string) =>
    InMemoryFs.prototype.readdirWithFileTypes.call(sandbox.fs, path);

  for (const script of SCRIPTS) {
    it(`lists every folder as just-bash's scan does after: ${script}`, async () => {
      const sandbox = await fixture();
      await sandbox.exec(script);
      const folders = ["/", "/workspace", "/tmp"];
      for (let index = 0; index < folders.length; index++) {
        const folder = folders[index]!;
        const listed = await sandbox.fs.readdirWithFileTypes(folder);
        expect(listed).toEqual(await scanned(sandbox, folder));
        expect(await sandbox.fs.readdir(folder)).toEqual(listed.map((entry) => entry.name));
        for (const entry of listed)
          if (entry.isDirectory) folders.push(folder === "/" ? `/${entry.name}` : `${folder}/${entry.name}`);
      }
    });
  }

  it("lists through a symlinked folder and unnormalized paths as just-bash does", async () => {
    const sandbox = await fixture();
    await sandbox.exec("ln -s dir linked");
    for (const path of ["/workspace/linked", "/workspace/dir/", "/workspace/./dir", "/workspace/dir/sub/.."])
      expect(await sandbox.fs.readdirWithFileTypes(path)).toEqual(await scanned(sandbox, path));
    await expect(sandbox.fs.readdir("/workspace/existing.txt")).rejects.toThrow(/ENOTDIR/u);
    await expect(sandbox.fs.readdir("/workspace/missing")).rejects.toThrow(/ENOENT/u);
  });
});

describe("statIfExists", () => {
  it("answers as lstat and stat do, null where they throw", async () => {
    const sandbox = await fixture();
    await sandbox.exec(
      "ln -s dir linked && ln -s missing dangling && ln -s loop1 loop2 && ln -s loop2 loop1 && ln -s /workspace/dir/one.txt absolute",
    );
    const paths = [
      "/workspace/existing.txt",
      "/workspace/dir",
      "/workspace/linked",
      "/workspace/linked/one.txt",
      "/workspace/linked/sub/two.txt",
      "/workspace/dangling",
      "/workspace/loop1",
      "/workspace/loop1/x",
      "/workspace/absolute",
      "/workspace/missing",
      "/workspace/existing.txt/inside",
      "/workspace/dir/../existing.txt",
      "/workspace/dir/",
      "/",
    ];
    for (const path of paths) {
      for (const follow of [false, true]) {
        const expected = await (follow ? sandbox.fs.stat(path) : sandbox.fs.lstat(path)).catch(() => null);
        expect(await sandbox.fs.statIfExists(path, follow), `${path} follow=${follow}`).toEqual(expected);
      }
    }
  });
});

describe("changeCount", () => {
  for (const script of SCRIPTS.filter((line) => !line.includes("/tmp"))) {
    it(`changes after: ${script}`, async () => {
      const sandbox = await fixture();
      const before = sandbox.changeCount();
      await sandbox.exec(script);
      expect(sandbox.changeCount()).not.toBe(before);
    });
  }

  it("changes on the Sandbox API's writes, removals and renames, and on utimes", async () => {
    const sandbox = await fixture();
    const changes: [string, () => Promise<unknown>][] = [
      ["writeFile", () => sandbox.writeFile("/workspace/existing.txt", "old\n")],
      ["mkdir", () => sandbox.mkdir("/workspace/made")],
      ["rename", () => sandbox.rename("/workspace/made", "/workspace/moved")],
      ["symlink", () => sandbox.symlink("existing.txt", "/workspace/link")],
      ["rm", () => sandbox.rm("/workspace/moved", { recursive: true })],
      ["utimes", () => sandbox.fs.utimes("/workspace/existing.txt", new Date(0), new Date(0))],
    ];
    for (const [name, change] of changes) {
      const before = sandbox.changeCount();
      await change();
      expect(sandbox.changeCount(), name).not.toBe(before);
    }
  });

  it("holds while commands and the API only read, and while files outside the workspace change", async () => {
    const sandbox = await fixture();
    const before = sandbox.changeCount();
    for (const script of [
      "cat existing.txt",
      "ls -la dir",
      "find . -name '*.txt'",
      "grep -r 1 dir",
      "wc -l existing.txt",
    ])
      expect((await sandbox.exec(script)).exitCode, script).toBe(0);
    await sandbox.readFile("/workspace/dir/one.txt");
    await sandbox.stat("/workspace/dir/sub/two.txt");
    await sandbox.readdir("/workspace/dir");
    await sandbox.snapshot();
    // Outside the workspace folder: not counted (each command's shell rewrites /bin and /dev).
    await sandbox.exec("echo outside > /tmp/x");
    expect(sandbox.changeCount()).toBe(before);
  });
});
