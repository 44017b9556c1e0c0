import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sandbox } from "../../sandbox/types.ts";

/** Test support: repositories made by native git on disk, and copies of them in a sandbox. */

export const GIT_ENV = {
  GIT_AUTHOR_NAME: "Ada",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_COMMITTER_NAME: "Ada",
  GIT_COMMITTER_EMAIL: "ada@example.com",
  GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: "/nonexistent",
};

export function tempDir(prefix = "toolroom-git-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs native git in `cwd` and returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "init.defaultBranch=main", "-c", "core.autocrlf=false", ...args], {
    cwd,
    env: { ...process.env, ...GIT_ENV },
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
}

/** Copies a folder from disk, .git included, into the sandbox's workspace. */
export async function loadIntoSandbox(root: string, sandbox: Sandbox): Promise<void> {
  const copy = async (from: string, to: string) => {
    for (const name of readdirSync(from)) {
      const source = join(from, name);
      const target = `${to}/${name}`;
      const stat = lstatSync(source);
      if (stat.isSymbolicLink()) await sandbox.symlink(readlinkSync(source), target);
      else if (stat.isDirectory()) {
        await sandbox.mkdir(target);
        await copy(source, target);
      } else {
        await sandbox.writeFile(target, readFileSync(source));
        // The Sandbox interface has no chmod; the embedded backend's own fs does (executable bits matter to git).
        await (sandbox as { fs?: { chmod?(path: string, mode: number): Promise<void> } }).fs?.chmod?.(
          target,
          stat.mode & 0o777,
        );
      }
    }
  };
  await copy(root, sandbox.workspaceRoot);
}

export interface NativeStatus {
  branch: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  staged: { path: string; status: string; old_path?: string }[];
  unstaged: { path: string; status: string }[];
  untracked: string[];
}

const STATUS_LETTERS: Record<string, string> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  T: "modified",
};

/** `git status --porcelain=v2 --branch -uall`, in the shape git_status returns. */
export function nativeStatus(cwd: string): NativeStatus {
  const out = git(cwd, "status", "--porcelain=v2", "--branch", "-uall");
  const status: NativeStatus = {
    branch: null,
    upstream: null,
    ahead: 0,
    behind: 0,
    staged: [],
    unstaged: [],
    untracked: [],
  };
  for (const line of out.split("\n").filter(Boolean)) {
    if (line.startsWith("# branch.head ")) {
      const head = line.slice(14);
      status.branch = head === "(detached)" ? null : head;
    } else if (line.startsWith("# branch.upstream ")) status.upstream = line.slice(18);
    else if (line.startsWith("# branch.ab ")) {
      const [, ahead, behind] = /\+(\d+) -(\d+)/u.exec(line)!;
      status.ahead = Number(ahead);
      status.behind = Number(behind);
    } else if (line.startsWith("? ")) status.untracked.push(line.slice(2));
    else if (line.startsWith("1 ") || line.startsWith("2 ")) {
      const fields = line.split(" ");
      const xy = fields[1]!;
      const rest = line
        .split(" ")
        .slice(line.startsWith("1 ") ? 8 : 9)
        .join(" ");
      const [path, oldPath] = rest.split("\t");
      if (xy[0] !== ".") {
        status.staged.push({
          path: path!,
          status: STATUS_LETTERS[xy[0]!]!,
          ...(xy[0] === "R" ? { old_path: oldPath! } : {}),
        });
      }
      if (xy[1] !== ".") status.unstaged.push({ path: path!, status: STATUS_LETTERS[xy[1]!]! });
    }
  }
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
  status.staged.sort(byPath);
  status.unstaged.sort(byPath);
  status.untracked.sort();
  return status;
}

/** Copies the sandbox's workspace, .git included, to a fresh folder on disk, for native git to inspect. */
export async function saveFromSandbox(sandbox: Sandbox): Promise<string> {
  const root = tempDir("toolroom-git-out-");
  const copy = async (from: string, to: string) => {
    for (const entry of await sandbox.readdir(from)) {
      const source = `${from}/${entry.name}`;
      const target = join(to, entry.name);
      if (entry.type === "symlink") symlinkSync(await sandbox.readlink(source), target);
      else if (entry.type === "directory") {
        mkdirSync(target);
        await copy(source, target);
      } else
        writeFileSync(target, await sandbox.readFile(source), { mode: (await sandbox.lstat(source)).mode });
    }
  };
  await copy(sandbox.workspaceRoot, root);
  return root;
}
