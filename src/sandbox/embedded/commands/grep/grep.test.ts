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

/** Constructs translated onto Rust's regex syntax (regex/linear.ts), held to the real grep. */
const UNICODE = [
  "Ⓐbc ²½ x_y",
  "cafe\u0301 ok", // e + combining acute: no word character for GNU, one for Rust's \w
  "naïve_1 ٣٤ fin",
  "tab\there\u00a0nbsp\u3000ideo",
  "a&&b a~~b a--b [x] {y} a.b a+b",
  "abcd abd ab a",
  "Straße STRASSE straße",
  "ǅemal ǆ Ǆ",
].join("\n");
const TRANSLATED: DifferentialCase[] = [
  ["-E", "a{2,3}"],
  ["-o", "-E", "[[:alpha:]]+"],
  ["-o", "[[:alnum:]_]\\+"],
  ["-o", "-i", "[[:upper:]]\\+"],
  ["-o", "[[:lower:]]\\+"],
  ["-o", "[[:punct:]]"],
  ["-c", "[[:blank:]]"],
  ["-o", "[[:graph:]]\\+"],
  ["-o", "[[:print:]]\\+"],
  ["-c", "[[:cntrl:]]"],
  ["-o", "[[:xdigit:]]\\+"],
  ["-o", "[^[:alpha:][:space:]]\\+"],
  ["-o", "[[:digit:]]"],
  ["-o", "[[:space:]][a-z]*"],
  ["-o", "\\s[a-z]*"],
  ["-o", "\\S\\+"],
  ["-o", "\\w\\+"],
  ["-o", "\\W\\+"],
  ["-o", "\\<[a-z]"],
  ["-o", "[a-z]\\>"],
  ["-o", "e\\b"],
  ["-o", "\\Bb"],
  ["-w", "cafe"],
  ["-ow", "ok\\|e"],
  ["-x", "-E", "abcd abd ab a|ǅemal.*"],
  ["-F", "a&&b"],
  ["-F", "-o", "[x] {y}"],
  ["-o", "[&~-]\\+"],
  ["-o", "-E", "a|ab|abc|abcd"],
  ["-o", "-E", "(a|ab)(c|bcd)(d*)"],
  ["-o", "-E", "(ab|a)(bd|b)?"],
  ["-o", "-E", "x*"],
  ["-o", "-E", "(|a)b"],
  ["-c", "-E", "a|"],
  ["-o", "\\`[a-z]*"],
  ["-o", "[a-z]*\\'"],
  ["-o", "-i", "strasse\\|straße"],
  ["-i", "-o", "ǆ"],
  ["-o", "-E", "[a-c]{2}d?"],
  ["-o", "-E", "b{0}a"],
  ["-n", "-E", "(a|b)\\1"],
  ["-o", "a\\{2,1000\\}"],
  ["-o", "-E", "(ab|a){2,200}"],
].map((args) => ({ args, stdin: UNICODE }));

/** Patterns that make a backtracking engine run for ever; GNU grep answers at once, and so must ours. */
const long = (text: string, times: number, tail: string) => `${text.repeat(times)}${tail}\n`;
const PATHOLOGICAL: DifferentialCase[] = [
  { args: ["-E", "(a+)+$"], stdin: long("a", 5000, "b") },
  { args: ["-c", "-E", "(a+)+$"], stdin: `${long("a", 3000, "b")}${long("a", 3000, "")}` },
  { args: ["\\(a*\\)*$"], stdin: long("a", 5000, "b") },
  { args: ["-E", "(a|aa)*c"], stdin: long("a", 5000, "") },
  { args: ["-o", "-E", "(a|aa)*c"], stdin: long("a", 5000, "c") },
  { args: ["-E", "(x+x+)+y"], stdin: long("x", 5000, "") },
  { args: ["-o", "-E", "(x+x+)+y"], stdin: long("x", 2000, "y") },
  // GNU's own -w retries shorter matches (seconds on 500 a's): 40 are enough for a backtracker.
  { args: ["-w", "-E", "(a+)+"], stdin: `${long("a", 40, "_")}${long("a", 40, "")}` },
  { args: ["-x", "-E", "([a-z]+)*"], stdin: long("ab", 3000, "!") },
  { args: ["-E", "(\\w+\\s?)+$"], stdin: long("word ", 1000, "!") },
  { args: ["-E", "^(([a-z])+.)+[A-Z]([a-z])+$"], stdin: long("aaaa", 1000, "!") },
];

