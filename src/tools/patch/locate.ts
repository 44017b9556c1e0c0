/**
 * Context search: where in a file does a hunk's old side sit? Lines are compared on a ladder of
 * levels, strictest first; a level is only tried when the stricter ones found nothing.
 */

/** How strictly two lines were compared when a hunk was found. */
export type MatchLevel = "exact" | "trailing_whitespace" | "whitespace" | "unicode";

export const MATCH_LEVELS: readonly MatchLevel[] = ["exact", "trailing_whitespace", "whitespace", "unicode"];

/** Typographic characters models put where the file has ASCII, and what they stand for. */
const UNICODE_LOOKALIKES: readonly [RegExp, string][] = [
  [/[\u2010-\u2015\u2212\u2043\ufe58\ufe63\uff0d]/gu, "-"],
  [/[\u2018\u2019\u201a\u201b\u2032\u2035]/gu, "'"],
  [/[\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb]/gu, '"'],
  [/[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/gu, " "],
  [/[\u200b-\u200d\u2060\ufeff]/gu, ""],
  [/\u2026/gu, "..."],
];

/** Replaces common Unicode punctuation and odd spaces by their ASCII forms (NFC first). */
export function normalizeUnicode(line: string): string {
  let out = line.normalize("NFC");
  // Most lines are plain ASCII: skip the replacements for them.
  if (!/[^\u0000-\u007f]/u.test(out)) return out;
  for (const [pattern, replacement] of UNICODE_LOOKALIKES) out = out.replace(pattern, replacement);
  return out;
}

/** A line as compared at `level`. */
export function normalizeLine(line: string, level: MatchLevel): string {
  switch (level) {
    case "exact":
      return line;
    case "trailing_whitespace":
      return line.trimEnd();
    case "whitespace":
      return line.trim();
    case "unicode":
      return normalizeUnicode(line).trim();
  }
}

/** A file's lines with their normalized forms, computed once per level and only when asked for. */
export class LineIndex {
  readonly lines: readonly string[];
  private readonly forms = new Map<MatchLevel, readonly string[]>();
  private readonly positions = new Map<MatchLevel, Map<string, number[]>>();
  private scans = 0;
  private loose: Map<string, number[]> | undefined;
  private collapsed: readonly string[] | undefined;

  constructor(lines: readonly string[]) {
    this.lines = lines;
    this.forms.set("exact", lines);
  }

  get length(): number {
    return this.lines.length;
  }

  at(level: MatchLevel): readonly string[] {
    let form = this.forms.get(level);
    if (!form) {
      form = this.lines.map((line) => normalizeLine(line, level));
      this.forms.set(level, form);
    }
    return form;
  }

  /**
   * Where the normalized `line` occurs (0-based, ascending), or undefined while scanning is cheaper:
   * the map is built on the 4th search of a level, so one-hunk patches never pay for it.
   */
  occurrences(level: MatchLevel, line: string): readonly number[] | undefined {
    let map = this.positions.get(level);
    if (!map) {
      if (++this.scans <= 3) return undefined;
      map = new Map();
      const form = this.at(level);
      for (let i = 0; i < form.length; i++) {
        const list = map.get(form[i]!);
        if (list) list.push(i);
        else map.set(form[i]!, [i]);
      }
      this.positions.set(level, map);
    }
    return map.get(line) ?? [];
  }

  /** The lines normalized as loosely as the closest-lines search compares them. */
  looseForm(): readonly string[] {
    this.collapsed ??= this.at("unicode").map(collapseSpaces);
    return this.collapsed;
  }

  /** Line numbers (0-based) of each loosely normalized line, for the closest-lines search. */
  looseOccurrences(): Map<string, number[]> {
    if (!this.loose) {
      this.loose = new Map();
      const form = this.looseForm();
      for (let i = 0; i < form.length; i++) {
        const list = this.loose.get(form[i]!);
        if (list) list.push(i);
        else this.loose.set(form[i]!, [i]);
      }
    }
    return this.loose;
  }
}

/** What to look for and where. */
export interface LocateQuery {
  /** The hunk's old side (context and removed lines), as written in the patch. */
  sought: readonly string[];
  /** 0-based line where the `@@` header puts it (after earlier hunks' offset): searched nearest first. */
  expected?: number;
  /** Envelope `@@ text` anchors, outermost first: the context is sought after them, and only there. */
  anchors: readonly string[];
  /** Where the previous hunk of the file ended: header-less hunks are sought from here on first. */
  cursor: number;
  /** The old side must end at the end of the file. */
  atEndOfFile: boolean;
  /** Whether the hunk may sit at a position, given the hunks already placed (default: anywhere). */
  free?: (position: number) => boolean;
}

export type Located =
  | { found: true; position: number; level: MatchLevel }
  | { found: false; reason: string; candidates: number[] };

/** Finds where `query.sought` sits in the file, or says why it cannot be placed. */
export function locate(index: LineIndex, query: LocateQuery): Located {
  const n = index.length;
  const m = query.sought.length;
  if (m === 0) return locateInsertion(index, query);
  if (query.atEndOfFile) {
    const position = n - m;
    if (position >= 0 && isFree(query, position)) {
      for (const level of MATCH_LEVELS) {
        if (matchesAt(index, normalizePattern(query.sought, level), position, level)) {
          return { found: true, position, level };
        }
      }
    }
    return { found: false, reason: "the lines were not found at the end of the file", candidates: [] };
  }
  if (query.expected !== undefined) return locateNearest(index, query);
  // The @@ anchors say where the change is (Codex seeks them first): lines found only elsewhere fail.
  if (query.anchors.length > 0) return locateAfterAnchors(index, query);
  return locateUnique(index, query);
}

/** A hunk with no old lines: it goes where its header, its anchors or the end of the file say. */
function locateInsertion(index: LineIndex, query: LocateQuery): Located {
  const n = index.length;
  if (query.atEndOfFile) return { found: true, position: n, level: "exact" };
  if (query.expected !== undefined) {
    if (query.expected > n) {
      return {
        found: false,
        reason: `the header inserts after line ${query.expected}, but the file has ${n} lines`,
        candidates: [],
      };
    }
    return { found: true, position: Math.max(0, query.expected), level: "exact" };
  }
  if (query.anchors.length > 0) {
    const first = anchorPositions(index, query.anchors, query.cursor).next();
    if (first.done) return anchorNotFound(query.anchors);
    return { found: true, position: first.value.position + 1, level: first.value.level };
  }
  return { found: true, position: n, level: "exact" };
}

/** Nearest match to the expected line, trying after it before before it at each distance (as GNU patch). */
function locateNearest(index: LineIndex, query: LocateQuery): Located {
  const n = index.length;
  const m = query.sought.length;
  const last = n - m;
  const expected = Math.min(Math.max(0, query.expected ?? 0), Math.max(0, last));
  for (const level of MATCH_LEVELS) {
    const pattern = normalizePattern(query.sought, level);
    for (const position of nearestFirst(index, level, pattern[0]!, expected, last)) {
      if (isFree(query, position) && matchesAt(index, pattern, position, level)) {
        return { found: true, position, level };
      }
    }
  }
  return { found: false, reason: "the lines were not found anywhere in the file", candidates: [] };
}

/**
 * Start positions in [0, last] by distance from `expected`, the later one first at equal distance
 * (as GNU patch tries them); only where the first line occurs, once the occurrence map exists.
 */
function* nearestFirst(
  index: LineIndex,
  level: MatchLevel,
  first: string,
  expected: number,
  last: number,
): Generator<number> {
  // Most hunks sit at or near their header: look there before asking for the occurrence map.
  const near = Math.min(NEAR_LINES, Math.max(expected, last - expected));
  for (let distance = 0; distance <= near; distance++) {
    if (expected + distance <= last) yield expected + distance;
    if (distance > 0 && expected - distance >= 0) yield expected - distance;
  }
  const known = index.occurrences(level, first);
  if (!known) {
    const reach = Math.max(expected, last - expected);
    for (let distance = near + 1; distance <= reach; distance++) {
      if (expected + distance <= last) yield expected + distance;
      if (expected - distance >= 0) yield expected - distance;
    }
    return;
  }
  let after = lowerBound(known, expected + near + 1);
  let before = lowerBound(known, expected - near) - 1;
  while (after < known.length || before >= 0) {
    const up = after < known.length ? known[after]! - expected : Number.POSITIVE_INFINITY;
    const down = before >= 0 ? expected - known[before]! : Number.POSITIVE_INFINITY;
    const position = up <= down ? known[after++]! : known[before--]!;
    if (position <= last) yield position;
  }
}

/** Lines around the expected one searched line by line before the occurrence map is used. */
const NEAR_LINES = 64;

/**
 * Start positions from `from` on, ascending: line by line near `from` (where the context usually
 * is), then only where the first line occurs once the occurrence map exists.
 */
function* forwardFrom(
  index: LineIndex,
  level: MatchLevel,
  first: string,
  from: number,
  last: number,
): Generator<number> {
  const start = Math.max(0, from);
  const near = Math.min(last, start + NEAR_LINES);
  for (let position = start; position <= near; position++) yield position;
  const known = index.occurrences(level, first);
  if (!known) {
    for (let position = near + 1; position <= last; position++) yield position;
    return;
  }
  for (let k = lowerBound(known, near + 1); k < known.length && known[k]! <= last; k++) yield known[k]!;
}

/** The first index of a sorted array whose value is at least `value`. */
function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Without line numbers or anchors a match must be unique: first among the lines after the previous
 * hunk, then (for hunks given out of order) among the lines before it.
 */
function locateUnique(index: LineIndex, query: LocateQuery): Located {
  const n = index.length;
  for (const level of MATCH_LEVELS) {
    const pattern = normalizePattern(query.sought, level);
    // The second range ends so that its last start is the line before the cursor.
    for (const [from, to] of [
      [query.cursor, n],
      [0, query.cursor + pattern.length - 1],
    ] as const) {
      const hits = findAll(index, pattern, level, from, to).filter((position) => isFree(query, position));
      if (hits.length === 1) return { found: true, position: hits[0]!, level };
      if (hits.length > 1) {
        return {
          found: false,
          reason: `the lines occur ${hits.length} times (at lines ${listLines(hits)}); add context lines or an @@ line naming the enclosing function or class so that only one place matches`,
          candidates: hits,
        };
      }
    }
  }
  return { found: false, reason: "the lines were not found anywhere in the file", candidates: [] };
}

/** With anchors: the first place after an occurrence of the anchors (nested in order) where the lines match. */
function locateAfterAnchors(index: LineIndex, query: LocateQuery): Located {
  const m = query.sought.length;
  let anyAnchor = false;
  for (const anchor of anchorPositions(index, query.anchors, query.cursor)) {
    anyAnchor = true;
    for (const level of MATCH_LEVELS) {
      const pattern = normalizePattern(query.sought, level);
      // The context may begin with the anchor line itself, as models often repeat it.
      for (const position of forwardFrom(index, level, pattern[0]!, anchor.position, index.length - m)) {
        if (isFree(query, position) && matchesAt(index, pattern, position, level)) {
          return { found: true, position, level };
        }
      }
    }
  }
  if (!anyAnchor) return anchorNotFound(query.anchors);
  return {
    found: false,
    reason: `the lines were not found after the @@ line ${JSON.stringify(query.anchors[query.anchors.length - 1])}`,
    candidates: [],
  };
}

function anchorNotFound(anchors: readonly string[]): Located {
  const missing = anchors.map((anchor) => JSON.stringify(anchor)).join(" then ");
  return { found: false, reason: `the @@ line ${missing} was not found in the file`, candidates: [] };
}

/** At most this many anchor occurrences are tried, so nested anchors cannot blow up. */
const MAX_ANCHOR_CANDIDATES = 64;

/**
 * Positions of the last anchor over the ways the anchors occur in order, searched from `from`
 * (then from the top of the file, for hunks given out of order), nearest first and lazily: the
 * common case only looks at the lines up to the first occurrence.
 */
function* anchorPositions(
  index: LineIndex,
  anchors: readonly string[],
  from: number,
): Generator<{ position: number; level: MatchLevel }> {
  let count = 0;
  for (const start of from === 0 ? [0] : [from, 0]) {
    for (const occurrence of anchorChain(index, anchors, start)) {
      yield occurrence;
      if (++count >= MAX_ANCHOR_CANDIDATES) return;
    }
    if (count > 0) return;
  }
}

/** Each anchor is matched on the ladder: a level is tried only when the stricter ones found it nowhere. */
function* anchorChain(
  index: LineIndex,
  anchors: readonly string[],
  from: number,
): Generator<{ position: number; level: MatchLevel }> {
  const [first, ...rest] = anchors;
  if (first === undefined) return;
  for (const level of MATCH_LEVELS) {
    const form = index.at(level);
    const target = normalizeLine(first, level);
    let seen = false;
    for (let i = Math.max(0, from); i < form.length; i++) {
      if (form[i] !== target) continue;
      seen = true;
      if (rest.length === 0) yield { position: i, level };
      else yield* anchorChain(index, rest, i + 1);
    }
    if (seen) return;
  }
}

function normalizePattern(lines: readonly string[], level: MatchLevel): string[] {
  return lines.map((line) => normalizeLine(line, level));
}

function matchesAt(
  index: LineIndex,
  pattern: readonly string[],
  position: number,
  level: MatchLevel,
): boolean {
  const form = index.at(level);
  if (position < 0 || position + pattern.length > form.length) return false;
  for (let j = 0; j < pattern.length; j++) {
    if (form[position + j] !== pattern[j]) return false;
  }
  return true;
}

function findAll(
  index: LineIndex,
  pattern: readonly string[],
  level: MatchLevel,
  from: number,
  to: number,
): number[] {
  const hits: number[] = [];
  const form = index.at(level);
  const first = pattern[0]!;
  const start = Math.max(0, from);
  const last = Math.min(to, form.length) - pattern.length;
  const known = index.occurrences(level, first);
  if (known) {
    for (const position of known) {
      if (position >= start && position <= last && matchesAt(index, pattern, position, level))
        hits.push(position);
    }
    return hits;
  }
  for (let position = start; position <= last; position++) {
    if (form[position] === first && matchesAt(index, pattern, position, level)) hits.push(position);
  }
  return hits;
}

function isFree(query: LocateQuery, position: number): boolean {
  return query.free === undefined || query.free(position);
}

function listLines(positions: readonly number[]): string {
  const shown = positions.slice(0, 8).map((p) => String(p + 1));
  return positions.length > 8 ? `${shown.join(", ")}, …` : shown.join(", ");
}

// ---- Closest lines, for the message of a hunk that does not apply ----

function collapseSpaces(line: string): string {
  return line.replace(/\s+/gu, " ");
}

/** Similarity of two lines in [0, 1]: Dice coefficient of their character bigrams. */
export function lineSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  return bigramsOf(a).similarity(b);
}

