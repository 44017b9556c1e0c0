import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const REPO = join(import.meta.dirname, "..", "..");

/**
 * The shared folder beside the repository (../shared: specs and reference suites). Tests read the
 * suites from there at run time and never copy them into the project; TOOLROOM_SHARED overrides it.
 */
export function sharedDir(): string {
  const candidates = [process.env.TOOLROOM_SHARED, resolve(REPO, "..", "shared"), "/work/shared"];
  for (const candidate of candidates) {
    if (candidate && existsSync(join(candidate, "reference-suites"))) return candidate;
  }
  throw new Error(
    `The reference suites were not found beside the repository (${resolve(REPO, "..", "shared")}); set TOOLROOM_SHARED to the folder that holds reference-suites/.`,
  );
}

/** Absolute path of a file or folder under ../shared/reference-suites. */
export function referenceSuitePath(...segments: string[]): string {
  return join(sharedDir(), "reference-suites", ...segments);
}

/** A JSON file of ../shared/reference-suites, parsed. */
export function readReferenceSuite<T = unknown>(...segments: string[]): T {
  return JSON.parse(readFileSync(referenceSuitePath(...segments), "utf8")) as T;
}
