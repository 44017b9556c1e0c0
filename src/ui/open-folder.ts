import { bytesToBase64, type SerializedWorkspace } from "../sandbox/snapshot.ts";

/** Folders an agent never needs and that would swamp an in-browser copy. */
const SKIPPED_FOLDERS = new Set(["node_modules", ".git", ".venv", "__pycache__", "dist", "build", ".next"]);
const MAX_FILES = 20_000;
const MAX_BYTES = 100 * 1024 * 1024;

export interface OpenedFolder {
  name: string;
  files: SerializedWorkspace;
  count: number;
  skipped: string[];
}

interface DirectoryHandle {
  kind: "directory";
  name: string;
  values(): AsyncIterable<DirectoryHandle | FileHandle>;
}
interface FileHandle {
  kind: "file";
  name: string;
  getFile(): Promise<File>;
}

export function canPickFolders(): boolean {
  return typeof (globalThis as { showDirectoryPicker?: unknown }).showDirectoryPicker === "function";
}

class Collector {
  readonly files: SerializedWorkspace = { files: {}, directories: [] };
  readonly skipped: string[] = [];
  count = 0;
  private bytes = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });

  skip(folder: string): boolean {
    if (!SKIPPED_FOLDERS.has(folder.slice(folder.lastIndexOf("/") + 1))) return false;
    this.skipped.push(`${folder}/`);
    return true;
  }

  async add(path: string, file: File): Promise<void> {
    if (this.count >= MAX_FILES || this.bytes + file.size > MAX_BYTES) {
      this.skipped.push(path);
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    this.count++;
    this.bytes += bytes.length;
    try {
      this.files.files[path] = this.decoder.decode(bytes);
    } catch {
      this.files.files[path] = { base64: bytesToBase64(bytes) };
    }
  }
}

/** File System Access API: reads the folder the person picks, directly. */
export async function pickFolder(): Promise<OpenedFolder | null> {
  const picker = (globalThis as unknown as { showDirectoryPicker(): Promise<DirectoryHandle> })
    .showDirectoryPicker;
  let root: DirectoryHandle;
  try {
    root = await picker();
  } catch {
    return null; // The person cancelled.
  }
  const collector = new Collector();
  const walk = async (handle: DirectoryHandle, prefix: string): Promise<void> => {
    for await (const child of handle.values()) {
      const path = prefix === "" ? child.name : `${prefix}/${child.name}`;
      if (child.kind === "directory") {
        if (collector.skip(path)) continue;
        collector.files.directories!.push(path);
        await walk(child, path);
      } else {
        await collector.add(path, await child.getFile());
      }
    }
  };
  await walk(root, "");
  return { name: root.name, files: collector.files, count: collector.count, skipped: collector.skipped };
}

/** The fallback: an <input webkitdirectory> upload, whose files carry their path under the picked folder. */
export async function folderFromUpload(list: FileList): Promise<OpenedFolder | null> {
  const files = [...list];
  if (files.length === 0) return null;
  const collector = new Collector();
  const first = files[0]!.webkitRelativePath || files[0]!.name;
  const name = first.includes("/") ? first.slice(0, first.indexOf("/")) : "Uploaded folder";
  for (const file of files) {
    const full = file.webkitRelativePath || file.name;
    const path = full.includes("/") ? full.slice(full.indexOf("/") + 1) : full;
    const folders = path.split("/").slice(0, -1);
    let skipped = false;
    for (let i = 1; i <= folders.length; i++) {
      const folder = folders.slice(0, i).join("/");
      if (SKIPPED_FOLDERS.has(folders[i - 1]!)) {
        if (!collector.skipped.includes(`${folder}/`)) collector.skipped.push(`${folder}/`);
        skipped = true;
        break;
      }
    }
    if (!skipped) await collector.add(path, file);
  }
  return { name, files: collector.files, count: collector.count, skipped: collector.skipped };
}
