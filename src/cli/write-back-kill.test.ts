import { createHash } from "node:crypto";
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  type Stats,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runToolroom, startToolroom as start } from "../test-support/toolroom-cli.ts";
import { TEMP_NAME, type WriteBackReport } from "./host-folder.ts";
import { JOURNAL_NAME, recoverWriteBack } from "./write-back-journal.ts";

/**
 * kill -9 during a call's own write-back, with real child processes: the call was never answered,
 * so after the next start on the folder (which rolls a cut-short write-back back) the folder holds
 * either none of that call's changes or, if it was killed after the commit, all of them; every
 * answered call's changes stay whole; no temporary file or journal is left.
 */

const TRIALS = 20;
const BIG = 60 * 1024 * 1024;
const SMALL = [
  ...Array.from({ length: 20 }, (_, i) => `a${i}.txt`),
  ...Array.from({ length: 20 }, (_, i) => `z${i}.txt`),
];

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isOurs = (name: string) => TEMP_NAME.test(name) || JOURNAL_NAME.test(name);
/** Every name in `dir`, at any depth, that is a write-back's temporary file or journal. */
const leftovers = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((path) => isOurs(path.split("/").pop()!));
const journalOf = (dir: string) => readdirSync(dir).find((name) => JOURNAL_NAME.test(name));
/** The next start on the folder: a batch (or MCP) run with --write-back and no calls. */
const nextStart = (dir: string, command: "batch" | "mcp" = "batch") =>
  runToolroom([command, "--workspace", dir, "--profile", "coding-agent", "--write-back"], "");

