import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../../../host/create-runtime.ts";
import {
  type DifferentialCase,
  peerSuiteFailures,
  realProgram,
  runDifferential,
} from "../../../../test-support/peer-suites.ts";
import { loadLinearEngine } from "../regex/linear.ts";
import { runAwk, runAwkCommand } from "./awk.ts";
import { parseAwk } from "./awk-parse.ts";

const REAL = realProgram("gawk");

/** Cases that differ on purpose (README, "grep, sed and awk"). */
const KNOWN_DIFFERENCES: string[] = [];

describe("awk: the peer suite (BusyBox's awk tests) through the sandboxed awk tool", () => {
  it("matches gawk 5.2.1 on the 70 runnable cases", async () => {
    const { failures, cases, summary } = await peerSuiteFailures(
      await createEmbeddedRuntime(),
      "awk",
      KNOWN_DIFFERENCES,
    );
    // The differences that remain on purpose are listed in README ("grep, sed and awk").
    expect(failures, summary).toEqual([]);
    expect(cases).toBe(70);
  }, 120_000);
});

/** Cases of our own, from the gawk manual, run through our awk and the real gawk. */
const EMPLOYEES = "Beth 4.00 0\nDan 3.75 0\nKathy 4.00 10\nMark 5.00 20\nMary 5.50 22\nSusie 4.25 18\n";
const CSV = 'name,age,city\nann,31,Oslo\nbob,,Rome\n"x,y",7,Kyiv\n';
const PARAGRAPHS = "\n\nJane Doe\n123 Main St\n\n\n\nJohn Smith\n456 Tree Ln\nApt 2\n\n";
const MANUAL: DifferentialCase[] = [
  ["{ print $1 }", "emp"],
  ["$3 > 0 { print $1, $2 * $3 }", "emp"],
  ["$3 == 0 { print $1 }", "emp"],
  [
    '{ pay = pay + $2 * $3 } END { print NR, "employees"; print "total pay is", pay; print "average pay is", pay/NR }',
    "emp",
  ],
  ["$2 > max { max = $2; maxemp = $1 } END { print max, maxemp }", "emp"],
  ['{ names = names $1 " " } END { print names }', "emp"],
  ["{ last = $0 } END { print last }", "emp"],
  ['{ nc += length($0) + 1; nw += NF } END { print NR, "lines,", nw, "words,", nc, "characters" }', "emp"],
  ['{ printf("total pay for %s is $%.2f\\n", $1, $2 * $3) }', "emp"],
  ['{ printf("%-8s $%6.2f\\n", $1, $2 * $3) }', "emp"],
  ["NR == 3, NR == 5", "emp"],
  ['/Dan/,/Mary/ { print NR ": " $0 }', "emp"],
  ["$1 ~ /^M/", "emp"],
  ["$1 !~ /a/", "emp"],
  ["length($1) > 4", "emp"],
  ['{ $2 = ""; print; print NF }', "emp"],
  ['{ $5 = "x"; print; print NF }', "emp"],
  ["{ NF = 2; print }", "emp"],
  ['BEGIN { OFS = "-" } { $1 = $1; print }', "emp"],
  ['BEGIN { OFS = ":" } { print $1, $3 }', "emp"],
  ["{ line[NR] = $0 } END { i = NR; while (i > 0) { print line[i]; i-- } }", "emp"],
  ['{ for (i = NF; i > 0; i--) printf "%s ", $i; print "" }', "emp"],
  ["{ a[$3]++ } END { for (k in a) n++; print n }", "emp"],
  ['{ s += $2 } END { printf "%d %i %5.1f %e %g %G\\n", s, s, s, s, s / 1e7, s * 1e10 }', "emp"],
  ["-F,", '{ print $2 "|" NF }', "csv"],
  ["-F", ",", "NR > 1 { print $1 }", "csv"],
  ['BEGIN { FS = "," } { print $3 }', "csv"],
  ['BEGIN { FS = "[,a]" } { print NF ":" $2 }', "csv"],
  ["-v", "who=Dan", "$1 == who", "emp"],
  ["-v", "n=2", "NR <= n", "emp"],
  ["{ print FILENAME, FNR, NR }", "emp", "csv"],
  ["FNR == 1 { print FILENAME }", "emp", "csv"],
  ["{ print v, $1 }", "v=1", "emp", "v=2", "csv"],
  ['BEGIN { RS = "" } { print NR ": " $1 " / " $NF " (" NF ")" }', "para"],
  ['BEGIN { RS = ""; FS = "\\n" } { print $1 " | " $2 }', "para"],
  ['BEGIN { RS = ";" } { print NR, $0 }', "semi"],
  ['BEGIN { RS = "[0-9]+" } { print NR "[" $0 "]" RT }', "digits"],
  ['NR == 1 { getline; print "after getline:", $0, NR }', "emp"],
  ['NR == 1 { getline x; print "x=" x, "$0=" $0, NR }', "emp"],
  ["{ while ((getline line) > 0) n++ } END { print n, NR }", "emp"],
  ["BEGIN { print length() }", "emp"],
  ["{ print length }", "emp"],
  ["{ print length $1 }", "emp"],
  ["BEGIN { a[1]; a[2]; print length(a) }", "emp"],
  ['BEGIN { print int(-3.7), int(3.7), int("4.9x"), int("x") }', "emp"],
  ["BEGIN { print 1e-20, 0.1 + 0.2, 1e6, 1e16, 123456789012, 2^53, 1/3, -1/3, 100/3*3 }", "emp"],
  [
    'BEGIN { x = 0.1; y = x ""; print y; CONVFMT = "%.2g"; z = 3.14159 ""; print z; a[3.14159] = 1; for (k in a) print k }',
    "emp",
  ],
  ['BEGIN { OFMT = "%.2f"; print 3.14159, 3.14159 ""; x = 17; print x / 2 }', "emp"],
  [
    'BEGIN { printf "%5.2f|%-5d|%05.1f|%e|%g|%G|%x|%X|%o|%c|%c|%10s|%-3s|%.2s|%i|%+d|% d|%#o|%#x|%u\\n", 3.14159, 42, 3.14159, 1e-20, 0.0001234, 1e-10, 255, 255, 8, 65, "hello", "hi", "a", "hello", 3.9, 5, 5, 8, 255, 3 }',
    "emp",
  ],
  [
    'BEGIN { printf "%*d|%-*d|%.*f|%5s|%-5s|%.0f|%.0e|%#.3g|%g|%g\\n", 5, 42, 4, 7, 2, 3.14159, "ab", "cd", 2.5, 12345, 1, 100000, 1000000 }',
    "emp",
  ],
  [
    'BEGIN { printf "%d %d %d %s\\n", "3abc", -3.7, " 12 ", 1e6; printf "%s %s\\n", 1e300 * 1e300, -1e300 * 1e300 }',
    "emp",
  ],
  ['BEGIN { printf "%c%c%c\\n", 72, "i!", 256 }', "emp"],
  [
    'BEGIN { print substr("hello", 2), substr("hello", 0, 2), substr("hello", -1, 3), substr("hello", 2, 100), substr("hello", 1.5, 2), substr("hello", 5, 1) }',
    "emp",
  ],
  [
    'BEGIN { print index("banana", "an"), index("banana", "x"), length("héllo"), toupper("abc"), tolower("ÀBC") }',
    "emp",
  ],
  [
    'BEGIN { n = split("a b  c", arr); print n, arr[1], arr[3]; n = split("a:b::c", arr, ":"); print n, arr[3] "|" arr[4]; n = split("a1b22c", arr, /[0-9]+/); print n, arr[3]; n = split("", arr); print n, length(arr) }',
    "emp",
  ],
  [
    'BEGIN { n = split("abc", chars, ""); print n, chars[1], chars[3]; n = split("  lead trail  ", w, " "); print n, w[1] }',
    "emp",
  ],
  [
    'BEGIN { s = "hello world"; n = sub(/o/, "0", s); print n, s; n = gsub(/o/, "[&]", s); print n, s; t = "aaa"; gsub(/a/, "\\\\&", t); print t }',
    "emp",
  ],
  ['{ gsub(/[aeiou]/, ""); print }', "emp"],
  ['{ sub(/^/, ">"); print }', "emp"],
  [
    'BEGIN { s = "abc"; gsub(/x*/, "-", s); print s; s = "abc"; gsub(/b*/, "-", s); print s; s = "hello"; gsub(//, "-", s); print s }',
    "emp",
  ],
  ['BEGIN { print match("foobar", /o+/), RSTART, RLENGTH; print match("x", /y/), RSTART, RLENGTH }', "emp"],
  [
    'BEGIN { match("foo=bar", /(.*)=(.*)/, m); print m[0], m[1], m[2], m[2, "start"], m[2, "length"] }',
    "emp",
  ],
  [
    'BEGIN { print gensub(/(a+)(b+)/, "<\\\\2\\\\1>", "g", "aabbb ab"); print gensub(/o/, "0", 2, "foo boo") }',
    "emp",
  ],
  [
    'BEGIN { x[1, 2] = 3; for (k in x) { split(k, p, SUBSEP); print p[1], p[2] }; if ((1, 2) in x) print "in" }',
    "emp",
  ],
  [
    'BEGIN { a["x"] = 1; delete a["x"]; print length(a); a[1]; a[2]; delete a; print length(a); if (!("y" in a)) print "no y" }',
    "emp",
  ],
  ["function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } BEGIN { print fib(20) }", "emp"],
  [
    'function fill(arr, n,   i) { for (i = 1; i <= n; i++) arr[i] = i * i } BEGIN { fill(sq, 4); print sq[3], length(sq), i "" }',
    "emp",
  ],
  ['function change(s) { s = "changed" } BEGIN { t = "orig"; change(t); print t }', "emp"],
  ['BEGIN { print 1 == 1.0, "a" < "b", 2 < 10, "2" < "10", "abc" ~ /b/, "abc" ~ "^a" }', "emp"],
  ['{ print ($2 < 4.5), ($2 < "4.5"), ($1 < "C") }', "emp"],
  ['BEGIN { x; print (x == 0), (x == ""), length(x) }', "emp"],
  ["BEGIN { print -3 % 2, 7 % -3, 2 ^ 3 ^ 2, -2 ^ 2, 2 ** 3, 5 / 2 }", "emp"],
  ["BEGIN { i = 5; print i++ + ++i, i; print i--, --i }", "emp"],
  ['BEGIN { x = "3x"; print x + 0, +x, -x, !x, !"", !0, !"0" }', "emp"],
  ['BEGIN { a = "10"; b = 9; print (a > b), ("10" > "9") }', "emp"],
  ['{ if ($3 > 15) print $1, "high"; else if ($3 > 0) print $1, "mid"; else print $1, "none" }', "emp"],
  [
    'BEGIN { for (i = 0; i < 10; i++) { if (i == 3) continue; if (i == 6) break; printf "%d ", i }; print "" }',
    "emp",
  ],
  ["BEGIN { i = 0; do { i++ } while (i < 5); print i }", "emp"],
  ["NR == 2 { next } { print NR }", "emp"],
  ['NR == 3 { exit } { print } END { print "end", NR }', "emp"],
  ['BEGIN { exit 3 } END { print "end runs" }', "emp"],
  ["{ exit 4 } END { exit }", "emp"],
  ['BEGIN { printf "no newline" }', "emp"],
  ['BEGIN { ORS = "|" } { print $1 } END { printf "\\n" }', "emp"],
  ['BEGIN { print "a" > "/dev/stderr" }', "emp"],
  [
    "BEGIN { print and(12, 10), or(12, 10), xor(12, 10), lshift(1, 10), rshift(1024, 3), compl(0) > 0 }",
    "emp",
  ],
  ['BEGIN { print strtonum("0x1F"), strtonum("017"), strtonum("12abc"), 0x10, 011 }', "emp"],
  ['BEGIN { print substr("hello", 2, 3) "" length("") }', "emp"],
  ['BEGIN { print "tab\\there", "nl\\\\n", "q\\"q", "\\101\\x41" }', "emp"],
  ["$0 = $2", "emp"],
  ["!seen[$2]++", "emp"],
  ["END { print $0, NF }", "emp"],
  ['BEGIN { getline; print "first:", $0; getline line; print "second:", line }', "emp"],
  ['BEGIN { n = asort(v); split("3 1 2 10", v); n = asort(v); print n, v[1], v[2], v[4] }', "emp"],
  ['BEGIN { x["b"]; x["a"]; x["c"]; n = asorti(x, y); print n, y[1], y[3] }', "emp"],
  ['BEGIN { printf "%s %s %s\\n", typeof(u), typeof(1), typeof("s") }', "emp"],
  ['{ $3 = sprintf("%05.1f", $3) } 1', "emp"],
  ['BEGIN { printf "%.3s|%5.1s|%-6.2f|\\n", "abcdef", "xyz", -2.5 }', "emp"],
  ["BEGIN { print length(12345), length(1/4) }", "emp"],
  ["BEGIN { print 100000 * 100000, 2^31, 2^63, 1e21, 123456789 * 1000 }", "emp"],
  ["BEGIN { print 0.000001, 0.0000001, 123456.7, 1234567.8, -0.5 }", "emp"],
  ['{ print NR ":" NF }', "blanks"],
  ['BEGIN { FS = "\\t" } { print $2 }', "tabs"],
  ["-F", "\\t", "{ print $2 }", "tabs"],
  ["-F", "|", "{ print $2 }", "pipes"],
  ['BEGIN { FS = "|" } { print $1 "-" $3 }', "pipes"],
  ['BEGIN { FS = "." } { print NF }', "pipes"],
  [
    'BEGIN { while ((getline line < "csv") > 0) n++; print n, NR; close("csv"); getline line < "csv"; print line }',
    "emp",
  ],
  ['NR == 1 { getline < "csv"; print $0, NF, NR }', "emp"],
  ['BEGIN { print (getline x < "nonexistent") }', "emp"],
  ['BEGIN { while ((getline l < ARGV[1]) > 0) print "got", l }', "semi"],
  // Malformed programs: gawk's status and a message on stderr.
  ["BEGIN { print ( }", "emp"],
  ["{ print $1", "emp"],
  ["BEGIN { x = 1 +* 2 }", "emp"],
  ["BEGIN { if (1) break }", "emp"],
  ["function f(a, a) { } BEGIN { }", "emp"],
  ["BEGIN { print 1 / 0 }", "emp"],
  ["BEGIN { print 1 % 0 }", "emp"],
  ["BEGIN { undefined_fn() }", "emp"],
  ["BEGIN { x[1] = 1; x = 2 }", "emp"],
  ["{ print $(-1) }", "emp"],
  ['BEGIN { printf "%d %d\\n", 1 }', "emp"],
  ["{ print }", "missing"],
].map((args) => ({
  args,
  files: {
    emp: EMPLOYEES,
    csv: CSV,
    para: PARAGRAPHS,
    semi: "a;b;c\n;d",
    digits: "ab12cd345ef",
    blanks: "  lead\n\ntrail  \n \t \n",
    tabs: "a\tb c\td\n",
    pipes: "a|b|c\nx.y\n",
  },
}));

