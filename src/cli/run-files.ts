import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, parse, resolve, sep } from "node:path";

/**
 * The run's own files (--events, --artifacts). They are a record of the run, not the run: a disk
 * that fills up, a folder that cannot be written or a name that is a file is said once on stderr,
 * and the batch goes on answering every line.
 */

export type Warn = (message: string) => void;

/** What an errno means, in words a person acts on. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reasons: Record<string, string> = {
    ENOSPC: "the disk is full",
    EDQUOT: "the disk quota is used up",
    EACCES: "permission denied",
    EPERM: "permission denied",
    EROFS: "the file system is read-only",
    ENOTDIR: "a part of the path is a file, not a folder",
    EISDIR: "it is a folder",
    EEXIST: "a file is in the way",
    ENOENT: "a folder on the way does not exist",
    ENAMETOOLONG: "the name is too long",
    EIO: "an input/output error",
  };
  return (code && reasons[code]) ?? code ?? (error instanceof Error ? error.message : String(error));
}

/**
 * mkdir -p, one folder at a time: Node's own recursive mkdir never returns on some paths (under
 * /proc it retries forever), and a run must not hang on its log folder.
 */
export async function makeFolders(folder: string): Promise<void> {
  const absolute = resolve(folder);
  let current = parse(absolute).root;
  for (const part of absolute.slice(current.length).split(sep).filter(Boolean)) {
    current = join(current, part);
    try {
      await mkdir(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (!(await stat(current)).isDirectory())
        throw Object.assign(new Error(`ENOTDIR: ${current}`), { code: "ENOTDIR" });
    }
  }
}

/** events.jsonl, one event per line; after the first write error it says so and writes no more. */
export class EventsFile {
  private stream: WriteStream | undefined;
  private failed = false;

  private constructor(
    private readonly path: string,
    private readonly warn: Warn,
  ) {}

  static async open(path: string, warn: Warn): Promise<EventsFile> {
    const file = new EventsFile(path, warn);
    try {
      await makeFolders(dirname(path));
      const stream = createWriteStream(path, { flags: "w" });
      stream.on("error", (error) => file.fail(error));
      await new Promise<void>((resolve) => {
        stream.once("open", () => resolve());
        stream.once("error", () => resolve());
      });
      if (!file.failed) file.stream = stream;
    } catch (error) {
      file.fail(error);
    }
    return file;
  }

  write(line: string): void {
    if (!this.failed) this.stream?.write(line);
  }

  /** Flushes and closes; never rejects. */
  close(): Promise<void> {
    const stream = this.stream;
    if (!stream || this.failed) return Promise.resolve();
    return new Promise((resolve) => {
      stream.once("error", () => resolve());
      stream.end(() => resolve());
    });
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.stream?.destroy();
    this.warn(
      `cannot write events to ${this.path} (${describeFsError(error)}); the run goes on without them`,
    );
  }
}

/** Writes artifacts under a folder as they come; errors are said once, with a count at the end. */
export class ArtifactsFolder {
  private readonly pending = new Set<Promise<void>>();
  private failures = 0;

  constructor(
    private readonly folder: string,
    private readonly warn: Warn,
  ) {}

  put(path: string, data: Uint8Array | string): void {
    const target = join(this.folder, ...path.split("/"));
    const write = makeFolders(dirname(target))
      .then(() => writeFile(target, data))
      .catch((error: unknown) => {
        if (this.failures++ === 0)
          this.warn(
            `cannot write artifacts to ${this.folder} (${describeFsError(error)}); the run goes on without them`,
          );
      })
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Waits for every write; never rejects. */
  async close(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    if (this.failures > 1) this.warn(`${this.failures} artifacts could not be written to ${this.folder}`);
  }
}
