// Whether bin/toolroom may run the prebuilt CLI (dist-cli/): only when it was built from exactly the
// sources there are now, so an edit, a checkout or a pull can never run older code than src.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
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

/**
 * Each file's size, modification and change times and inode, read without opening the file: any
 * write changes the change time, which no tool can set back (cp -p and tar restore only mtime).
 */
export function sourceStamps(root, files) {
  return files.map((file) => {
    const stat = statSync(join(root, file), { bigint: true });
    return `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}`;
  });
}

/**
 * How the bundle is known to match the sources under `root`: "stamps" when no file's stamp
 * changed since the build (a few ms), "hash" when some did but the contents are
 * the same (a touch, a checkout back); null when there is no bundle or it is stale.
 */
export function freshness(root) {
  try {
    const manifest = JSON.parse(readFileSync(join(root, MANIFEST), "utf8"));
    if (!Array.isArray(manifest.files) || typeof manifest.hash !== "string") return null;
    const stamps = sourceStamps(root, manifest.files);
    if (Array.isArray(manifest.stamps) && stamps.every((stamp, i) => stamp === manifest.stamps[i]))
      return "stamps";
    return sourcesHash(root, manifest.files) === manifest.hash ? "hash" : null;
  } catch {
    // No bundle, or a source it was built from is gone: run from source.
    return null;
  }
}

/** The bundle's entry URL when it matches the sources under `root`; null when absent or stale. */
export function bundleIfFresh(root) {
  return freshness(root) ? pathToFileURL(join(root, OUT_DIR, "cli-main.mjs")).href : null;
}