const SEPS = 'for (k = 0; k <= n; k++) if (k in s) printf "%d=[%s] ", k, s[k]; print n';

describe.skipIf(!REAL)("awk: differential cases from the gawk manual, ours vs the real gawk", () => {
  for (const entry of [
    ...MANUAL,
    { args: ["{ print $2 }"], stdin: "x y\nno-newline z" },
    { args: ["END { print NR }"], stdin: "" },
    // split()'s fourth argument: the separators, for every kind of separator.
    { args: ['{ n = split($0, a, " ", s); SEPS }'.replace("SEPS", SEPS)], stdin: " a  b \n  \na\tb\nx\n" },
    { args: ['{ n = split($0, a, ",", s); SEPS }'.replace("SEPS", SEPS)], stdin: "a,b,,c\n,\n" },
    { args: ['{ n = split($0, a, "", s); SEPS }'.replace("SEPS", SEPS)], stdin: "abc\n" },
    { args: ["{ n = split($0, a, /[,;]+/, s); SEPS }".replace("SEPS", SEPS)], stdin: "a,;b;c,\n" },
    { args: ["{ n = split($0, a, / /, s); SEPS }".replace("SEPS", SEPS)], stdin: " a  b\n" },
    {
      args: ['BEGIN { RS = ""; FS = ":" } { n = split($0, a, FS, s); SEPS; print NF }'.replace("SEPS", SEPS)],
      stdin: "a:b\nc\n\nd\n",
    },
  ]) {
    it(`awk ${entry.args.map((arg) => JSON.stringify(arg)).join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runAwkCommand, REAL!, entry);
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
      // Error messages: present exactly when gawk prints one (wording: README).
      expect(ours.stderr === "", `stderr: ${ours.stderr} vs ${real.stderr}`).toBe(real.stderr === "");
    });
  }
});

describe("awk: what the shell and the tool rely on", () => {
  // The regex engine the shell and the tool load before a program compiles.
  beforeAll(loadLinearEngine);

  const run = (
    source: string,
    input: string,
    extra: { stop?: () => "interrupt" | null; loopLimit?: number } = {},
  ) => runAwk({ program: parseAwk(source), operands: [], files: new Map([["-", input]]), ...extra });

  it("stops at the stop signal, keeping what was printed", () => {
    let polls = 0;
    const result = run('BEGIN { print "before"; while (1) x++ }', "", {
      stop: () => (++polls > 2 ? "interrupt" : null),
    });
    expect(result).toMatchObject({ stopped: "interrupt", stdout: "before\n" });
  });

  it("ends a runaway loop at the loop limit with a clear error", () => {
    const result = run("BEGIN { while (1) x++ }", "", { loopLimit: 1000 });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/exceeded maximum iterations \(1000\)/u);
  });

  it("names the line and column of a syntax error, with gawk's caret", () => {
    expect(() => parseAwk("BEGIN {\n  x = 1 +* 2\n}")).toThrow(
      "awk: cmd. line:2:   x = 1 +* 2\nawk: cmd. line:2:          ^ syntax error",
    );
  });

  it("says plainly what it cannot do here instead of answering wrong", () => {
    expect(run('BEGIN { "date" | getline d }', "").stderr).toMatch(
      /getline from a command is not supported/u,
    );
    expect(run('BEGIN { getline x < "other.txt" }', "").stderr).toMatch(/only files named in the program/u);
    expect(run('{ print | "sort" }', "a\n").stderr).toMatch(
      /print to a command \("sort"\) is not supported/u,
    );
    expect(run('BEGIN { system("ls") }', "").stderr).toMatch(/system\(\) cannot run commands here/u);
  });

  it("runs print | command in the shell when closed or at the end, as gawk orders it", async () => {
    const { EmbeddedSandbox } = await import("../../embedded-sandbox.ts");
    const sandbox = await EmbeddedSandbox.create();
    await sandbox.writeFile("/workspace/n.txt", "3\n1\n2\n");
    const script = `awk '{ print | "sort" } END { close("sort"); print "done" }' n.txt; awk '{ print | "sort -r" } END { print "first" }' n.txt`;
    const result = await sandbox.exec(script, { cwd: "/workspace" });
    expect(result).toMatchObject({ exitCode: 0, stdout: "1\n2\n3\ndone\n3\n2\n1\nfirst\n" });
    // gawk flushes its own output before a command starts and before one is closed.
    const order = await sandbox.exec(
      `awk 'BEGIN { print "a"; print "b" | "cat"; print "c"; close("cat"); print "d"; print "e" | "cat"; print "f" }'`,
      { cwd: "/workspace" },
    );
    expect(order.stdout).toBe("a\nc\nb\nd\ne\nf\n");
  }, 60_000);

  it("writes print > file to the shell's files", async () => {
    const { createCommandContext, InMemoryFs } = await import("just-bash");
    const fs = new InMemoryFs();
    await fs.writeFile("/in.txt", "a 1\nb 2\n");
    const ctx = createCommandContext({ fs, cwd: "/" });
    const result = await runAwkCommand(['{ print $2 > "out.txt" }', "in.txt"], ctx as never);
    expect(result.exitCode).toBe(0);
    expect(await fs.readFile("/out.txt")).toBe("1\n2\n");
  });
});

/** Splits a one-liner's options and program as a shell would ('…' quotes one word). */
const words = (line: string) =>
  (line.match(/'[^']*'|\S+/gu) ?? []).map((word) => word.replace(/^'|'$/gu, ""));

/** Well-known one-liners (the sed1line/awk1line collections and the manual's idioms) on a file with blank, indented, tabbed and unterminated lines. */
const ONE_LINER_TEXT =
  "The quick brown fox\njumps over the lazy dog\n\n  leading spaces\ntrailing spaces   \n1,234 and 5.67\nfoo=bar; baz=qux\nCamelCaseWord snake_case_word\n\ttab\tseparated\tline\nlast line no newline";
const AWK_ONE_LINERS = [
  "{ print NF }",
  "{ print $NF }",
  "NF > 0",
  '{ $1 = ""; print }',
  "{ print length($0) }",
  "END { print NR }",
  "{ s += $1 } END { print s }",
  '{ for (i = NF; i > 0; i--) printf("%s ", $i); print "" }',
  "!a[$0]++",
  "NR % 2",
  '{ sub(/^[ \\t]+/, ""); print }',
  '{ gsub(/^[ \\t]+|[ \\t]+$/, ""); print }',
  "{ $1 = $1; print }",
  "{ print toupper(substr($0, 1, 1)) substr($0, 2) }",
  "-F, '{ print $1 }'",
  "{ n = split($0, a, /[ ,;=]+/); print n, a[n] }",
  '{ printf "%-10s|%5.2f\\n", $1, $2 }',
  "BEGIN { x = 010; print x, 1e3, .5, 5. }",
  '{ print $1 ~ /^[A-Z]/ ? "upper" : "lower" }',
  "{ w += NF; c += length + 1 } END { print NR, w, c }",
  "length > 10",
  "{ print substr($0, length - 2) }",
  '{ print index($0, "o") }',
  "{ print match($0, /[0-9]+/), RSTART, RLENGTH }",
  'NR == 2, NR == 4 { print NR ": " $0 }',
  "/fox/,/spaces/",
  "{ a[NR] = $0 } END { for (i = NR; i >= 1; i--) print a[i] }",
  '{ $3 = "X"; print NF ":" $0 }',
  'BEGIN { FS = "" } { print NF, $1 }',
  "{ print $1 + 0, $1 * 1, ($1 == $1 + 0) }",
  '{ printf "%s", $0 } END { print "" }',
  'BEGIN { ORS = "\\n\\n" } 1',
  '{ print > "/dev/stdout" }',
  '{ gsub(/[aeiou]/, "<&>"); print }',
  '{ print gensub(/([a-z]+) ([a-z]+)/, "\\\\2 \\\\1", "g") }',
  "{ print tolower($0) }",
  "BEGIN { while ((getline line) > 0) n++; print n }",
  "{ print NR, FNR, FILENAME }",
  '{ printf "%c", $0 } END { print "" }',
  "{ print int($1), int($2) }",
  "{ print ($1 > $2) }",
  "{ print $(NF-1) }",
  'BEGIN { printf "%5.3d|%-+5d|%x|%#5o|%e|%.3e|%G\\n", 7, 7, -1, 8, 123456789, 0.000123456, 1e100 }',
  "BEGIN { print 1e300 * 1e300, -1e300 * 1e300, log(0) }",
  'BEGIN { print substr("abc", 2, 1.5), substr("abcdef", 2.5, 2), substr("abc", 0) }',
  'BEGIN { CONVFMT = "%d"; a = 3.9; b = a ""; print b }',
  'BEGIN { x["a"] = 1; f(x); print x["b"] } function f(arr) { arr["b"] = 2 }',
  "{ $0 = toupper($0); print $2 }",
  "{ NF++; print; print NF }",
  '{ $(NF + 2) = "end"; print }',
  "BEGIN { print -0, 0 * -1, 1 - 1 }",
  "BEGIN { print 0.1 * 3, 1 / 7, 1e-5, 123456789.123 }",
  'BEGIN { OFMT = "%.2f"; x = 3.14159; print x; print x "" }',
];

/** Patterns a backtracking engine never finishes, and constructs translated onto Rust's syntax (regex/linear.ts). */
const long = (text: string, times: number, tail: string) => `${text.repeat(times)}${tail}\n`;
const UNICODE_TEXT = "Ⓐbc ²½ x_y\ncafe\u0301 ok\nnaïve_1 ٣٤ fin\nabd ab abbd\n";
const LINEAR: DifferentialCase[] = [
  { args: ["$0 ~ /(a+)+$/ { n++ } END { print n + 0 }"], stdin: long("a", 3000, "b") },
  { args: ['{ print gsub(/(a|aa)*c/, "X") }'], stdin: long("a", 3000, "") },
  { args: ["{ print match($0, /(x+x+)+y/), RSTART, RLENGTH }"], stdin: long("x", 3000, "") },
  { args: ["{ n = split($0, parts, /(a|aa)+,/); print n, parts[n] }"], stdin: long("aaaa,", 500, "end") },
  { args: ["-F", "(a|aa)+,", "{ print NF }"], stdin: long("aaa,", 500, "end") },
  { args: ['BEGIN { RS = "(x+x+)+y" } { n++ } END { print n, length($0) }'], stdin: long("xxy", 2000, "x") },
  { args: ['{ gsub(/[[:punct:]]+/, "_"); print }'], stdin: UNICODE_TEXT },
  { args: ["{ print match($0, /[[:alpha:]]+/), RSTART, RLENGTH }"], stdin: UNICODE_TEXT },
  { args: ['{ gsub(/\\<./, "<&"); print }'], stdin: UNICODE_TEXT },
  { args: ['{ gsub(/\\y/, "|"); print }'], stdin: UNICODE_TEXT },
  { args: ['{ print gensub(/(ab|a)(bd|b)?/, "[\\\\1|\\\\2]", "g") }'], stdin: UNICODE_TEXT },
  { args: ["{ print match($0, /(a|ab)(c|bcd)(d*)/, m), m[1], m[2], m[3] }"], stdin: "abcd\n" },
];

/** Mismatches the seeded fuzz (../regex/regex-fuzz.test.ts) found, each kept as its smallest case. */
const FUZZ_FOUND: DifferentialCase[] = [
  // gawk: a quantifier with nothing to repeat (first, after "(", "|" or an anchor) is literal.
  { args: ['{ gsub(/^*/, "<&>"); print }'], stdin: "*a\n\n" },
  { args: ['{ gsub(/a|*b/, "<&>"); print }'], stdin: "*b b\n" },
  { args: ['{ gsub(/(+b)|x\\y?|{1}c/, "<&>"); print }'], stdin: "+b x? {1}c c\n" },
  // gawk ranges by code point; a collating element past ASCII is an error.
  { args: ['{ gsub(/[à-é]/, "<&>"); print }'], stdin: "aé\n" },
  { args: ['{ gsub(/[[.é.]]/, "<&>"); print }'], stdin: "é\n" },
  // A malformed regex literal stops the program before any input; a malformed -F is fatal.
  { args: ['{ n = split($0, a, /[b-a]/) } END { print "ran" }'], stdin: "\n" },
  { args: ["-F", "a[", "{ print NF }"], stdin: "" },
  // -F processes escapes as a string does: "\\." is a dot, "\\w" a w.
  { args: ["-F", "\\.", "{ print NF, $2 }"], stdin: "a.b\n" },
  { args: ["-F", "\\wx", "{ print NF, $2 }"], stdin: "awxb a.b\n" },
  // gsub skips an empty match where its search resumed once after any non-empty match (gawk's
  // lastmatchnonzero); gensub counting to the nth skips none.
  { args: ['{ gsub(/\\yA*/, "<&>"); print }'], stdin: "Ab-c\nAb c d\nb-A-c\nAaA-cB_\n" },
  {
    args: ['{ print gensub(/x*/, "-", 2), gensub(/\\yA*/, "<&>", 3), gensub(/\\yA*/, "<&>", "g") }'],
    stdin: "xab\nAb-c\n",
  },
  // ... unless gawk resumed inside a multi-byte character (it steps over an empty match by a byte).
  { args: ['{ gsub(/\\B-*/, "<&>"); print }'], stdin: "-_éé\n-_ab\nAé-c\n" },
  // Beside what is refused (GNU_AGAINST_POSIX): an anchor in a group under "*", which glibc does not copy.
  { args: ['{ gsub(/((^\\W)?)*aa/, "<&>"); print }'], stdin: "x aab\n" },
];

/**
 * Patterns GNU's matcher (glibc, which gawk asks for match positions) answers against POSIX, which
 * awk refuses: each with what the real gawk prints, so a gawk that changes its answer shows here.
 */
const GNU_AGAINST_POSIX: (DifferentialCase & { gnu: string; refusal: string; status: number })[] = [
  // glibc copies a group repeated by + or an interval once per round; the copies lose its anchors.
  {
    args: ["match($0, /A+($.*){0,2}/) { print RSTART, RLENGTH }"],
    stdin: "bA_É\n",
    gnu: "2 3\n",
    refusal: "loses the anchor",
    status: 1,
  },
  {
    args: ['{ gsub(/A(_|\\<x)+/, "<&>"); print }'],
    stdin: "bA__x\n",
    gnu: "bA__x\n",
    refusal: "loses the anchor",
    status: 1,
  },
  // glibc reads "^" after a newline its match went through as a line's start.
  {
    args: ['BEGIN { s = "a\\nb"; gsub(/\\n^b/, "<&>", s); print s }'],
    stdin: "",
    gnu: "a<\nb>\n",
    refusal: "two ways",
    status: 2,
  },
];

describe.skipIf(!REAL)("awk: what GNU's matcher answers against POSIX is refused, saying why", () => {
  for (const entry of GNU_AGAINST_POSIX) {
    it(`awk ${entry.args.map((arg) => JSON.stringify(arg)).join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runAwkCommand, REAL!, entry);
      expect(real.stdout).toBe(entry.gnu);
      expect(ours).toMatchObject({ stdout: "", status: entry.status });
      expect(ours.stderr).toContain(entry.refusal);
    });
  }
});