describe.skipIf(!REAL)("grep: translated constructs and runaway patterns, ours vs the real grep", () => {
  // Word boundaries next to a combining mark (checked by the walk, not Rust) and an astral letter.
  const ASTRAL = "x\u{1d400}y a\u0301b \u{1d400}\u0301 \u{20000}z\n";
  const ASTRAL_CASES: DifferentialCase[] = [
    { args: ["-o", "\\b."], stdin: ASTRAL },
    { args: ["-o", ".\\>"], stdin: ASTRAL },
    { args: ["-ow", "[[:alpha:]]"], stdin: ASTRAL },
  ];
  for (const entry of [...TRANSLATED, ...PATHOLOGICAL, ...ASTRAL_CASES]) {
    it(`grep ${entry.args.join(" ")} (input of ${entry.stdin!.length} characters)`, async () => {
      const { ours, real } = await runDifferential(runGrep, REAL!, entry);
      expect({ stdout: ours.stdout, stderr: ours.stderr, status: ours.status }).toEqual({
        stdout: real.stdout,
        stderr: real.stderr,
        status: real.status,
      });
    });
  }
});

/** Mismatches the seeded fuzz (../regex/regex-fuzz.test.ts) found, each kept as its smallest case. */
const FUZZ_FOUND: DifferentialCase[] = [
  // glibc in C.UTF-8: no collation order past ASCII, a "-" after a class or range is a bad range.
  { args: ["-c", "[à-ü]"], stdin: "é\n" },
  { args: ["-c", "[[.é.]]"], stdin: "é\n" },
  { args: ["-c", "[[=a=]-c]"], stdin: "b\n" },
  { args: ["-c", "[a-b-c]"], stdin: "b\n" },
  { args: ["-c", "-E", "[^[:lower:]-*-]"], stdin: "b\n" },
  // A back-reference to a group of another alternative.
  { args: ["-c", "\\(a\\)\\|\\1"], stdin: "a\n" },
  { args: ["-c", "\\(\\(a\\)\\|\\2\\)"], stdin: "a\n" },
  // BRE: no anchor is quantified; a star or \{ after one is literal, "^^" is an anchor and "^".
  { args: ["-o", "x\\>*"], stdin: "x*\nx\n" },
  { args: ["-o", "^\\+a"], stdin: "+a\na\n" },
  { args: ["-o", "^^a"], stdin: "^a\na\n" },
  { args: ["-o", "\\{1\\}x"], stdin: "{1}x\nx\n" },
  // ERE: a skipped quantifier before ")" is an error; the dfa's reading selects lines.
  { args: ["-o", "-E", "(*)b"], stdin: "b\n" },
  { args: ["-c", "-E", "([*[:punct:]]^?)*\\w{,0}"], stdin: "\n" },
  // "[:digit:]" for "[[:digit:]]" is an error in GNU's dfa, not the set ":digt".
  { args: ["-c", "[:digit:]"], stdin: ":\n" },
  { args: ["-c", "-E", "a|[^:space:]"], stdin: ":\n" },
  { args: ["-c", "[:a]"], stdin: ":\n" },
  // Ignoring case, glibc ranges between the upper-case ends.
  { args: ["-c", "-i", "[Z-a]"], stdin: "b\n" },
  { args: ["-o", "-i", "[a-_]\\+"], stdin: "x^_Ab\n" },
  { args: ["-c", "-i", "-E", "x[]-c]"], stdin: "\n" },
  // glibc's errors come before the dfa's "[:space:]" one.
  { args: ["-c", "\\(a[:space:]"], stdin: ":\n" },
  // Beside what is refused (GNU_AGAINST_POSIX): an anchor in a group under "*" or "?", which glibc
  // does not copy; a back-reference to a group whose repetitions are bounded.
  { args: ["-o", "-E", "((^\\W)?)*aa"], stdin: "x aab\n" },
  { args: ["-o", "-E", "A(_|\\<x)*"], stdin: "bA__x\n" },
  { args: ["-c", "\\(x\\?\\?\\)\\1"], stdin: "\n" },
  { args: ["-o", "\\(\\(x*\\)\\{1,5\\}\\)\\1"], stdin: "xxxx\n" },
];

