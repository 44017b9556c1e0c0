import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../../embedded-sandbox.ts";

/** rm held to GNU rm: the same script in a real folder and in the sandbox leaves the same tree. */

const SETUP =
  "mkdir -p d/sub e && echo a > a && echo f > d/f && echo s > d/sub/s && ln -s a la && ln -s gone dangling && ln -s d ld && ln -s e le";

const SCRIPTS = [
  "rm dangling; echo $?",
  "rm -f dangling la; echo $?",
  "rm ld; echo $?; ls d",
  "rm -r ld; echo $?; ls d",
  "rm ld/f; echo $?; ls d",
  "rm d; echo $?",
  "rm -d e; echo $?",
  "rm -d d; echo $?",
  "rm -rv d/sub; echo $?",
  "rm -v a la; echo $?",
  "rm missing; echo $?",
  "rm -f missing; echo $?",
  "rm; echo $?",
  "rm -- a; echo $?",
  "rm -r .; echo $?",
];

const listing = "find . | sort";

function native(script: string): { stdout: string; tree: string } {
  const dir = mkdtempSync(join(tmpdir(), "toolroom-rm-"));
  const run = (command: string) =>
    execFileSync("bash", ["-c", `${command} 2>&1`], { cwd: dir, encoding: "utf8", env: { LANG: "C" } });
  run(SETUP);
  return { stdout: run(script), tree: run(listing) };
}

describe("rm", () => {
  it.each(SCRIPTS)("%s: as GNU rm", async (script) => {
    const sandbox = await EmbeddedSandbox.create();
    await sandbox.exec(SETUP);
    const ran = await sandbox.exec(`${script} 2>&1`);
    const tree = await sandbox.exec(listing);
    const want = native(script);
    expect({ stdout: ran.stdout, tree: tree.stdout }).toEqual(want);
  });
});
