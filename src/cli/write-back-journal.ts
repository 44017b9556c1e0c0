import { readFileSync, type Stats } from "node:fs";
import {
  chmod,
  type FileHandle,
  lstat,
  open,
  readdir,
  readFile,
  rename,
  rmdir,
  unlink,
} from "node:fs/promises";
import { join } from "node:path";

/**
 * A call's write-back journal: what makes one call's write-back all or nothing across a kill -9.
 * It lives in the workspace folder itself (never outside it) as `.toolroom-PID.journal`, a name no
 * git or shell runs and the sandbox never shows, for as long as one call is being written back:
 *
 * 1. a first line names the temporary files about to be made;
 * 2. once every new file is staged beside its target, a second line records each step with what
 *    puts it back (the replaced file kept aside under a temporary name, the old mode, the inodes);
 *    the staged files and the journal are fsync'd together (one commit of the disk's own journal),
 *    and only then does the folder change;
 * 3. once every step is done, a third line says the call is committed, and the changed folders and
 *    the journal are fsync'd together before the call is answered; then the files kept aside are
 *    removed and the journal with them.
 *
 * A run killed before (3) leaves the journal: the next run with --write-back on the folder puts
 * every step back (the call was never answered, so nothing answered is lost) and removes the
 * temporary files; one killed after (3) only had its leftovers to remove, which the next run does.
 */

/** Temporary files write-back makes beside the file it replaces; a killed run can leave one. */
export const TEMP_NAME = /^\.toolroom-\d+-\d+\.tmp$/u;
/** The journal of a call being written back (one per process at a time, in the folder's top). */
export const JOURNAL_NAME = /^\.toolroom-(\d+)\.journal$/u;
const MAGIC = "toolroom write-back journal";

/** One step as the journal records it; paths are relative to the folder, "/"-separated. */
export type JournalStep =
  /** `path` (inode `was`) renamed to `aside`; removed at commit. */
  | { op: "delete"; path: string; aside: string; was: number; folder: boolean }
  /** A folder made at `path`. */
  | { op: "folder"; path: string }
  /** `temp` (inode `ino`) renamed over `path`; the file there before (inode `was`) kept at `aside`. */
  | { op: "put"; path: string; temp: string; ino: number; aside?: string; was?: number }
  /** `path` (inode `was`) given another mode; `mode` was its mode before. */
  | { op: "mode"; path: string; was: number; mode: number };

/** Processes whose leftovers must stay: they are alive, or their journal could not be settled. */
const held = new Set<number>();

