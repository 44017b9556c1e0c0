/**
 * git's rename score (diffcore-delta.c and diffcore-rename.c): both files are cut into chunks
 * (a line, or 64 bytes), each chunk hashed; the bytes of the source's chunks found again in the
 * destination, over the larger size, scaled to MAX_SCORE. Same numbers as git, so the same pairs
 * count as renames and `similarity index` prints the same percentage.
 */
export const MAX_SCORE = 60_000;
/** git's default rename threshold, 50%. */
export const MINIMUM_SCORE = 30_000;
const HASHBASE = 107_927;
/** git's default diff.renameLimit. */
const RENAME_LIMIT = 1000;

function chunkHashes(bytes: Uint8Array): Map<number, number> {
  const counts = new Map<number, number>();
  const text = !bytes.subarray(0, 8000).includes(0);
  let accum1 = 0;
  let accum2 = 0;
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (text && c === 0x0d && i + 1 < bytes.length && bytes[i + 1] === 0x0a) continue;
    const old1 = accum1;
    accum1 = ((accum1 << 7) ^ (accum2 >>> 25)) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    accum1 = (accum1 + c) >>> 0;
    if (++n < 64 && c !== 0x0a) continue;
    const hash = ((accum1 + Math.imul(accum2, 0x61)) >>> 0) % HASHBASE;
    counts.set(hash, (counts.get(hash) ?? 0) + n);
    n = 0;
    accum1 = 0;
    accum2 = 0;
  }
  return counts;
}

/** The score git gives `destination` as a rename of `source` (0 when too different in size). */
export function similarityScore(
  source: Uint8Array,
  destination: Uint8Array,
  minimum = MINIMUM_SCORE,
  hashes: (bytes: Uint8Array) => Map<number, number> = chunkHashes,
): number {
  const maxSize = Math.max(source.length, destination.length);
  const baseSize = Math.min(source.length, destination.length);
  if (maxSize * (MAX_SCORE - minimum) < (maxSize - baseSize) * MAX_SCORE) return 0;
  if (destination.length === 0) return 0;
  const src = hashes(source);
  const dst = hashes(destination);
  let copied = 0;
  for (const [hash, srcCount] of src) {
    const dstCount = dst.get(hash);
    if (dstCount !== undefined) copied += Math.min(srcCount, dstCount);
  }
  return Math.floor((copied * MAX_SCORE) / maxSize);
}

/** `similarity index N%` as git prints it. */
export function similarityPercent(score: number): number {
  return Math.floor((score * 100) / MAX_SCORE);
}

export interface RenameCandidate {
  path: string;
  oid: string;
}

/**
 * Pairs deleted with added files the way git does: identical contents first, then the best
 * score at or above the threshold, each source used once.
 */
export async function detectRenames(
  deleted: RenameCandidate[],
  added: RenameCandidate[],
  read: (oid: string) => Promise<Uint8Array>,
): Promise<{ from: string; to: string; score: number }[]> {
  const pairs: { from: string; to: string; score: number }[] = [];
  const usedSources = new Set<string>();
  const usedTargets = new Set<string>();
  for (const target of added) {
    const source = deleted.find(
      (candidate) => candidate.oid === target.oid && !usedSources.has(candidate.path),
    );
    if (!source) continue;
    pairs.push({ from: source.path, to: target.path, score: MAX_SCORE });
    usedSources.add(source.path);
    usedTargets.add(target.path);
  }
  const scored: { from: string; to: string; score: number }[] = [];
  const sources = deleted.filter((candidate) => !usedSources.has(candidate.path));
  const targets = added.filter((candidate) => !usedTargets.has(candidate.path));
  if (sources.length === 0 || targets.length === 0) return pairs;
  const contents = new Map<string, Uint8Array>();
  const content = async (oid: string) => {
    let bytes = contents.get(oid);
    if (!bytes) {
      bytes = await read(oid);
      contents.set(oid, bytes);
    }
    return bytes;
  };
  // git's diff.renameLimit: past 1,000 × 1,000 candidate pairs only exact renames are looked for.
  if (sources.length * targets.length > RENAME_LIMIT * RENAME_LIMIT) return pairs;
  const hashed = new WeakMap<Uint8Array, Map<number, number>>();
  const hashes = (bytes: Uint8Array) => {
    let counts = hashed.get(bytes);
    if (!counts) {
      counts = chunkHashes(bytes);
      hashed.set(bytes, counts);
    }
    return counts;
  };
  for (const target of targets) {
    for (const source of sources) {
      const score = similarityScore(
        await content(source.oid),
        await content(target.oid),
        MINIMUM_SCORE,
        hashes,
      );
      if (score >= MINIMUM_SCORE) scored.push({ from: source.path, to: target.path, score });
    }
  }
  scored.sort((a, b) => b.score - a.score || (a.to < b.to ? -1 : 1));
  for (const pair of scored) {
    if (usedSources.has(pair.from) || usedTargets.has(pair.to)) continue;
    pairs.push(pair);
    usedSources.add(pair.from);
    usedTargets.add(pair.to);
  }
  return pairs;
}
