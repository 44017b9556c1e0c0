import { beforeAll, describe, expect, it } from "vitest";
import { type SameFiles, sameFilesBothWays } from "../../../testing/same-files.ts";

/**
 * find -printf held to GNU findutils' find: the same tree (fixed times, modes, links, nested folders,
 * odd names) in a real folder and in the sandbox, the same commands. GNU walks in readdir order, the
 * sandbox in name order: multi-file outputs are sorted. Sizes of folders, blocks, links, inodes,
 * device and owners are the sandbox's own (README, "stat") and are checked against stat instead.
 */

const ENV = "export LANG=C.UTF-8 TZ=UTC";

const SETUP = [
  "mkdir -p top/sub/deep 'top/odd dir'",
  "echo hi > top/a.txt && printf '%3000s' x > top/big && : > top/empty && echo s > top/tool",
  'echo d > top/sub/deep/f && echo q > "top/odd dir/it\'s" && echo c > top/café',
  "chmod 4755 top/tool && chmod 600 top/empty && chmod 2750 top/sub/deep && chmod 1777 'top/odd dir'",
  "ln -s a.txt top/l && ln -s missing top/dang && ln -s sub top/dl",
  "touch -d '2024-03-05 06:07:08.250' top/a.txt top/big top/empty top/tool top/sub/deep/f \"top/odd dir/it's\" top/café",
  "touch -d '2023-12-31 23:59:59' top/sub/deep && touch -d '2021-01-04 00:00:01.5' top/sub 'top/odd dir' top",
].join(" && ");

// Access and change times are the sandbox's modification time (README, "stat"): checked against %t below.
const TIMES =
  "%t|%T@|%T+|%TY-%Tm-%Td %TH:%TM:%TS|%Ta %TA %Tb %TB %Tc|%TD %Te %TF %Tg %TG %Th %TI %Tj %Tk %Tl %Tp %TP|%Tr %TR %Ts %TT %Tu %TU %TV %Tw %TW %Tx %TX %Ty %TZ %Tz %T%|%Tq %TE";

const REGEXES = [
  ".*a.b",
  ".*a\\|b",
  ".*a|b",
  "./a(b)",
  "./a\\(b\\)",
  "./a+b",
  "./a\\+b",
  "+b",
  "./+b",
  ".*a\\{2\\}",
  ".*a{2}",
  ".*\\.\\(js\\|ts\\)",
  ".*a[]]b",
  ".*[[:alpha:]]+",
  ".*\\w\\Wb",
  "./a\\sb",
  ".*^ab",
  "./ab$",
  "./a$b",
  "\\`./ab",
  ".*ab\\'",
  "*ab",
  "./a**b",
  ".*\\.jsx?",
  ".*[^a-z]b",
  "\\(\\./x\\|\\./a\\)\\..*",
  ".*[.]ts",
  "x.*",
  ".*/x\\.js",
];

/** A UTC time `hours` ago, as touch -d takes it. */
const ago = (hours: number) =>
  new Date(Date.now() - hours * 3_600_000).toISOString().slice(0, 19).replace("T", " ");

