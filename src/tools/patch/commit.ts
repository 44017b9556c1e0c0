import { asToolFailure, isToolFailure, ToolFailure } from "../../core/errors.ts";
import { isSandboxError, type Sandbox } from "../../sandbox/types.ts";
import { encodeText } from "./text.ts";
import type { PatchPlan } from "./types.ts";

/**
 * Writes a plan through the sandbox, all or nothing. First every file is checked to still hold the
 * plan's `before` (else hash_mismatch: something changed it since planning); then deletions run,
 * then writes (missing parent folders created). If any step fails, every file already touched is
 * put back as it was and the folders created are removed, and the failure is rethrown as a
 * ToolFailure (sandbox errors become sandbox_error) saying that no file was changed.
 */
export async function commitPatch(plan: PatchPlan, sandbox: Sandbox, root: string): Promise<void> {
  const base = root.replace(/\/+$/u, "");
  const absolute = (path: string) => `${base}/${path}`;
  const saved = new Map<string, Uint8Array | null>();
  for (const file of plan.files) {
    const path = absolute(file.path);
    const current = await readIfPresent(sandbox, path);
    if (!sameText(current, file.before)) {
      throw new ToolFailure(
        "hash_mismatch",
        `${file.path} changed after the patch was checked; nothing was written. Re-read it and patch again.`,
        { path: file.path },
      );
    }
    saved.set(path, current);
  }
  const createdFolders: string[] = [];
  const touched: string[] = [];
  try {
    for (const file of plan.files) {
      if (file.after !== null) continue;
      touched.push(absolute(file.path));
      await sandbox.rm(absolute(file.path));
    }
    for (const file of plan.files) {
      if (file.after === null) continue;
      const path = absolute(file.path);
      touched.push(path);
      await makeParents(sandbox, base, path, createdFolders);
      await sandbox.writeFile(path, encodeText(file.after));
    }
  } catch (error) {
    const unrestored = await rollBack(sandbox, base, touched, saved, createdFolders);
    throw commitFailure(error, touched[touched.length - 1] ?? base, base, unrestored);
  }
}

async function readIfPresent(sandbox: Sandbox, path: string): Promise<Uint8Array | null> {
  try {
    return await sandbox.readFile(path);
  } catch (error) {
    if (isSandboxError(error, "ENOENT") || isSandboxError(error, "ENOTDIR")) return null;
    throw error;
  }
}

function sameText(bytes: Uint8Array | null, text: string | null): boolean {
  return sameBytes(bytes, text === null ? null : encodeText(text));
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === null && b === null;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Creates the missing folders above `path` one by one, remembering them so a rollback can remove them. */
async function makeParents(sandbox: Sandbox, base: string, path: string, created: string[]): Promise<void> {
  const relative = path
    .slice(base.length + 1)
    .split("/")
    .slice(0, -1);
  let folder = base;
  for (const name of relative) {
    folder = `${folder}/${name}`;
    const type = await typeOf(sandbox, folder);
    if (type === "directory") continue;
    if (type !== null) {
      throw new ToolFailure(
        "not_a_directory",
        `${folder.slice(base.length + 1)} is a file, so ${path.slice(base.length + 1)} cannot be created under it.`,
        { path: folder.slice(base.length + 1) },
      );
    }
    await sandbox.mkdir(folder);
    created.push(folder);
  }
}

async function typeOf(sandbox: Sandbox, path: string): Promise<string | null> {
  try {
    return (await sandbox.stat(path)).type;
  } catch (error) {
    if (isSandboxError(error, "ENOENT")) return null;
    throw error;
  }
}

/** Puts every touched path back; returns the paths it could not restore. */
async function rollBack(
  sandbox: Sandbox,
  base: string,
  touched: readonly string[],
  saved: ReadonlyMap<string, Uint8Array | null>,
  createdFolders: readonly string[],
): Promise<string[]> {
  const unrestored: string[] = [];
  for (const path of [...touched].reverse()) {
    const original = saved.get(path) ?? null;
    try {
      // The step that failed may have left its file as it was: nothing to restore then.
      if (sameBytes(await readIfPresent(sandbox, path), original)) continue;
      if (original === null) await sandbox.rm(path, { force: true });
      else {
        await makeParents(sandbox, base, path, []);
        await sandbox.writeFile(path, original);
      }
    } catch {
      unrestored.push(path.slice(base.length + 1));
    }
  }
  for (const folder of [...createdFolders].reverse()) {
    try {
      // Backends differ on removing a folder without `recursive`; checking it is empty first is portable.
      if ((await sandbox.readdir(folder)).length === 0) await sandbox.rm(folder, { recursive: true });
    } catch {
      // Leaving an empty folder behind is harmless; the files are what must be restored.
    }
  }
  return unrestored;
}

function commitFailure(error: unknown, path: string, base: string, unrestored: string[]): ToolFailure {
  const relative = path.slice(base.length + 1);
  const restored =
    unrestored.length === 0
      ? "every file already written was restored, so no file was changed"
      : `these files could not be restored: ${unrestored.join(", ")}`;
  const details = { path: relative, ...(unrestored.length > 0 ? { unrestored } : {}) };
  // A full quota is the profile's limit error, as for any other write.
  const failure = isSandboxError(error, "ENOSPC") ? asToolFailure(error) : error;
  if (isToolFailure(failure)) {
    return new ToolFailure(failure.code, `${failure.message} (${restored}.)`, {
      ...failure.details,
      ...details,
    });
  }
  const cause = isSandboxError(error) ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new ToolFailure("sandbox_error", `Writing ${relative} failed (${message}); ${restored}.`, {
    ...details,
    ...(cause ? { cause } : {}),
  });
}
