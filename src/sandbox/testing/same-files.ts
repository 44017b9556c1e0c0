import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedSandbox } from "../embedded/embedded-sandbox.ts";

export interface Ran {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

/** Runs one shell script in a real folder with sh and in an embedded sandbox, both with `env` first. */
export interface SameFiles {
  native(script: string): Ran;
  ours(script: string): Promise<Ran>;
  /** The real folder (the sandbox's is its workspace). */
  dir: string;
}

/**
 * The same files made by the same `setup` script in a new real folder and a new embedded sandbox,
 * for differential tests of a command against the real program (GNU's, on this machine).
 */
export async function sameFilesBothWays(setup: string, env: string, prefix: string): Promise<SameFiles> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const native = (script: string): Ran => {
    const ran = spawnSync("sh", ["-c", `${env}; ${script}`], { cwd: dir, encoding: "utf8" });
    return { stdout: ran.stdout, stderr: ran.stderr, exitCode: ran.status };
  };
  const sandbox = await EmbeddedSandbox.create();
  const ours = async (script: string): Promise<Ran> => {
    const ran = await sandbox.exec(`${env}; ${script}`);
    return { stdout: ran.stdout, stderr: ran.stderr, exitCode: ran.exitCode };
  };
  for (const [where, ran] of [
    ["the real folder", native(setup)],
    ["the sandbox", await ours(setup)],
  ] as const) {
    if (ran.exitCode !== 0) throw new Error(`setting up ${where} failed: ${ran.stderr}`);
  }
  return { native, ours, dir };
}
