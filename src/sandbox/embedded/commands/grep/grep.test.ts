import { describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../../../host/create-runtime.ts";
import {
  type DifferentialCase,
  peerSuiteFailures,
  realProgram,
  runDifferential,
} from "../../../../test-support/peer-suites.ts";
import { grepLines, runGrep } from "./grep.ts";

const REAL = realProgram("grep");

describe("grep: the peer suite (BusyBox + GNU bre/spencer1 tests) through the sandboxed grep tool", () => {
  it("matches GNU grep 3.8 on at least 200 of the 211 runnable cases", async () => {
    const { failures, cases, summary } = await peerSuiteFailures(await createEmbeddedRuntime(), "grep");
    // The differences that remain on purpose are listed in README ("grep, sed and awk").
    expect(failures, summary).toEqual([]);
    expect(cases).toBe(211);
  });
});

/** Cases of our own, from GNU grep's manual, run through our grep and the real one. */
const FILE = "alpha beta\nBeta gamma\nfoo_bar baz\n  indented\nfoo\nfoobar\nx+y=z\n123 456\n\nlast line";
const MANUAL: DifferentialCase[] = [
  ["beta", "f"],
  ["-i", "beta", "f"],
  ["-v", "a", "f"],
  ["-c", "foo", "f"],
  ["-n", "foo", "f"],
  ["-w", "foo", "f"],
  ["-x", "foo", "f"],
  ["-o", "[a-z]*a", "f"],
  ["-ob", "o\\+", "f"],
  ["-E", "fo{2}(bar)?$", "f"],
  ["-F", "x+y", "f"],
  ["x+y", "f"],
  ["x\\+y", "f"],
  ["-E", "x\\+y", "f"],
  ["\\<b", "f"],
  ["a\\>", "f"],
  ["\\bfoo\\b", "f"],
  ["[[:digit:]]\\{3\\}", "f"],
  ["[[:upper:]]", "f"],
  ["[[:space:]]in", "f"],
  ["^$", "f"],
  ["-c", "^$", "f"],
  ["-n", "-e", "foo", "-e", "gamma", "f"],
  ["-E", "alpha|gamma", "f"],
  ["alpha\\|gamma", "f"],
  ["\\(o\\)\\1", "f"],
  ["-E", "(o)\\1b", "f"],
  ["-m", "1", "foo", "f"],
  ["-A", "1", "gamma", "f"],
  ["-B", "2", "^foo$", "f"],
  ["-C", "1", "indented", "f"],
  ["-n", "-C", "1", "-e", "alpha", "-e", "last", "f"],
  ["-l", "foo", "f", "g"],
  ["-L", "foo", "f", "g"],
  ["-H", "foo", "f"],
  ["-h", "foo", "f", "g"],
  ["foo", "f", "g"],
  ["-c", "foo", "f", "g"],
  ["-q", "foo", "f"],
  ["-q", "nomatch", "f"],
  ["nomatch", "f"],
  ["foo", "missing"],
  ["-s", "foo", "missing"],
  ["a\\{1,2", "f"],
  ["[z-a]", "f"],
  ["-E", "a{1", "f"],
  ["-E", "(", "f"],
  ["-E", ")", "f"],
  ["-x", "-E", "foo|foobar", "f"],
  ["-ow", "foo\\|foobar", "f"],
  ["-o", "-i", "BETA", "f"],
  ["-e", "", "g"],
  ["-r", "foo", "."],
  ["-rn", "--include=*.txt", "foo", "."],
  ["-c", "\\w\\+", "f"],
  ["-o", "\\W\\+", "f"],
  ["-o", "\\S\\+", "g"],
  ["\\s\\+", "f"],
].map((args) => ({
  args,
  files: { f: FILE, g: "one foo\ntwo\n", "sub/h.txt": "foo here\n", "sub/i.md": "foo there\n" },
}));

describe.skipIf(!REAL)("grep: differential cases from GNU grep's manual, ours vs the real grep", () => {
  for (const entry of [
    ...MANUAL,
    { args: ["-c", "x"], stdin: "x\nxx\ny\n" },
    { args: ["-n", "b"], stdin: "a\nb" },
    { args: ["é"], stdin: "café\ncafe\n" },
    { args: ["-o", "."], stdin: "héé\n" },
    { args: ["-i", "É"], stdin: "CAFÉ\n" },
  ]) {
    it(`grep ${entry.args.join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runGrep, REAL!, entry);
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
      // Messages differ in wording only where GNU prints a warning we do not.
      expect(ours.stderr === "").toBe(real.stderr === "" || /warning/u.test(real.stderr));
    });
  }
});

describe("grepLines (the sandboxed grep tool's matcher)", () => {
  it("numbers the selected lines from 1, last line with or without a newline", () => {
    expect(grepLines("a\nb\nab", "b")).toEqual([
      { line: 2, text: "b" },
      { line: 3, text: "ab" },
    ]);
  });

  it("stops when asked, at the next poll", () => {
    const text = "x\n".repeat(5000);
    expect(() => grepLines(text, "x", {}, () => "interrupt")).toThrow(/interrupted/u);
  });
});