const SAME = [
  "find top -printf '%p|%P|%f|%h|%H|%d|%y|%Y|%l|%m|%M\\n' | sort",
  `find top -type f -printf '%s|${TIMES}\\n' | sort`,
  `find top -type d -printf '%p ${TIMES}\\n' | sort`,
  "find top -maxdepth 1 -type f -printf '[%-10f|%10f|%.2f|%5.1f|%05d|%-5d|%+d|% d|%.3d|%#m|%05m|%-6m|%.4m|%+5m|%#5m|%12M|%-12y|%5%|%-%|%.2%|%-12s|%.1s|%010s]\\n' | sort",
  "find top -maxdepth 1 -type f -printf '[%5.2t|%-31T+|%14TS|%5Tk|%.3TS|%.2T@|%-8Ta|%#TY|%020T@]\\n' | sort",
  "find top -maxdepth 0 -printf 'a\\tb\\\\c\\101\\60\\0\\a\\b\\f\\r\\v|\\n'",
  "find top -maxdepth 1 -name a.txt -printf '%f\\cignored %p\\n'; echo",
  "find top/ top/sub// ./top/sub -maxdepth 1 -printf '%p|%P|%h|%f|%H|%d\\n' | sort",
  "cd top/sub && find . .. ../sub/ -maxdepth 1 -name 'd*' -printf '%p|%P|%h|%f|%H\\n' | sort",
  "find / -maxdepth 0 -printf '%p|%P|%h|%f|%H\\n'",
  "find top -name '*.txt' -printf 'T %f\\n' -o -type d -printf 'D %f\\n' | sort",
  "find top/sub -printf '%d ' -print | sort",
  "find top -depth -name deep -printf '%p %d\\n'",
  "find top -maxdepth 1 -name '[dl]*' -printf '%p %y %Y %l %m %M\\n' | sort",
  "TZ=Asia/Kolkata find top -maxdepth 0 -printf '%t|%Tz|%T+|%TH %Tj\\n'",
  "TZ=America/New_York find top/a.txt -printf '%t|%Tz|%TZ|%T+\\n'",
  // -size rounds up to its unit, -mtime counts whole days, -perm exact (folders' sizes are the sandbox's own)
  "find top -type f -size -1k | sort",
  "find top -type f -size 1k | sort",
  "find top -type f -size 3k | sort",
  "find top -type f -size +2 | sort",
  "find top -type f -size -7 | sort",
  "find top -type f -size 6 | sort",
  "find top -type f -size 3c -o -type f -size 0 | sort",
  "find top -type f -size +0 | sort",
  `rm -f mid && : > mid && touch -d '${ago(36)}' mid && find mid -mtime +1; find mid -mtime 1; find mid -mtime -2; find mid -mtime +0; echo .`,
  "find top -mtime +400 | sort",
  "find top -mtime -400 -type f | sort",
  "find top -type f -mtime +1000 -o -type d -mtime 1060 | sort",
  "rm -rf p && mkdir -p p/q && echo > p/a && echo > p/q/b && chmod 600 p/a && chmod 640 p/q/b && find p -perm 600; find p -perm 755; find p -perm 640; find p -perm -600 | sort",
  // -name and -path as GNU's fnmatch
  "find top -name '[!a-e]*' | sort",
  "find top -name '[^a-e]*' -o -name '[]x]*' | sort",
  "find top -name 'odd\\ dir' -o -name 'it\\'\\''s' | sort",
  "find top -name 'd*' -o -name '?' | sort",
  "find top -name 'sub/deep'; find top -name 'su*' | sort",
  "find top/sub -path 'top/sub/*' | sort",
  "find top -path '*/d*/[a-f]' -o -path 'top/[!s]*.txt' | sort",
  "find top -ipath 'TOP/SUB*' -o -iname 'CAF*' | sort",
  "find top -name '*[[:upper:]]*' -o -name '[[:digit:]]*'; find top -name '[a-'",
  // a starting point with a trailing slash is printed as given
  "find top/sub/ | sort",
  "find top/sub/ -maxdepth 1 -type d | sort",
  "find top/sub// -name 'd*' -print -o -name f -print | sort",
  "find top/sub/ -mindepth 1 -name deep -prune -o -print | sort",
  "find top/sub/ -maxdepth 0 -print0; echo",
  "cd top && find ./ -maxdepth 1 -name 'o*' -o -maxdepth 1 -name . | sort",
  // warnings and errors: GNU's messages, status and what is printed around them
  "find top -maxdepth 0 -printf '%q|%0-5d|%1$d|\\q|%T'; echo \" rc=$?\"",
  "find top -maxdepth 0 -printf 'x\\'; echo \" rc=$?\"",
  "find top -printf 'x%'; echo \" rc=$?\"",
  "find top -printf '%5'; echo \" rc=$?\"",
  "find top -maxdepth 0 -printf '[%Z]\\n'; echo \" rc=$?\"",
  'find top -printf; echo " rc=$?"',
  "find nowhere 'no pe' top/a.txt -printf '%p\\n'; echo \" rc=$?\"",
  'find nowhere top/a.txt; echo " rc=$?"',
  'LANG=C find nowhere; echo " rc=$?"',
];

