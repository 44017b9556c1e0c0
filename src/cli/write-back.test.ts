import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FileChange } from "../core/checkpoints.ts";
import type { SnapshotEntry } from "../sandbox/types.ts";
import { type CliRun, folderWith, runToolroom, TOOLROOM_BIN } from "../test-support/toolroom-cli.ts";
import { DiskFolder } from "./disk-folder.ts";
import {
  applyWriteBack,
  isCaseInsensitive,
  planWriteBack,
  TEMP_NAME,
  type WriteBackOptions,
  writeBackChanges,
} from "./host-folder.ts";
import { recoverWriteBack } from "./write-back-journal.ts";

/** Write-back on a real folder: what the plan refuses, what it writes, and how. */

const bytes = (text: string) => new TextEncoder().encode(text);
const file = (path: string, text: string, mode = 0o644): SnapshotEntry => ({
  path,
  type: "file",
  data: bytes(text),
  mode,
});
const link = (path: string, target: string): SnapshotEntry => ({ path, type: "symlink", target });
const created = (entry: SnapshotEntry): FileChange => ({ path: entry.path, before: null, after: entry });
const changed = (before: SnapshotEntry, after: SnapshotEntry): FileChange => ({
  path: after.path,
  before,
  after,
});

const folder = (files: Record<string, string> = {}) => folderWith(files, "toolroom-wb-");

const noTemps = (dir: string) =>
  expect(
    readdirSync(dir, { recursive: true }).filter((name) => TEMP_NAME.test(String(name).split("/").pop()!)),
  ).toEqual([]);

