import { describe, expect, it } from "vitest";
import { type CommandUnderTest, realProgram, runDifferential } from "../../../../test-support/peer-suites.ts";
import { runAwkCommand } from "../awk/awk.ts";
import { runGrep } from "../grep/grep.ts";
import { runSed } from "../sed/sed.ts";

/**
 * Random EREs (a fixed seed: the same patterns every run) from atoms, groups, alternations and
 * quantifiers, run through our grep, sed and awk on Rust's engine and through GNU grep, GNU sed and
 * gawk: whether lines match, POSIX's leftmost-longest extents (-o, s///g, gsub, match) and groups.
 * REGEX_SEED and REGEX_COUNT draw other patterns (seeds 7, 13, 29 and 41 × 80 patterns all pass).
 */
const GREP = realProgram("grep");
const SED = realProgram("sed");
const GAWK = realProgram("gawk");

// ^ and $ only around the whole pattern. A word anchor in a group repeated by + or an interval is
// refused (glibc's copies of the group lose it): such a pattern is checked to be refused by every
// command, saying why.
const ATOMS = ["a", "b", "c", ".", "[ab]", "[^a]", "[[:alpha:]]", "\\w", "\\W", "x", "\\<", "\\>", "\\b"];

function patterns(seed: number, count: number): string[] {
  let state = seed;
  const pick = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const build = (depth: number): string => {
    const kind = pick(depth > 2 ? 3 : 6);
    if (kind < 2) return ATOMS[pick(ATOMS.length)]!;
    if (kind === 2) return build(depth + 1) + build(depth + 1);
    if (kind === 3) return `(${build(depth + 1)}|${build(depth + 1)})`;
    if (kind === 4) return `(${build(depth + 1)})${["*", "+", "?", "{1,2}", "{2}"][pick(5)]}`;
    return build(depth + 1) + ["*", "+", "?"][pick(3)];
  };
  return Array.from(
    { length: count },
    () => `${pick(4) === 0 ? "^" : ""}${build(0)}${pick(4) === 0 ? "$" : ""}`,
  );
}

// GNU's sed and gawk step an empty match through a multi-byte character byte by byte (printing
// invalid UTF-8), so their text is ASCII; grep's -o never prints an empty match.
const ASCII = "abcab ab aab bca\nxaxb e ebe ab_c\naaaa bbbb abab\n\ncab, bac; x\n";
const UNICODE = "abcab ab aab bca\nxaxb é ébé ab_c\naaaa bbbb abab\n\ncab, bac; x\n";

describe.skipIf(!GREP || !SED || !GAWK)(
  "random EREs on the linear engine, ours vs GNU grep, sed and gawk",
  () => {
    for (const pattern of patterns(
      Number(process.env.REGEX_SEED ?? 7),
      Number(process.env.REGEX_COUNT ?? 30),
    )) {
      it(pattern, async () => {
        const slashed = pattern.replaceAll("/", "\\/");
        const runs: [CommandUnderTest, string, string[], string][] = [
          [runGrep, GREP!, ["-o", "-E", pattern], UNICODE],
          [runGrep, GREP!, ["-c", "-E", pattern], UNICODE],
          [runGrep, GREP!, ["-o", "-i", "-E", pattern], UNICODE],
          [runGrep, GREP!, ["-ow", "-E", pattern], UNICODE],
          [runSed, SED!, ["-E", `s/${slashed}/[&]/g`], ASCII],
          [runSed, SED!, ["-E", `s/(${slashed})/<\\1>/2`], ASCII],
          [runAwkCommand, GAWK!, [`{ n = gsub(/${slashed}/, "[&]"); print n, $0 }`], ASCII],
          [runAwkCommand, GAWK!, [`{ print match($0, /${slashed}/), RSTART, RLENGTH }`], ASCII],
        ];
        for (const [command, real, args, stdin] of runs) {
          const result = await runDifferential(command, real, { args, stdin });
          if (result.ours.stderr.includes("loses the anchor in the group's copies")) {
            expect(result.ours.stdout, args.join(" ")).toBe("");
            expect(result.ours.status, args.join(" ")).not.toBe(0);
            continue;
          }
          expect({ args, stdout: result.ours.stdout, status: result.ours.status }).toEqual({
            args,
            stdout: result.real.stdout,
            status: result.real.status,
          });
        }
      });
    }
  },
);