/** A line's character bigrams, kept to compare many other lines against it. */
class Bigrams {
  private readonly counts = new Map<number, number>();
  private readonly size: number;
  private readonly used = new Map<number, number>();

  constructor(readonly text: string) {
    for (let i = 0; i < text.length - 1; i++) {
      const gram = text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1);
      this.counts.set(gram, (this.counts.get(gram) ?? 0) + 1);
    }
    this.size = Math.max(0, text.length - 1);
  }

  similarity(other: string): number {
    if (other === this.text) return 1;
    const otherSize = other.length - 1;
    if (otherSize < 1 || this.size < 1) return 0;
    // Dice can be at most this; most lines of a file fall short of the threshold on length alone.
    if ((2 * Math.min(otherSize, this.size)) / (otherSize + this.size) < SIMILARITY_FLOOR) return 0;
    this.used.clear();
    let shared = 0;
    for (let i = 0; i < otherSize; i++) {
      const gram = other.charCodeAt(i) * 65536 + other.charCodeAt(i + 1);
      const available = (this.counts.get(gram) ?? 0) - (this.used.get(gram) ?? 0);
      if (available > 0) {
        shared++;
        this.used.set(gram, (this.used.get(gram) ?? 0) + 1);
      }
    }
    return (2 * shared) / (this.size + otherSize);
  }
}