describe("find -printf", () => {
  let both: SameFiles;
  const native = (script: string) => both.native(script);
  const ours = (script: string) => both.ours(script);

  beforeAll(async () => {
    both = await sameFilesBothWays(SETUP, ENV, "toolroom-find-");
  }, 60_000);

  // Sorted here by code point: the sandbox's sort orders punctuation as a locale does, GNU's in C.UTF-8 by code point.
  const sorted = (ran: { stdout: string; stderr: string; exitCode: number | null }, sort: boolean) =>
    sort ? { ...ran, stdout: `${ran.stdout.split("\n").slice(0, -1).sort().join("\n")}\n` } : ran;

  it.each(SAME)("%s: as GNU find", async (script) => {
    const sort = script.endsWith(" | sort");
    const run = sort ? script.slice(0, -" | sort".length) : script;
    expect(sorted(await ours(run), sort)).toEqual(sorted(native(run), sort));
  });

  it("formats random directives with flags, width and precision as GNU find (seeded)", async () => {
    let seed = 20261127;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    // the directives whose values a real folder and the sandbox share (a folder's size is not), and unknown ones
    const forFiles = [
      "p",
      "P",
      "f",
      "h",
      "H",
      "d",
      "y",
      "Y",
      "l",
      "m",
      "M",
      "s",
      "t",
      "TY",
      "T@",
      "TS",
      "T+",
      "Tb",
      "Tk",
      "q",
      "%",
    ];
    const forFolders = forFiles.filter((d) => d !== "s");
    const script: string[] = [];
    for (let f = 0; f < 60; f++) {
      const directives = f < 40 ? forFiles : forFolders;
      const parts: string[] = [];
      for (let d = 0; d < 10; d++) {
        const flags = [..."-+ #0"].filter(() => random(4) === 0).join("");
        const width = random(3) === 0 ? "" : String(random(14));
        const precision = random(3) === 0 ? `.${random(3) === 0 ? "" : random(13)}` : "";
        parts.push(`%${flags}${width}${precision}${directives[random(directives.length)]!}`);
      }
      script.push(`find top ${f < 40 ? "-type f" : "-type d"} -printf '${parts.join("|")}\\n'`);
    }
    const run = script.join("; ");
    const want = native(run);
    expect(want.exitCode, want.stderr).toBe(0);
    const got = await ours(run);
    expect(sorted(got, true)).toEqual(sorted(want, true));
  });

  it("reads -regex as GNU's Emacs syntax, matched against the whole path", async () => {
    const setup =
      "rm -rf rx && mkdir rx && cd rx && touch 'a|b' 'a(b)' ab aab 'a+b' 'a{2}' x.js x.ts x.jsx 'a]b' '+b' 'a b'";
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    const runs = [...REGEXES.map((regex) => `find . -regex ${quote(regex)}`), "find . -iregex '.*X\\.JS'"];
    const script = `${setup} && ${runs.map((run) => `${run}; echo "-- $?"`).join("; ")}`;
    // each find's lines sorted: GNU walks in readdir order
    const blocks = (text: string) => text.split(/^-- /mu).map((block) => block.split("\n").sort().join("\n"));
    const want = native(script);
    const got = await ours(script);
    expect(got.stderr).toBe(want.stderr);
    expect(blocks(got.stdout)).toEqual(blocks(want.stdout));
    for (const regex of ["./\\(a\\)\\1b", "./\\<ab", "./a\\("]) {
      const refused = await ours(`find . -regex ${quote(regex)}`);
      expect(refused.exitCode, regex).toBe(1);
      expect(refused.stderr).toMatch(/^find: -regex /u);
    }
  });

  it("prints the values GNU's find reads from stat as the sandbox's stat does", async () => {
    const got = await ours(
      [
        "find top/big -printf '%u %g %U %G %n %i %D %b %k %s\\n'",
        "stat -c '%U %G %u %g %h %i %d %b' top/big; du top/big | cut -f1; stat -c %s top/big",
        "find top/sub -maxdepth 0 -printf '%s %b %k %n\\n'; stat -c '%s %b %h' top/sub",
        "find top/big -printf '%a|%c|%A@|%C@|%AT|%CY\\n%t|%t|%T@|%T@|%TT|%TY\\n'",
      ].join("; "),
    );
    expect(got.exitCode, got.stderr).toBe(0);
    const [find, stat, du, size, dirFind, dirStat, times, mtimes] = got.stdout.split("\n");
    expect(times).toBe(mtimes);
    expect(times).toMatch(/^Tue Mar {2}5 06:07:08\.2500000000 2024\|/u);
    expect(find).toBe(`${stat} ${du} ${size}`);
    expect(find).toMatch(/^user user 1000 1000 1 \d+ 0 6 3 3000$/u);
    const [s, b, , n] = dirFind!.split(" ");
    expect(`${s} ${b} ${n}`).toBe(dirStat);
  });

  it("refuses what the in-memory filesystem cannot tell instead of printing it literally", async () => {
    for (const [format, word] of [
      ["%F", "file system type"],
      ["%S", "sparseness"],
      ["%B@", "birth time"],
    ] as const) {
      const got = await ours(`find top -printf '${format}\\n'`);
      expect(got).toEqual({ stdout: "", stderr: expect.stringContaining(word), exitCode: 1 });
      expect(got.stderr).toMatch(/^find: /u);
    }
    // just-bash's find sees only the rwx bits: a test of the others is refused, not answered wrong
    for (const script of [
      "find top -perm -4000",
      "find top -perm /2000",
      "find top -perm 4755",
      "find top -perm 644",
    ]) {
      const got = await ours(script);
      expect(got.exitCode, script).toBe(1);
      expect(got.stdout).toBe("");
      expect(got.stderr).toMatch(/^find: -perm .* not available/u);
    }
    // GNU descends a link to a folder given as "link/"; just-bash listed the link alone
    const slash = await ours("find top/dl/ -name deep; find top/dl -name deep; echo rc=$?");
    expect(slash.stderr).toMatch(
      /^find: ‘top\/dl\/’: a link to a folder given with a trailing slash is not available/u,
    );
    expect(slash.stdout).toBe("rc=0\n");
    const fprint = await ours("find top -fprintf out '%p\\n'");
    expect(fprint.exitCode).toBe(1);
    expect(fprint.stderr).toMatch(/^find: -fprintf is not available/u);
    // C's precision counts bytes: GNU prints half of "é"; the sandbox's output is text
    const cut = await ours(
      "find top -name 'caf*' -printf '%.4f\\n'; find top -name 'caf*' -printf '%.3f|%.5f\\n'",
    );
    expect(cut.stdout).toBe("caf|café\n");
    expect(cut.stderr).toMatch(/^find: -printf: precision 4 cuts the character 'é' of 'café' in half/u);
    const zone = await ours("TZ=Europe/Paris find top -maxdepth 0 -printf '%TZ\\n'");
    expect(zone.exitCode).toBe(1);
    expect(zone.stderr).toMatch(/time zone Europe\/Paris/u);
  });

  it("keeps just-bash's find for everything else (no -printf)", async () => {
    const got = await ours("find top/sub -name f; find top/sub -name '-printf'; echo rc=$?");
    expect(got.stdout).toBe("top/sub/deep/f\nrc=0\n");
  });
});
