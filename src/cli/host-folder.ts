import type { Stats } from "node:fs";
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rename,
  rmdir,
  symlink,
  unlink,
} from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { FileChange } from "../core/checkpoints.ts";
import { gitSetupReason, isGitFolderName } from "../core/git-setup.ts";
import type { FolderEntry } from "../sandbox/embedded/lazy-folder.ts";
import type { SnapshotEntry } from "../sandbox/types.ts";

/**
 * Write-back: the sandbox's changes put on the folder on disk. A plan is made and checked in full
 * before the first byte is written; then each file is written atomically (a temporary file in the
 * same folder, renamed over the old one), so a crash at any moment leaves every file either as it
 * was or as the sandbox had it. Never writes through a link on disk (a symlink is replaced, a hard
 * link gets its own new file), never opens a FIFO, socket or device, never makes a link that
 * resolves outside the folder, never touches the folder itself, never writes git's setup.
 */

export interface WriteBackOptions {
  /** How a path looked on disk when the sandbox read it (to notice the person changing it since). */
  loaded?: (relative: string) => FolderEntry | undefined;
  /** The workspace folder itself was deleted in the sandbox. */
  rootGone?: boolean;
  /** Whether the disk tells `A.txt` from `a.txt`; found by a probe of the folder when not given. */
  caseInsensitive?: boolean;
}

export interface WriteBackReport {
  /** Files, folders and links written (created or changed), in the order written. */
  written: string[];
  deleted: string[];
  /** Paths the plan refused, each with why; nothing was done to them. */
  skipped: string[];
  /** Paths whose write failed on disk, each with the error; the rest were written. */
  failed: string[];
  /** What else the person should know (a hard link given its own copy). */
  notes: string[];
}

/** One step of the plan; `path` is relative, "/"-separated. */
type Step =
  | { kind: "delete"; path: string; type: SnapshotEntry["type"] }
  | { kind: "folder"; path: string; mode: number }
  | { kind: "file"; path: string; entry: Extract<SnapshotEntry, { type: "file" }>; created: boolean }
  | { kind: "mode"; path: string; mode: number; hardLinked: boolean; stat: Stats }
  | { kind: "link"; path: string; target: string };

/** The longest name (bytes) and path most filesystems take (Linux NAME_MAX and PATH_MAX). */
const NAME_MAX = 255;
const PATH_MAX = 4095;
/** How deep a chain of links is followed before it counts as a loop (Linux's limit). */
const MAX_LINKS = 40;
/** How many files are written at once. */
const PARALLEL_WRITES = 8;
/** Temporary files write-back makes beside the file it replaces; a killed run can leave one. */
export const TEMP_NAME = /^\.toolroom-\d+-\d+\.tmp$/u;

const byteLength = (text: string) => Buffer.byteLength(text, "utf8");
const depth = (path: string) => path.split("/").length;
const parentOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");

/** Only permission bits are written back: never setuid, setgid or sticky. */
const fileMode = (mode: number | undefined) => (mode ?? 0o644) & 0o777;

function kindOf(stat: Stats): SnapshotEntry["type"] | "special" {
  if (stat.isSymbolicLink()) return "symlink";
  if (stat.isDirectory()) return "directory";
  if (stat.isFile()) return "file";
  return "special";
}

function specialName(stat: Stats): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  return stat.isCharacterDevice() || stat.isBlockDevice() ? "a device" : "a special file";
}

/** Why the disk would refuse this name, or null. */
function nameProblem(folder: string, path: string): string | null {
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return `"${segment}" is not a name`;
    if (segment.includes("\0")) return "its name holds a NUL byte";
    if (byteLength(segment) > NAME_MAX)
      return `the name ${segment.slice(0, 24)}… is ${byteLength(segment)} bytes, over the disk's ${NAME_MAX}`;
  }
  const full = byteLength(join(folder, path));
  return full > PATH_MAX ? `the path is ${full} bytes, over the disk's ${PATH_MAX}` : null;
}

