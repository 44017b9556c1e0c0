import { type Command, defineCommand } from "just-bash";
import { isToolFailure } from "../core/errors.ts";
import type { Clock } from "../core/events.ts";
import { createToolContext } from "../core/tool-context.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { gitCommit, initGitDir, stagePaths } from "../tools/git/commit.ts";
import { gitDiff } from "../tools/git/diff.ts";
import { loadGit } from "../tools/git/load.ts";
import { openRepo, repoAt } from "../tools/git/repo.ts";
import { type FileChange, gitStatus } from "../tools/git/status.ts";
import { gitLog, gitShow, renamedName, statBlock } from "./git-log.ts";

type Result = { stdout: string; stderr: string; exitCode: number };
const ok = (stdout: string): Result => ({ stdout, stderr: "", exitCode: 0 });
const fail = (stderr: string, exitCode = 1): Result => ({ stdout: "", stderr, exitCode });

export const GIT_SUBCOMMANDS = [
  "status",
  "diff",
  "log",
  "show",
  "add",
  "commit",
  "init",
  "rev-parse",
  "branch",
] as const;

const LETTER: Record<FileChange["status"], string> = {
  added: "A",
  modified: "M",
  deleted: "D",
  renamed: "R",
};
const WORD: Record<FileChange["status"], string> = {
  added: "new file:",
  modified: "modified:",
  deleted: "deleted:",
  renamed: "renamed:",
};

/**
 * `git` for the embedded shell, on the same isomorphic-git code as the git tools: status, diff,
 * log, show, add, commit, init, rev-parse and branch, printing what native git prints for the common
 * cases, so `git status` or `git diff` typed into any dialect's shell tool works in a browser.
 */
export function gitShellCommand(getSandbox: () => Sandbox, clock?: Clock): Command {
  return defineCommand("git", async (args, ctx) => {
    const sandbox = getSandbox();
    const context = createToolContext(sandbox, clock ? { clock } : {});
    const root = sandbox.workspaceRoot;
    // Paths on the command line are relative to the shell's folder; the git code wants them from the root.
    const fromRoot = (path: string) => {
      const absolute = path.startsWith("/") ? path : `${ctx.cwd}/${path}`;
      const parts: string[] = [];
      for (const part of absolute.split("/")) {
        if (part === "" || part === ".") continue;
        if (part === "..") parts.pop();
        else parts.push(part);
      }
      const joined = `/${parts.join("/")}`;
      return joined === root ? "." : joined.startsWith(`${root}/`) ? joined.slice(root.length + 1) : path;
    };
    const [subcommand, ...rest] = args;
    try {
      switch (subcommand) {
        case "--version":
        case "version":
          return ok(`git version isomorphic-git-${(await loadGit()).version()} (Toolroom built-in)\n`);
        case "init": {
          const result = await init(sandbox);
          return rest.includes("-q") || rest.includes("--quiet") ? { ...result, stdout: "" } : result;
        }
        case undefined:
        case "help":
        case "--help":
          return ok(
            `usage: git <command> [<args>]\n\nToolroom's built-in git supports: ${GIT_SUBCOMMANDS.join(", ")}.\n`,
          );
      }
      if (!(await repoAt(sandbox)))
        return fail("fatal: not a git repository (or any of the parent directories): .git\n", 128);
      switch (subcommand) {
        case "status":
          return await status(context, rest);
        case "diff":
          return await diff(context, rest, fromRoot);
        case "log":
          return await gitLog(context, rest);
        case "show":
          return await gitShow(context, rest);
        case "add": {
          const paths = rest.filter((arg) => !arg.startsWith("-")).map(fromRoot);
          if (rest.includes("-A") || rest.includes("--all")) paths.push(".");
          if (paths.length === 0)
            return fail("Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\n");
          await stagePaths(context, await openRepo(context), paths);
          return ok("");
        }
        case "commit":
          return await commit(context, rest);
        case "rev-parse":
          return await revParse(context, rest);
        case "branch":
          return await branch(context, rest);
        default:
          return fail(
            `git: '${subcommand}' is not supported by Toolroom's built-in git (${GIT_SUBCOMMANDS.join(", ")}). Use the git tools (git_status, git_diff, git_commit) or a backend with native git.\n`,
          );
      }
    } catch (error) {
      const message = isToolFailure(error)
        ? error.message
        : error instanceof Error
          ? error.message
          : String(error);
      return fail(`fatal: ${message}\n`, 128);
    }
  });
}

async function init(sandbox: Sandbox): Promise<Result> {
  const dir = sandbox.workspaceRoot;
  if (!(await initGitDir(sandbox))) return ok(`Reinitialized existing Git repository in ${dir}/.git/\n`);
  return ok(`Initialized empty Git repository in ${dir}/.git/\n`);
}