/** Whether the temporary files of process `pid` may be removed as a dead run's leftovers. */
export function leftoverOf(pid: number): boolean {
  return pid !== process.pid && !held.has(pid) && !alive(pid);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * When process `pid` started (Linux: clock ticks after boot, from /proc), or null where that cannot
 * be read: tells a live writer from another process that was given a dead writer's id.
 */
function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** When this process started, as startOf reads it. */
const ownStart = startOf(process.pid);

/** Whether the journal's writer is still running (not merely its id given to another process). */
function writerAlive(pid: number, started: string | null | undefined): boolean {
  // This run has written no journal yet: one with its id is an earlier run's (ids restart in a container).
  if (pid === process.pid) return false;
  if (!alive(pid)) return false;
  const now = startOf(pid);
  return started === undefined || started === null || now === null || now === started;
}

const fullOf = (folder: string, path: string) => (path === "" ? folder : join(folder, ...path.split("/")));
const statOf = (full: string): Promise<Stats | null> => lstat(full).catch(() => null);

/** Fsyncs a folder so the names made and removed in it last (where the system allows it). */
export async function syncFolder(full: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(full, "r");
    await handle.sync();
  } catch {
    // Windows cannot open a folder for fsync; a folder gone since has nothing to keep.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The journal of the call being written back now. */
export class Journal {
  private constructor(
    private readonly folder: string,
    private readonly name: string,
    private readonly handle: FileHandle,
  ) {}

  /** Starts a call's journal naming the temporary files it will make (throws if none can be made here). */
  static async begin(folder: string, call: string, temps: string[]): Promise<Journal> {
    const name = `.toolroom-${process.pid}.journal`;
    const handle = await open(join(folder, name), "wx", 0o600);
    const journal = new Journal(folder, name, handle);
    await journal.line({
      journal: MAGIC,
      version: 1,
      pid: process.pid,
      started: ownStart,
      call,
      temps,
    });
    return journal;
  }

  /** Records every step with what puts it back; `sync` makes it durable (with the staged files). */
  async staged(steps: JournalStep[]): Promise<void> {
    await this.line({ steps });
  }

  /** The call is whole: from here a killed run's next start finishes it instead; `sync` makes it durable. */
  async commit(): Promise<void> {
    await this.line({ committed: true });
  }

  /** Makes the journal durable, its name included. */
  async sync(): Promise<void> {
    await Promise.all([this.handle.sync(), syncFolder(this.folder)]);
  }

  /** Removes the journal (after its leftovers are gone). */
  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await unlink(join(this.folder, this.name)).catch(() => undefined);
  }

  private async line(value: unknown): Promise<void> {
    await this.handle.write(`${JSON.stringify(value)}\n`);
  }
}

/** After commit: the files kept aside and any temporary file left by a failed step are removed. */
export async function removeLeftovers(
  folder: string,
  steps: readonly JournalStep[],
  temps: readonly string[],
) {
  for (const step of steps) {
    if (step.op === "delete") {
      const full = await checked(folder, step.aside, true);
      const stat = await statOf(full);
      if (stat?.ino !== step.was) continue;
      await (stat.isDirectory() ? rmdir(full) : unlink(full));
    } else if (step.op === "put" && step.aside !== undefined) {
      const aside = await checked(folder, step.aside, true);
      const target = await statOf(await checked(folder, step.path));
      const kept = await statOf(aside);
      if (kept?.ino !== step.was) continue;
      // The old file goes only once the new one (or, after a failed rename, the old one) stands.
      if (target && (target.ino === step.ino || target.ino === step.was)) await unlink(aside);
      else if (!target) await rename(aside, await checked(folder, step.path));
    }
  }
  await removeTemps(folder, temps);
}

async function removeTemps(folder: string, temps: readonly string[]): Promise<void> {
  for (const temp of temps) {
    const full = await checked(folder, temp, true).catch(() => null);
    if (full && (await statOf(full))?.isDirectory() === false) await unlink(full).catch(() => undefined);
  }
}

/** Puts each step back, last first; each is checked against what is there, so a second try is safe. */
async function rollBack(folder: string, steps: readonly JournalStep[]): Promise<void> {
  for (const step of [...steps].reverse()) {
    const full = await checked(folder, step.path);
    const target = await statOf(full);
    switch (step.op) {
      case "delete": {
        const aside = await checked(folder, step.aside, true);
        const kept = await statOf(aside);
        if (kept?.ino !== step.was) break;
        if (!target) await rename(aside, full);
        else await (kept.isDirectory() ? rmdir(aside) : unlink(aside)).catch(() => undefined);
        break;
      }
      case "folder":
        if (target?.isDirectory()) await rmdir(full).catch(() => undefined);
        break;
      case "put": {
        const kept = step.aside === undefined ? null : await statOf(await checked(folder, step.aside, true));
        if (kept && kept.ino === step.was) {
          const aside = await checked(folder, step.aside!, true);
          // Both names of one file: rename would do nothing, so the extra name goes.
          if (target?.ino === step.was) await unlink(aside);
          else if (!target || target.ino === step.ino) await rename(aside, full);
        } else if (step.was === undefined && target?.ino === step.ino) await unlink(full);
        break;
      }
      case "mode":
        if (target?.ino === step.was) await chmod(full, step.mode);
        break;
    }
  }
}

/**
 * `path` as a full path, after checking it is one the journal may name: relative, plain segments,
 * no link on the way (a link could lead outside the folder), a temporary name where one is expected.
 */
async function checked(folder: string, path: string, temporary = false): Promise<string> {
  const segments = path.split("/");
  if (
    segments.some(
      (segment) => segment === "" || segment === "." || segment === ".." || segment.includes("\0"),
    )
  )
    throw new Error(`the journal names ${JSON.stringify(path)}, which is not a path inside the folder`);
  if (temporary && !TEMP_NAME.test(segments.at(-1)!))
    throw new Error(`the journal names ${JSON.stringify(path)} where a temporary file was expected`);
  for (let i = 1; i < segments.length; i++) {
    const stat = await statOf(fullOf(folder, segments.slice(0, i).join("/")));
    // A file there means nothing below it exists to put back; a link could lead outside.
    if (stat?.isSymbolicLink())
      throw new Error(`${segments.slice(0, i).join("/")} is a link now; nothing is done through a link`);
  }
  return fullOf(folder, path);
}

interface Parsed {
  pid: number;
  /** When the writer started (see startOf), where it could be read. */
  started?: string | null;
  call: string;
  temps: string[];
  steps?: JournalStep[];
  committed: boolean;
}

function parse(text: string): Parsed | null {
  const lines = text.split("\n");
  try {
    const head = JSON.parse(lines[0]!);
    if (head?.journal !== MAGIC || head.version !== 1 || !Array.isArray(head.temps)) return null;
    const parsed: Parsed = {
      pid: head.pid,
      started: typeof head.started === "string" ? head.started : null,
      call: String(head.call),
      temps: head.temps,
      committed: false,
    };
    // A line cut short by the kill is as if it was never written.
    for (const line of lines.slice(1)) {
      let value: { steps?: JournalStep[]; committed?: boolean };
      try {
        value = JSON.parse(line);
      } catch {
        break;
      }
      if (Array.isArray(value.steps)) parsed.steps = value.steps;
      if (value.committed === true) parsed.committed = parsed.steps !== undefined;
    }
    return parsed;
  } catch {
    return null;
  }
}

const listed = (paths: string[]) =>
  paths.length <= 10 ? paths.join(", ") : `${paths.slice(0, 10).join(", ")} and ${paths.length - 10} more`;

/**
 * Settles what a killed run's write-back left in `folder`: an unfinished call is rolled back, a
 * committed one's leftovers removed, each said on stderr. With `readOnly` (no --write-back) nothing
 * is touched and the person is told. Journals of a live process, or that cannot be settled, stay.
 */
export async function recoverWriteBack(
  folder: string,
  warn: (message: string) => void,
  readOnly = false,
): Promise<void> {
  const top = await readdir(folder).catch(() => [] as string[]);
  const names = top.filter((name) => JOURNAL_NAME.test(name));
  for (const name of names.sort()) {
    const pid = Number(JOURNAL_NAME.exec(name)![1]);
    const full = join(folder, name);
    const text = await readFile(full, "utf8").catch(() => null);
    const started = parse(text ?? "")?.started;
    if (writerAlive(pid, started)) {
      held.add(pid);
      warn(`${name}: process ${pid} is writing back to this folder now; its files are left to it`);
      continue;
    }
    if (text === "" && !readOnly) {
      // Killed between making the journal and its first line: nothing was made or changed yet.
      await unlink(full).catch(() => undefined);
      warn(
        `a write-back of process ${pid} was cut short before it changed anything; its empty ${name} is removed`,
      );
      continue;
    }
    const journal = parse(text ?? "");
    if (!journal) {
      held.add(pid);
      warn(
        `${name} is not a journal toolroom can read; left as it is, with process ${pid}'s temporary files`,
      );
      continue;
    }
    const paths = (journal.steps ?? []).map((step) => step.path);
    if (readOnly) {
      held.add(pid);
      warn(
        `the write-back of ${journal.call} (process ${pid}) was cut short${journal.steps && !journal.committed ? ` and may have left part of it on disk (${listed(paths)})` : ""}; run with --write-back to ${journal.committed ? "tidy it" : "put the folder back as it was before that call"}`,
      );
      continue;
    }
    try {
      if (journal.committed && journal.steps) {
        await removeLeftovers(folder, journal.steps, journal.temps);
        warn(
          `the write-back of ${journal.call} (process ${pid}) was cut short after all its changes were on disk (${listed(paths)}); its leftovers are removed`,
        );
      } else {
        if (journal.steps) await rollBack(folder, journal.steps);
        await removeTemps(folder, journal.temps);
        warn(
          journal.steps
            ? `the write-back of ${journal.call} (process ${pid}) was cut short before that call was answered: rolled back, ${listed(paths)} as before that call`
            : `the write-back of ${journal.call} (process ${pid}) was cut short before it changed anything; its temporary files are removed`,
        );
      }
      await unlink(full);
      await syncFolder(folder);
    } catch (error) {
      held.add(pid);
      warn(
        `could not settle the write-back of ${journal.call} (process ${pid}) cut short: ${(error as Error).message}; ${name} and its files are left as they are`,
      );
    }
  }
  if (readOnly) return;
  // A one-change call has no journal: a killed one's temporary file in the top folder goes now
  // (one in a folder below, with the next write-back there).
  for (const name of top) {
    const pid = TEMP_NAME.test(name) ? Number(name.split("-")[1]) : 0;
    if (pid && (pid === process.pid ? !held.has(pid) : leftoverOf(pid))) {
      const full = join(folder, name);
      if ((await statOf(full))?.isFile()) await unlink(full).catch(() => undefined);
    }
  }
}