describe("write-back's plan", () => {
  it("replaces each file with a new one renamed into place, writes only what changed, and leaves no temporary file", async () => {
    const dir = folder({ "a.txt": "a\n", "same.txt": "same\n" });
    const inode = statSync(join(dir, "a.txt")).ino;
    const report = await writeBackChanges(dir, [
      changed(file("a.txt", "a\n"), file("a.txt", "b\n")),
      created(file("new/deep.txt", "deep\n")),
      created({ path: "new", type: "directory", mode: 0o755 }),
    ]);
    expect(report).toMatchObject({ written: ["a.txt", "new", "new/deep.txt"], failed: [], skipped: [] });
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("b\n");
    expect(statSync(join(dir, "a.txt")).ino).not.toBe(inode);
    expect(readFileSync(join(dir, "new/deep.txt"), "utf8")).toBe("deep\n");
    noTemps(dir);
  });

  it("removes the temporary files a killed write-back left where it writes, and only those of dead processes", async () => {
    const dir = folder({ ".toolroom-999999999-3.tmp": "half", [`.toolroom-${process.pid}-9.tmp`]: "mine" });
    await writeBackChanges(dir, [created(file("a.txt", "a"))]);
    expect(readdirSync(dir).sort()).toEqual([`.toolroom-${process.pid}-9.tmp`, "a.txt"]);
  });

  it("keeps modes both ways: a new script lands executable, a mode-only change is a chmod of the same file", async () => {
    const dir = folder({ "run.sh": "#!/bin/sh\n" });
    const inode = statSync(join(dir, "run.sh")).ino;
    await writeBackChanges(dir, [
      created(file("new.sh", "#!/bin/sh\n", 0o755)),
      changed(file("run.sh", "#!/bin/sh\n"), file("run.sh", "#!/bin/sh\n", 0o700)),
      created(file("suid", "x", 0o4755)),
    ]);
    expect(statSync(join(dir, "new.sh")).mode & 0o7777).toBe(0o755);
    expect(statSync(join(dir, "run.sh")).mode & 0o7777).toBe(0o700);
    expect(statSync(join(dir, "run.sh")).ino).toBe(inode);
    // Never setuid/setgid/sticky on the person's disk.
    expect(statSync(join(dir, "suid")).mode & 0o7777).toBe(0o755);
  });

  it("breaks a hard link instead of writing through it: the other name (a pnpm store) keeps its bytes and mode", async () => {
    const store = folder({ "pkg.js": "store\n", "bin.js": "bin\n" });
    const dir = folder();
    linkSync(join(store, "pkg.js"), join(dir, "pkg.js"));
    linkSync(join(store, "bin.js"), join(dir, "bin.js"));
    const report = await writeBackChanges(dir, [
      changed(file("pkg.js", "store\n"), file("pkg.js", "mine\n")),
      changed(file("bin.js", "bin\n"), file("bin.js", "bin\n", 0o755)),
    ]);
    expect(readFileSync(join(dir, "pkg.js"), "utf8")).toBe("mine\n");
    expect(readFileSync(join(store, "pkg.js"), "utf8")).toBe("store\n");
    expect(statSync(join(dir, "bin.js")).mode & 0o777).toBe(0o755);
    expect(statSync(join(store, "bin.js")).mode & 0o777).toBe(0o644);
    expect(report.notes.join("\n")).toMatch(/pkg\.js was hard-linked: it now has its own file/u);
  });

  it("never opens a FIFO: a file the sandbox made where the disk has one is skipped, the rest written", async () => {
    const dir = folder();
    execFileSync("mkfifo", [join(dir, "pipe")]);
    const report = await writeBackChanges(dir, [created(file("pipe", "x")), created(file("ok.txt", "ok"))]);
    expect(report.skipped.join("\n")).toMatch(/pipe: a FIFO is there on disk; write-back never opens/u);
    expect(lstatSync(join(dir, "pipe")).isFIFO()).toBe(true);
    expect(readFileSync(join(dir, "ok.txt"), "utf8")).toBe("ok");
  }, 20_000);

  it("refuses to read a file that became a FIFO since it was listed, without waiting on it", async () => {
    const dir = folder({ "a.txt": "a" });
    const source = new DiskFolder(dir);
    expect(source.list("").map((entry) => entry.name)).toEqual(["a.txt"]);
    rmSync(join(dir, "a.txt"));
    execFileSync("mkfifo", [join(dir, "a.txt")]);
    expect(() => source.read("a.txt")).toThrow(/a\.txt is a FIFO, not a file/u);
  }, 20_000);

  it("never shows the sandbox a write-back's temporary file or journal, a killed run's included", () => {
    const dir = folder({ "a.txt": "a", ".toolroom-4242-1.tmp": "t", ".toolroom-4242.journal": "j" });
    expect(new DiskFolder(dir).list("").map((entry) => entry.name)).toEqual(["a.txt"]);
  });

  it("writes a call of several changes through a journal it removes, leaving nothing of its own", async () => {
    const dir = folder({ "a.txt": "a\n", "b.txt": "b\n", "gone/x.txt": "x\n" });
    const report = await writeBackChanges(dir, [
      changed(file("a.txt", "a\n"), file("a.txt", "A\n")),
      changed(file("b.txt", "b\n"), file("b.txt", "b\n", 0o755)),
      { path: "gone/x.txt", before: file("gone/x.txt", "x\n"), after: null },
      { path: "gone", before: { path: "gone", type: "directory", mode: 0o755 }, after: null },
      created({ path: "new", type: "directory", mode: 0o755 }),
      created(file("new/n.txt", "n\n")),
    ]);
    expect([report.written, report.deleted, report.failed, report.notes]).toEqual([
      ["a.txt", "b.txt", "new", "new/n.txt"],
      ["gone/x.txt", "gone"],
      [],
      [],
    ]);
    expect(readdirSync(dir).sort()).toEqual(["a.txt", "b.txt", "new"]);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("A\n");
    expect(statSync(join(dir, "b.txt")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, "new", "n.txt"), "utf8")).toBe("n\n");
  });

  it("skips names the disk refuses and writes the rest", async () => {
    const dir = folder();
    const long = "x".repeat(300);
    const report = await writeBackChanges(dir, [
      created(file(long, "too long")),
      created({ path: "d".repeat(256), type: "directory", mode: 0o755 }),
      created(file(`${"d".repeat(256)}/inside.txt`, "x")),
      created(file("fine.txt", "fine")),
    ]);
    expect(report.skipped).toHaveLength(3);
    expect(report.skipped.join("\n")).toMatch(/is 300 bytes, over the disk's 255/u);
    expect(report.skipped.join("\n")).toMatch(/was not written, so nothing in it is/u);
    expect(readdirSync(dir)).toEqual(["fine.txt"]);
  });

  it("refuses a link that resolves outside through another link, on disk or made in the same run", async () => {
    const outside = folder({ "secret.txt": "secret\n" });
    const dir = folder({ "sub/a.txt": "a\n" });
    symlinkSync(outside, join(dir, "sec"));
    const report = await writeBackChanges(dir, [
      created(link("up", "sec/..")),
      created(link("here", ".")),
      created(link("escape", "here/..")),
      created(link("loop", "loop")),
      created(link("abs", "/etc/passwd")),
      created(link("fine", "sub/../sub/a.txt")),
    ]);
    const skipped = report.skipped.join("\n");
    for (const name of ["up", "escape", "loop", "abs"]) expect(skipped).toContain(`${name}: the link ->`);
    expect(skipped).toContain("points outside the workspace");
    expect(readlinkSync(join(dir, "fine"))).toBe("sub/../sub/a.txt");
    expect(readlinkSync(join(dir, "here"))).toBe(".");
    for (const name of ["up", "escape", "loop", "abs"]) expect(existsSync(join(dir, name))).toBe(false);
  });

  it("never writes through a folder that is a link on disk", async () => {
    const outside = folder();
    const dir = folder();
    symlinkSync(outside, join(dir, "out"));
    const report = await writeBackChanges(dir, [created(file("out/x.txt", "x"))]);
    expect(report.skipped.join("\n")).toMatch(/out on disk is a link/u);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("keeps what the person changed on disk since the sandbox read it", async () => {
    const dir = folder({ "a.txt": "a\n" });
    const stat = statSync(join(dir, "a.txt"));
    const loaded = {
      name: "a.txt",
      type: "file" as const,
      mode: 0o644,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ino: stat.ino,
    };
    writeFileSync(join(dir, "a.txt"), "the person's edit\n");
    const report = await writeBackChanges(dir, [changed(file("a.txt", "a\n"), file("a.txt", "agent\n"))], {
      loaded: (path) => (path === "a.txt" ? loaded : undefined),
    });
    expect(report.skipped.join("\n")).toMatch(/a\.txt: it was changed on disk since it was read/u);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("the person's edit\n");
  });

  it("deletes file by file and keeps a folder holding something the sandbox never saw", async () => {
    const dir = folder({ "old/a.txt": "a", "gone/b.txt": "b" });
    execFileSync("mkfifo", [join(dir, "old/pipe")]);
    const report = await writeBackChanges(dir, [
      { path: "old", before: { path: "old", type: "directory" }, after: null },
      { path: "old/a.txt", before: file("old/a.txt", "a"), after: null },
      { path: "gone", before: { path: "gone", type: "directory" }, after: null },
      { path: "gone/b.txt", before: file("gone/b.txt", "b"), after: null },
    ]);
    expect(report.deleted).toEqual(["old/a.txt", "gone/b.txt", "gone"]);
    expect(report.failed.join("\n")).toMatch(/old: the folder on disk holds files the sandbox never saw/u);
    expect(readdirSync(dir)).toEqual(["old"]);
    expect(lstatSync(join(dir, "old/pipe")).isFIFO()).toBe(true);
  });

  it("reports a write that fails on disk and writes the rest", async () => {
    const dir = folder({ "gone/x.txt": "x", "b.txt": "b" });
    const { steps, report } = await planWriteBack(dir, [
      changed(file("gone/x.txt", "x"), file("gone/x.txt", "y")),
      changed(file("b.txt", "b"), file("b.txt", "c")),
    ]);
    rmSync(join(dir, "gone"), { recursive: true });
    await applyWriteBack(dir, steps, report);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]).toMatch(/^gone\/x\.txt: ENOENT/u);
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("c");
  });

  it("never deletes the workspace folder, nor anything in it, when the sandbox deleted the folder itself", async () => {
    const dir = folder({ "a.txt": "a" });
    const report = await writeBackChanges(dir, [], { rootGone: true });
    expect(report.skipped.join("\n")).toMatch(/the workspace folder itself was deleted in the sandbox/u);
    expect(readdirSync(dir)).toEqual(["a.txt"]);
  });
});