type Context = ReturnType<typeof createToolContext>;

async function status(context: Context, args: string[]): Promise<Result> {
  const state = await gitStatus(context);
  if (args.some((arg) => ["-s", "--short", "--porcelain", "--porcelain=v1"].includes(arg))) {
    const lines = new Map<string, [string, string, string]>();
    for (const change of state.staged) {
      const shown = change.old_path ? `${change.old_path} -> ${change.path}` : change.path;
      lines.set(change.path, [LETTER[change.status], " ", shown]);
    }
    for (const change of state.unstaged) {
      const line = lines.get(change.path) ?? [" ", " ", change.path];
      line[1] = LETTER[change.status];
      lines.set(change.path, line);
    }
    const sorted = [...lines.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return ok(
      sorted.map(([, [x, y, path]]) => `${x}${y} ${path}\n`).join("") +
        state.untracked.map((path) => `?? ${path}\n`).join(""),
    );
  }
  let out = state.branch ? `On branch ${state.branch}\n` : `HEAD detached at ${state.head?.slice(0, 7)}\n`;
  if (state.upstream) {
    if (state.ahead === 0 && state.behind === 0)
      out += `Your branch is up to date with '${state.upstream}'.\n`;
    else if (state.behind === 0)
      out += `Your branch is ahead of '${state.upstream}' by ${state.ahead} commit${state.ahead === 1 ? "" : "s"}.\n  (use "git push" to publish your local commits)\n`;
    else if (state.ahead === 0)
      out += `Your branch is behind '${state.upstream}' by ${state.behind} commit${state.behind === 1 ? "" : "s"}, and can be fast-forwarded.\n  (use "git pull" to update your local branch)\n`;
    else
      out += `Your branch and '${state.upstream}' have diverged,\nand have ${state.ahead} and ${state.behind} different commits each, respectively.\n  (use "git pull" if you want to integrate the remote branch with yours)\n`;
    out += "\n";
  }
  if (state.head === null) out += "\nNo commits yet\n\n";
  const entry = (change: FileChange) =>
    `\t${WORD[change.status].padEnd(12)}${change.old_path ? `${change.old_path} -> ` : ""}${change.path}\n`;
  if (state.staged.length > 0) {
    const hint = state.head === null ? "git rm --cached <file>..." : "git restore --staged <file>...";
    out += `Changes to be committed:\n  (use "${hint}" to unstage)\n${state.staged.map(entry).join("")}\n`;
  }
  if (state.unstaged.length > 0) {
    const verb = state.unstaged.some((change) => change.status === "deleted") ? "git add/rm" : "git add";
    out += `Changes not staged for commit:\n  (use "${verb} <file>..." to update what will be committed)\n  (use "git restore <file>..." to discard changes in working directory)\n${state.unstaged.map(entry).join("")}\n`;
  }
  if (state.untracked.length > 0) {
    out += `Untracked files:\n  (use "git add <file>..." to include in what will be committed)\n${state.untracked.map((path) => `\t${path}\n`).join("")}\n`;
  }
  if (state.staged.length === 0) {
    if (state.unstaged.length > 0)
      out += 'no changes added to commit (use "git add" and/or "git commit -a")\n';
    else if (state.untracked.length > 0)
      out += 'nothing added to commit but untracked files present (use "git add" to track)\n';
    else
      out +=
        state.head === null
          ? 'nothing to commit (create/copy files and use "git add" to track)\n'
          : "nothing to commit, working tree clean\n";
  }
  return ok(out);
}

async function diff(context: Context, args: string[], fromRoot: (path: string) => string): Promise<Result> {
  const dashes = args.indexOf("--");
  const before = dashes === -1 ? args : args.slice(0, dashes);
  const pathspec = dashes === -1 ? [] : args.slice(dashes + 1).map(fromRoot);
  const staged = before.includes("--cached") || before.includes("--staged");
  const nameOnly = before.includes("--name-only");
  const nameStatus = before.includes("--name-status");
  const numstat = before.includes("--numstat");
  const stat = before.includes("--stat");
  const shortstat = before.includes("--shortstat");
  const revisions: string[] = [];
  for (const arg of before.filter((word) => !word.startsWith("-"))) {
    const exists = await context.sandbox
      .lstat(`${context.sandbox.workspaceRoot}/${fromRoot(arg)}`)
      .catch(() => null);
    if (exists && revisions.length === 0 && dashes === -1) pathspec.push(fromRoot(arg));
    else revisions.push(arg);
  }
  const range =
    revisions.length === 1 && revisions[0]!.includes("..") ? revisions[0]!.split("..") : revisions;
  const result = await gitDiff(context, {
    staged,
    pathspec,
    ...(range[0] ? { baseRef: range[0] } : {}),
    ...(range[1] ? { targetRef: range[1] } : {}),
  });
  const letters: Record<string, string> = { added: "A", modified: "M", deleted: "D", renamed: "R" };
  if (stat) return ok(statBlock(result.files_changed));
  if (shortstat) return ok(statBlock(result.files_changed).split("\n").slice(-2).join("\n"));
  if (nameOnly) return ok(result.files_changed.map((file) => `${file.path}\n`).join(""));
  if (nameStatus)
    return ok(
      result.files_changed
        .map(
          (file) =>
            `${letters[file.status]}${file.old_path ? String(file.similarity ?? 0).padStart(3, "0") : ""}\t${file.old_path ? `${file.old_path}\t` : ""}${file.path}\n`,
        )
        .join(""),
    );
  if (numstat)
    return ok(
      result.files_changed
        .map((file) => {
          const counts = file.binary ? "-\t-" : `${file.additions}\t${file.deletions}`;
          return `${counts}\t${file.old_path ? renamedName(file.old_path, file.path) : file.path}\n`;
        })
        .join(""),
    );
  return ok(result.diff_text);
}

async function commit(context: Context, args: string[]): Promise<Result> {
  const messages: string[] = [];
  let all = false;
  let signoff = false;
  let quiet = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--message") messages.push(args[++i] ?? "");
    else if (arg.startsWith("--message=")) messages.push(arg.slice(10));
    else if (arg === "--all") all = true;
    else if (arg === "--signoff") signoff = true;
    else if (arg === "--quiet") quiet = true;
    else if (/^-[a-zA-Z]+$/u.test(arg)) {
      // A cluster of short flags (-am, -qm, -s); m takes the next word, or the rest of the cluster.
      for (let k = 1; k < arg.length; k++) {
        const flag = arg[k];
        if (flag === "a") all = true;
        else if (flag === "s") signoff = true;
        else if (flag === "q") quiet = true;
        else if (flag === "m") {
          messages.push(k + 1 < arg.length ? arg.slice(k + 1) : (args[++i] ?? ""));
          break;
        }
      }
    }
  }
  if (messages.length === 0)
    return fail(
      'error: Toolroom\'s built-in git needs the message on the command line: git commit -m "message"\n',
    );
  let paths: string[] | undefined;
  if (all) {
    const state = await gitStatus(context);
    paths = state.unstaged.map((change) => change.path);
  }
  try {
    const result = await gitCommit(context, {
      message: messages.join("\n\n"),
      ...(paths?.length ? { paths } : {}),
      signoff,
    });
    if (quiet) return ok("");
    const state = await gitStatus(context);
    const subject = result.message.split("\n")[0];
    return ok(
      `[${state.branch ?? "detached HEAD"} ${result.commit_hash.slice(0, 7)}] ${subject}\n ${result.files_committed.length} file${result.files_committed.length === 1 ? "" : "s"} changed\n`,
    );
  } catch (error) {
    if (isToolFailure(error) && error.code === "nothing_to_commit") {
      return { stdout: `${error.message}\n`, stderr: "", exitCode: 1 };
    }
    throw error;
  }
}

