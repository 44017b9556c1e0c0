import type { Sandbox, SnapshotEntry, WorkspaceChange } from "../sandbox/types.ts";

/** One path a call changed: its entry before and after (null: absent). */
export type FileChange = WorkspaceChange;

export type ChangeKind = "created" | "modified" | "deleted";

export function changeKind(change: FileChange): ChangeKind {
  return change.before === null ? "created" : change.after === null ? "deleted" : "modified";
}

/** Every mutating call is a checkpoint: what it changed, so the workspace can go back to before it. */
export interface Checkpoint {
  step: number;
  requestId: string;
  tool: string;
  changes: FileChange[];
}

/**
 * Puts each path back the way it was before the earliest of the given checkpoints touched it.
 * Deletions go deepest first and creations shallowest first, so folders and their files agree.
 */
export async function rewind(sandbox: Sandbox, checkpoints: readonly Checkpoint[]): Promise<void> {
  const target = new Map<string, SnapshotEntry | null>();
  for (const checkpoint of [...checkpoints].sort((a, b) => b.step - a.step)) {
    for (const change of checkpoint.changes) target.set(change.path, change.before);
  }
  const root = sandbox.workspaceRoot;
  const paths = [...target.keys()];
  const depth = (path: string) => path.split("/").length;
  for (const path of paths.sort((a, b) => depth(b) - depth(a))) {
    const current = await sandbox.lstat(`${root}/${path}`).catch(() => null);
    if (target.get(path)?.type === "directory" && current?.type === "directory") continue;
    await sandbox.rm(`${root}/${path}`, { recursive: true, force: true });
  }
  for (const path of paths.sort((a, b) => depth(a) - depth(b))) {
    const entry = target.get(path);
    if (!entry) continue;
    const full = `${root}/${path}`;
    const parent = full.slice(0, full.lastIndexOf("/"));
    await sandbox.mkdir(parent, { recursive: true });
    if (entry.type === "directory") await sandbox.mkdir(full, { recursive: true });
    else if (entry.type === "symlink") await sandbox.symlink(entry.target, full);
    else {
      await sandbox.writeFile(full, entry.data);
      // The file was removed above: without this an undone call would leave run.sh 0644.
      if (entry.mode !== undefined) await sandbox.chmod?.(full, entry.mode);
    }
  }
}
