import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../../../host/create-runtime.ts";
import {
  type DifferentialCase,
  peerSuiteFailures,
  realProgram,
  runDifferential,
} from "../../../../test-support/peer-suites.ts";
import { loadLinearEngine } from "../regex/linear.ts";
import { runSed, runSedScript } from "./sed.ts";
import { parseSedScript } from "./sed-script.ts";

const REAL = realProgram("sed");

/**
 * Cases that differ on purpose (README, "grep, sed and awk"): their input file holds NUL bytes,
 * and the sandboxed tools read text files only (a NUL marks a file binary, as git and rg judge).
 */
const KNOWN_DIFFERENCES = ["bb-sed-032", "bb-sed-033", "bb-sed-052"];

describe("sed: the peer suite (BusyBox's sed tests) through the sandboxed sed tool", () => {
  it("matches GNU sed 4.9 on 77 of the 80 runnable cases", async () => {
    const { failures, cases, summary } = await peerSuiteFailures(
      await createEmbeddedRuntime(),
      "sed",
      KNOWN_DIFFERENCES,
    );
    // The differences that remain on purpose are listed in README ("grep, sed and awk").
    expect(failures, summary).toEqual([]);
    expect(cases).toBe(80);
  }, 120_000);
});

/** Cases of our own, from GNU sed's manual, run through our sed and the real one. */
const TEXT = "hello world\nfoo bar baz\n\nThe Quick brown fox\nline five\nsix 6 and 66\nlast line";
const NUMBERS = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
const MANUAL: DifferentialCase[] = [
  ["s/o/0/", "t"],
  ["s/o/0/g", "t"],
  ["s/o/0/2", "t"],
  ["s/o/0/2g", "t"],
  ["-n", "s/o/0/2p", "t"],
  ["s/O/0/Ig", "t"],
  ["s/\\(\\w\\+\\) \\(\\w\\+\\)/\\2 \\1/", "t"],
  ["-E", "s/(\\w+) (\\w+)/\\2 \\1/", "t"],
  ["s/\\w\\+/\\u&/g", "t"],
  ["s/\\w\\+/\\U&/2", "t"],
  ["-E", "s/(b)(.*)/\\U\\1\\E\\2/", "t"],
  ["s/.*/\\L&/", "t"],
  ["s/\\(.\\)\\(.*\\)/\\2\\l\\1/", "t"],
  ["s/x*/-/g", "t"],
  ["s/[0-9]\\+/<&>/g", "t"],
  ["s/\\bf/F/g", "t"],
  ["s/\\<./X/g", "t"],
  ["s/o\\>/O/g", "t"],
  ["s/[[:upper:]]/(&)/g", "t"],
  ["s/ /\\n/g", "t"],
  ["s/ /\\t/", "t"],
  ["s|o|/|g", "t"],
  ["s,a\\,b,X,", "t"],
  ["-n", "/foo/p", "t"],
  ["-n", "/FOO/Ip", "t"],
  ["-n", "\\,brown,p", "t"],
  ["/^$/d", "t"],
  ["-n", "$p", "t"],
  ["-n", "2,4p", "t"],
  ["-n", "2,4!p", "t"],
  ["-n", "/foo/,/fox/p", "t"],
  ["-n", "0,/o/p", "t"],
  ["-n", "1,/o/p", "t"],
  ["-n", "/foo/,+2p", "t"],
  ["-n", "/foo/,~4p", "t"],
  ["-n", "0~3p", "n"],
  ["-n", "1~3p", "n"],
  ["-n", "2,1p", "n"],
  ["-n", "$=", "n"],
  ["=", "t"],
  ["-n", "l", "t"],
  ["-n", "l 5", "t"],
  ["-l", "4", "-n", "l", "t"],
  ["-n", "/six/{s/6/x/g;p}", "t"],
  ["3q", "n"],
  ["3q5", "n"],
  ["3Q", "n"],
  ["$!N;P;D", "n"],
  ["$!N;s/\\n/ /", "n"],
  [":a;N;$!ba;s/\\n/,/g", "n"],
  ["1!G;h;$!d", "n"],
  ["-n", "1!G;h;$p", "n"],
  ["n;d", "n"],
  ["$!n;s/$/!/", "n"],
  ["N;N;s/\\n/+/g", "n"],
  ["2i\\inserted", "n"],
  ["2a appended", "n"],
  ["2,4c\\changed", "n"],
  ["2c\\\n  two", "n"],
  ["$a\\\nend", "t"],
  ["1i\\\n  first\\\n  second", "n"],
  ["/5/{x;p;x}", "n"],
  ["y/abcdefghij/ABCDEFGHIJ/", "t"],
  ["-n", "/[0-9]\\{2\\}/p", "t"],
  ["-E", "-n", "/[0-9]{2}/p", "t"],
  ["-n", "/o\\{2\\}/p", "t"],
  ["-E", "s/(o|a)+/_/g", "t"],
  ["s/a\\|o/_/g", "t"],
  ["-n", "/\\(o\\).*\\1/p", "t"],
  ["-z", "s/\\n/,/g", "n"],
  ["-s", "-n", "$p", "n", "t"],
  ["-n", "$p", "n", "t"],
  ["-n", "F;=", "n", "t"],
  ["G", "n"],
  ["-n", "h;n;G;p", "n"],
  ["s/[aeiou]/\\n/2;P;D", "t"],
  ["#n\n/foo/p", "t"],
  ["-n", "/x/{\n/y/p\n}", "t"],
  ["s/e/E/;te;s/$/ (no e)/;:e", "t"],
  ["s/e/E/;Tx;s/$/ (had e)/;:x", "t"],
  ["-n", "/line/{p;p}", "t"],
  ["z;s/^$/empty/", "n"],
  ["-E", "s/^(.)(.*)$/\\2\\1/", "t"],
  ["s/\\(o\\)\\(r\\)\\?/[\\1|\\2]/g", "t"],
  ["-n", "/^.\\{5\\}$/p", "t"],
  ["s/\\s\\+/_/g", "t"],
  ["s/\\S\\+$/<&>/", "t"],
  ["s/\\W/#/g", "t"],
  ["-n", "/\\`h/p", "t"],
  ["N;N;s/^/>/Mg", "n"],
  ["N;s/1$/one/M", "n"],
  ["s/.\\{3\\}/&|/g", "t"],
  ["s/[^ ]*/[&]/3", "t"],
  ["w out", "n"],
  ["s/6/X/w out", "t"],
  // Malformed scripts: the same message, naming the same position.
  ["s/a/b", "t"],
  ["s/a/b/q", "t"],
  ["s/\\(a/b/", "t"],
  ["s/a/\\1/", "t"],
  ["p x", "t"],
  ["k", "t"],
  ["1,p", "t"],
  ["{p", "t"],
  ["p}", "t"],
  ["b nowhere", "t"],
  ["y/ab/c/", "t"],
  ["0p", "t"],
  ["3,q", "t"],
  ["1,2=;1,3q", "t"],
  ["a", "t"],
  ["s/a/b/gg", "t"],
  ["//p", "t"],
  ["-E", "s/a{1/x/", "t"],
  ["-E", "s/{abc}/x/", "t"],
  ["-E", "s/a|*b/x/", "t"],
  ["-E", "s/a{,2}/x/", "t"],
  ["s/[a/x/", "t"],
  ["-n", "p", "missing", "t"],
].map((args) => ({ args, files: { t: TEXT, n: NUMBERS } }));

