import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** bin/toolroom, as a person runs it (the prebuilt bundle when it matches the sources). */
export const TOOLROOM_BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs bin/toolroom with `args`, writes `stdin` and closes it; what it printed and its exit code. */
export function runToolroom(
  args: string[],
  stdin = "",
  env: NodeJS.ProcessEnv = process.env,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(TOOLROOM_BIN, args, { stdio: ["pipe", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A new folder in the system's temporary folder holding `files` (relative path → text). */
export function folderWith(files: Record<string, string>, prefix = "toolroom-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