/**
 * Checks every change against the disk and the rules, then applies what passed, each file
 * atomically. An error on one path is reported and the rest are still written.
 */
export async function writeBackChanges(
  folder: string,
  changes: readonly FileChange[],
  options: WriteBackOptions = {},
): Promise<WriteBackReport> {
  const { steps, report } = await planWriteBack(folder, changes, options);
  await applyWriteBack(folder, steps, report);
  return report;
}

/** The plan: every step checked before any is taken. Reads the disk, writes nothing. */
export async function planWriteBack(
  folder: string,
  all: readonly FileChange[],
  options: WriteBackOptions = {},
): Promise<{ steps: Step[]; report: WriteBackReport }> {
  const report: WriteBackReport = { written: [], deleted: [], skipped: [], failed: [], notes: [] };
  const skip = (path: string, why: string) => report.skipped.push(`${path}: ${why}`);
  if (options.rootGone) {
    skip(
      ".",
      "the workspace folder itself was deleted in the sandbox; write-back never deletes the folder, so nothing in it was deleted",
    );
    return { steps: [], report };
  }

  const disk = new Map<string, Stats | null>();
  const onDisk = async (path: string): Promise<Stats | null> => {
    if (!disk.has(path)) disk.set(path, await lstat(join(folder, ...path.split("/"))).catch(() => null));
    return disk.get(path)!;
  };
  const links = new Map<string, string>();
  const diskLink = async (path: string): Promise<string | null> => {
    if ((await onDisk(path))?.isSymbolicLink() !== true) return null;
    if (!links.has(path)) links.set(path, await readlink(join(folder, ...path.split("/"))).catch(() => ""));
    return links.get(path)!;
  };

  // Git's setup runs commands on this machine; inside .git only new data is written, nothing deleted.
  const wanted = all.filter((change) => {
    if (change.path === "") {
      skip(".", "write-back never replaces the workspace folder itself");
      return false;
    }
    const insideGit = change.path.split("/").some(isGitFolderName);
    const reason =
      gitSetupReason(change.path, change.after) ??
      (insideGit && change.after === null ? "inside a .git folder, where write-back deletes nothing" : null);
    if (reason)
      report.skipped.push(
        `kept out: ${reason.startsWith(change.path) ? reason : `${change.path}: ${reason}`}`,
      );
    return reason === null;
  });
  // On a disk that does not tell A.txt from a.txt, two such names would be one file: neither is written.
  const caseBlind = wanted.length > 0 && (options.caseInsensitive ?? (await isCaseInsensitive(folder)));
  const clashing = caseBlind ? caseClashes(wanted) : new Map<string, string[]>();
  for (const [path, others] of clashing)
    skip(
      path,
      `it differs only by case from ${others.join(", ")}, and this disk does not tell such names apart; kept as it is on disk`,
    );
  const changes = wanted.filter((change) => !clashing.has(change.path));
  const byPath = new Map(changes.map((change) => [change.path, change]));
  /** Paths the plan refused: nothing below them is written either. */
  const blocked = new Set<string>(clashing.keys());
  const underBlocked = (path: string) => {
    for (let parent = parentOf(path); parent !== ""; parent = parentOf(parent))
      if (blocked.has(parent)) return parent;
    return null;
  };

  /** What a path will be once write-back is done: the sandbox's entry if it changed, else the disk's. */
  const finalEntry = async (path: string): Promise<{ type: string; target?: string } | null> => {
    const change = byPath.get(path);
    if (change && !blocked.has(path))
      return change.after
        ? { type: change.after.type, ...("target" in change.after ? { target: change.after.target } : {}) }
        : null;
    const stat = await onDisk(path);
    if (!stat) return null;
    const type = kindOf(stat);
    return type === "symlink" ? { type, target: (await diskLink(path)) ?? "" } : { type };
  };

  /** Whether a link at `path` to `target` resolves inside the folder, through every link on the way. */
  const staysInside = async (path: string, target: string): Promise<boolean> => {
    if (target.startsWith("/")) return false;
    const parts = parentOf(path) === "" ? [] : parentOf(path).split("/");
    let pending = target.split("/");
    let hops = 0;
    while (pending.length > 0) {
      const segment = pending.shift()!;
      if (segment === "" || segment === ".") continue;
      if (segment === "..") {
        if (parts.length === 0) return false;
        parts.pop();
        continue;
      }
      parts.push(segment);
      const entry = await finalEntry(parts.join("/"));
      if (entry?.type !== "symlink") continue;
      if (++hops > MAX_LINKS || entry.target === undefined || entry.target.startsWith("/")) return false;
      parts.pop();
      pending = [...entry.target.split("/"), ...pending];
    }
    return true;
  };

  /** Why the disk no longer holds what the sandbox read there (the person changed it since), or null. */
  const changedOnDisk = async (change: FileChange): Promise<string | null> => {
    const stat = await onDisk(change.path);
    if (change.before === null) {
      if (!stat || (stat.isDirectory() && change.after?.type === "directory")) return null;
      return stat.isFile() || stat.isDirectory() || stat.isSymbolicLink()
        ? `a ${kindOf(stat) === "symlink" ? "link" : kindOf(stat)} appeared on disk since the sandbox looked; kept as it is on disk`
        : `${specialName(stat)} is there on disk; write-back never opens or replaces one`;
    }
    if (!stat) return change.after === null ? null : "it was deleted on disk since it was read; kept deleted";
    const type = kindOf(stat);
    if (type === "special")
      return `${specialName(stat)} is there on disk; write-back never opens or replaces one`;
    if (type !== change.before.type)
      return "it was replaced on disk since it was read; kept as it is on disk";
    const loaded = options.loaded?.(change.path);
    if (
      loaded &&
      type === "file" &&
      ((loaded.ino !== undefined && loaded.ino !== stat.ino) ||
        loaded.size !== stat.size ||
        loaded.mtimeMs !== stat.mtimeMs)
    )
      return "it was changed on disk since it was read; kept the disk's version";
    return null;
  };

  const steps: Step[] = [];
  // Deletions first, deepest first; a folder replaced by a file or a link is deleted too.
  const deletions = changes
    .filter(
      (change) =>
        change.before !== null &&
        (change.after === null ||
          (change.before.type !== change.after.type &&
            (change.before.type === "directory" || change.after.type === "directory"))),
    )
    .sort((a, b) => depth(b.path) - depth(a.path));
  const deleted = new Set<string>();
  /** Names in folders on disk, read when a new name is checked against them (case-blind disks). */
  const listings = new Map<string, string[]>();
  /** Folders on disk that keep something, so they are not deleted (nor replaced). */
  const kept = new Set<string>();
  for (const change of deletions) {
    const why = kept.has(change.path)
      ? "something in it stays on disk, so the folder stays"
      : ((await parentsProblem(change.path)) ?? (await changedOnDisk(change)));
    if (why) {
      skip(change.path, why);
      for (let parent = parentOf(change.path); parent !== ""; parent = parentOf(parent)) kept.add(parent);
      continue;
    }
    if (!(await onDisk(change.path))) continue;
    steps.push({ kind: "delete", path: change.path, type: change.before!.type });
    deleted.add(change.path);
  }

  // Then what is made or changed, shallowest first, so folders exist before what is in them.
  const makes = changes
    .filter((change) => change.after !== null)
    .sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1));
  for (const change of makes) {
    const after = change.after!;
    const above = underBlocked(change.path);
    const why =
      (above ? `${above} was not written, so nothing in it is` : null) ??
      (kept.has(change.path) && after.type !== "directory"
        ? "the folder on disk it would replace keeps files"
        : null) ??
      nameProblem(folder, change.path) ??
      (caseBlind && change.before === null ? await caseTwinOnDisk(change.path) : null) ??
      (await parentsProblem(change.path)) ??
      (deleted.has(change.path) ? null : await changedOnDisk(change));
    if (why) {
      skip(change.path, why);
      blocked.add(change.path);
      continue;
    }
    if (after.type === "directory") {
      const stat = await onDisk(change.path);
      if (!stat || deleted.has(change.path))
        steps.push({ kind: "folder", path: change.path, mode: fileMode(after.mode ?? 0o755) });
    } else if (after.type === "symlink") {
      if (byteLength(after.target) > PATH_MAX || after.target.includes("\0")) {
        skip(change.path, "its target is not a path the disk takes");
        blocked.add(change.path);
      } else if (!(await staysInside(change.path, after.target))) {
        skip(
          change.path,
          `the link -> ${after.target} points outside the workspace (followed through every link); write-back makes only links that stay inside`,
        );
        blocked.add(change.path);
      } else steps.push({ kind: "link", path: change.path, target: after.target });
    } else {
      const before = change.before;
      const stat = await onDisk(change.path);
      // Same bytes, another mode: a chmod, unless the file is hard-linked (the other names keep theirs).
      const modeOnly =
        before?.type === "file" &&
        !deleted.has(change.path) &&
        stat?.isFile() &&
        before.data.length === after.data.length &&
        sameBytes(before.data, after.data);
      if (modeOnly)
        steps.push({
          kind: "mode",
          path: change.path,
          mode: fileMode(after.mode),
          hardLinked: stat!.nlink > 1,
          stat: stat!,
        });
      else
        steps.push({
          kind: "file",
          path: change.path,
          entry: after,
          created: !stat || deleted.has(change.path),
        });
      if (stat?.isFile() && stat.nlink > 1 && !deleted.has(change.path))
        report.notes.push(
          `${change.path} was hard-linked: it now has its own file, and the other names keep the old one`,
        );
    }
  }
  return { steps, report };

  /** Why a new name cannot be made: the disk has a name differing only by case that it would take for it. */
  async function caseTwinOnDisk(path: string): Promise<string | null> {
    const parent = parentOf(path);
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (!listings.has(parent))
      listings.set(
        parent,
        await readdir(parent === "" ? folder : join(folder, ...parent.split("/"))).catch(() => []),
      );
    const twin = listings.get(parent)!.find((other) => other !== name && caseKey(other) === caseKey(name));
    if (twin === undefined || deleted.has(parent === "" ? twin : `${parent}/${twin}`)) return null;
    return `it differs only by case from ${parent === "" ? twin : `${parent}/${twin}`} on disk, and this disk does not tell such names apart; kept as it is on disk`;
  }

  /** Why a path's folders on disk cannot be written into (a link, a file), or null. */
  async function parentsProblem(path: string): Promise<string | null> {
    const segments = path.split("/");
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join("/");
      if (deleted.has(parent)) return null;
      const stat = await onDisk(parent);
      if (!stat) return null;
      if (stat.isSymbolicLink()) return `${parent} on disk is a link; write-back never writes through a link`;
      if (!stat.isDirectory()) {
        const change = byPath.get(parent);
        if (change?.after?.type === "directory" && !blocked.has(parent)) return null;
        return `${parent} on disk is not a folder`;
      }
    }
    return null;
  }
}