describe.skipIf(!REAL)("sed: differential cases from GNU sed's manual, ours vs the real sed", () => {
  for (const entry of [
    ...MANUAL,
    { args: ["p"], stdin: "x" },
    { args: ["-n", "p;p;=;l;P"], stdin: "x" },
    { args: ["$a\\foo"], stdin: "a\nx" },
    { args: ["i\\  foo"], stdin: "a\n" },
    { args: ["a    foo"], stdin: "a\n" },
    { args: ["s/é/e/g;s/./[&]/"], stdin: "café é\n" },
    { args: ["-n", "l"], stdin: "é\u0001\t\\\n" },
    { args: ["y/é/E/"], stdin: "été\n" },
    { args: ["-n", "/^$/="], stdin: "\n\na\n\n" },
    { args: ["N;P;D"], stdin: "1\n2\n3" },
  ]) {
    it(`sed ${entry.args.map((arg) => JSON.stringify(arg)).join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runSed, REAL!, entry);
      expect({ stdout: ours.stdout, stderr: ours.stderr, status: ours.status }).toEqual({
        stdout: real.stdout,
        // GNU names itself by the path it was run as.
        stderr: real.stderr.replaceAll(`${REAL}:`, "sed:"),
        status: real.status,
      });
    });
  }
});

describe("sed: what the shell and the tool rely on", () => {
  // The regex engine the shell and the tool load before a program compiles.
  beforeAll(loadLinearEngine);

  const script = (text: string) => parseSedScript([{ text }], { extended: false });
  const run = (text: string, input: string, quiet = false) =>
    runSedScript({
      script: script(text),
      inputs: [{ name: "-", text: input }],
      options: { quiet, separate: false, nullData: false, lineWrap: 70 },
      loopLimit: 1000,
    });

  it("stops at the stop signal, keeping what was printed", async () => {
    let polls = 0;
    const result = await runSedScript({
      script: script("p;:a;s/x/x/;ta"),
      inputs: [{ name: "-", text: "x\n" }],
      options: { quiet: true, separate: false, nullData: false, lineWrap: 70 },
      stop: () => (++polls > 3 ? "interrupt" : null),
    });
    expect(result).toMatchObject({ stopped: "interrupt", stdout: "x\n" });
  });

  it("refuses a runaway loop past the loop limit with a clear error", async () => {
    const result = await run(":a;s/x/x/;ta", "x\n");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/exceeded maximum iterations \(1000\) on input line 1/u);
  });

  it("names the position of a malformed script", () => {
    expect(() => script("1,3p;s/a/b")).toThrow("-e expression #1, char 10: unterminated `s' command");
    expect(() => script("s/\\(/x/")).toThrow(/char 7: Unmatched \( or \\\(/u);
  });

  it("answers a usage error as GNU does", async () => {
    const { createCommandContext, InMemoryFs } = await import("just-bash");
    const ctx = createCommandContext({ fs: new InMemoryFs(), cwd: "/" });
    const result = await runSed(["-x", "p"], ctx as never);
    expect(result).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/^sed: invalid option -- 'x'\n/u),
    });
  });

  it("edits files in place with -i, keeping a backup with a suffix", async () => {
    const { createCommandContext, InMemoryFs } = await import("just-bash");
    const fs = new InMemoryFs();
    await fs.writeFile("/a.txt", "one\ntwo\n");
    await fs.writeFile("/b.txt", "three\n");
    const ctx = createCommandContext({ fs, cwd: "/" });
    const result = await runSed(["-i.bak", "1s/^/> /", "a.txt", "b.txt"], ctx as never);
    expect(result).toMatchObject({ exitCode: 0, stdout: "" });
    expect(await fs.readFile("/a.txt")).toBe("> one\ntwo\n");
    expect(await fs.readFile("/b.txt")).toBe("> three\n");
    expect(await fs.readFile("/a.txt.bak")).toBe("one\ntwo\n");
  });
});

