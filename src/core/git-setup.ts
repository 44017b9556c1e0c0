import type { SnapshotEntry } from "../sandbox/types.ts";
import { ToolFailure } from "./errors.ts";

/**
 * Git's own setup: the files git reads commands from (config with core.fsmonitor, core.pager,
 * aliases and filter drivers; hooks; info/attributes naming filters) and anything that points git
 * at another repository (a `.git` file or link). No tool writes them and write-back never puts
 * them on disk: only the data git_commit and the built-in git make (objects, refs, logs, index,
 * HEAD) may change under a `.git` folder.
 */

/** What may change inside a `.git` folder: git's data, never its setup. */
const GIT_DATA =
  /^(?:(?:objects|refs|logs)(?:\/.*)?|index|HEAD|ORIG_HEAD|FETCH_HEAD|COMMIT_EDITMSG|packed-refs)$/u;

/** Code points some filesystems ignore in names (HFS+), which would make ".g\u200cit" read as ".git". */
const IGNORED_IN_NAMES = /[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/gu;

/**
 * Whether a name is `.git` to some filesystem: any case (macOS, Windows), ignorable code points
 * (HFS+), trailing dots or spaces and the 8.3 short name (Windows).
 */
export function isGitFolderName(name: string): boolean {
  const folded = name
    .replace(IGNORED_IN_NAMES, "")
    .toLowerCase()
    .replace(/[. ]+$/u, "");
  return folded === ".git" || folded === "git~1";
}

/**
 * Why a workspace path (relative, "/"-separated) is git setup that no tool may change, or null
 * when it may change. `entry` is what the path would become (null: deleted, undefined: unknown).
 */
export function gitSetupReason(path: string, entry?: SnapshotEntry | null): string | null {
  const segments = path.split("/");
  for (let i = 0; i < segments.length; i++) {
    if (!isGitFolderName(segments[i]!)) continue;
    const rest = segments.slice(i + 1).join("/");
    const name = segments.slice(0, i + 1).join("/");
    if (rest === "") {
      // The .git folder itself may be made or removed only as a folder; what is inside is checked on its own.
      if (entry && entry.type !== "directory")
        return `${name} would be a ${entry.type === "symlink" ? "link" : "file"}, which can point git at another repository and its commands`;
      continue;
    }
    if (entry?.type === "symlink") return `${path} would be a link inside ${name}, which git follows`;
    if (!GIT_DATA.test(rest)) return `${path} is part of git's setup, ${whatGitRuns(rest)}`;
  }
  return null;
}

function whatGitRuns(rest: string): string {
  if (rest === "config" || rest.startsWith("config."))
    return "where git reads commands it runs (core.fsmonitor, core.pager, aliases, filters)";
  if (rest === "hooks" || rest.startsWith("hooks/"))
    return "whose scripts git runs on commit, checkout and push";
  if (rest === "info/attributes") return "which names the filters and diff drivers git runs";
  return "not data that git_commit writes (only objects, refs, logs, index and HEAD may change)";
}

/** The refusal every profile shows for a write to git's setup. */
export function gitSetupFailure(path: string, reason: string, undone = false): ToolFailure {
  return new ToolFailure(
    "protected_path",
    `${reason}. Tools never write git's setup${undone ? "; the call was undone" : ""}. Change the project's files instead; the person edits .git/config and hooks themselves.`,
    { path, protected: "git_setup" },
  );
}

/** Refuses, before it runs, a write tool aimed at git's setup or at a `.git` folder itself. */
export function refuseGitSetupTarget(relative: string): void {
  const name = relative.split("/").pop() ?? "";
  const reason = isGitFolderName(name)
    ? `${relative} is git's own folder; only git_commit and the built-in git change it`
    : gitSetupReason(relative, { path: relative, type: "file", data: new Uint8Array() });
  if (reason) throw gitSetupFailure(relative, reason);
}

/**
 * The first change a call made to git's setup, with why, or null. A repository the same call
 * created (git init) may hold a fresh config in the sandbox: write-back never puts it on disk.
 */
export function gitSetupChange(
  changes: readonly { path: string; before: SnapshotEntry | null; after: SnapshotEntry | null }[],
): { path: string; reason: string } | null {
  const created = changes
    .filter(
      (change) =>
        change.before === null &&
        change.after?.type === "directory" &&
        isGitFolderName(change.path.split("/").pop() ?? ""),
    )
    .map((change) => `${change.path}/`);
  for (const change of changes) {
    if (created.some((folder) => change.path.startsWith(folder))) continue;
    const reason = gitSetupReason(change.path, change.after);
    if (reason)
      return {
        path: change.path,
        reason: change.after === null ? `the call deletes ${change.path}: ${reason}` : reason,
      };
  }
  return null;
}
