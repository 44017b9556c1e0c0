import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedSandbox } from "../../../../host/create-runtime.ts";
import { registerNodeAssets } from "../../../../host/node-assets.ts";
import { readUntil } from "../../../testing/read-until.ts";
import type { EmbeddedSandbox } from "../../embedded-sandbox.ts";

/** The embedded `env` and `printenv`, held to GNU env/printenv (coreutils) run by bash on the same lines. */

let box: EmbeddedSandbox;

beforeAll(async () => {
  registerNodeAssets();
  box = await createEmbeddedSandbox();
  await box.exec("python3 -c pass", { timeoutMs: 120_000 });
}, 180_000);

const gnu = spawnSync("env", ["--version"], { encoding: "utf8" }).stdout?.includes("GNU coreutils") ?? false;

// The real shell runs in an empty folder with the sandbox's locale; the lines print no variable
// whose value differs between the two (HOME, PATH).
const realCwd = mkdtempSync(join(tmpdir(), "toolroom-env-"));
const realEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: realCwd, LANG: "C.UTF-8" };

const CASES = [
  // env hands its assignments to every kind of command it runs.
  "env X=1 node -e 'console.log(process.env.X)'",
  `env X=1 python3 -c 'import os; print(os.environ.get("X"))'`,
  "env X=1 printenv X",
  `env X=1 bash -c 'echo "[$X]"'`,
  `env X=1 sh -c 'echo "[$X]"'`,
  `env X=1 Y='a b' bash -c 'echo "$X/$Y"'`,
  `env 'Q=it'"'"'s' printenv Q`,
  "env X=1 env -u X printenv X; echo status $?",
  "env X=1 node -e 'process.exit(3)'; echo status $?",
  "echo piped | env X=1 cat",
  `echo hi | env X=1 python3 -c 'import os, sys; print(sys.stdin.read().strip(), os.environ["X"])'`,
  "env X=1 printenv X | tr 1 2",
  // A shell hands them on to what it runs; what was unset stays unset in it.
  `env X=1 bash -c 'printenv X; node -e "console.log(process.env.X)"'`,
  `W=1 bash -c 'printenv W; sh -c "printenv W"'`,
  "W=1 bash -c true; W=2; printenv W; echo status $?",
  `env -i bash -c 'printenv HOME; echo status $?; echo "[$HOME]"'`,
  `export -n HOME; bash -c 'echo "[$HOME]"'; unset LANG; sh -c 'printenv LANG; echo status $?'`,
  `env -u LANG bash -c 'python3 -c "import os; print(sorted(k for k in os.environ if k[:2] == chr(76) + chr(65)))"'`,
  "bash -c 'echo $0 $1 $#; exit 3' zero one; echo status $?",
  "echo input | bash -c 'read l; echo got $l'",
  // The plain prefix form, and exported variables.
  "X=1 node -e 'console.log(process.env.X)'",
  "export Y=3; env node -e 'console.log(process.env.Y)'; env printenv Y",
  "export Y=3; env -u Y node -e 'console.log(process.env.Y)'; env --unset=Y printenv Y; echo status $?",
  "Y=1; env | grep -c '^Y='; printenv Y; echo status $?",
  "env X=1 true; X=2; printenv X; echo status $?",
  // -i starts from nothing: not even PWD.
  "env -i X=2 node -e 'console.log(JSON.stringify(process.env))'",
  `env -i X=2 python3 -c 'import os; print(os.environ.get("X"), os.environ.get("PWD"), os.environ.get("HOME"))'`,
  "env -i A=1 B=2 env",
  "env -i A=1 B=2 printenv; env -i A=1 printenv A B; echo status $?",
  "env -i printenv; echo status $?",
  "env - A=1 env",
  "env -i -- A=1 env",
  "env -0 -i A=1 B=2 | cat -v",
  `export Z=9; env -i bash -c 'echo "[$Z]"'`,
  // The working folder.
  "cd /tmp && env pwd && env -C / pwd && env printenv PWD",
  "env -C /nonexistent pwd; echo status $?",
  // Errors, as GNU words them.
  "env nosuch; echo status $?",
  "env cd /; echo status $?",
  "env export X=1; echo status $?",
  "f() { echo f; }; env f; echo status $?",
  "env -0 true; echo status $?",
  "env -x; echo status $?",
  "env -u; echo status $?",
  "env --foo; echo status $?",
  "env A=1 -i env; echo status $?",
  "env -u a=b true; echo status $?",
  "env -C; echo status $?",
  "env -v -i A=1 true",
  "printenv -x; echo status $?",
  "printenv NO_SUCH_VARIABLE; echo status $?",
  "X=1 printenv X=1; echo status $?",
  // The sandbox's own variables are no part of any environment.
  "timeout 5 env | grep -c __toolroom",
  "timeout 5 printenv | grep -c __toolroom",
  "export X=5; timeout 5 printenv X; timeout 5 node -e 'console.log(process.env.X)'",
  "env X=1 timeout 5 printenv X",
  "timeout 5 env X=1 printenv X",
];