/**
 * Patterns GNU's matcher (glibc) answers against POSIX, which grep refuses: each with what the real
 * grep prints, so a GNU that changes its answer shows here.
 */
const GNU_AGAINST_POSIX: (DifferentialCase & { gnu: string; refusal: string })[] = [
  // glibc copies a group repeated by + or an interval once per round; the copies lose its anchors.
  { args: ["-o", "-E", "A(_|$.*)+"], stdin: "bA__É\n", gnu: "A__É\n", refusal: "loses the anchor" },
  { args: ["-c", "-E", "A(_|\\<x){1,3}"], stdin: "bA__x\n", gnu: "0\n", refusal: "loses the anchor" },
  { args: ["-o", "-E", "(\\<a)+"], stdin: "aa a\n", gnu: "", refusal: "loses the anchor" },
  { args: ["-o", "\\(^a\\)\\+"], stdin: "aaab-\n", gnu: "", refusal: "loses the anchor" },
  // A back-reference fails where the group's repetition of something empty ended its match.
  { args: ["-c", "\\(x\\?\\+\\)\\1"], stdin: "\n", gnu: "0\n", refusal: "can match empty" },
  { args: ["-o", "\\(a\\(x*\\)*\\)\\1"], stdin: "aa\n", gnu: "", refusal: "can match empty" },
  // Ignoring case, glibc matches nothing with a backslash before a lower-case letter; the dfa (-c) the letter.
  { args: ["-o", "-E", "-i", "A\\a+"], stdin: "aa*b\n", gnu: "", refusal: "backslash before the letter" },
  { args: ["-c", "-E", "-i", "A\\a+"], stdin: "aa*b\n", gnu: "1\n", refusal: "backslash before the letter" },
  // A back-reference to a group in one alternative of a group it is outside of.
  { args: ["-c", "c\\|\\(\\(a\\)\\|b\\)\\2"], stdin: "b\n", gnu: "0\n", refusal: "may take no part" },
];

describe.skipIf(!REAL)("grep: what GNU's matcher answers against POSIX is refused, saying why", () => {
  for (const entry of GNU_AGAINST_POSIX) {
    it(`grep ${entry.args.join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runGrep, REAL!, entry);
      expect(real.stdout).toBe(entry.gnu);
      expect(ours).toMatchObject({ stdout: "", status: 2 });
      expect(ours.stderr).toContain(entry.refusal);
    });
  }
});

describe.skipIf(!REAL)("grep: cases the regex fuzz found, ours vs the real grep", () => {
  for (const entry of FUZZ_FOUND) {
    it(`grep ${entry.args.join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runGrep, REAL!, entry);
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
      // GNU warns of a quantifier at the start of an expression; we do not.
      expect(ours.stderr).toBe(
        /warning/u.test(real.stderr) ? "" : real.stderr.replaceAll(`${REAL}:`, "grep:"),
      );
    });
  }
});