/** Splits a one-liner's options and program as a shell would ('…' quotes one word). */
const words = (line: string) =>
  (line.match(/'[^']*'|\S+/gu) ?? []).map((word) => word.replace(/^'|'$/gu, ""));

/** Well-known one-liners (the sed1line/awk1line collections and the manual's idioms) on a file with blank, indented, tabbed and unterminated lines. */
const ONE_LINER_TEXT =
  "The quick brown fox\njumps over the lazy dog\n\n  leading spaces\ntrailing spaces   \n1,234 and 5.67\nfoo=bar; baz=qux\nCamelCaseWord snake_case_word\n\ttab\tseparated\tline\nlast line no newline";
const SED_ONE_LINERS = [
  "s/^[ \\t]*//",
  "s/[ \\t]*$//",
  "s/^[ \\t]*//;s/[ \\t]*$//",
  "G",
  "n;d",
  "$!N;$!D",
  "$d",
  "1d",
  "/^$/d",
  "/./!d",
  "/^$/N;/\\n$/D",
  "s/\\(.*\\)foo/\\1bar/",
  "s/foo/bar/4",
  "/baz/s/foo/bar/g",
  "/baz/!s/foo/bar/g",
  "s/scarlet\\|ruby\\|puce/red/g",
  "-n",
  "$=",
  "=",
  "-n '$p'",
  ":a;s/^.\\{1,78\\}$/ &/;ta",
  "s/.*/\\L&/;s/\\b./\\u&/g",
  "1!G;h;$!d",
  "/\\n/!G;s/\\(.\\)\\(.*\\n\\)/&\\2\\1/;//D;s/.//",
  "$!N;s/\\n/ /",
  "-n '/regexp/{g;1!p;};h'",
  "y/abcdefghijklmnopqrstuvwxyz/ABCDEFGHIJKLMNOPQRSTUVWXYZ/",
  "s/[^,]*,//2",
  "-E s/([a-z]+)_([a-z]+)/\\2_\\1/g",
  "s/\\([A-Z]\\)/_\\l\\1/g",
  "-n /[[:digit:]]\\+/p",
  "-n /[[:punct:]]/p",
  "s/[[:space:]]\\+/ /g",
  "-n 2~3p",
  "-n $!{$!p}",
  "0~2d",
  "2,/fox/d",
  "/fox/,/dog/s/o/0/g",
  "s/o/&&/3g",
  "-n l",
  "s/\\t/<TAB>/g",
  "-E s/(.)(.)/\\2\\1/g",
  "s/x*/-/2",
  "-E s/a|e/[&]/g",
  "-n /^.\\{10,\\}$/p",
  "-E -n /^(.)(.).?\\2\\1/p",
];

/** Patterns a backtracking engine never finishes, and constructs translated onto Rust's syntax (regex/linear.ts). */
const long = (text: string, times: number, tail: string) => `${text.repeat(times)}${tail}\n`;
const UNICODE_TEXT = "Ⓐbc ²½ x_y\ncafe\u0301 ok\nnaïve_1 ٣٤ fin\nabd ab abbd\n";
const LINEAR: DifferentialCase[] = [
  { args: ["-E", "s/(a+)+$/X/"], stdin: long("a", 3000, "b") },
  { args: ["-E", "s/(a|aa)*c/X/g"], stdin: long("a", 3000, "c") },
  { args: ["s/\\(x\\+x\\+\\)\\+y/Z/"], stdin: long("x", 3000, "") },
  { args: ["-n", "-E", "/(a+)+$/p"], stdin: `${long("a", 3000, "b")}${long("a", 20, "")}` },
  { args: ["-E", "s/(a+)+b/<\\1>/"], stdin: long("a", 50, "b") },
  { args: ["-E", "s/(a|aa)+/[&]/g"], stdin: long("a", 2000, "b") },
  { args: ["-E", "s/[[:alpha:]]+/W/g"], stdin: UNICODE_TEXT },
  { args: ["s/\\<./\\u&/g"], stdin: UNICODE_TEXT },
  { args: ["s/e\\b/E/g"], stdin: UNICODE_TEXT },
  { args: ["-E", "s/(ab|a)(bd|b)?/[\\1|\\2]/g"], stdin: UNICODE_TEXT },
  { args: ["-E", "s/[[:punct:]]/./g"], stdin: UNICODE_TEXT },
  { args: ["-E", "s/x*/-/g"], stdin: "abxxc\n" },
  { args: [":a;N;$!ba;s/\\n/ /g"], stdin: long("word\n", 3000, "end") },
];

/** Mismatches the seeded fuzz (../regex/regex-fuzz.test.ts) found, each kept as its smallest case. */
const FUZZ_FOUND: DifferentialCase[] = [
  { args: ["s/[à-ü]/x/"], stdin: "é\n" },
  { args: ["s/[[:upper:]-a]/x/"], stdin: "b\n" },
  // glibc's POSIX BRE repeats no repetition and no anchor ("x\>*" is x, \>, a literal star).
  { args: ["s/a**/x/"], stdin: "aa\n" },
  { args: ["s/a\\{2\\}*/x/"], stdin: "aa\n" },
  { args: ["s/a*\\+/x/"], stdin: "aa\n" },
  { args: ["s/x\\>*/<&>/g"], stdin: "x* x\n" },
  { args: ["s/\\<\\{1\\}x/y/"], stdin: "x\n" },
  { args: ["-E", "s/a$*/x/"], stdin: "a\n" },
  { args: ["-E", "s/x\\>+/x/"], stdin: "x\n" },
  { args: ["-E", "s/(^)*a/<&>/"], stdin: "a\n" },
  { args: ["-E", "s/(b)|c)/x/"], stdin: "c)\n" },
  { args: ["s/\\(\\c\\)/x/"], stdin: "\n" },
  { args: ["s/a\\c/x/"], stdin: "\n" },
  // GNU sed's dfa refuses "[:digit:]" for "[[:digit:]]", without a place, exiting 4.
  { args: ["-z", "s/a\\[é[:upper:]]/x/"], stdin: "a\n" },
  // ... after glibc compiled it and the replacement's \N was checked against glibc's groups.
  { args: ["-E", "s/[:space:]/\\2/"], stdin: "a\n" },
  { args: ["-E", "s/([:space:])/\\1/"], stdin: "a\n" },
  // Beside what is refused (GNU_AGAINST_POSIX): an anchor in a group under "*", which glibc does not copy.
  { args: ["-E", "s/((^\\W)?)*aa/<&>/"], stdin: "x aab\n" },
  { args: ["-E", "s/A(_|\\>x)*/<&>/"], stdin: "bA__x\n" },
  // A group ending in an assertion that looks past the match (\b, $) is read on the whole text.
  { args: ["-E", "s/([[:punct:][:alpha:]](\\**)\\b)|é/[\\1]/2"], stdin: "a-b*A\n" },
  { args: ["-E", "s/(-(x*)\\b)/[\\1|\\2]/;s/(a$)|(a)/[\\1|\\2]/"], stdin: "a-b\n" },
  // Anchors at a match's edges on text holding a newline: all of GNU reads them as ours.
  { args: ["-E", "N;s/(^|\\n)b/<&>/g"], stdin: "a\nb\n" },
  { args: ["-E", "N;s/a(\\n|$)/<&>/g"], stdin: "a\nb\n" },
  { args: ["-z", "s/^/>/g;s/\\n$//;s/$/</"], stdin: "a\nb\n" },
];

/**
 * Patterns GNU's matcher (glibc) answers against POSIX, which sed refuses: each with what the real
 * sed prints, so a GNU that changes its answer shows here.
 */
const GNU_AGAINST_POSIX: (DifferentialCase & { gnu: string; refusal: string; status?: number })[] = [
  // glibc copies a group repeated by + or an interval once per round; the copies lose its anchors.
  { args: ["-E", "s/A(_|$.*)+/<&>/"], stdin: "bA__É\n", gnu: "b<A__É>\n", refusal: "loses the anchor" },
  { args: ["-E", "s/A(_|\\>x){2}/<&>/"], stdin: "bA_x\n", gnu: "b<A_x>\n", refusal: "loses the anchor" },
  // A back-reference fails where the group's repetition of something empty ended its match.
  { args: ["s/\\(b\\(x*\\)*\\)\\1/<&>/"], stdin: "bb\n", gnu: "bb\n", refusal: "can match empty" },
  // Ignoring case, glibc matches nothing with a backslash before a lower-case letter.
  { args: ["s/\\z/<&>/Ig"], stdin: "zZ\n", gnu: "zZ\n", refusal: "backslash before the letter" },
  // glibc reads \B right after a * a character early where the * takes nothing.
  { args: ["s/b*\\B/<&>/g"], stdin: "Ab.\n", gnu: "Ab<>.<>\n", refusal: "right after a *" },
  { args: ["s/.*\\B/<&>/g"], stdin: "ab1\n", gnu: "<ab>1<>\n", refusal: "right after a *" },
  // glibc reads "^" after a newline its match went through as a line's start, "$" before one as
  // its end; with -z the dfa (the text's ends) decides first whether glibc is asked at all.
  { args: ["-E", "N;s/a$./<&>/"], stdin: "a\nb\n", gnu: "<a\n>b\n", refusal: "two ways", status: 4 },
  {
    args: ["-z", "s/.\\(^\\)\\|-/<&>/g"],
    stdin: "a\nb\n-\n",
    gnu: "a<\n>b<\n><-><\n>",
    refusal: "two ways",
    status: 4,
  },
  {
    args: ["-z", "s/.\\(^\\)\\|x/<&>/g"],
    stdin: "a\nb\n-\n",
    gnu: "a\nb\n-\n",
    refusal: "two ways",
    status: 4,
  },
];

describe.skipIf(!REAL)("sed: what GNU's matcher answers against POSIX is refused, saying why", () => {
  for (const entry of GNU_AGAINST_POSIX) {
    it(`sed ${entry.args.join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runSed, REAL!, entry);
      expect(real.stdout).toBe(entry.gnu);
      expect(ours).toMatchObject({ stdout: "", status: entry.status ?? 1 });
      expect(ours.stderr).toContain(entry.refusal);
    });
  }
});

describe.skipIf(!REAL)("sed: cases the regex fuzz found, ours vs the real sed", () => {
  for (const entry of FUZZ_FOUND) {
    it(`sed ${entry.args.map((arg) => JSON.stringify(arg)).join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runSed, REAL!, entry);
      expect({ stdout: ours.stdout, stderr: ours.stderr, status: ours.status }).toEqual({
        stdout: real.stdout,
        stderr: real.stderr.replaceAll(`${REAL}:`, "sed:"),
        status: real.status,
      });
    });
  }
});

