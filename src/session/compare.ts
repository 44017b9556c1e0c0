import { structuredPatch } from "diff";

/**
 * Fields that differ between two faithful runs of the same call: clocks, durations, ids of the
 * run itself. Replay ignores them wherever they appear in an envelope.
 */
export const VOLATILE_KEYS: readonly string[] = [
  "started_at",
  "ended_at",
  "duration_sec",
  "duration_ms",
  "elapsed_ms",
  "elapsed_sec",
  "timestamp",
  "ts",
  "created_at",
  "updated_at",
  "mtime",
  "mtimeMs",
  "modified",
  "modified_at",
  "session",
  "session_id",
  "sessionId",
];

/** One place where a replayed envelope differs from the recorded one. */
export interface Divergence {
  /** Where, as a path into the envelope: `data.stdout`, `data.files[2]`, `status`. */
  path: string;
  expected: unknown;
  actual: unknown;
  /** Recorded and replayed present-ness: a field one side has and the other lacks. */
  missing?: "expected" | "actual";
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/u.test(key)
    ? path
      ? `${path}.${key}`
      : key
    : `${path}[${JSON.stringify(key)}]`;
}

/** Every difference between two JSON values, skipping `ignore`d keys at any depth. */
export function compareValues(
  expected: unknown,
  actual: unknown,
  ignore: readonly string[] = VOLATILE_KEYS,
  path = "",
): Divergence[] {
  if (Object.is(expected, actual)) return [];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const out: Divergence[] = [];
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      const at = join(path, i);
      if (i >= expected.length)
        out.push({ path: at, expected: undefined, actual: actual[i], missing: "expected" });
      else if (i >= actual.length)
        out.push({ path: at, expected: expected[i], actual: undefined, missing: "actual" });
      else out.push(...compareValues(expected[i], actual[i], ignore, at));
    }
    return out;
  }
  if (isPlainObject(expected) && isPlainObject(actual)) {
    const out: Divergence[] = [];
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of keys) {
      if (ignore.includes(key)) continue;
      const at = join(path, key);
      if (!(key in actual))
        out.push({ path: at, expected: expected[key], actual: undefined, missing: "actual" });
      else if (!(key in expected))
        out.push({ path: at, expected: undefined, actual: actual[key], missing: "expected" });
      else out.push(...compareValues(expected[key], actual[key], ignore, at));
    }
    return out;
  }
  return [{ path: path || "(the whole value)", expected, actual }];
}

function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * One divergence for a person: short values side by side, multi-line text as a line diff
 * (- recorded, + replayed).
 */
export function formatDivergence(divergence: Divergence): string {
  const { path, expected, actual } = divergence;
  if (divergence.missing === "actual") return `${path}: recorded ${show(expected)}, absent in the replay`;
  if (divergence.missing === "expected")
    return `${path}: absent in the recording, replay has ${show(actual)}`;
  if (
    typeof expected === "string" &&
    typeof actual === "string" &&
    (expected.includes("\n") || actual.includes("\n"))
  ) {
    const patch = structuredPatch("recorded", "replayed", expected, actual, "", "", { context: 1 });
    const lines = patch.hunks.flatMap((hunk) => [
      `  @@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      ...hunk.lines.map((line) => `  ${line}`),
    ]);
    return `${path}: text differs (- recorded, + replayed)\n${lines.join("\n")}`;
  }
  return `${path}: recorded ${show(expected)}, replay got ${show(actual)}`;
}
