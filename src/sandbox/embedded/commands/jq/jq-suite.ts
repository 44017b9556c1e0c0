import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readReferenceSuite } from "../../../../test-support/reference-suites.ts";
import { runJq } from "./jq.ts";

/** jq's own tests/jq.test (../shared/reference-suites/peer-suites/jq-cases.json) and how a case is judged. */
export interface JqCase {
  id: string;
  line: number;
  program: string;
  input?: string;
  expected?: string[];
  fail?: boolean;
  thenError?: boolean;
  skip?: string;
  real: { "jq-1.6"?: boolean; "jq-1.7.1"?: boolean };
}

export function jqCases(): JqCase[] {
  return readReferenceSuite<{ cases: JqCase[] }>("peer-suites", "jq-cases.json").cases.filter(
    (entry) => !entry.skip,
  );
}

/** JSON text → a value whose comparison ignores key order, as jq's jv_equal does. */
function canonical(text: string): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, sort((value as Record<string, unknown>)[key])]),
      );
    }
    return value;
  };
  return JSON.stringify(sort(JSON.parse(text)));
}

/**
 * Judged as jq's --run-tests judges: a %%FAIL program must not compile; otherwise the outputs
 * are the expected values in order, and an error is allowed only after all of them (thenError).
 */
export function judgeJqCase(entry: JqCase, outcome: { exitCode: number; stdout: string }): boolean {
  if (entry.fail) return outcome.exitCode === 3;
  if (outcome.exitCode !== 0 && outcome.exitCode !== 5) return false;
  const lines = outcome.stdout.split("\n").filter((line) => line !== "");
  const expected = entry.expected ?? [];
  if (lines.length !== expected.length) return false;
  try {
    return lines.every((line, i) => canonical(line) === canonical(expected[i]!));
  } catch {
    return false;
  }
}

/** One case through our jq (-c, the input on stdin). */
export async function runJqCase(
  entry: JqCase,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const outcome = await runJq({
    args: ["-c", entry.program],
    stdin: new TextEncoder().encode(entry.input ?? "null"),
    files: {},
    cwd: "/",
    env: {},
    // A few cases loop for long in jq 1.7.1 (`"abc" * 1e9`, `del(.[nan])`); they fail there too.
    timeoutMs: 5_000,
  });
  if (!outcome) throw new Error("no jq runner registered");
  const decoder = new TextDecoder();
  return {
    exitCode: outcome.exitCode,
    stdout: decoder.decode(outcome.stdout),
    stderr: decoder.decode(outcome.stderr),
  };
}

/** The machine's own jq (Debian's is 1.6), when installed. */
export function nativeJq(): string | null {
  return existsSync("/usr/bin/jq") ? "/usr/bin/jq" : null;
}

export function runNativeJq(args: string[], stdin: string, cwd?: string) {
  const result = spawnSync(nativeJq() ?? "jq", args, {
    input: stdin,
    encoding: "utf8",
    cwd,
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C.UTF-8", TZ: "UTC" },
    timeout: 10_000,
  });
  return { stdout: result.stdout ?? "", stderr: result.stderr ?? "", exitCode: result.status ?? -1 };
}
