import { execFileSync } from "node:child_process";
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

// Operands in name order: just-bash lists them in the order given, GNU sorts them.
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

  it("spells every special bit as GNU does", () => {
    expect(modeColumn("file", 0o4644)).toBe("-rwSr--r--");
    expect(modeColumn("file", 0o6755)).toBe("-rwsr-sr-x");
    expect(modeColumn("directory", 0o1770)).toBe("drwxrwx--T");
    expect(modeColumn("symlink", 0o777)).toBe("lrwxrwxrwx");
  });
});