describe.skipIf(!gnu)("env and printenv are GNU's", () => {
  it.each(CASES)("%s", { timeout: 120_000 }, async (script) => {
    const real = spawnSync("bash", ["-c", script], {
      encoding: "utf8",
      cwd: realCwd,
      env: realEnv,
      // Not a socket: bash would read ~/.bashrc, taking itself for one run by a remote shell.
      stdio: ["ignore", "pipe", "pipe"],
    });
    const ours = await box.exec(script, { timeoutMs: 60_000 });
    expect({ stdout: ours.stdout, stderr: ours.stderr, exitCode: ours.exitCode }).toEqual({
      stdout: real.stdout,
      stderr: real.stderr,
      exitCode: real.status,
    });
  });
});

describe("the environment a command sees", () => {
  it("is the exported variables without the sandbox's markers", { timeout: 120_000 }, async () => {
    const result = await box.exec(
      "unexported=1; export SHOWN=2; env; echo ---; printenv; echo ---; env node -e 'console.log(Object.keys(process.env).join(\"\\n\"))'",
      { timeoutMs: 60_000 },
    );
    const [env, printenv, node] = result.stdout.split("---\n");
    for (const listing of [env!, printenv!]) {
      expect(listing).toContain("SHOWN=2\n");
      expect(listing).not.toMatch(/^(unexported|IFS|SHELLOPTS|BASHOPTS|OPTIND|__toolroom_\w*)=/mu);
    }
    expect(node).toContain("SHOWN\n");
    expect(node).not.toMatch(/unexported|__toolroom_/u);
  });
});

describe("a terminal session's environment, line after line", () => {
  it("keeps a variable exported or not as bash does, and its status", { timeout: 120_000 }, async () => {
    const lines = [
      "Y=1; export Z=2",
      "printenv Y; echo status $?; env | grep -c '^Z=2$'; node -e 'console.log(process.env.Y, process.env.Z)'",
      "export Y; export -n Z",
      "env | grep -E '^(Y|Z)='; echo $Z",
      "env | grep -cE '^(OSTYPE|HOSTTYPE|MACHTYPE|IFS)='",
      "echo status $?",
      "false",
      "echo status $?",
    ];
    const script = lines.join("\n");
    const real = spawnSync("bash", ["-c", script], {
      encoding: "utf8",
      cwd: realCwd,
      env: realEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const session = await box.pty("bash", { prompt: "$ " });
    let printed = "";
    for (const line of lines) {
      await session.write(`${line}\n`);
      // Each line's output comes between the echo of what was typed and the next prompt.
      const read = await readUntil(session, (seen) => seen.endsWith("\n$ "), 60_000);
      printed += read.output.slice(read.output.indexOf(`${line}\n`) + line.length + 1, -"$ ".length);
    }
    expect(printed).toBe(real.stdout);
  });
});
