import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { pythonReadySandbox } from "../../../testing/python-ready.ts";
import type { EmbeddedSandbox } from "../../embedded-sandbox.ts";
import { parseDuration } from "./timeout.ts";

/** The embedded `timeout`, held to GNU timeout (coreutils) run by bash on the same command lines. */

let box: EmbeddedSandbox;

beforeAll(async () => {
  box = await pythonReadySandbox();
}, 180_000);

const gnu =
  spawnSync("timeout", ["--version"], { encoding: "utf8" }).stdout?.includes("GNU coreutils") ?? false;

/**
 * Command lines and whether their stderr is compared too. A program stopped here is not killed by
 * SIGTERM: node and awk say they were stopped and python3 shows its KeyboardInterrupt on stderr,
 * where the real ones die silently, so for those only stdout and the status are compared.
 */
const CASES: Array<[string, boolean]> = [
  ["timeout 1 bash -c 'echo a; exit 0'; echo status $?", true],
  ["timeout 5 echo hi; echo status $?", true],
  ["timeout 0 echo disabled; echo status $?", true],
  ["timeout 2m echo minutes; echo status $?", true],
  ["timeout 1 bash -c 'echo out; exit 3'; echo status $?", true],
  ["echo piped | timeout 1 cat; echo status $?", true],
  ["timeout 0.5 sleep 5; echo status $?", true],
  ["timeout --preserve-status 0.5 sleep 5; echo status $?", true],
  ["timeout -s INT --preserve-status 0.5 sleep 5; echo status $?", true],
  // bash reports the KILL of its child on stderr ("Killed"); no process dies here.
  ["timeout -sKILL --preserve-status .5 sleep 5; echo status $?", false],
  ["timeout -v 0.5 sleep 5; echo status $?", true],
  ["timeout -k 1 --foreground 0.5 sleep 5; echo status $?", true],
  ["timeout 1x true; echo status $?", true],
  ["timeout; echo status $?", true],
  ["timeout 1; echo status $?", true],
  ["timeout -s NOPE 1 true; echo status $?", true],
  ["timeout 1 no-such-command; echo status $?", true],
  ["timeout 1 X=1 true; echo status $?", true],
  // Busy loops of our own commands stop at the timeout, keeping what they printed.
  ["timeout 1 awk 'BEGIN { print \"a\"; fflush(); while (1) {} }'; echo status $?", false],
  ["timeout 1 sed -u -n 'p; :a; s/x/x/; ta' <<< x; echo status $?", false],
  [`timeout 1 node -e "console.log('a'); for (;;) {}"; echo status $?`, false],
  [`timeout 2 python3 -c "import time; print('a', flush=True); time.sleep(30)"; echo status $?`, false],
];

describe.skipIf(!gnu)("timeout is GNU timeout", () => {
  it.each(CASES)("%s", { timeout: 120_000 }, async (script, stderrToo) => {
    const real = spawnSync("bash", ["-c", script], { encoding: "utf8" });
    const ours = await box.exec(script, { timeoutMs: 60_000 });
    expect(ours.stdout).toBe(real.stdout);
    expect(ours.exitCode).toBe(real.status);
    if (stderrToo) expect(ours.stderr).toBe(real.stderr);
  });
});

describe("timeout's durations", () => {
  it("reads GNU's forms and refuses the rest", () => {
    expect(parseDuration("1")).toBe(1);
    expect(parseDuration("1.5s")).toBe(1.5);
    expect(parseDuration(".5m")).toBe(30);
    expect(parseDuration("2h")).toBe(7200);
    expect(parseDuration("1d")).toBe(86_400);
    expect(parseDuration("5.")).toBe(5);
    for (const bad of ["", "x", "1x", "-1", "1ms", "1 s"]) expect(parseDuration(bad), bad).toBeUndefined();
  });
});