/** `toolroom batch --write-back` in coding-agent, each command a shell call. */
function batch(dir: string, commands: string[]): Promise<CliRun> {
  return runToolroom(
    ["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"],
    commands.map((command) => `${JSON.stringify({ tool: "shell", params: { command } })}\n`).join(""),
  );
}

describe("write-back from the command line", () => {
  it("keeps modes, writes through an inside link to its target, rewrites nothing untouched, and says what it wrote", async () => {
    const dir = folder({ "run.sh": "#!/bin/sh\n", "private.txt": "p\n", "target.txt": "t\n" });
    chmodSync(join(dir, "run.sh"), 0o755);
    chmodSync(join(dir, "private.txt"), 0o600);
    symlinkSync("target.txt", join(dir, "inlink"));
    const untouched = { run: statSync(join(dir, "run.sh")), priv: statSync(join(dir, "private.txt")) };
    const run = await batch(dir, [
      "test -x run.sh && cat private.txt > /dev/null && echo '#!/bin/sh' > new.sh && chmod +x new.sh",
      "echo more >> inlink",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(join(dir, "new.sh")).mode & 0o777).toBe(0o755);
    expect(readlinkSync(join(dir, "inlink"))).toBe("target.txt");
    expect(readFileSync(join(dir, "target.txt"), "utf8")).toBe("t\nmore\n");
    for (const [name, before] of [
      ["run.sh", untouched.run],
      ["private.txt", untouched.priv],
    ] as const) {
      const after = statSync(join(dir, name));
      expect([after.ino, after.mtimeMs, after.mode]).toEqual([before.ino, before.mtimeMs, before.mode]);
    }
    expect(run.stderr).toMatch(
      /write-back: 2 written \((new\.sh, target\.txt|target\.txt, new\.sh)\), 0 deleted, 0 skipped, 0 failed/u,
    );
  }, 60_000);

  it("puts the mode back with the bytes when a refused call is undone, so nothing is written", async () => {
    const dir = folder({ "run.sh": "#!/bin/sh\n" });
    chmodSync(join(dir, "run.sh"), 0o755);
    execFileSync("git", ["init", "-q", dir]);
    const run = await batch(dir, ["rm -rf run.sh .git/description", "stat -c '%a' run.sh"]);
    const [refused, stat] = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(refused).toMatchObject({ ok: false, error_code: "PROTECTED_PATH" });
    expect(stat.data.stdout).toBe("755\n");
    expect(run.stderr).toMatch(/write-back: 0 written, 0 deleted, 0 skipped, 0 failed/u);
    expect(statSync(join(dir, "run.sh")).mode & 0o777).toBe(0o755);
  }, 60_000);

  it("survives the workspace folder deleted in the sandbox: says so and deletes nothing", async () => {
    const dir = folder({ "a.txt": "a\n", "src/b.txt": "b\n" });
    const run = await batch(dir, ["cd / && rm -rf /workspace"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /u);
    expect(run.stderr).toMatch(/the workspace folder itself was deleted in the sandbox/u);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
    expect(readFileSync(join(dir, "src/b.txt"), "utf8")).toBe("b\n");
  }, 60_000);
});

/** A batch run fed one call at a time: `call` resolves with the answer, once it is written back. */
function session(dir: string) {
  const child = spawn(
    TOOLROOM_BIN,
    ["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  const waiting: (() => void)[] = [];
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    for (const wake of waiting.splice(0)) wake();
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const ended = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  let answered = 0;
  return {
    stderr: () => stderr,
    async call(command: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
      child.stdin.write(`${JSON.stringify({ tool: "shell", params: { command, ...extra } })}\n`);
      answered++;
      while (stdout.split("\n").length - 1 < answered) await new Promise<void>((wake) => waiting.push(wake));
      return JSON.parse(stdout.trim().split("\n")[answered - 1]!);
    },
    end: () => {
      child.stdin.end();
      return ended;
    },
  };
}

describe("write-back after each answered call", () => {
  it("has each answered call on disk before its answer, and a later call's plan is against what is now there", async () => {
    const dir = folder({ "a.txt": "a\n", "big.txt": "never read\n", "src/keep.txt": "k\n" });
    const run = session(dir);
    await run.call("echo 1 >> a.txt && echo new > new.txt");
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n1\n");
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("new\n");
    // Its own earlier write is not the person's change: written again, not skipped.
    await run.call("echo 2 >> a.txt && echo newer >> new.txt");
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n1\n2\n");
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("new\nnewer\n");
    // A file never read, moved: the new name gets its bytes before the old one goes.
    await run.call("mv big.txt moved.txt && cp src/keep.txt copy.txt");
    expect(existsSync(join(dir, "big.txt"))).toBe(false);
    expect(readFileSync(join(dir, "moved.txt"), "utf8")).toBe("never read\n");
    const cat = await run.call("cat moved.txt copy.txt && rm -r src");
    expect((cat.data as { stdout: string }).stdout).toBe("never read\nk\n");
    expect(readdirSync(dir).sort()).toEqual(["a.txt", "copy.txt", "moved.txt", "new.txt"]);
    expect(await run.end()).toBe(0);
    expect(run.stderr()).toMatch(
      /write-back: 4 written \(a\.txt, new\.txt, (copy\.txt, moved\.txt|moved\.txt, copy\.txt)\), 3 deleted \(big\.txt, src\/keep\.txt, src\), 0 skipped, 0 failed/u,
    );
  }, 60_000);

  it("keeps a file the person changed on disk after a call wrote it, and says so as it happens", async () => {
    const dir = folder({ "a.txt": "a\n" });
    const run = session(dir);
    await run.call("echo agent >> a.txt && echo agent > made.txt");
    writeFileSync(join(dir, "a.txt"), "the person's edit\n");
    writeFileSync(join(dir, "made.txt"), "the person's too\n");
    await run.call("echo again >> a.txt && echo again >> made.txt && echo ok > ok.txt");
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("the person's edit\n");
    expect(readFileSync(join(dir, "made.txt"), "utf8")).toBe("the person's too\n");
    expect(readFileSync(join(dir, "ok.txt"), "utf8")).toBe("ok\n");
    expect(run.stderr()).toMatch(/skipped a\.txt: it was changed on disk since it was read/u);
    expect(run.stderr()).toMatch(/skipped made\.txt: it was changed on disk since it was read/u);
    expect(await run.end()).toBe(0);
  }, 60_000);

  it("undoes a call stopped at its deadline (its answer says timeout): nothing it did stays, in the sandbox or on disk", async () => {
    const dir = folder({ "a.txt": "a\n" });
    const run = session(dir);
    const stopped = await run.call("echo half > half.txt && echo half >> a.txt && sleep 30", {
      timeout_sec: 1,
    });
    expect(stopped).toMatchObject({ ok: false, error_code: "TIMEOUT" });
    const after = await run.call("ls && cat a.txt");
    expect((after.data as { stdout: string }).stdout).toBe("a.txt\na\n");
    expect(readdirSync(dir)).toEqual(["a.txt"]);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
    expect(run.stderr()).toMatch(
      /shell \(request req-1\) was stopped \(timeout\) before it finished: its changes are undone/u,
    );
    expect(await run.end()).toBe(0);
  }, 60_000);
});

/**
 * Writes back names that differ only by case into `dir`, whose folder `mnt` (made here unless
 * there) compares names without case and the top with case, and checks what was refused.
 */
async function writesBackCaseMixInto(dir: string, options: WriteBackOptions = {}): Promise<void> {
  mkdirSync(join(dir, "mnt"), { recursive: true });
  for (const path of ["readme.md", "old.ts", "mnt/readme.md", "mnt/old.ts"])
    writeFileSync(join(dir, path), "o\n");
  const report = await writeBackChanges(
    dir,
    [
      created(file("A.txt", "upper\n")),
      created(file("a.txt", "lower\n")),
      created(file("README.md", "mine\n")),
      { path: "old.ts", before: file("old.ts", "o\n"), after: null },
      created(file("Old.ts", "o\n")),
      created(file("mnt/A.txt", "upper\n")),
      created(file("mnt/a.txt", "lower\n")),
      created(file("mnt/README.md", "mine\n")),
      { path: "mnt/old.ts", before: file("mnt/old.ts", "o\n"), after: null },
      created(file("mnt/Old.ts", "o\n")),
      // A folder made in mnt compares names as mnt does.
      created({ path: "mnt/new", type: "directory", mode: 0o755 }),
      created(file("mnt/new/X.txt", "x\n")),
      created(file("mnt/new/x.txt", "x\n")),
    ],
    options,
  );
  const skipped = report.skipped.map((line) => line.slice(0, line.indexOf(":"))).sort();
  expect(skipped).toEqual(
    [
      "mnt/A.txt",
      "mnt/a.txt",
      "mnt/README.md",
      "mnt/old.ts",
      "mnt/Old.ts",
      "mnt/new/X.txt",
      "mnt/new/x.txt",
    ].sort(),
  );
  expect(report.skipped.join("\n")).toContain(
    "mnt/README.md: it differs only by case from mnt/readme.md on disk, and this disk does not tell such names apart",
  );
  expect(report.skipped.join("\n")).toContain("mnt/new/X.txt: it differs only by case from mnt/new/x.txt");
  expect(report.failed).toEqual([]);
  expect(readdirSync(dir).sort()).toEqual(["A.txt", "Old.ts", "README.md", "a.txt", "mnt", "readme.md"]);
  expect(readdirSync(join(dir, "mnt")).sort()).toEqual(["new", "old.ts", "readme.md"]);
  expect(readdirSync(join(dir, "mnt", "new"))).toEqual([]);
  expect(readFileSync(join(dir, "mnt", "readme.md"), "utf8")).toBe("o\n");
}

/**
 * A case-blind disk (exFAT through FUSE, on a loop device) mounted at `mnt` in a new folder, where
 * this machine allows it (root, exfat-fuse and exfatprogs installed); null elsewhere.
 */
function mountCaseBlind(): { dir: string; unmount: () => void } | null {
  const dir = folder();
  const image = `${dir}.img`;
  let device = "";
  try {
    execFileSync("truncate", ["-s", "16M", image], { stdio: "ignore" });
    execFileSync("mkfs.exfat", [image], { stdio: "ignore" });
    device = execFileSync("losetup", ["-f", "--show", image], { encoding: "utf8" }).trim();
    mkdirSync(join(dir, "mnt"));
    execFileSync("mount.exfat-fuse", [device, join(dir, "mnt")], { stdio: "ignore", timeout: 20_000 });
    return {
      dir,
      unmount: () => {
        execFileSync("umount", [join(dir, "mnt")], { stdio: "ignore" });
        execFileSync("losetup", ["-d", device], { stdio: "ignore" });
        rmSync(image, { force: true });
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch {
    if (device) execFileSync("losetup", ["-d", device], { stdio: "ignore" });
    rmSync(image, { force: true });
    return null;
  }
}

/** Tried once and taken down at once, so that a run of other tests leaves no mount behind. */
const canMountCaseBlind = (() => {
  const mounted = mountCaseBlind();
  mounted?.unmount();
  return mounted !== null;
})();

describe.skipIf(!canMountCaseBlind)(
  "write-back into a case-blind disk mounted inside the folder (exFAT)",
  () => {
    it("finds that folder case-blind and the top not, and refuses such names there only", async () => {
      const mounted = mountCaseBlind();
      expect(mounted).not.toBeNull();
      const { dir } = mounted!;
      try {
        writeFileSync(join(dir, "mnt", "probe.txt"), "p\n");
        expect(await isCaseInsensitive(dir)).toBe(false);
        expect(await isCaseInsensitive(join(dir, "mnt"))).toBe(true);
        rmSync(join(dir, "mnt", "probe.txt"));
        // An empty folder there is asked with a temporary file, which does not stay.
        mkdirSync(join(dir, "mnt", "empty"));
        expect(await isCaseInsensitive(join(dir, "mnt", "empty"))).toBe(true);
        expect(readdirSync(join(dir, "mnt", "empty"))).toEqual([]);
        rmSync(join(dir, "mnt", "empty"), { recursive: true });
        await writesBackCaseMixInto(dir);
      } finally {
        mounted!.unmount();
      }
    });
  },
);

describe("write-back to a disk that does not tell A.txt from a.txt", () => {
  it("finds this machine's disk case-sensitive or not as it is (a probe, no file left behind)", async () => {
    const dir = folder({ "a.txt": "a" });
    const blind = existsSync(join(dir, "A.TXT"));
    expect(await isCaseInsensitive(dir)).toBe(blind);
    expect(readdirSync(dir)).toEqual(["a.txt"]);
  });

  it("refuses names that differ only by case, with a clear error for each, and writes the rest", async () => {
    const dir = folder({ "readme.md": "r\n", "src/old.ts": "o\n" });
    const report = await writeBackChanges(
      dir,
      [
        created(file("A.txt", "upper\n")),
        created(file("a.txt", "lower\n")),
        // A name the disk already has in another case would overwrite it there.
        created(file("README.md", "mine\n")),
        // A rename that only changes case: neither the delete nor the create is done.
        { path: "src/old.ts", before: file("src/old.ts", "o\n"), after: null },
        created(file("src/Old.ts", "o\n")),
        created(file("fine.txt", "fine\n")),
      ],
      { caseInsensitive: true },
    );
    const skipped = report.skipped.join("\n");
    expect(skipped).toContain(
      "A.txt: it differs only by case from a.txt, and this disk does not tell such names apart; kept as it is on disk",
    );
    expect(skipped).toContain("a.txt: it differs only by case from A.txt");
    expect(skipped).toContain("README.md: it differs only by case from readme.md on disk");
    expect(skipped).toContain("src/old.ts: it differs only by case from src/Old.ts");
    expect(skipped).toContain("src/Old.ts: it differs only by case from src/old.ts");
    expect(report.written).toEqual(["fine.txt"]);
    expect(report.deleted).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(["fine.txt", "readme.md", "src"]);
    expect(readdirSync(join(dir, "src"))).toEqual(["old.ts"]);
    expect(readFileSync(join(dir, "readme.md"), "utf8")).toBe("r\n");
  });

  it("asks each folder where such names meet, not only the top: a folder below can be another disk or casefolded", async () => {
    const dir = folder();
    const asked: string[] = [];
    // Only mnt compares names without case (a case-blind disk mounted there, or ext4's chattr +F).
    await writesBackCaseMixInto(dir, {
      caseProbe: async (at: string) => {
        asked.push(at);
        return at === "mnt";
      },
    });
    // Only the folders where such names meet were asked (mnt/new, not on disk yet, as mnt).
    expect([...new Set(asked)].sort()).toEqual(["", "mnt"]);
  });

  it("asks nothing when no two names differ only by case, and each real folder answers for itself", async () => {
    const dir = folder({ "sub/a.txt": "a\n", "empty/.keep": "" });
    rmSync(join(dir, "empty", ".keep"));
    const asked: string[] = [];
    const report = await writeBackChanges(
      dir,
      [created(file("sub/b.txt", "b\n")), created(file("c.txt", "c\n"))],
      {
        caseProbe: async (at) => {
          asked.push(at);
          return true;
        },
      },
    );
    expect(report.written).toEqual(["c.txt", "sub/b.txt"]);
    expect(asked).toEqual([]);
    // This machine's folders tell case apart; a folder with a name in it is asked by looking that
    // name up in the other case, an empty one with a temporary file; neither leaves anything.
    const blind = existsSync(join(dir, "SUB", "A.TXT"));
    expect(await isCaseInsensitive(join(dir, "sub"))).toBe(blind);
    expect(await isCaseInsensitive(join(dir, "empty"))).toBe(blind);
    expect(readdirSync(join(dir, "sub")).sort()).toEqual(["a.txt", "b.txt"]);
    expect(readdirSync(join(dir, "empty"))).toEqual([]);
  });

  it("takes such names as they are on a disk that tells them apart", async () => {
    const dir = folder({ "readme.md": "r\n" });
    const report = await writeBackChanges(
      dir,
      [
        created(file("A.txt", "upper\n")),
        created(file("a.txt", "lower\n")),
        created(file("README.md", "m\n")),
      ],
      { caseInsensitive: false },
    );
    expect(report.skipped).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(["A.txt", "README.md", "a.txt", "readme.md"]);
  });
});

/** Whether this machine lets a test make a folder immutable (root on ext4): a write there fails. */
const canFreeze = (() => {
  const dir = folder();
  try {
    execFileSync("chattr", ["+i", dir], { stdio: "ignore" });
    execFileSync("chattr", ["-i", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!canFreeze)("a write that fails on disk", () => {
  it("is said when its call is written back, tried again with the next call, and at the end", async () => {
    const dir = folder({ "sub/keep.txt": "k\n" });
    const sub = join(dir, "sub");
    execFileSync("chattr", ["+i", sub]);
    try {
      const run = session(dir);
      await run.call("echo a > sub/a.txt && echo ok > ok.txt");
      expect(readFileSync(join(dir, "ok.txt"), "utf8")).toBe("ok\n");
      expect(existsSync(join(sub, "a.txt"))).toBe(false);
      expect(run.stderr()).toMatch(/could not write sub\/a\.txt: EPERM/u);
      execFileSync("chattr", ["-i", sub]);
      await run.call("echo b > b.txt");
      expect(readFileSync(join(sub, "a.txt"), "utf8")).toBe("a\n");
      execFileSync("chattr", ["+i", sub]);
      await run.call("echo c > sub/c.txt");
      expect(existsSync(join(sub, "c.txt"))).toBe(false);
      execFileSync("chattr", ["-i", sub]);
      expect(await run.end()).toBe(0);
      expect(readFileSync(join(sub, "c.txt"), "utf8")).toBe("c\n");
      expect(run.stderr()).toMatch(
        /write-back: 4 written \(ok\.txt, b\.txt, sub\/a\.txt, sub\/c\.txt\), 0 deleted, 0 skipped, 0 failed/u,
      );
    } finally {
      execFileSync("chattr", ["-i", sub], { stdio: "ignore" });
    }
  }, 60_000);
});

describe("the next start after a killed write-back, on journals it must not trust", () => {
  /** The id of a process that has ended. */
  const deadPid = () => {
    const child = spawn("true");
    return new Promise<number>((resolve) => child.on("close", () => resolve(child.pid!)));
  };
  const journal = (pid: number, steps: unknown[], temps: string[] = [], started?: string) =>
    `${JSON.stringify({ journal: "toolroom write-back journal", version: 1, pid, started, call: "shell (request req-9)", temps })}\n${JSON.stringify({ steps })}\n`;
  const recover = async (dir: string) => {
    const said: string[] = [];
    await recoverWriteBack(dir, (message) => said.push(message));
    return said.join("\n");
  };

  it("removes an empty journal (killed before its first line) and rolls a real one back", async () => {
    const empty = await deadPid();
    const dir = folder({ "a.txt": "new\n", [`.toolroom-${empty}-3.tmp`]: "" });
    writeFileSync(join(dir, `.toolroom-${empty}.journal`), "");
    expect(await recover(dir)).toMatch(
      /cut short before it changed anything; its empty \.toolroom-\d+\.journal is removed/u,
    );
    // A temporary file no journal names (a killed one-change call's) goes as well.
    expect(readdirSync(dir)).toEqual(["a.txt"]);
    const pid = await deadPid();
    writeFileSync(join(dir, `.toolroom-${pid}-1.tmp`), "old\n");
    const ino = statSync(join(dir, "a.txt")).ino;
    const kept = statSync(join(dir, `.toolroom-${pid}-1.tmp`)).ino;
    writeFileSync(
      join(dir, `.toolroom-${pid}.journal`),
      journal(pid, [
        {
          op: "put",
          path: "a.txt",
          temp: `.toolroom-${pid}-2.tmp`,
          ino,
          aside: `.toolroom-${pid}-1.tmp`,
          was: kept,
        },
      ]),
    );
    expect(await recover(dir)).toMatch(
      /the write-back of shell \(request req-9\) \(process \d+\) was cut short before that call was answered: rolled back, a\.txt as before that call/u,
    );
    expect(readdirSync(dir)).toEqual(["a.txt"]);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("old\n");
  });

  it("rolls back a journal whose process id was given to another process since (or to this one)", async () => {
    const dir = folder({ "a.txt": "a\n", "b.txt": "b\n" });
    // The parent process is alive but started at another time than the journal says: not its writer.
    const reused = process.ppid;
    writeFileSync(
      join(dir, `.toolroom-${reused}.journal`),
      journal(
        reused,
        [
          {
            op: "put",
            path: "a.txt",
            temp: `.toolroom-${reused}-1.tmp`,
            ino: statSync(join(dir, "a.txt")).ino,
          },
        ],
        [],
        "1",
      ),
    );
    // In a container ids start again: this run's own id on a journal means an earlier run's.
    writeFileSync(
      join(dir, `.toolroom-${process.pid}.journal`),
      journal(process.pid, [
        {
          op: "put",
          path: "b.txt",
          temp: `.toolroom-${process.pid}-1.tmp`,
          ino: statSync(join(dir, "b.txt")).ino,
        },
      ]),
    );
    const said = await recover(dir);
    expect(said).toMatch(
      new RegExp(
        `\\(process ${reused}\\) was cut short before that call was answered: rolled back, a\\.txt`,
        "u",
      ),
    );
    expect(said).toMatch(
      new RegExp(
        `\\(process ${process.pid}\\) was cut short before that call was answered: rolled back, b\\.txt`,
        "u",
      ),
    );
    // What they had made is gone; nothing else was there to put back.
    expect(readdirSync(dir)).toEqual([]);
  });

  it("leaves a live process's journal, one it cannot read, and one naming a path outside or through a link", async () => {
    const dir = folder({ "a.txt": "a\n" });
    const outside = folder({ "x.txt": "x\n" });
    symlinkSync(outside, join(dir, "out"));
    writeFileSync(
      join(dir, `.toolroom-${process.ppid}.journal`),
      journal(process.ppid, [{ op: "folder", path: "a.txt" }]),
    );
    const garbled = await deadPid();
    writeFileSync(join(dir, `.toolroom-${garbled}.journal`), "not json\n");
    const escaping = await deadPid();
    writeFileSync(
      join(dir, `.toolroom-${escaping}.journal`),
      journal(escaping, [{ op: "put", path: "../x.txt", temp: `.toolroom-${escaping}-1.tmp`, ino: 1 }]),
    );
    const linked = await deadPid();
    writeFileSync(
      join(dir, `.toolroom-${linked}.journal`),
      journal(linked, [
        {
          op: "put",
          path: "out/x.txt",
          temp: `.toolroom-${linked}-1.tmp`,
          ino: statSync(join(outside, "x.txt")).ino,
        },
      ]),
    );
    const said = await recover(dir);
    expect(said).toMatch(
      new RegExp(`process ${process.ppid} is writing back to this folder now; its files are left to it`, "u"),
    );
    expect(said).toMatch(
      new RegExp(`\\.toolroom-${garbled}\\.journal is not a journal toolroom can read; left as it is`, "u"),
    );
    expect(said).toMatch(/names "\.\.\/x\.txt", which is not a path inside the folder/u);
    expect(said).toMatch(/out is a link now; nothing is done through a link/u);
    expect(readdirSync(dir).filter((name) => name.endsWith(".journal"))).toHaveLength(4);
    expect(readFileSync(join(outside, "x.txt"), "utf8")).toBe("x\n");
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\n");
  });
});