describe("write-back killed with SIGKILL", () => {
  it(`leaves the killed call all or nothing after the next start, over ${TRIALS} trials`, async () => {
    const big = Buffer.alloc(BIG);
    for (let i = 0; i < BIG; i += 4096) big.write(`${i}\n`, i);
    const versions = {
      big: { old: sha(big), new: sha(Buffer.concat([big, Buffer.from("x\n")])) },
      small: (name: string) => ({ old: `old ${name}\n`, new: `new ${name}\n` }),
    };
    const first = "echo first > first.txt && rm first-gone.txt";
    // A file rewritten, 40 replaced, one deleted, a mode, two new folders, a new file and a link.
    const command = `echo x >> big.bin && for f in ${SMALL.join(" ")}; do echo "new $f" > $f; done && rm gone.txt && chmod +x run.sh && mkdir -p made/deep && echo m > made/deep/m.txt && ln -s a0.txt link0`;
    const outcomes = { rolledBack: 0, finished: 0, killedMidWay: 0 };
    for (let trial = 0; trial < TRIALS; trial++) {
      const dir = mkdtempSync(join(tmpdir(), "toolroom-kill-"));
      writeFileSync(join(dir, "big.bin"), big);
      for (const name of SMALL) writeFileSync(join(dir, name), versions.small(name).old);
      for (const name of ["first-gone.txt", "gone.txt", "run.sh"])
        writeFileSync(join(dir, name), `${name}\n`);

      const run = start(["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
      run.child.stdin.write(`${JSON.stringify({ tool: "shell", params: { command: first } })}\n`);
      await run.waitForLines(1);
      run.child.stdin.end(`${JSON.stringify({ tool: "shell", params: { command } })}\n`);
      if (trial % 2 === 0) {
        // While staging: at a random moment once its first temporary file shows.
        while (!run.exited() && !readdirSync(dir).some((name) => TEMP_NAME.test(name))) await pause(1);
        if (!run.exited()) await pause(Math.floor(Math.random() * 400));
      } else {
        // While taking its steps: once the journal records them, after a few milliseconds at most.
        const staged = () => {
          const name = journalOf(dir);
          return name !== undefined && readFileSync(join(dir, name), "utf8").includes('"steps"');
        };
        while (!run.exited() && !staged()) await pause(0.5);
        if (!run.exited()) await pause(Math.floor(Math.random() * 12));
      }
      run.child.kill("SIGKILL");
      await run.ended;
      const answered = run.lines().length;
      const journal = journalOf(dir);
      const text = journal ? readFileSync(join(dir, journal), "utf8") : "";
      if (text.includes('"steps"') && !text.includes('"committed"')) outcomes.killedMidWay++;

      const next = await nextStart(dir);
      expect(next.code, next.stderr).toBe(0);
      expect(leftovers(dir), `trial ${trial}`).toEqual([]);
      // The answered call, whole.
      expect(readFileSync(join(dir, "first.txt"), "utf8")).toBe("first\n");
      expect(existsSync(join(dir, "first-gone.txt"))).toBe(false);
      // The killed call: every one of its changes old, or every one new.
      const bigHash = sha(readFileSync(join(dir, "big.bin")));
      expect([versions.big.old, versions.big.new], `trial ${trial}: big.bin`).toContain(bigHash);
      const states = new Map<string, "old" | "new">([
        ["big.bin", bigHash === versions.big.new ? "new" : "old"],
      ]);
      for (const name of SMALL) {
        const content = readFileSync(join(dir, name), "utf8");
        const { old, new: fresh } = versions.small(name);
        expect([old, fresh], `trial ${trial}: ${name}`).toContain(content);
        states.set(name, content === fresh ? "new" : "old");
      }
      states.set("gone.txt", existsSync(join(dir, "gone.txt")) ? "old" : "new");
      states.set("run.sh", (statSync(join(dir, "run.sh")).mode & 0o111) === 0 ? "old" : "new");
      states.set("made", existsSync(join(dir, "made")) ? "new" : "old");
      states.set(
        "made/deep/m.txt",
        existsSync(join(dir, "made/deep/m.txt")) &&
          readFileSync(join(dir, "made/deep/m.txt"), "utf8") === "m\n"
          ? "new"
          : "old",
      );
      states.set("link0", existsSync(join(dir, "link0")) ? "new" : "old");
      const seen = new Set(states.values());
      expect(seen.size, `trial ${trial}: ${JSON.stringify(Object.fromEntries(states))}`).toBe(1);
      const state = [...seen][0]!;
      if (state === "new") {
        outcomes.finished++;
        expect(readlinkSync(join(dir, "link0"))).toBe("a0.txt");
      } else {
        outcomes.rolledBack++;
        expect(answered, "an answered call is never rolled back").toBe(1);
        expect(readdirSync(dir).sort()).toEqual(
          ["big.bin", ...SMALL, "first.txt", "gone.txt", "run.sh"].sort(),
        );
      }
      if (journal && !text.includes('"committed"'))
        expect(next.stderr).toMatch(
          /the write-back of shell \(request req-2\) \(process \d+\) was cut short/u,
        );
      rmSync(dir, { recursive: true, force: true });
    }
    console.info(`write-back kill sweep: ${JSON.stringify(outcomes)}`);
    // The kills did land during write-back (not all before or after it).
    expect(outcomes.rolledBack, JSON.stringify(outcomes)).toBeGreaterThan(0);
  }, 900_000);
});

/** Files, folders and links under `dir` with their kind, mode, bytes or target: the folder's state. */
function tree(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  for (const path of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const full = join(dir, path);
    const stat = lstatSync(full);
    const mode = (stat.mode & 0o777).toString(8);
    state[path] = stat.isSymbolicLink()
      ? `link -> ${readlinkSync(full)}`
      : stat.isDirectory()
        ? `folder ${mode}`
        : `file ${mode} ${readFileSync(full, "utf8")}`;
  }
  return state;
}

describe("a call's write-back killed before each change it makes to the disk", () => {
  const CRASH = join(import.meta.dirname, "..", "test-support", "write-back-crash.ts");
  const TSX = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "tsx");
  const file = (path: string, text: string, mode = 0o644) => ({ path, type: "file", text, mode });
  const folder = (path: string) => ({ path, type: "directory", mode: 0o755 });
  // Every kind of step: a replaced file, deletes (a file, a link, a folder tree), a mode, a mode on
  // a hard-linked file (a copy), new folders, a new file and link, a file made a folder and back.
  const changes = [
    { path: "a.txt", before: file("a.txt", "a\n"), after: file("a.txt", "A\n") },
    { path: "b.txt", before: file("b.txt", "b\n"), after: null },
    { path: "old-link", before: { path: "old-link", type: "symlink", target: "b.txt" }, after: null },
    { path: "gone", before: folder("gone"), after: null },
    { path: "gone/x.txt", before: file("gone/x.txt", "x\n"), after: null },
    { path: "gone/y", before: folder("gone/y"), after: null },
    { path: "gone/y/z.txt", before: file("gone/y/z.txt", "z\n"), after: null },
    { path: "run.sh", before: file("run.sh", "echo\n"), after: file("run.sh", "echo\n", 0o755) },
    { path: "hard.txt", before: file("hard.txt", "h\n"), after: file("hard.txt", "h\n", 0o600) },
    { path: "ln", before: null, after: { path: "ln", type: "symlink", target: "a.txt" } },
    { path: "new", before: null, after: folder("new") },
    { path: "new/deep", before: null, after: folder("new/deep") },
    { path: "new/deep/n.txt", before: null, after: file("new/deep/n.txt", "n\n") },
    { path: "f", before: file("f", "f\n"), after: folder("f") },
    { path: "f/inner.txt", before: null, after: file("f/inner.txt", "i\n") },
    { path: "d", before: folder("d"), after: file("d", "d\n") },
    { path: "d/q.txt", before: file("d/q.txt", "q\n"), after: null },
    { path: "c.txt", before: null, after: file("c.txt", "c\n") },
    // A link made a file, and a link pointed elsewhere.
    { path: "sym", before: { path: "sym", type: "symlink", target: "a.txt" }, after: file("sym", "s\n") },
    {
      path: "relink",
      before: { path: "relink", type: "symlink", target: "a.txt" },
      after: { path: "relink", type: "symlink", target: "c.txt" },
    },
  ];
  const seed = () => {
    const dir = mkdtempSync(join(tmpdir(), "toolroom-crash-at-"));
    for (const change of changes) {
      const before = change.before as { type: string; text?: string; target?: string } | null;
      const full = join(dir, change.path);
      if (before?.type === "directory") mkdirSync(full);
      else if (before?.type === "file") writeFileSync(full, before.text!);
      else if (before?.type === "symlink") symlinkSync(before.target!, full);
    }
    writeFileSync(join(dir, "untouched.txt"), "u\n");
    // hard.txt's other name is outside the folder: it keeps its mode whatever happens.
    const outside = `${dir}-outside.txt`;
    linkSync(join(dir, "hard.txt"), outside);
    return { dir, outside };
  };
  it.each([
    ["", "0"],
    [" (a disk without hard links: what a call replaces is renamed aside)", "1"],
  ])(
    "leaves the folder as before the call or as after it once the next start has run, at every point%s",
    async (_, noHardLinks) => {
      const crash = (dir: string, killAt: number) =>
        runToolroom(
          [CRASH, dir, JSON.stringify(changes)],
          "",
          { ...process.env, KILL_AT: String(killAt), NO_HARD_LINKS: noHardLinks },
          TSX,
        );
      const whole = seed();
      const before = tree(whole.dir);
      const clean = await crash(whole.dir, 0);
      expect(clean.code, clean.stderr).toBe(0);
      const { made, report } = JSON.parse(clean.stdout) as { made: number; report: WriteBackReport };
      expect([report.skipped, report.failed]).toEqual([[], []]);
      const after = tree(whole.dir);
      expect(after).toMatchObject({
        sym: "file 644 s\n",
        relink: "link -> c.txt",
        "a.txt": "file 644 A\n",
        "run.sh": "file 755 echo\n",
        "hard.txt": "file 600 h\n",
        ln: "link -> a.txt",
        "new/deep/n.txt": "file 644 n\n",
        f: "folder 755",
        d: "file 644 d\n",
      });
      expect(Object.keys(after)).not.toContain("gone");
      expect(made).toBeGreaterThan(30);
      console.info(`write-back killed before each of ${made} changes to the disk`);

      const seen = { before: 0, after: 0 };
      for (let killAt = 1; killAt <= made; killAt++) {
        const { dir, outside } = seed();
        const killed = await crash(dir, killAt);
        expect(killed.stdout, `killed before change ${killAt}`).toBe("");
        const said: string[] = [];
        if (killAt === Math.ceil(made / 2)) {
          // A run without --write-back changes nothing on disk, and says what the next start with it will do.
          const partial = tree(dir);
          const readOnly = await runToolroom(["batch", "--workspace", dir, "--profile", "coding-agent"], "");
          expect(readOnly.stderr).toMatch(
            /the write-back of a write-back \(process \d+\) was cut short.*; run with --write-back to put the folder back as it was before that call/u,
          );
          expect(tree(dir)).toEqual(partial);
        }
        // Every fifth point through the real command line's next start (batch or mcp); the rest
        // through the same code in-process.
        if (killAt % 5 === 0) {
          const next = await nextStart(dir, killAt % 10 === 0 ? "mcp" : "batch");
          expect(next.code, next.stderr).toBe(0);
          said.push(next.stderr);
        } else await recoverWriteBack(dir, (message) => said.push(message));
        const now = tree(dir);
        expect(leftovers(dir), `killed before change ${killAt}: ${said.join("\n")}`).toEqual([]);
        expect([before, after], `killed before change ${killAt}: ${said.join("\n")}`).toContainEqual(now);
        seen[JSON.stringify(now) === JSON.stringify(before) ? "before" : "after"]++;
        expect(readFileSync(outside, "utf8")).toBe("h\n");
        expect(statSync(outside).mode & 0o777).toBe(0o644);
        rmSync(dir, { recursive: true, force: true });
        rmSync(outside);
      }
      // Both ends were seen: killed before its commit (rolled back) and after it (finished).
      expect(seen.before).toBeGreaterThan(0);
      expect(seen.after).toBeGreaterThan(0);
    },
    900_000,
  );
});

describe("a run killed with SIGKILL after some calls were answered", () => {
  const tenMb = Buffer.alloc(10 * 1024 * 1024, "z");
  const seed = (dir: string) => {
    writeFileSync(join(dir, "a.txt"), "a\n");
    writeFileSync(join(dir, "b.txt"), "b\n");
    writeFileSync(join(dir, "untouched.txt"), "u\n");
  };
  const calls = [
    "echo one > one.txt",
    "echo changed >> a.txt && rm b.txt && chmod +x a.txt",
    "mkdir -p deep/er && node -e \"require('fs').writeFileSync('deep/er/ten.bin', 'z'.repeat(10485760))\"",
    // Never answered: what it wrote before the kill must not reach the disk.
    "echo hang > hang.txt && echo hang >> a.txt && sleep 60",
  ];
  const expectAnsweredOnDisk = (dir: string, untouched: Stats) => {
    const names = readdirSync(dir, { recursive: true }).map(String).sort();
    expect(names).toEqual(["a.txt", "deep", "deep/er", "deep/er/ten.bin", "one.txt", "untouched.txt"]);
    expect(readFileSync(join(dir, "one.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("a\nchanged\n");
    expect(statSync(join(dir, "a.txt")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, "deep/er/ten.bin")).equals(tenMb)).toBe(true);
    const after = statSync(join(dir, "untouched.txt"));
    expect([after.ino, after.mtimeMs]).toEqual([untouched.ino, untouched.mtimeMs]);
  };

  it("batch: every answered call's files are on disk, whole, and nothing of the unanswered one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolroom-crash-"));
    seed(dir);
    const untouched = statSync(join(dir, "untouched.txt"));
    const run = start(["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
    run.child.stdin.write(
      calls.map((command) => `${JSON.stringify({ tool: "shell", params: { command } })}\n`).join(""),
    );
    await run.waitForLines(3);
    // The fourth call is running (it sleeps): kill the whole process, no chance to write anything more.
    await pause(1500);
    run.child.kill("SIGKILL");
    await run.ended;
    expect(run.lines().map((line) => JSON.parse(line).ok)).toEqual([true, true, true]);
    expectAnsweredOnDisk(dir, untouched);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("mcp: every answered call's files are on disk, whole, and nothing of the unanswered one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolroom-crash-"));
    seed(dir);
    const untouched = statSync(join(dir, "untouched.txt"));
    const run = start(["mcp", "--workspace", dir, "--profile", "coding-agent", "--write-back"]);
    const rpc = (id: number, method: string, params: unknown) =>
      `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
    run.child.stdin.write(
      rpc(0, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      }),
    );
    run.child.stdin.write(
      calls.map((command, i) => rpc(i + 1, "tools/call", { name: "shell", arguments: { command } })).join(""),
    );
    await run.waitForLines(4);
    await pause(1500);
    run.child.kill("SIGKILL");
    await run.ended;
    const answers = run.lines().map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.id)).toEqual([0, 1, 2, 3]);
    expect(answers.slice(1).map((answer) => answer.result.isError)).toEqual([false, false, false]);
    expectAnsweredOnDisk(dir, untouched);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
