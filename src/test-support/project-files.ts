import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

const REPO = join(import.meta.dirname, "..", "..");

/** A folder of the repository (a fixture project) as path → text, for loading into a workspace. */
export function projectFiles(folder: string): Record<string, string> {
  const root = join(REPO, folder);
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path).split(sep).join("/")] = readFileSync(path, "utf8");
    }
  };
  walk(root);
  return files;
}