describe.skipIf(!REAL)("awk: cases the regex fuzz found, ours vs the real gawk", () => {
  for (const entry of FUZZ_FOUND) {
    it(`awk ${entry.args.map((arg) => JSON.stringify(arg)).join(" ")}`, async () => {
      const { ours, real } = await runDifferential(runAwkCommand, REAL!, entry);
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
      // gawk warns of an escape it treats as plain; errors are there on both sides.
      expect(ours.stderr !== "").toBe(real.stderr !== "" && !/warning/u.test(real.stderr));
    });
  }
});

describe.skipIf(!REAL)("awk: runaway patterns and translated constructs, ours vs the real gawk", () => {
  for (const entry of LINEAR) {
    it(`awk ${entry.args.map((arg) => JSON.stringify(arg)).join(" ")} (${entry.stdin!.length} characters)`, async () => {
      const { ours, real } = await runDifferential(runAwkCommand, REAL!, entry);
      expect({ stdout: ours.stdout, stderr: ours.stderr, status: ours.status }).toEqual({
        stdout: real.stdout,
        stderr: real.stderr,
        status: real.status,
      });
    });
  }
});

describe.skipIf(!REAL)("awk: one-liners, ours vs the real gawk", () => {
  for (const line of AWK_ONE_LINERS) {
    const args = line.startsWith("-") ? [...words(line), "f"] : [line, "f"];
    it(`awk ${JSON.stringify(args)}`, async () => {
      const { ours, real } = await runDifferential(runAwkCommand, REAL!, {
        args,
        files: { f: ONE_LINER_TEXT },
      });
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
  "{ print length($0), length($1), toupper($1) }",
  '{ print substr($0, 2, 3), index($0, "ö") }',
  '{ printf "%5s|%-5s|%.2s\\n", $1, $2, $3 }',
  "-F'[.|]' '{ print NF, $2 }'",
  "-F: '{ print $2 }'",
  "-F'|' '{ print $NF }'",
  "-F. '{ print NF }'",
  "-F'\\\\|' '{ print $2 }'",
  "{ for (i = 1; i <= NF; i++) if ($i + 0 == $i) n++ } END { print n }",
  '{ for (i = 1; i <= NF; i++) printf "%s:%s ", $i, ($i < 5 ? "lt" : "ge"); print "" }',
  "$1 > 9",
  "$1 == 10",
  '$1 < "b"',
  '{ print ($1 < $2), ($1 "" < $2 "") }',
  "{ print $1 + $2, $1 * $3, $3 / 4 }",
  '{ x = $0; n = gsub(/[aeiou]/, "#", x); print n, x }',
  '{ print match($0, /[0-9]+/) ? substr($0, RSTART, RLENGTH) : "none" }',
  'BEGIN { RS = "" } { print NR, NF }',
  'BEGIN { RS = "|" } { print NR ":" $0 }',
  'BEGIN { RS = "\\n\\n+" } { print NR ":" $1 }',
  'BEGIN { FS = "," } { $2 = "X"; print NF, $0 }',
  'NR == 1 { $0 = "a b c"; print NF, $2 }',
  "{ NF = 1 } 1",
  "{ $1 = $1 } NF",
  "{ a = a $0 } END { print length(a) }",
  "END { print $0 }",
  '{ printf "%d|%i|%5.1f|%e\\n", $1, $2, $3, $1 }',
  '{ printf "%s %s\\n", $1 }',
  'BEGIN { printf "%d %s\\n", "0x1A", 0x1A; print "1e3" + 0, ".5" + 0, "+3" + 0 }',
  '{ print ($1 == "10"), ($1 == 10.0) }',
  'BEGIN { a["x"]; if ("x" in a) print "yes"; delete a["x"]; if (!("x" in a)) print "gone" }',
  "{ c[length($0)]++ } END { n = asorti(c, k); for (i = 1; i <= n; i++) print k[i], c[k[i]] }",
  'BEGIN { s = "a,b;c"; n = split(s, p, /[,;]/, seps); print n, p[3], seps[1] seps[2] }',
  'BEGIN { print substr("héllo", 2, 2), length("日本語"), index("日本語", "語") }',
  'BEGIN { x = "A"; y = x++; print x, y }',
  "BEGIN { print 1 - -1, 1 - - 1, 2 - 1 - 1, 2 ^ -1, -2 ^ 0.5 }",
  'BEGIN { print 1 " " -1, 1 -1 }',
  'BEGIN { n = split("3 1 2", a); asort(a); print a[1] a[2] a[3] }',
  '{ $3 = ""; print; print NF }',
  'BEGIN { printf "[%c]\\n", "" }',
  'BEGIN { print index("abc", ""), substr("abc", 4), substr("abc", 3, -1) "|" }',
  "BEGIN { print length(), NF, NR }",
  'BEGIN { print 017 + 0, "017" + 0, 1.0, 1.50, 100 / 2 }',
  '{ print; getline; print "->", $0 }',
  "NR == 2 { while ((getline x) > 0) last = x } END { print last, NR }",
  'BEGIN { OFS = "-"; $0 = "a b c"; $1 = $1; print; print $0 }',
  'BEGIN { CONVFMT = "%.2f"; a[0.1234] = 1; for (k in a) print k; x = 0.1234; print (x "") }',
  '{ print > "/dev/stderr" }',
  'BEGIN { printf "%s" }',
  'BEGIN { printf "%5%|\\n" }',
  'BEGIN { printf "%ld %lld %hd\\n", 1, 2, 3 }',
];

describe.skipIf(!REAL)("awk: odd input, ours vs the real gawk", () => {
  for (const line of ODD_PROGRAMS) {
    const args = line.startsWith("-") ? [...words(line), "f"] : [line, "f"];
    it(`awk ${JSON.stringify(args)}`, async () => {
      const { ours, real } = await runDifferential(runAwkCommand, REAL!, { args, files: { f: ODD_TEXT } });
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
    });
  }
});

/** A small CSV with a header, an empty field and a quoted comma; printf rounding and %g. */
const CSV_TEXT = 'id,name,score\n1,ann,90.5\n2,bob,72\n3,cy,\n4,"d, e",88\n';
const CSV_PROGRAMS: string[][] = [
  ["-F,", 'NR > 1 { s += $3; n++ } END { printf "%.2f\\n", s / n }'],
  ["-F,", "{ print NF }"],
  ["-F,", '$3 == ""'],
  ["-F,", "$3 > 80"],
  ["-F,", '$3 >= "8"'],
  ["-F,", "-v", "OFS=|", "{ $1 = $1 } 1"],
  ["-F,", "{ print $NF }"],
  ["-F,", 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; next } { print h[2] "=" $2 }'],
  ["-F,", '{ printf "%-5s%5s\\n", $2, $3 }'],
  ["-F,", '{ a[$2] = $3 } END { for (k in a) if (a[k] == "") print "empty:", k }'],
  ['BEGIN { FS = OFS = "," } { $3 = $3 * 2 } 1'],
  ["-F,", "{ print length($2) }"],
  ["-F,", "{ print $2 ~ /^[a-c]/ }"],
  ["-F,", 'NR == 2 { print; exit } END { print "end" }'],
  ["-F,", '{ print > "/dev/stdout" }'],
  ["-F,", "END { print NR, $1 }"],
  ["BEGIN { while ((getline l) > 0) n++; print n }"],
  ["-F", ",", "-v", "col=3", "{ print $col }"],
  ["-F,", '{ print ($3 + 0 == $3) ? "num" : "str" }'],
  ["-F,", '{ x = sprintf("%03d", $1); print x }'],
  ["-F,", '{ printf "%s\\t%s\\n", $1, toupper($2) }'],
  ['{ print NR ": " $0 }'],
  ["NR == 1, /bob/"],
  ["-F,", "{ sum[$1 % 2] += $3 } END { print sum[0], sum[1] }"],
  ["-F,", 'BEGIN { getline; print "header:", $2 } { print $2 }'],
  ['BEGIN { printf "%.0f %.0f %.0f %.0f\\n", 0.5, 1.5, 2.5, -0.5 }'],
  ['BEGIN { printf "%5.3s|%-8.3e|%+.2e\\n", "abcdef", 12345.678, -0.00012 }'],
  ['BEGIN { printf "%g %g %g %g %g\\n", 100000, 1000000, 0.0001, 0.00001, 123456789 }'],
  ['BEGIN { print 3 " " 3.0 " " 3.10 " " -3.5e2 }'],
];

describe.skipIf(!REAL)("awk: CSV and number formatting, ours vs the real gawk", () => {
  for (const form of CSV_PROGRAMS) {
    const args = [...form, "f"];
    it(`awk ${JSON.stringify(args)}`, async () => {
      const { ours, real } = await runDifferential(runAwkCommand, REAL!, { args, files: { f: CSV_TEXT } });
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
    });
  }
});
