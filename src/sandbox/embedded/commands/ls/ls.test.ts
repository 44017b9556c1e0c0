import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../../embedded-sandbox.ts";
import { modeColumn } from "./ls.ts";

/** ls -l's mode column held to GNU ls: the same tree, the same script, the same modes and names. */

const SETUP = [
  "mkdir -p sub/deep priv shared",
  "echo a > plain.txt && echo '#!/bin/sh' > run.sh && echo s > secret && echo x > sub/tool && echo d > sub/deep/f",
  "chmod 755 run.sh && chmod 600 secret && chmod 4755 sub/tool && chmod 700 priv && chmod 1777 shared",
  "chmod 2750 sub/deep",
  "ln -s plain.txt link && ln -s sub dirlink",
].join(" && ");

const SCRIPTS = [
  "ls -l",
  "ls -lA",
  "ls -l sub",
  "ls -ld priv shared sub",
  "ls -lR sub",
  "ls -lF",
  "ls -l link run.sh",
];

/** Each long line's mode column and name (GNU's owner, size and date columns differ on purpose). */
function modesAndNames(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => /^[-dl][-rwxsStT]{9}/u.test(line))
    .map((line) => {
      const fields = line.split(/ +/u);
      return `${fields[0]!.slice(0, 10)} ${fields.slice(8).join(" ")}`;
    });
}

function native(script: string): string {
  const dir = mkdtempSync(join(tmpdir(), "toolroom-ls-"));
  const run = (command: string) =>
    execFileSync("sh", ["-c", command], { cwd: dir, encoding: "utf8", env: { LANG: "C", TZ: "UTC" } });
  run(SETUP);
  return run(`${script} | sed 's/^\\([-dl][-rwxsStT]\\{9\\}\\)[.+]/\\1/'`);
}

