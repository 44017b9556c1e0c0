import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
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

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  /** The program run with `args` (bin/toolroom unless given: node on a runner file, say). */
  command?: string;
}

/** A run still going: what it printed so far, and a wait for its answers line by line. */
export interface LiveRun {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** stdout's complete lines so far (the answers). */
  lines(): string[];
  /** Resolves once stdout holds `count` complete lines. */
  waitForLines(count: number): Promise<void>;
  /** Resolves when the process has exited and its output is all read. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Set once `ended` has resolved (for loops that poll while it runs). */
  exited(): boolean;
}

/** Starts bin/toolroom with `args`, stdin left open for the caller; stdout and stderr collected. */
export function startToolroom(args: string[], options: StartOptions = {}): LiveRun {
  const child = spawn(options.command ?? TOOLROOM_BIN, args, {
    stdio: ["pipe", "pipe", "pipe"],
    env: options.env ?? process.env,
  });
  let stdout = "";
  let stderr = "";
  let exited = false;
  const waiting: { count: number; resolve: () => void }[] = [];
  const complete = () => stdout.split("\n").length - 1;
  const check = () => {
    for (const wait of waiting.splice(0))
      (complete() >= wait.count ? wait.resolve : () => waiting.push(wait))();
  };
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    check();
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      exited = true;
      resolve({ code, signal });
    });
  });
  // A child that dies early must not leave writes to its stdin throwing EPIPE in the test process.
  child.stdin.on("error", () => undefined);
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () => stdout.split("\n").slice(0, complete()),
    waitForLines: (count) =>
      new Promise((resolve) => {
        waiting.push({ count, resolve });
        check();
      }),
    ended,
    exited: () => exited,
  };
}

/** Runs bin/toolroom with `args`, writes `stdin` and closes it; what it printed and its exit code. */
export async function runToolroom(
  args: string[],
  stdin = "",
  env: NodeJS.ProcessEnv = process.env,
  command: string = TOOLROOM_BIN,
): Promise<CliRun> {
  const run = startToolroom(args, { env, command });
  run.child.stdin.end(stdin);
  const { code } = await run.ended;
  return { code: code ?? -1, stdout: run.stdout(), stderr: run.stderr() };
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
