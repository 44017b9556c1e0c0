import type { FetchLike } from "../core/profile.ts";
import {
  canonicalName,
  type InstalledFiles,
  type InstalledPackage,
  type InstallProgress,
  installFromIndex,
} from "../sandbox/embedded/python/pypi.ts";
import { pythonRunner } from "../sandbox/embedded/python/registry.ts";
import type { WorkspaceStore } from "./store.ts";

/** The setting that keeps the embedded Python's installed packages, for every workspace. */
const PACKAGES_KEY = "python-packages";

type KeptPackage = InstalledFiles;

export interface PythonPackagesApi {
  /** What is installed in the embedded Python's site-packages (kept in IndexedDB). */
  list(): Promise<InstalledPackage[]>;
  /** Installs `names` and their dependencies from a package index (PyPI by default), online, once. */
  install(
    names: string[],
    onProgress?: (progress: InstallProgress) => void,
    index?: string,
  ): Promise<InstalledPackage[]>;
  /** Removes every installed package. */
  clear(): Promise<void>;
}

const filesOf = (kept: KeptPackage[]) => kept.flatMap((item) => item.files);

/**
 * The embedded Python's packages as the app keeps them: installed from PyPI once, stored in
 * IndexedDB, handed to the Python runner on its first run (never read at boot).
 */
export function pythonPackagesApi(
  openStore: () => Promise<WorkspaceStore>,
  fetch: FetchLike,
): PythonPackagesApi {
  const kept = async () => (await (await openStore()).getSetting<KeptPackage[]>(PACKAGES_KEY)) ?? [];
  pythonRunner()?.setPackagesLoader(async () => filesOf(await kept()));
  const save = async (next: KeptPackage[]) => {
    await (await openStore()).setSetting(PACKAGES_KEY, next);
    pythonRunner()?.setPackages(filesOf(next));
  };
  return {
    async list() {
      return (await kept()).map(({ name, version }) => ({ name, version }));
    },
    async install(names, onProgress, index) {
      const installed = await installFromIndex(names, {
        fetch,
        ...(index ? { index } : {}),
        ...(onProgress ? { onProgress } : {}),
      });
      const fresh = new Set(installed.map((item) => canonicalName(item.name)));
      const next = [...(await kept()).filter((item) => !fresh.has(canonicalName(item.name))), ...installed];
      await save(next);
      return next.map(({ name, version }) => ({ name, version }));
    },
    async clear() {
      await save([]);
    },
  };
}
