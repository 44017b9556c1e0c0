import { constants, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import {
  chmod,
  copyFile,
  link,
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
import { basename, join } from "node:path";
import type { FileChange } from "../core/checkpoints.ts";
import { gitSetupReason, isGitFolderName } from "../core/git-setup.ts";
import type { FolderEntry } from "../sandbox/embedded/lazy-folder.ts";
import type { SnapshotEntry } from "../sandbox/types.ts";
import { Journal, type JournalStep, leftoverOf, syncFolder, TEMP_NAME } from "./write-back-journal.ts";

export { TEMP_NAME } from "./write-back-journal.ts";

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
  /** Whether the disk tells `A.txt` from `a.txt` in every folder; each folder is asked when not given. */
  caseInsensitive?: boolean;
  /** How a folder (relative, "" the top) is asked whether it compares names without case (tests). */
  caseProbe?: (dir: string) => Promise<boolean>;
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
  /** Names in folders on disk, read when a new name is checked against them. */
  const listings = new Map<string, string[]>();
  const listing = async (dir: string): Promise<string[]> => {
    if (!listings.has(dir))
      listings.set(dir, await readdir(dir === "" ? folder : join(folder, ...dir.split("/"))).catch(() => []));
    return listings.get(dir)!;
  };
  /**
   * Whether names in folder `dir` are compared without case. Each folder is asked (a folder below
   * can be another disk, or have ext4's per-folder casefolding); one still to be made takes after
   * the folder on disk it is made in, as casefolding is inherited.
   */
  const blindAt = async (dir: string): Promise<boolean> => {
    if (options.caseInsensitive !== undefined) return options.caseInsensitive;
    let at = dir;
    while (at !== "" && (await onDisk(at))?.isDirectory() !== true) at = parentOf(at);
    if (options.caseProbe) return options.caseProbe(at);
    return isCaseInsensitive(at === "" ? folder : join(folder, ...at.split("/")), await listing(at));
  };
  // Where the disk does not tell A.txt from a.txt, two such names would be one file: neither is written.
  const clashing = await caseClashes(wanted, blindAt);
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
      (change.before === null ? await caseTwinOnDisk(change.path) : null) ??
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

  /**
   * Why a new name cannot be made: looked up on disk it finds a name that differs only by case (the
   * folder compares names without case), which writing it would overwrite. The lookup itself asks
   * the folder, whatever disk or casefolding it has; nothing is read when the name finds nothing.
   */
  async function caseTwinOnDisk(path: string): Promise<string | null> {
    const parent = parentOf(path);
    const name = path.slice(path.lastIndexOf("/") + 1);
    // Told how the disk compares names (tests): the listing is read where it folds case.
    const told = options.caseInsensitive !== undefined || options.caseProbe !== undefined;
    if (!told && !(await onDisk(path))) return null;
    const names = await listing(parent);
    if (!told && names.includes(name)) return null;
    const twin = names.find((other) => other !== name && caseKey(other) === caseKey(name));
    const twinPath = twin === undefined ? undefined : parent === "" ? twin : `${parent}/${twin}`;
    if (twinPath === undefined || deleted.has(twinPath) || (told && !(await blindAt(parent)))) return null;
    return `it differs only by case from ${twinPath} on disk, and this disk does not tell such names apart; kept as it is on disk`;
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

/**
 * Each changed path that another changed path differs from only by case, in a folder that does not
 * tell such names apart, with those others. Only such pairs ask a folder how it compares names.
 */
async function caseClashes(
  changes: readonly FileChange[],
  blindAt: (dir: string) => Promise<boolean>,
): Promise<Map<string, string[]>> {
  const groups = new Map<string, string[]>();
  for (const change of changes) {
    const key = caseKey(change.path);
    groups.set(key, [...(groups.get(key) ?? []), change.path]);
  }
  const clashing = new Map<string, string[]>();
  for (const paths of groups.values()) {
    if (paths.length < 2) continue;
    for (const path of paths) {
      const others: string[] = [];
      for (const other of paths)
        if (other !== path && (await blindAt(whereTheyDiffer(path, other)))) others.push(other);
      if (others.length > 0) clashing.set(path, others);
    }
  }
  return clashing;
}

/** The folder holding the first name in which two paths differ. */
function whereTheyDiffer(a: string, b: string): string {
  const left = a.split("/");
  const right = b.split("/");
  let same = 0;
  while (same < left.length && left[same] === right[same]) same++;
  return left.slice(0, same).join("/");
}

/** Each folder's answer, by its identity on disk (device and inode), for the run. */
const caseProbes = new Map<string, Promise<boolean>>();

/** A name with its ASCII letters' case swapped. */
const swapCase = (name: string) =>
  name.replace(/[A-Za-z]/gu, (letter) =>
    letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase(),
  );

/**
 * Whether the folder `folder` takes `A.txt` and `a.txt` for the same name (macOS, Windows, exFAT,
 * ext4's casefolded folders): a name already in it (`names`, its listing, when known) is looked up
 * with its case swapped; in a folder with no such name a temporary file is made for it. Asked once per
 * folder (by device and inode, so another disk mounted below or a casefolded folder is asked on its own).
 */
export async function isCaseInsensitive(folder: string, names?: string[]): Promise<boolean> {
  const stat = await lstat(folder).catch(() => null);
  if (!stat?.isDirectory()) return false;
  const key = `${stat.dev}:${stat.ino}`;
  let probe = caseProbes.get(key);
  if (!probe) {
    probe = probeCase(folder, names);
    caseProbes.set(key, probe);
  }
  return probe;
}

async function probeCase(folder: string, known?: string[]): Promise<boolean> {
  const names = known ?? (await readdir(folder).catch(() => [] as string[]));
  const have = new Set(names);
  // The other case finds something the listing does not have: the folder folded it (inode numbers
  // cannot tell: exFAT through FUSE gives each lookup its own). Listed again, to rule out a new file.
  const folds = async (swapped: string) =>
    (await lstat(join(folder, swapped)).catch(() => null)) !== null &&
    !(await readdir(folder).catch(() => [] as string[])).includes(swapped);
  for (const name of names.slice(0, 8)) {
    const swapped = swapCase(name);
    if (swapped === name || have.has(swapped) || TEMP_NAME.test(name)) continue;
    if (!(await lstat(join(folder, name)).catch(() => null))) continue; // gone since the listing
    return folds(swapped);
  }
  // No name to ask with: one of our own, made and removed.
  const temp = join(folder, tempIn(""));
  try {
    await (await open(temp, "wx", 0o600)).close();
  } catch {
    return false; // nothing can be written here anyway
  }
  try {
    return await folds(basename(temp).toUpperCase());
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

let tempCount = 0;

/** A new name for a temporary file in folder `dir` (relative, "/"-separated); TEMP_NAME matches it. */
function tempIn(dir: string): string {
  const name = `.toolroom-${process.pid}-${++tempCount}.tmp`;
  return dir === "" ? name : `${dir}/${name}`;
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
      if (pid && leftoverOf(pid)) await unlink(join(full, name)).catch(() => undefined);
    }
  }
}

export interface ApplyOptions {
  /** Told each path written (as it now is on disk) or deleted (null), once it is done. */
  done?: (path: string, entry: FolderEntry | null) => void;
  /** Folders already cleared of stale temporary files in this run. */
  cleaned?: Set<string>;
  /** Told each path whose write failed on disk (it can be tried again later). */
  failed?: (path: string) => void;
  /** The call being written back, as the journal and a later run's roll-back name it. */
  call?: string;
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

/** Runs `work` on each item, a few at a time (to hide fsync's wait). */
async function fewAtATime<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL_WRITES)
    await Promise.all(items.slice(i, i + PARALLEL_WRITES).map(work));
}

/** Errors that mean the disk makes no hard links: the old file is renamed aside instead. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "ENOSYS", "EXDEV"]);
/** Up to how many staged files stay open until their fsync (more are opened again for it). */
const OPEN_STAGED = 32;

/** A step made ready: its new file staged, what puts it back, and how it will stand on disk. */
interface Ready {
  step: Step;
  record: JournalStep;
  /** The staged file's stat (what the path will be once renamed into place). */
  stat?: Stats;
  /** The staged file, still open for its fsync. */
  handle?: FileHandle;
  /** What the path holds now is a link: it is renamed aside (some systems' link() follows links). */
  linkThere?: boolean;
}

/**
 * Takes the plan's steps as one whole: every new file, link and copy is first staged in full
 * beside its place (a temporary file); the journal records every step with what puts it back;
 * both are fsync'd; then the steps are taken (renames, each replaced or deleted file kept aside
 * until the end); then the journal says the call is committed and it and the changed folders are
 * fsync'd; then what was kept aside is removed. A kill at any moment leaves the journal, by which
 * the next run puts the whole call back (or, once committed, tidies it): see
 * write-back-journal.ts. A failed step is reported and the rest are taken.
 */
export async function applyWriteBack(
  folder: string,
  steps: readonly Step[],
  report: WriteBackReport,
  options: ApplyOptions = {},
): Promise<void> {
  const done = options.done ?? (() => undefined);
  const failed = options.failed ?? (() => undefined);
  if (steps.length === 0) return;
  await removeStaleTemps(folder, steps, options.cleaned ?? new Set());
  const fullOf = (path: string) => (path === "" ? folder : join(folder, ...path.split("/")));
  const fail = (step: Step, error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOTEMPTY" || code === "EEXIST"
        ? "the folder on disk holds files the sandbox never saw; kept"
        : `${code ?? "error"}: ${(error as Error).message.replace(/^[A-Z]+: /u, "")}`;
    report.failed.push(`${step.path}: ${why}`);
    failed(step.path);
  };

  const made = new Set(steps.filter((step) => step.kind === "folder").map((step) => step.path));
  const gone = new Set(steps.filter((step) => step.kind === "delete").map((step) => step.path));
  /** The nearest folder above `path` on disk before and after: a rename from there stays on one disk. */
  const standing = (path: string) => {
    let dir = parentOf(path);
    while (dir !== "" && (made.has(dir) || gone.has(dir))) dir = parentOf(dir);
    return dir;
  };
  const temps = new Map<Step, string>();
  for (const step of steps)
    if (step.kind === "file" || step.kind === "link" || (step.kind === "mode" && step.hardLinked))
      temps.set(step, tempIn(standing(step.path)));
  let journal: Journal | null = null;
  const unjournaled = async (error: unknown) => {
    await journal?.close();
    journal = null;
    report.notes.push(
      `no write-back journal could be kept in the folder (${(error as NodeJS.ErrnoException).code ?? "error"}): each file is written whole, but a kill while writing could leave part of this call written`,
    );
  };
  // One step is all or nothing by itself (a rename, an unlink, a chmod, a mkdir): no journal needed.
  if (steps.length > 1)
    journal = await Journal.begin(folder, options.call ?? "a write-back", [...temps.values()]).catch(
      async (error) => {
        await unjournaled(error);
        return null;
      },
    );

  // 1. Staged: nothing the person sees changes yet.
  const ready = new Map<Step, Ready>();
  const keepOpen = temps.size <= OPEN_STAGED;
  const stage = async (step: Step): Promise<void> => {
    const full = fullOf(step.path);
    try {
      if (step.kind === "folder") ready.set(step, { step, record: { op: "folder", path: step.path } });
      else if (step.kind === "delete") {
        const stat = await lstat(full);
        ready.set(step, {
          step,
          record: {
            op: "delete",
            path: step.path,
            aside: tempIn(standing(step.path)),
            was: stat.ino,
            folder: stat.isDirectory(),
          },
        });
      } else if (step.kind === "mode" && !step.hardLinked)
        ready.set(step, {
          step,
          record: { op: "mode", path: step.path, was: step.stat.ino, mode: step.stat.mode & 0o7777 },
        });
      else {
        const temp = temps.get(step)!;
        const { stat, handle } = await staged(step, full, fullOf(temp), keepOpen);
        const there = gone.has(step.path) ? null : await lstat(full).catch(() => null);
        const record: JournalStep = {
          op: "put",
          path: step.path,
          temp,
          ino: stat.ino,
          ...(there ? { aside: tempIn(parentOf(step.path)), was: there.ino } : {}),
        };
        ready.set(step, {
          step,
          record,
          stat,
          ...(handle ? { handle } : {}),
          ...(there?.isSymbolicLink() ? { linkThere: true } : {}),
        });
      }
    } catch (error) {
      fail(step, error);
    }
  };
  await fewAtATime(
    steps.filter((step) => temps.has(step)),
    stage,
  );
  for (const step of steps) if (!temps.has(step)) await stage(step);
  const records = steps.flatMap((step) => {
    const one = ready.get(step);
    return one ? [one.record] : [];
  });
  if (journal) await journal.staged(records).catch(unjournaled);
  // The staged files and the journal reach the disk together (one commit of the disk's own journal).
  const durable: (() => Promise<void>)[] = [];
  if (journal) durable.push(() => journal!.sync().catch(unjournaled));
  for (const [step, one] of ready)
    if (one.record.op === "put" && step.kind !== "link") {
      const temp = fullOf(one.record.temp);
      durable.push(async () => {
        try {
          const handle = one.handle ?? (await open(temp, "r"));
          await handle.sync().finally(() => handle.close());
        } catch (error) {
          fail(step, error);
          ready.delete(step);
        }
      });
    }
  await fewAtATime(durable, (sync) => sync());

  // 2. Taken, in the plan's order; what was replaced or deleted is kept aside until the commit.
  const keepAside = journal !== null;
  /** Kept-aside names to remove at the commit, and staged files that were never renamed into place. */
  const asides: { path: string; folder: boolean }[] = [];
  const unused = new Set(temps.values());
  const failedFolders = new Set<string>();
  const take = async ({ step, record, stat, linkThere }: Ready): Promise<void> => {
    const full = fullOf(step.path);
    const inFailed = [...failedFolders].find((prefix) => step.path.startsWith(`${prefix}/`));
    if (inFailed) {
      report.failed.push(`${step.path}: its folder ${inFailed} could not be made`);
      failed(step.path);
      return;
    }
    try {
      if (record.op === "delete") {
        if (!keepAside) await (record.folder ? rmdir(full) : unlink(full));
        else {
          // rmdir's own check: a folder goes only once empty.
          if (record.folder && (await readdir(full)).length > 0)
            throw Object.assign(new Error("not empty"), { code: "ENOTEMPTY" });
          await rename(full, fullOf(record.aside));
          asides.push({ path: record.aside, folder: record.folder });
        }
        report.deleted.push(step.path);
        done(step.path, null);
      } else if (record.op === "folder" && step.kind === "folder") {
        await mkdir(full, { mode: step.mode });
        await chmod(full, step.mode);
        report.written.push(step.path);
        done(step.path, entryOf(step.path, await lstat(full), "directory"));
      } else if (record.op === "mode" && step.kind === "mode") {
        await chmod(full, step.mode);
        report.written.push(step.path);
        // chmod keeps the inode, size and time the plan saw.
        done(step.path, { ...entryOf(step.path, step.stat, "file"), mode: step.mode });
      } else if (record.op === "put") {
        let movedAside = false;
        if (keepAside && record.aside !== undefined) {
          const aside = fullOf(record.aside);
          // A second name for the old file: the path never stops holding one or the other.
          const linked = linkThere
            ? false
            : await link(full, aside).then(
                () => true,
                (error) => {
                  if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
                  return false;
                },
              );
          if (!linked) {
            await rename(full, aside);
            movedAside = true;
          }
        }
        try {
          await rename(fullOf(record.temp), full);
        } catch (error) {
          if (movedAside) await rename(fullOf(record.aside!), full);
          else if (record.aside !== undefined && keepAside) await unlink(fullOf(record.aside));
          throw error;
        }
        unused.delete(record.temp);
        if (keepAside && record.aside !== undefined) asides.push({ path: record.aside, folder: false });
        report.written.push(step.path);
        const target = step.kind === "link" ? step.target : undefined;
        done(step.path, entryOf(step.path, stat!, step.kind === "link" ? "symlink" : "file", target));
      }
    } catch (error) {
      fail(step, error);
      if (step.kind === "folder") failedFolders.add(step.path);
    }
  };
  // Deletions and folders go one by one, after everything before them; the rest a few at a time.
  let batch: Ready[] = [];
  for (const step of steps) {
    const one = ready.get(step);
    if (!one) continue;
    if (step.kind === "delete" || step.kind === "folder") {
      await fewAtATime(batch, take);
      batch = [];
      await take(one);
    } else batch.push(one);
  }
  await fewAtATime(batch, take);

  // 3. Committed, durably with every changed name, before the call is answered; then tidied.
  const folders = new Set<string>();
  for (const record of records) {
    folders.add(parentOf(record.path));
    if (record.op === "delete" || (record.op === "put" && record.aside)) folders.add(parentOf(record.aside!));
  }
  if (journal) {
    folders.delete(""); // the journal's sync covers the top folder
    await journal.commit().catch(() => undefined);
  }
  // The changed names reach the disk before the answer goes out, so a power cut loses nothing answered.
  await fewAtATime(
    [
      ...(journal ? [() => journal!.sync().catch(() => undefined)] : []),
      ...[...folders].map((dir) => () => syncFolder(fullOf(dir))),
    ],
    (sync) => sync(),
  );
  for (const aside of asides)
    await (aside.folder ? rmdir(fullOf(aside.path)) : unlink(fullOf(aside.path))).catch(() => undefined);
  for (const temp of unused) await unlink(fullOf(temp)).catch(() => undefined);
  await (journal as Journal | null)?.close();
  const order = new Map(steps.map((step, index) => [step.path, index]));
  report.written.sort((a, b) => order.get(a)! - order.get(b)!);
}

/**
 * Writes a step's new file, link or copy in full at `temp`, never visible at its place yet; its
 * stat, and (with `keepOpen`) the file still open for its fsync with the journal.
 */
async function staged(
  step: Step,
  full: string,
  temp: string,
  keepOpen: boolean,
): Promise<{ stat: Stats; handle?: FileHandle }> {
  try {
    if (step.kind === "link") {
      await symlink(step.target, temp);
      return { stat: await lstat(temp) };
    }
    if (step.kind === "mode") {
      // chmod would change every name of a hard-linked file: this one gets its own copy.
      await copyFile(full, temp, constants.COPYFILE_EXCL);
      await chmod(temp, step.mode);
      return { stat: await lstat(temp) };
    }
    if (step.kind !== "file") throw new Error(`${step.kind} has nothing to stage`);
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(step.entry.data);
      await handle.chmod(fileMode(step.entry.mode));
      const stat = await handle.stat();
      if (keepOpen) return { stat, handle };
      await handle.close();
      return { stat };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
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