describe.skipIf(!REAL)("sed: runaway patterns and translated constructs, ours vs the real sed", () => {
  for (const entry of LINEAR) {
    it(`sed ${entry.args.map((arg) => JSON.stringify(arg)).join(" ")} (${entry.stdin!.length} characters)`, async () => {
      const { ours, real } = await runDifferential(runSed, REAL!, entry);
      expect({ stdout: ours.stdout, stderr: ours.stderr, status: ours.status }).toEqual({
        stdout: real.stdout,
        stderr: real.stderr,
        status: real.status,
      });
    });
  }
});

describe.skipIf(!REAL)("sed: one-liners, ours vs the real sed", () => {
  for (const line of SED_ONE_LINERS) {
    const args = line.startsWith("-") ? [...words(line), "f"] : [line, "f"];
    it(`sed ${JSON.stringify(args)}`, async () => {
      const { ours, real } = await runDifferential(runSed, REAL!, { args, files: { f: ONE_LINER_TEXT } });
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
    });
  }
});

/** Unicode, numbers in odd spellings, separators that are regex characters, empty and unterminated lines. */
const ODD_TEXT =
  "héllo wörld ÉTÉ\na.b.c|d|e\nkey: value\n  x  =  1  \n10 9 100\n-5 +3 0x1A 1e3 .5\nabc\n\nABC def\nend";