/** Runs our grep on stdin (ASCII here) in a bare command context. */
async function runGrepOn(args: string[], stdin: string, signal?: AbortSignal) {
  const { createCommandContext, InMemoryFs, unsafeBytesFromLatin1 } = await import("just-bash");
  const ctx = createCommandContext({
    fs: new InMemoryFs(),
    cwd: "/",
    stdin: unsafeBytesFromLatin1(stdin),
    ...(signal ? { signal } : {}),
  });
  return runGrep(args, ctx);
}

describe("grep's limits, said rather than guessed", () => {
  it("refuses a pattern past the linear engine's size as GNU's 'Regular expression too big'", async () => {
    const { stdout, stderr, exitCode } = await runGrepOn(["-E", "(a{1,1000}){1,1000}"], "aaa\n");
    expect({ stdout, stderr, exitCode }).toEqual({
      stdout: "",
      stderr: "grep: Regular expression too big\n",
      exitCode: 2,
    });
  });

  it("refuses a pattern GNU grep -E's two matchers read differently (its answers follow one or the other)", async () => {
    const patterns = [
      ["-E", "^*a"],
      ["-E", "a$+"],
      ["-E", "{1}b"],
      ["-E", "x\\B*y"],
      ["-E", "\\'*a"],
      ["-G", ".\\'*"],
      // glibc swallows the ")" after "^*" and closes the group at the next one (regex fuzz seed 5).
      ["-E", "(a^*))"],
    ];
    for (const [dialect, pattern] of patterns) {
      for (const mode of ["-o", "-c"]) {
        const refused = await runGrepOn([dialect!, mode, pattern!], "*a\n");
        expect(refused.exitCode).toBe(2);
        expect(refused.stderr).toContain("two ways");
      }
    }
    // glibc's reading is an error when the skipped quantifier closes a group: GNU's message.
    expect(await runGrepOn(["-E", "-c", "(a^*)"], "a\n")).toMatchObject({
      stderr: "grep: Unmatched ( or \\(\n",
    });
  });

  it("refuses a back-reference to a group that may take no part, where GNU fails and JavaScript matches empty", async () => {
    for (const pattern of ["\\(a\\)*y\\1", "\\(\\(a\\)\\|b\\)\\2"]) {
      const refused = await runGrepOn(["-c", pattern], "yb\n");
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain("may take no part");
    }
    // In its own alternative a group took part: "\(a\)\1\|b" is GNU's.
    expect(await runGrepOn(["-c", "\\(a\\)\\1\\|b"], "aa\nb\nc\n")).toMatchObject({ stdout: "2\n" });
    // Inside a repetition the two agree (GNU's bre.tests: a\(\(b\)*\2\)*d).
    expect(await runGrepOn(["-c", "a\\(\\(b\\)*\\2\\)*d"], "abbbd\nabd\n")).toMatchObject({
      stdout: "1\n",
      exitCode: 0,
    });
  });

  it("stops a back-reference pattern (JavaScript's engine) at the next line after the stop signal", async () => {
    const controller = new AbortController();
    controller.abort();
    // The linear engine asks every 1,000 lines; the backtracking one after each line.
    const { stdout, stderr, exitCode } = await runGrepOn(
      ["\\(a\\)\\1"],
      "aa\n".repeat(20),
      controller.signal,
    );
    expect({ stdout, stderr, exitCode }).toEqual({
      stdout: "",
      stderr: "grep: interrupted\n",
      exitCode: 130,
    });
  });
});

describe("grepLines (the sandboxed grep tool's matcher)", () => {
  it("numbers the selected lines from 1, last line with or without a newline", async () => {
    expect(await grepLines("a\nb\nab", "b")).toEqual([
      { line: 2, text: "b" },
      { line: 3, text: "ab" },
    ]);
  });

  it("stops when asked, at the next poll", async () => {
    const text = "x\n".repeat(5000);
    await expect(grepLines(text, "x", {}, () => "interrupt")).rejects.toThrow(/interrupted/u);
  });
});
