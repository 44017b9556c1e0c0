import type { FileStat, Sandbox } from "../../sandbox/types.ts";

/** What isomorphic-git expects of a stat: methods, not booleans, and numbers everywhere. */
export interface GitStats {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  mode: number;
  size: number;
  ino: number;
  dev: number;
  uid: number;
  gid: number;
  mtimeMs: number;
  ctimeMs: number;
}

const TYPE_BITS = { file: 0o100000, directory: 0o040000, symlink: 0o120000 } as const;

function toGitStats(stat: FileStat): GitStats {
  return {
    isFile: () => stat.type === "file",
    isDirectory: () => stat.type === "directory",
    isSymbolicLink: () => stat.type === "symlink",
    mode: TYPE_BITS[stat.type] | stat.mode,
    size: stat.size,
    // The entry's version where the backend has one (see FileStat.ino), as the index stores it.
    ino: stat.ino ?? 0,
    dev: 0,
    uid: 0,
    gid: 0,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.mtimeMs,
  };
}

type Encoding = { encoding?: string } | string | undefined;

function wantsText(options: Encoding): boolean {
  const encoding = typeof options === "string" ? options : options?.encoding;
  return encoding === "utf8" || encoding === "utf-8";
}

/** isomorphic-git does Buffer arithmetic on what it reads; a Buffer view shares the bytes. */
function asBuffer(bytes: Uint8Array): Uint8Array {
  const NodeBuffer = (
    globalThis as { Buffer?: { from(buffer: ArrayBufferLike, offset: number, length: number): Uint8Array } }
  ).Buffer;
  return NodeBuffer ? NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes;
}

/**
 * isomorphic-git's promise fs API over the Sandbox interface, so git works on whichever backend
 * holds the workspace. Sandbox errors already carry `.code` (ENOENT, EEXIST...), which is what
 * isomorphic-git branches on.
 */
export function gitFs(sandbox: Sandbox) {
  const decoder = new TextDecoder();
  return {
    promises: {
      async readFile(path: string, options?: Encoding): Promise<Uint8Array | string> {
        const bytes = await sandbox.readFile(path);
        return wantsText(options) ? decoder.decode(bytes) : asBuffer(bytes);
      },
      async writeFile(path: string, data: Uint8Array | string, _options?: Encoding): Promise<void> {
        await sandbox.writeFile(path, data);
      },
      async mkdir(path: string): Promise<void> {
        await sandbox.mkdir(path);
      },
      async rmdir(path: string): Promise<void> {
        await sandbox.rm(path);
      },
      async unlink(path: string): Promise<void> {
        const stat = await sandbox.lstat(path);
        if (stat.type === "directory") throw Object.assign(new Error(`EISDIR: ${path}`), { code: "EISDIR" });
        await sandbox.rm(path);
      },
      async stat(path: string): Promise<GitStats> {
        return toGitStats(await sandbox.stat(path));
      },
      async lstat(path: string): Promise<GitStats> {
        return toGitStats(await sandbox.lstat(path));
      },
      async readdir(path: string): Promise<string[]> {
        return (await sandbox.readdir(path)).map((entry) => entry.name);
      },
      async readlink(path: string): Promise<string> {
        return sandbox.readlink(path);
      },
      async symlink(target: string, path: string): Promise<void> {
        await sandbox.symlink(target, path);
      },
      async chmod(): Promise<void> {
        // Modes follow the content written; the sandbox has no separate chmod.
      },
    },
  };
}

export type GitFs = ReturnType<typeof gitFs>;