const ODD_PROGRAMS = [
  "s/./X/g",
  "s/[[:alpha:]]/X/g",
  "s/é/E/g",
  "y/éö/eo/",
  "s/\\w\\+/[&]/g",
  "s/[^[:alnum:]]/_/g",
  "-n /[A-Z]\\{3\\}/p",
  "-E s/([0-9]+) ([0-9]+)/\\2-\\1/",
  "s/\\./,/2",
  "s|\\||/|g",
  "s/^\\(.\\)\\(.\\)/\\2\\1/",
  "-E s/^(a|ab)(c|bcd)(d*)$/[\\1,\\2,\\3]/",
  "-E s/(a*)*/x/",
  "-E s/(a|b)*c/Z/",
  "s/k\\(e\\)y/\\U\\1\\E!/",
  "s/\\(x\\) *= *\\([0-9]\\)/\\2=\\1/",
  "/^$/,/^A/{s/^/>/}",
  "-n /key/{n;p}",
  "-n '/a\\.b/,+1p'",
  "$!d",
  "-s -n $p",
  "s/[.|]/\\n/g",
  "-n 'h;s/.*/[&]/;x;G;p'",
  "-E s/\\b([a-z])/\\u\\1/g",
  "s/\\s*$/$/",
  "s/\\</</g",
  "s/\\>/>/g",
  "s/\\B/-/g",
  "-z s/\\n/|/g",
  "N;N;s/\\n/+/2",
  "$!{N;s/\\n/ /}",
  "-n /\\(.\\)\\1/p",
  "-E -n /(.)\\1/p",
  "s/a\\{0,1\\}b/Q/g",
];

