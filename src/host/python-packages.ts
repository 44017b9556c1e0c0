import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { PackageFile } from "../sandbox/embedded/python/index.ts";

/** Compiled extensions cannot load into CPython-on-WebAssembly; bytecode is recompiled for 3.13. */
const SKIPPED_FILE = /\.(?:so|pyd|dll|dylib|pyc|pyo)$/u;

/**
 * Reads a folder of installed Python packages (a site-packages or dist-packages folder, or one
 * `pip install --target` made) for the embedded Python's site-packages: its pure-Python files and
 * metadata. `only` keeps just the named top-level entries (packages, modules, .dist-info folders).
 */
export async function readPackageFolder(folder: string, only?: string[]): Promise<PackageFile[]> {
  const files: PackageFile[] = [];
  const walk = async (absolute: string, relative: string): Promise<void> => {
    const entries = await readdir(absolute, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (relative === "" && only && !only.includes(entry.name)) continue;
      const full = join(absolute, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "__pycache__") await walk(full, path);
      } else if (entry.isFile() && !SKIPPED_FILE.test(entry.name)) {
        files.push({ path, data: new Uint8Array(await readFile(full)) });
      }
    }
  };
  await walk(folder, "");
  return files;
}