/** What a case-blind disk compares names by (macOS and Windows also fold Unicode normal forms). */
const caseKey = (path: string) => path.normalize("NFC").toLowerCase();

/** Each changed path that another changed path differs from only by case, with those others. */
function caseClashes(changes: readonly FileChange[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const change of changes) {
    const key = caseKey(change.path);
    groups.set(key, [...(groups.get(key) ?? []), change.path]);
  }
  const clashing = new Map<string, string[]>();
  for (const paths of groups.values())
    if (paths.length > 1)
      for (const path of paths)
        clashing.set(
          path,
          paths.filter((other) => other !== path),
        );
  return clashing;
}

const caseProbes = new Map<string, Promise<boolean>>();

/**
 * Whether the disk under `folder` takes `A.txt` and `a.txt` for the same name (macOS, Windows):
 * a temporary file is made and its name looked up in capitals. Asked once per folder.
 */
export function isCaseInsensitive(folder: string): Promise<boolean> {
  let probe = caseProbes.get(folder);
  if (!probe) {
    probe = (async () => {
      const temp = tempBeside(join(folder, "probe"));
      try {
        await (await open(temp, "wx", 0o600)).close();
      } catch {
        return false; // nothing can be written here anyway
      }
      try {
        const [lower, upper] = await Promise.all([
          lstat(temp),
          lstat(join(dirname(temp), basename(temp).toUpperCase())).catch(() => null),
        ]);
        return upper !== null && upper.ino === lower.ino;
      } finally {
        await unlink(temp).catch(() => undefined);
      }
    })();
    caseProbes.set(folder, probe);
  }
  return probe;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

let tempCount = 0;

/** A name beside `full` for a temporary file; TEMP_NAME matches it. */
function tempBeside(full: string): string {
  return join(dirname(full), `.toolroom-${process.pid}-${++tempCount}.tmp`);
}

/** Writes `data` with `mode` to a new file beside `full`, then renames it over `full`; its stat. */
async function writeAtomically(full: string, data: Uint8Array, mode: number): Promise<Stats> {
  const temp = tempBeside(full);
  try {
    const handle = await open(temp, "wx", 0o600);
    let stat: Stats;
    try {
      await handle.writeFile(data);
      await handle.chmod(mode);
      await handle.sync();
      stat = await handle.stat();
    } finally {
      await handle.close();
    }
    await rename(temp, full);
    return stat;
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Temporary files a killed write-back left in the folders this one writes to (their process is gone). */
async function removeStaleTemps(folder: string, steps: readonly Step[], cleaned: Set<string>): Promise<void> {
  const folders = new Set(steps.filter((step) => step.kind !== "delete").map((step) => parentOf(step.path)));
  for (const relative of folders) {
    // A run writing back after each call looks in each folder once.
    if (cleaned.has(relative)) continue;
    cleaned.add(relative);
    const full = relative === "" ? folder : join(folder, ...relative.split("/"));
    const names = await readdir(full).catch(() => [] as string[]);
    for (const name of names) {
      const pid = TEMP_NAME.test(name) ? Number(name.split("-")[1]) : 0;
      if (pid && pid !== process.pid && !alive(pid)) await unlink(join(full, name)).catch(() => undefined);
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface ApplyOptions {
  /** Told each path written (as it now is on disk) or deleted (null), once it is done. */
  done?: (path: string, entry: FolderEntry | null) => void;
  /** Folders already cleared of stale temporary files in this run. */
  cleaned?: Set<string>;
  /** Told each path whose write failed on disk (it can be tried again later). */
  failed?: (path: string) => void;
}

/** A path as it now is on disk, for the next write-back's check that the disk kept it. */
function entryOf(path: string, stat: Stats, type: FolderEntry["type"], target?: string): FolderEntry {
  return {
    name: path.slice(path.lastIndexOf("/") + 1),
    type,
    mode: stat.mode & 0o7777,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    ino: stat.ino,
    ...(target !== undefined ? { target } : {}),
  };
}

/** Takes the plan's steps in order; a failed step is reported and the next one taken. */
export async function applyWriteBack(
  folder: string,
  steps: readonly Step[],
  report: WriteBackReport,
  options: ApplyOptions = {},
): Promise<void> {
  const done = options.done ?? (() => undefined);
  const failed = options.failed ?? (() => undefined);
  await removeStaleTemps(folder, steps, options.cleaned ?? new Set());
  const failedFolders = new Set<string>();
  const take = async (step: Step): Promise<void> => {
    const full = join(folder, ...step.path.split("/"));
    const inFailed = [...failedFolders].find((prefix) => step.path.startsWith(`${prefix}/`));
    if (inFailed) {
      report.failed.push(`${step.path}: its folder ${inFailed} could not be made`);
      failed(step.path);
      return;
    }
    try {
      switch (step.kind) {
        case "delete":
          if (step.type === "directory") await rmdir(full);
          else await unlink(full);
          report.deleted.push(step.path);
          done(step.path, null);
          break;
        case "folder":
          await mkdir(full, { mode: step.mode });
          await chmod(full, step.mode);
          report.written.push(step.path);
          done(step.path, entryOf(step.path, await lstat(full), "directory"));
          break;
        case "file":
          done(
            step.path,
            entryOf(
              step.path,
              await writeAtomically(full, step.entry.data, fileMode(step.entry.mode)),
              "file",
            ),
          );
          report.written.push(step.path);
          break;
        case "mode":
          if (step.hardLinked) {
            // chmod would change every name of the file: give this one its own copy first.
            const temp = tempBeside(full);
            try {
              await copyFile(full, temp);
              await chmod(temp, step.mode);
              const stat = await lstat(temp);
              await rename(temp, full);
              done(step.path, entryOf(step.path, stat, "file"));
            } catch (error) {
              await unlink(temp).catch(() => undefined);
              throw error;
            }
          } else {
            await chmod(full, step.mode);
            // chmod keeps the inode, size and time the plan saw.
            done(step.path, { ...entryOf(step.path, step.stat, "file"), mode: step.mode });
          }
          report.written.push(step.path);
          break;
        case "link": {
          const temp = tempBeside(full);
          await symlink(step.target, temp);
          const stat = await lstat(temp);
          await rename(temp, full).catch(async (error) => {
            await unlink(temp).catch(() => undefined);
            throw error;
          });
          report.written.push(step.path);
          done(step.path, entryOf(step.path, stat, "symlink", step.target));
          break;
        }
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === "ENOTEMPTY" || code === "EEXIST"
          ? "the folder on disk holds files the sandbox never saw; kept"
          : `${code ?? "error"}: ${(error as Error).message.replace(/^[A-Z]+: /u, "")}`;
      report.failed.push(`${step.path}: ${why}`);
      failed(step.path);
      if (step.kind === "folder") failedFolders.add(step.path);
    }
  };
  // Files, links and modes are independent of each other: a few at a time hide fsync's wait.
  // Deletions and folders go one by one, after everything before them.
  let running: Promise<void>[] = [];
  for (const step of steps) {
    if (step.kind === "delete" || step.kind === "folder") {
      await Promise.all(running);
      running = [];
      await take(step);
      continue;
    }
    if (running.length >= PARALLEL_WRITES) {
      await Promise.all(running);
      running = [];
    }
    running.push(take(step));
  }
  await Promise.all(running);
  const order = new Map(steps.map((step, index) => [step.path, index]));
  report.written.sort((a, b) => order.get(a)! - order.get(b)!);
}

/** The report as lines for stderr: what was written, deleted, skipped and why, what failed. */
export function describeWriteBack(report: WriteBackReport): string[] {
  const list = (paths: string[]) =>
    paths.length <= 10 ? paths.join(", ") : `${paths.slice(0, 10).join(", ")} and ${paths.length - 10} more`;
  const lines = [
    `write-back: ${report.written.length} written${report.written.length > 0 ? ` (${list(report.written)})` : ""}, ${report.deleted.length} deleted${report.deleted.length > 0 ? ` (${list(report.deleted)})` : ""}, ${report.skipped.length} skipped, ${report.failed.length} failed`,
  ];
  for (const line of report.skipped) lines.push(line.startsWith("kept out:") ? line : `skipped ${line}`);
  for (const line of report.failed) lines.push(`could not write ${line}`);
  for (const line of report.notes) lines.push(line);
  return lines;
}