describe.skipIf(!REAL)("sed: odd input, ours vs the real sed", () => {
  for (const line of ODD_PROGRAMS) {
    const args = line.startsWith("-") ? [...words(line), "f"] : [line, "f"];
    it(`sed ${JSON.stringify(args)}`, async () => {
      const { ours, real } = await runDifferential(runSed, REAL!, { args, files: { f: ODD_TEXT } });
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
    });
  }
});

/** Script forms: several -e, a/i/c with and without text, ranges with !, q/Q with appends, -z, w /dev/stdout, long options. */
const SCRIPT_TEXT = "one\ntwo\nthree\nfour\nfive\nsix\nseven";
const SCRIPT_FORMS: string[][] = [
  ["-e", "1a\\", "-e", "after one", "-e", "3i before three"],
  ["2,4c\\", "f"],
  ["2,4!c X"],
  ["$!c X"],
  ["/two/,/four/{/three/d}"],
  ["/two/a A1\n/two/a A2\n/two/i I1"],
  ["2{a A\nn;s/^/>/}"],
  ["a A\nN;P;D"],
  ["0,/o/s//0/"],
  ["1,/o/s/o/0/"],
  ["-n", "/t/{=;p}"],
  ["-s", "-n", "F;$="],
  ["w /dev/stdout"],
  ["-n", "2{p;q}"],
  ["2q;a X"],
  ["3Q;a X"],
  ["-n", "$!{h;d};x;G;p"],
  ["s/e/\\n/g;P;D"],
  ["y/otw/\\n\\t|/"],
  ["s/o/[\\&]/g"],
  ["s/\\(o\\)\\(n\\)\\?/<\\2\\1>/g"],
  ["-E", "s/(o)|(e)/[\\1\\2]/g"],
  ["s/e/E/2g"],
  ["-n", "s/e/E/gpw /dev/stdout"],
  ["-n", "l 3"],
  ["$a\\\nEND\\\nREALLY"],
  ["1~3{s/^/#/}"],
  ["2~0p"],
  ["-n", "/one/,3{/two/!p}"],
  ["/x/b;s/$/!/"],
  [":a;/e$/{N;ba};s/\\n/+/g"],
  ["-n", "/f/{:l;n;p;bl}"],
  ["-z", "="],
  ["-n", "-z", "l"],
  ["1{h;d};G;s/\\n/=/"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a sed script ($ is its last line), not a template
  ["-n", "H;${x;s/\\n/,/g;s/^,//;p}"],
  ["N;N;N;D"],
  ["s/[[:lower:]]\\{3\\}/U/"],
  ["-E", "s/^(.{2}).*(.)$/\\1..\\2/"],
  ["s/^/\\t/;s/$/\\x41/"],
  ["s/o/\\o101/"],
  ["c\\"],
  ["i\\"],
  ["2,3{p;p}"],
  ["-n", "2,+2p"],
  ["-n", "/t/,~4p"],
  ["-n", "5,2p"],
  ["-n", "$,1p"],
  ["-n", "/six/,$!p"],
  ["{;p;}"],
  ["p;;p"],
  ["-n", "p # comment"],
  ["s/x/y/;#n\np"],
  ["-u", "p"],
  ["--posix", "p"],
  ["-r", "s/(t)(w)/\\2\\1/"],
  ["--expression=s/o/O/", "--quiet"],
  ["-n", "--line-length=5", "l"],
];

describe.skipIf(!REAL)("sed: script forms, ours vs the real sed (stdout, stderr and status)", () => {
  for (const form of SCRIPT_FORMS) {
    const args = [...form, "f"];
    it(`sed ${JSON.stringify(args)}`, async () => {
      const { ours, real } = await runDifferential(runSed, REAL!, { args, files: { f: SCRIPT_TEXT } });
      expect(ours).toEqual({ ...real, stderr: real.stderr.replaceAll(`${REAL}:`, "sed:") });
    });
  }
});
