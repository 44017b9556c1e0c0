// Whether bin/toolroom may run the prebuilt CLI (dist-cli/): only when it was built from exactly the
// sources there are now, so an edit, a checkout or a pull can never run older code than src.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const OUT_DIR = "dist-cli";
export const MANIFEST = `${OUT_DIR}/sources.json`;

/** One hash over the named files' paths and contents (paths relative to `root`, with /). */
export function sourcesHash(root, files) {
  const hash = createHash("sha256");
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update("\0");
  return hash.digest("hex");
}

/** The bundle's entry URL when it matches the sources under `root`; null when absent or stale. */
export function bundleIfFresh(root) {
  try {
    const manifest = JSON.parse(readFileSync(join(root, MANIFEST), "utf8"));
    if (!Array.isArray(manifest.files) || sourcesHash(root, manifest.files) !== manifest.hash) return null;
    return pathToFileURL(join(root, OUT_DIR, "cli-main.mjs")).href;
  } catch {
    // No bundle, or a source it was built from is gone: run from source.
    return null;
  }
}