async function revParse(context: Context, args: string[]): Promise<Result> {
  const repo = await openRepo(context);
  if (args.includes("--show-toplevel")) return ok(`${repo.dir}\n`);
  if (args.includes("--git-dir")) return ok(`.git\n`);
  if (args.includes("--is-inside-work-tree")) return ok("true\n");
  const ref = args.find((arg) => !arg.startsWith("-")) ?? "HEAD";
  if (args.includes("--abbrev-ref")) {
    const branchName = await repo.git.currentBranch({ fs: repo.fs, dir: repo.dir });
    return ok(`${ref === "HEAD" ? (branchName ?? "HEAD") : ref}\n`);
  }
  const { resolveRevision } = await import("../tools/git/diff.ts");
  const oid = await resolveRevision(repo, ref);
  return ok(`${args.includes("--short") ? oid.slice(0, 7) : oid}\n`);
}

async function branch(context: Context, args: string[]): Promise<Result> {
  const repo = await openRepo(context);
  const { git, fs, dir } = repo;
  const name = args.find((arg) => !arg.startsWith("-"));
  if (name && !args.includes("-d") && !args.includes("-D")) {
    await git.branch({ fs, dir, ref: name });
    return ok("");
  }
  const current = await git.currentBranch({ fs, dir });
  const branches = await git.listBranches({ fs, dir });
  if (args.includes("--show-current")) return ok(current ? `${current}\n` : "");
  return ok(branches.map((entry) => `${entry === current ? "*" : " "} ${entry}\n`).join(""));
}
