/** The counters of Node's TAP summary, in the order Node prints them. */
export const TAP_COUNT_KEYS = ["tests", "suites", "pass", "fail", "cancelled", "skipped", "todo"] as const;

export type TapCounts = Partial<Record<(typeof TAP_COUNT_KEYS)[number], number>>;

/** The summary counts of a TAP stream (`# pass 3` …); keys that are missing stay absent. */
export function tapCounts(tap: string): TapCounts {
  const counts: TapCounts = {};
  for (const key of TAP_COUNT_KEYS) {
    const match = new RegExp(`^# ${key} (\\d+)$`, "mu").exec(tap);
    if (match) counts[key] = Number(match[1]);
  }
  return counts;
}

/** The result lines of a TAP stream (`ok 1 - name`, `    not ok 2 - other # TODO`), nesting kept. */
export function tapResults(tap: string): string[] {
  return tap.split("\n").filter((line) => /^\s*(not )?ok \d+ - /u.test(line));
}
