import { createToolContext } from "../core/tool-context.ts";
import { memorySandbox } from "../sandbox/memory-files.ts";
import type { Sandbox, SnapshotEntry } from "../sandbox/types.ts";
import { type InitOptions, initRepository } from "../tools/git/commit.ts";

/** Above this many files a new workspace is not made a repository: git adds ~1,000 files a second. */
const GIT_INIT_MAX_FILES = 2000;

const WORKSPACE_ROOT = "/workspace";

/**
 * Every new workspace starts as a git repository (branch main, one commit of everything), so the
 * git tools and `git status` in the terminal work from the start; one that brings its own .git,
 * or is too large to commit quickly, is left as it is. Made in plain memory, so a first visit's
 * workspace (and its first answers) need not wait for the shell to load; a workspace with
 * symlinks is made in the embedded sandbox (`shell`), which follows them as git does.
 */
export async function asRepository(
  entries: SnapshotEntry[],
  shell: () => Promise<Sandbox>,
  commit: Pick<InitOptions, "now" | "timezoneOffset"> = {},
): Promise<SnapshotEntry[]> {
  const files = entries.filter((entry) => entry.type === "file").length;
  if (entries.some((entry) => entry.path === ".git") || files > GIT_INIT_MAX_FILES) return entries;
  let scratch: Sandbox;
  if (entries.some((entry) => entry.type === "symlink")) {
    scratch = await shell();
    await scratch.restore({ entries });
  } else scratch = memorySandbox(WORKSPACE_ROOT, entries);
  await initRepository(createToolContext(scratch), commit);
  const snapshot = await scratch.snapshot();
  await scratch.dispose();
  return snapshot.entries;
}
