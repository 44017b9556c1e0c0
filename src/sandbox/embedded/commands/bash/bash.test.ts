import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedSandbox } from "../../../../host/create-runtime.ts";
import { registerNodeAssets } from "../../../../host/node-assets.ts";
import type { EmbeddedSandbox } from "../../embedded-sandbox.ts";

/** The embedded `bash`/`sh` command lines, held to GNU bash run on the same lines. */

let box: EmbeddedSandbox;

beforeAll(async () => {
  registerNodeAssets();
  box = await createEmbeddedSandbox();
}, 180_000);

const realCwd = mkdtempSync(join(tmpdir(), "toolroom-bash-"));
const realEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: realCwd, LANG: "C.UTF-8" };

const CASES = [
  "bash -lc 'echo hi $0' zero",
  "bash -c 'echo \"$@\" $#' z a b",
  "bash -e -c 'false; echo never'; echo status $?",
  "bash -o pipefail -c 'false | true'; echo status $?",
  "bash -c; echo status $?",
  "echo 'echo got $1' | bash -s arg",
  "echo 'echo from stdin' | sh",
  "printf 'echo f $1\\n' > s.sh; bash -e s.sh a; sh s.sh b",
  "bash --norc --noprofile -c 'echo quiet'",
  "bash no-such-script.sh; echo status $?",
  "bash -c 'exit 7'; echo status $?",
];

describe("bash's command line is bash's", () => {
  it.each(CASES)("%s", { timeout: 60_000 }, async (script) => {
    const real = spawnSync("bash", ["-c", script], {
      encoding: "utf8",
      cwd: realCwd,
      env: realEnv,
      // Not a socket: bash would read ~/.bashrc, taking itself for one run by a remote shell.
      stdio: ["ignore", "pipe", "pipe"],
    });
    const ours = await box.exec(script, { timeoutMs: 30_000 });
    expect({ stdout: ours.stdout, stderr: ours.stderr, exitCode: ours.exitCode }).toEqual({
      stdout: real.stdout,
      stderr: real.stderr,
      exitCode: real.status,
    });
  });
});