describe("ls -l", () => {
  it.each(SCRIPTS)("%s: the mode column as GNU ls", async (script) => {
    const sandbox = await EmbeddedSandbox.create();
    const setup = await sandbox.exec(SETUP);
    expect(setup.exitCode, setup.stderr).toBe(0);
    const ran = await sandbox.exec(script);
    expect(ran.exitCode, ran.stderr).toBe(0);
    const want = modesAndNames(native(script));
    expect(want.length).toBeGreaterThan(0);
    expect(modesAndNames(ran.stdout)).toEqual(want);
  });

  it.each([
    "ls -l",
    "TZ=Asia/Kolkata ls -l plain.txt run.sh secret",
    "TZ=America/New_York ls -l link plain.txt",
  ])("%s: sizes and times of files and links as GNU ls", async (script) => {
    const dated = `${SETUP} && touch -d '2024-03-05 23:07:08' plain.txt secret && touch -d '2025-01-31 01:02:03' run.sh`;
    // size, month, day, year-or-time and name of each file or link line (a folder's size is its own here)
    const columns = (output: string) =>
      output
        .split("\n")
        .filter((line) => /^[-l]/u.test(line))
        .map((line) => {
          const fields = line.split(/ +/u);
          // a link made now: its time is this minute, compare only that it is not its target's
          return fields[0]!.startsWith("l")
            ? `${fields[4]} ${fields.slice(8).join(" ")}`
            : fields.slice(4).join(" ");
        });
    const sandbox = await EmbeddedSandbox.create();
    const setup = await sandbox.exec(dated);
    expect(setup.exitCode, setup.stderr).toBe(0);
    const ran = await sandbox.exec(script);
    expect(ran.exitCode, ran.stderr).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), "toolroom-ls-"));
    execFileSync("sh", ["-c", dated], { cwd: dir });
    const want = execFileSync("sh", ["-c", script], {
      cwd: dir,
      encoding: "utf8",
      env: { LANG: "C", TZ: "UTC" },
    });
    expect(columns(ran.stdout)).toEqual(columns(want));
    // a link's line shows the link's own time, as stat does, never its target's 2024
    for (const line of ran.stdout.split("\n").filter((l) => l.startsWith("l")))
      expect(line).not.toMatch(/2024|2025/u);
  });

  it("prints times in $TZ, else UTC, as date and stat do", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const ran = await sandbox.exec(
      "touch -d '2024-03-05 23:07:08' f && ls -l f && TZ=Asia/Tokyo ls -l f && stat -c %y f && TZ=Asia/Tokyo stat -c %y f",
    );
    expect(ran.exitCode, ran.stderr).toBe(0);
    const lines = ran.stdout.split("\n");
    expect(lines[0]).toMatch(/ Mar {2}5 {2}2024 f$/u);
    expect(lines[1]).toMatch(/ Mar {2}6 {2}2024 f$/u);
    expect(lines[2]).toMatch(/^2024-03-05 23:07:08/u);
    expect(lines[3]).toMatch(/^2024-03-06 08:07:08/u);
  });

  // Each line as GNU's and ours share it: a long line's mode and name, "total" without GNU's block count.
  const layout = (output: string) =>
    output
      .split("\n")
      .map((line) =>
        /^[-dl][-rwxsStT]{9}/u.test(line)
          ? `${line.slice(0, 10)} ${line.split(/ +/u).slice(8).join(" ")}`
          : line.replace(/^total \d+$/u, "total"),
      );

  it.each([
    "ls -l run.sh sub plain.txt shared link",
    "ls run.sh sub plain.txt shared link",
    "ls -l dirlink",
    "ls -l dirlink/",
    "ls -ld dirlink",
    "ls dirlink",
    "ls -F dirlink",
    "ls -1 dirlink plain.txt",
    "ls -lF dirlink sub",
    "ls sub shared",
    "ls -R sub shared",
    "ls -lR priv plain.txt sub",
    "ls -lr plain.txt run.sh sub shared",
    "ls -l sub/ dirlink/",
    "ls -l nope plain.txt sub; echo rc=$?",
    "ls nope; echo rc=$?",
    "ls -l plain.txt/ sub; echo rc=$?",
    "ls -d sub priv plain.txt dirlink",
    "ls -ld shared sub dirlink dirlink/ link",
    "ls -dF sub run.sh dirlink",
    "ls -d nope sub; echo rc=$?",
    "ln -s nowhere dangling; ls dangling; ls -l dangling; ls -F dangling; ls -lF dangling link plain.txt sub",
    "ln -s nowhere dangling; ls -ld dangling; ls -d dangling link; ls dangling/; echo rc=$?",
  ])("%s: operands laid out as GNU ls", async (script) => {
    const sandbox = await EmbeddedSandbox.create();
    const setup = await sandbox.exec(SETUP);
    expect(setup.exitCode, setup.stderr).toBe(0);
    const ran = await sandbox.exec(script);
    const dir = mkdtempSync(join(tmpdir(), "toolroom-ls-"));
    execFileSync("sh", ["-c", SETUP], { cwd: dir });
    const want = spawnSync("sh", ["-c", script], {
      cwd: dir,
      encoding: "utf8",
      env: { LANG: "C", TZ: "UTC" },
    });
    expect(layout(ran.stdout)).toEqual(layout(want.stdout));
    expect(ran.stderr).toBe(want.stderr);
    expect(ran.exitCode).toBe(want.status);
  });

  it.each(["ls -l sizes", "ls -lh sizes", "ls -lhr sizes", "ls -lh sizes/m5000000 sizes/a0 sizes/l1048577"])(
    "%s: sizes (-h rounded up as GNU) and the size column as wide as the widest",
    async (script) => {
      const sizes = [0, 2, 1023, 1024, 1025, 3000, 10239, 10240, 10241, 1048575, 1048576, 1048577, 5000000];
      const setup = [
        "mkdir sizes",
        // the sandbox's /dev/zero is an empty file: printf makes the bytes
        ...sizes.map(
          (size, i) =>
            `printf '${size ? `%${size}s` : ""}' ${size ? "x" : ""} > sizes/${String.fromCharCode(97 + i)}${size}`,
        ),
        "touch -d '2024-03-05 23:07:08' sizes/*",
      ].join(" && ");
      // from the size column on: GNU's owner is whoever runs the test
      const fromSize = (output: string) =>
        output
          .split("\n")
          .filter((line) => line.startsWith("-"))
          .map((line) => line.replace(/^\S+ +\d+ +\S+ +\S+ /u, ""));
      const sandbox = await EmbeddedSandbox.create();
      const made = await sandbox.exec(setup);
      expect(made.exitCode, made.stderr).toBe(0);
      const ran = await sandbox.exec(script, { env: { TZ: "UTC" } });
      expect(ran.exitCode, ran.stderr).toBe(0);
      const dir = mkdtempSync(join(tmpdir(), "toolroom-ls-"));
      execFileSync("sh", ["-c", setup], { cwd: dir });
      const want = execFileSync("sh", ["-c", script], {
        cwd: dir,
        encoding: "utf8",
        env: { LANG: "C", TZ: "UTC" },
      });
      expect(fromSize(want)).toHaveLength(script.includes("/") ? 3 : sizes.length);
      expect(fromSize(ran.stdout)).toEqual(fromSize(want));
    },
  );

  it("shows the time of day within the last six months, else (in the future too) the year, as GNU ls", async () => {
    const day = 86_400_000;
    const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");
    const now = Date.now();
    const ages = { a181: 181 * day, b182: 182 * day, c183: 183 * day, d1h: 3600_000, efuture: -2 * day };
    const setup = Object.entries(ages)
      .map(([name, age]) => `: > ${name} && touch -d '${stamp(now - age)}' ${name}`)
      .join(" && ");
    const sandbox = await EmbeddedSandbox.create();
    const made = await sandbox.exec(setup, { env: { TZ: "UTC" } });
    expect(made.exitCode, made.stderr).toBe(0);
    const ran = await sandbox.exec("ls -l", { env: { TZ: "UTC" } });
    const dir = mkdtempSync(join(tmpdir(), "toolroom-ls-"));
    execFileSync("sh", ["-c", setup], { cwd: dir, env: { TZ: "UTC", PATH: process.env.PATH ?? "" } });
    const want = execFileSync("sh", ["-c", "ls -l"], {
      cwd: dir,
      encoding: "utf8",
      env: { LANG: "C", TZ: "UTC" },
    });
    const dates = (output: string) =>
      output
        .split("\n")
        .filter((line) => line.startsWith("-"))
        .map((line) => line.split(/ +/u).slice(5).join(" "));
    expect(dates(want)).toHaveLength(5);
    expect(dates(ran.stdout)).toEqual(dates(want));
  });

  it.each([
    "ls -t q",
    "ls -tr q",
    "ls -lt q",
    "ls -ltr q",
    "ls -tF q",
    "ls -tR q",
    "ls -1t q/a q/b q/c q/d",
    "ls -t q q/sub",
    // -S: a folder's size is the sandbox's own (0, GNU's 4096): files and links only
    "ls -St q",
    "ls -tS q/sub q/a q/b q/c q/d q/link",
    "ls -t -S q/link q/a q/d q/b q/sub",
    "ls -S -t q/a q/d q/b",
    "ls -lSr q/sub q/link q/d q/a q/b",
  ])("%s: newest first, equal times by name, as GNU ls", async (script) => {
    const setup = [
      "mkdir -p q/sub && printf 1 > q/b && printf 22 > q/a && printf 22 > q/c && printf 333 > q/d && : > q/sub/x && : > q/sub/y",
      "ln -s d q/link && chmod +x q/c",
      "touch -d '2024-01-01 00:00:00' q/a q/b q/sub/y && touch -d '2024-02-01 00:00:00' q/c q/d q/sub/x",
      "touch -d '2023-06-01 00:00:00' q/sub",
    ].join(" && ");
    const sandbox = await EmbeddedSandbox.create();
    const made = await sandbox.exec(setup);
    expect(made.exitCode, made.stderr).toBe(0);
    const ran = await sandbox.exec(script);
    const dir = mkdtempSync(join(tmpdir(), "toolroom-ls-"));
    execFileSync("sh", ["-c", setup], { cwd: dir });
    // the link's own time is when it was made, in both: newest of all
    const want = spawnSync("sh", ["-c", script], {
      cwd: dir,
      encoding: "utf8",
      env: { LANG: "C", TZ: "UTC" },
    });
    expect(layout(ran.stdout)).toEqual(layout(want.stdout));
    expect(ran.exitCode).toBe(want.status);
  });

  it("totals the blocks listed, as stat counts them (just-bash counted the entries)", async () => {
    const sandbox = await EmbeddedSandbox.create();
    const ran = await sandbox.exec(
      [
        "mkdir s s/d && printf '%3000s' x > s/big && echo a > s/small && ln -s big s/l && : > s/d/empty",
        "ls -l s | head -1; ls -lh s | head -1; ls -lA s | head -1; ls -l s/d | head -1",
        "set -- $(stat -c %b s/big s/small s/d s/l) && echo $(( ($1 + $2 + $3 + $4) / 2 ))",
      ].join(" && "),
    );
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(ran.stdout).toBe("total 4\ntotal 4.0K\ntotal 4\ntotal 0\n4\n");
  });

  it("spells every special bit as GNU does", () => {
    expect(modeColumn("file", 0o4644)).toBe("-rwSr--r--");
    expect(modeColumn("file", 0o6755)).toBe("-rwsr-sr-x");
    expect(modeColumn("directory", 0o1770)).toBe("drwxrwx--T");
    expect(modeColumn("symlink", 0o777)).toBe("lrwxrwxrwx");
  });
});