function bigramsOf(text: string): Bigrams {
  return new Bigrams(text);
}

/** Below this a line is not "similar" to another at all. */
const SIMILARITY_FLOOR = 0.4;

/** Candidates scoring at least this share of the best are "about as alike"; the nearest of them wins. */
const NEAR_BEST = 0.9;

/** How many candidate places get the (slower) line-by-line similarity score. */
const CLOSEST_SHORTLIST = 24;

/**
 * The place in the file that looks most like `sought`: candidates are voted for by lines that are
 * equal once whitespace and Unicode punctuation are normalized, or (when none are) by lines similar
 * to the first non-blank sought line (unless `similar` is false: that pass reads the whole file);
 * the best few are scored line by line. Ties go to the place nearest `around`. Null when nothing
 * comes close.
 */
export function closestLines(
  index: LineIndex,
  sought: readonly string[],
  around: number,
  similar = true,
): { line: number; lines: string[] } | null {
  const n = index.length;
  const m = sought.length;
  if (n === 0 || m === 0) return null;
  const loose = sought.map((line) => collapseSpaces(normalizeLine(line, "unicode")));
  const votes = new Map<number, number>();
  const occurrences = index.looseOccurrences();
  for (let j = 0; j < m; j++) {
    if (loose[j] === "") continue;
    for (const i of occurrences.get(loose[j]!) ?? []) {
      const start = clampStart(i - j, n, m);
      votes.set(start, (votes.get(start) ?? 0) + 1);
    }
  }
  const form = index.looseForm();
  if (votes.size === 0 && similar) {
    const j = loose.findIndex((line) => line.length >= 2);
    if (j === -1) return null;
    const target = bigramsOf(loose[j]!);
    for (let i = 0; i < n; i++) {
      const similarity = target.similarity(form[i]!);
      if (similarity >= SIMILARITY_FLOOR) votes.set(clampStart(i - j, n, m), similarity);
    }
  }
  const shortlist = [...votes.entries()]
    .sort((a, b) => b[1] - a[1] || Math.abs(a[0] - around) - Math.abs(b[0] - around))
    .slice(0, CLOSEST_SHORTLIST);
  const grams = loose.map(bigramsOf);
  const scored = shortlist.map(([start]) => {
    let score = 0;
    for (let j = 0; j < m && start + j < n; j++) score += grams[j]!.similarity(form[start + j]!);
    return { start, score };
  });
  const top = Math.max(0, ...scored.map((candidate) => candidate.score));
  // Among places that look about as alike, the one nearest where the hunk was expected wins.
  let best: { start: number; score: number } | null = null;
  for (const candidate of scored) {
    if (candidate.score < top * NEAR_BEST) continue;
    if (!best || Math.abs(candidate.start - around) < Math.abs(best.start - around)) best = candidate;
  }
  if (!best || best.score < SIMILARITY_FLOOR) return null;
  return { line: best.start + 1, lines: index.lines.slice(best.start, best.start + m) };
}

function clampStart(start: number, n: number, m: number): number {
  return Math.max(0, Math.min(start, Math.max(0, n - m)));
}
