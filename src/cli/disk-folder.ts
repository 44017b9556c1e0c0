import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  type Stats,
} from "node:fs";
import { join } from "node:path";
import type { FolderEntry, FolderSource } from "../sandbox/embedded/lazy-folder.ts";
import { JOURNAL_NAME, TEMP_NAME } from "./write-back-journal.ts";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A folder on disk as the embedded sandbox reads it on demand: one folder's names when something
 * looks inside it, one file's bytes when they are read. Symlinks are kept as symlinks (never
 * followed). What the sandbox cannot hold is left out and said once: a name that is not valid UTF-8
 * (it could never be written back under the same name), FIFOs, sockets and devices.
 */
export class DiskFolder implements FolderSource {
  private readonly warned = new Set<string>();

  constructor(
    readonly folder: string,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  list(relative: string): FolderEntry[] {
    const directory = this.full(relative);
    let names: Buffer[];
    try {
      names = readdirSync(directory, { encoding: "buffer" });
    } catch (error) {
      this.once(
        relative,
        `cannot list ${relative || "the folder"} (${(error as NodeJS.ErrnoException).code}); it is shown empty`,
      );
      throw error;
    }
    const entries: FolderEntry[] = [];
    for (const raw of names) {
      let name: string;
      try {
        name = strictUtf8.decode(raw);
      } catch {
        const shown = raw.toString("utf8");
        this.once(`${relative}/${shown}`, `left out ${join(relative, shown)}: its name is not valid UTF-8`);
        continue;
      }
      // A write-back's temporary files and journal (a killed run's included) are not the person's.
      if (TEMP_NAME.test(name) || JOURNAL_NAME.test(name)) continue;
      const path = relative === "" ? name : `${relative}/${name}`;
      let stat: Stats;
      try {
        stat = lstatSync(join(directory, name));
      } catch {
        continue; // gone since the listing
      }
      const common = {
        name,
        mode: stat.mode & 0o7777,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        ino: stat.ino,
      };
      if (stat.isSymbolicLink()) {
        let target: string;
        try {
          target = readlinkSync(join(directory, name), "utf8");
        } catch {
          continue;
        }
        entries.push({ ...common, type: "symlink", target });
      } else if (stat.isDirectory()) entries.push({ ...common, type: "directory" });
      else if (stat.isFile()) entries.push({ ...common, type: "file" });
      else this.once(path, `left out ${path}: ${specialKind(stat)}, not a file`);
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** A regular file's bytes; a FIFO or device put there since the listing is refused, never waited on. */
  read(relative: string): Uint8Array {
    const fd = openSync(
      this.full(relative),
      constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW,
    );
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile())
        throw Object.assign(new Error(`EINVAL: ${relative} is ${specialKind(stat)}, not a file`), {
          code: "EINVAL",
        });
      const buffer = readFileSync(fd);
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } finally {
      closeSync(fd);
    }
  }

  private full(relative: string): string {
    return relative === "" ? this.folder : join(this.folder, ...relative.split("/"));
  }

  private once(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warn(message);
  }
}

function specialKind(stat: Stats): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "a special file";
}
