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

/**
 * Volatile numbers inside text output: what a test runner prints about time (node --test's TAP
 * `duration_ms: 0.16`, `# duration_ms 256.0`; unittest's `Ran 2 tests in 0.004s`; pytest's
 * `1 failed, 1 passed in 0.65s`). Replay masks them on both sides before comparing.
 */
export const VOLATILE_TEXT: readonly RegExp[] = [
  /(duration_ms:? )\d+(?:\.\d+)?/gu,
  /(Ran \d+ tests? in )\d+\.\d+s/gu,
  /((?:passed|failed|skipped|warnings?|errors?|deselected|xfailed|xpassed) in )\d+\.\d+s/gu,
];

export interface CompareOptions {
  /** Keys skipped wherever they appear; VOLATILE_KEYS by default. */
  ignoreKeys?: readonly string[];
  /** Patterns whose matches are masked in strings on both sides; VOLATILE_TEXT by default. */
  volatileText?: readonly RegExp[];
}

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

/** Every difference between two JSON values, skipping volatile keys and masking volatile text. */
export function compareValues(
  expected: unknown,
  actual: unknown,
  options: CompareOptions = {},
  path = "",
): Divergence[] {
  const ignore = options.ignoreKeys ?? VOLATILE_KEYS;
  const volatile = options.volatileText ?? VOLATILE_TEXT;
  const walk = (expected: unknown, actual: unknown, path: string): Divergence[] => {
    if (Object.is(expected, actual)) return [];
    if (typeof expected === "string" && typeof actual === "string") {
      return mask(expected, volatile) === mask(actual, volatile)
        ? []
        : [{ path: path || "(the whole value)", expected, actual }];
    }
    if (Array.isArray(expected) && Array.isArray(actual)) {
      const out: Divergence[] = [];
      for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
        const at = join(path, i);
        if (i >= expected.length)
          out.push({ path: at, expected: undefined, actual: actual[i], missing: "expected" });
        else if (i >= actual.length)
          out.push({ path: at, expected: expected[i], actual: undefined, missing: "actual" });
        else out.push(...walk(expected[i], actual[i], at));
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
        else out.push(...walk(expected[key], actual[key], at));
      }
      return out;
    }
    return [{ path: path || "(the whole value)", expected, actual }];
  };
  return walk(expected, actual, path);
}

function mask(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const pattern of patterns) out = out.replace(new RegExp(pattern.source, pattern.flags), "$1…");
  return out;
}

function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * One divergence for a person: short values side by side, multi-line text as a line diff
 * (- recorded, + replayed) of the text with its volatile numbers masked, so only what matters shows.
 */
export function formatDivergence(
  divergence: Divergence,
  volatileText: readonly RegExp[] = VOLATILE_TEXT,
): string {
  const { path, expected, actual } = divergence;
  if (divergence.missing === "actual") return `${path}: recorded ${show(expected)}, absent in the replay`;
  if (divergence.missing === "expected")
    return `${path}: absent in the recording, replay has ${show(actual)}`;
  if (
    typeof expected === "string" &&
    typeof actual === "string" &&
    (expected.includes("\n") || actual.includes("\n"))
  ) {
    const patch = structuredPatch(
      "recorded",
      "replayed",
      mask(expected, volatileText),
      mask(actual, volatileText),
      "",
      "",
      { context: 1 },
    );
    const lines = patch.hunks.flatMap((hunk) => [
      `  @@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      ...hunk.lines.map((line) => `  ${line}`),
    ]);
    return `${path}: text differs (- recorded, + replayed)\n${lines.join("\n")}`;
  }
  return `${path}: recorded ${show(expected)}, replay got ${show(actual)}`;
}
