import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type SameFiles, sameFilesBothWays } from "../../../testing/same-files.ts";
import { shellQuote } from "./stat.ts";

/**
 * stat held to GNU coreutils' stat: the same files (fixed times, modes, links, odd names) in a real
 * folder and in the sandbox, the same commands; compared where the sandbox's filesystem has the datum
 * (README: owner, links, device, inode, blocks, change and birth time are the sandbox's own).
 */

const ENV = "export LANG=C.UTF-8 TZ=UTC";

const SETUP = [
  "echo hi > a.txt",
  "printf '%3000s' x > big",
  ": > empty",
  "echo s > tool && chmod 4755 tool",
  "echo p > private && chmod 600 private",
  "mkdir d && chmod 750 d",
  "echo q > \"it's\" && echo r > 'a b' && echo t > café",
  "ln -s a.txt l && ln -s missing dang && ln -s d dl && ln -s 'a b' 'sp link'",
  "touch -d '2024-03-05 06:07:08.250' a.txt big empty tool private \"it's\" 'a b' café",
  "touch -d '2023-01-02 03:04:05' d",
].join(" && ");

const FILES = "a.txt big empty tool private \"it's\" 'a b' café";

/** Directives whose values a real folder and the sandbox share. */
const SAME = [
  `stat -c '%n|%N|%s|%a|%A|%F|%f|%Y|%y|%X|%x|%B|%o|%%|%q' ${FILES}`,
  "stat -c '%n|%N|%a|%A|%F|%f|%Y|%y' d",
  "stat -c '%n|%N|%a|%A|%F|%f|%s' l dang dl 'sp link'",
  "stat -L -c '%n|%N|%a|%A|%F|%Y' l dl; stat -L -c %s l",
  `stat --format='%.3Y|%.Y|%.0Y|%.12Y|%20.3Y|%-20.3Y|%05.3Y|%-12Y|%12Y|%.3y|%5n|%-7n|%.2n|%#a|%#6a|%05a|%+s|%010s|% s|%.5s|%#f|%5A|%.3A|%-10F|' a.txt big`,
  "stat --printf='%n\\t%s\\n' a.txt big",
  "stat --printf='[\\a\\b\\e\\f\\v\\r\\\"\\\\\\101\\x41\\0Z\\7]\\n' a.txt",
  "stat --printf='%Hr %Lr|%Hs|%Q|%5Q|ab%' a.txt",
  "stat -c '' a.txt; stat --printf '' a.txt",
  "TZ=Asia/Kolkata stat -c '%y|%x' a.txt",
  "TZ=America/New_York stat -c '%y' a.txt d",
  "stat -c %n a.txt -c %s big",
  // GNU quotes %N only where the format holds "%N" itself, as $QUOTING_STYLE says
  "stat -c '%N|%13N|%-9N' l 'a b'; stat -c '[%13N]' l 'a b'; stat --printf='%.4N\n' \"it's\"",
  "QUOTING_STYLE=literal stat -c '%N' l 'a b'; QUOTING_STYLE=shell-escape-always stat -c %N 'a b'",
  "stat --form=%n a.txt; stat --dereference --format=%F dl; stat --terse -L dl > /dev/null; echo $?",
  // errors: the message, the status, and what was printed before them
  "stat x",
  "stat -c %n a.txt x big",
  "stat a.txt/x",
  "stat -c '%n %F' dl/ d/ a.txt/ dang/ l/ 'sp link/'",
  "stat -L dang",
  "stat",
  "stat -q a.txt",
  "stat --bogus a.txt",
  "stat -c",
  "stat -c 'ab%-' a.txt big",
  "stat -c '%5%' a.txt",
  "stat -c '%C|%n' a.txt; stat --printf '%5C\\n' a.txt d",
  "stat --printf='\\q|' a.txt",
  "stat --format=%n --cached=bogus a.txt",
];

describe("stat", () => {
  let both: SameFiles;
  const native = (script: string) => both.native(script);
  const ours = (script: string) => both.ours(script);

  beforeAll(async () => {
    both = await sameFilesBothWays(SETUP, ENV, "toolroom-stat-");
  });

  it.each(SAME)("%s: as GNU stat", async (script) => {
    const want = native(script);
    expect(await ours(script)).toEqual(want);
  });

  it("formats random directives with flags, width and precision as GNU stat (seeded)", async () => {
    let seed = 20261127;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const formats: string[] = [];
    const links: string[] = [];
    for (let f = 0; f < 90; f++) {
      // the directives whose values a real folder and the sandbox share (a link's times are not), and unknown ones
      const directives = f < 60 ? "nNsaAFfYyXxBo%qjk" : "nNsaAFfBo%q";
      const parts: string[] = [];
      for (let d = 0; d < 12; d++) {
        const flags = [..."-+ #0"].filter(() => random(4) === 0).join("");
        const width = random(3) === 0 ? "" : String(random(14));
        const precision = random(3) === 0 ? `.${random(3) === 0 ? "" : random(13)}` : "";
        const conversion = directives[random(directives.length)]!;
        parts.push(conversion === "%" ? "%%" : `%${flags}${width}${precision}${conversion}`);
      }
      (f < 60 ? formats : links).push(parts.join("|"));
    }
    const script = [
      ...formats.map((format) => `stat -c '${format}' a.txt big tool 'a b'`),
      ...links.map((format) => `stat -c '${format}' l dang 'sp link'`),
    ].join("; ");
    const want = native(script);
    expect(want.exitCode, want.stderr).toBe(0);
    expect(await ours(script)).toEqual(want);
  });

  /** The default layout line by line, the sandbox's own values (Blocks, Device, Inode, Uid, Gid, Change, Birth) masked. */
  const masked = (text: string) =>
    text
      .replace(/Blocks: \d+ +/gu, "Blocks: N ")
      .replace(/Size: \d+ +\tBlocks: N IO Block: 4096 +directory/gu, "Size: DIR")
      .replace(/^Device: .*$/gmu, "Device: …")
      .replace(/Uid: \(.*$/gmu, "Uid: …")
      .replace(/^(Change| Birth): .*$/gmu, "$1: …")
      // a link's own times: touch sets its target's
      .replace(/(symbolic link\n.*\n.*\n)Access: .*\nModify: .*\n/gu, "$1Access: …\nModify: …\n");

  it.each([`stat ${FILES}`, "stat d l dang 'sp link'", "stat -L l dl"])(
    "%s: GNU's default layout",
    async (script) => {
      const want = native(script);
      const got = await ours(script);
      expect(got.exitCode, got.stderr).toBe(want.exitCode);
      expect(masked(got.stdout)).toBe(masked(want.stdout));
      expect(got.stdout).toMatch(/Device: 0,0\tInode: \d+ +Links: 1\n/u);
      expect(got.stdout).toMatch(/Uid: \( 1000\/ {4}user\) {3}Gid: \( 1000\/ {4}user\)/u);
      expect(got.stdout).toMatch(/ Birth: -\n/u);
    },
  );

  it("-t prints GNU's terse fields", async () => {
    const fields = (text: string) =>
      text
        .trim()
        .split("\n")
        .map((line) => {
          const f = line.split(" ");
          // name size hex-mode atime mtime io-block (GNU's %n %s %f %X %Y %o)
          return [f[0], f[1], f[3], f[11], f[12], f[15]].join(" ");
        });
    const script = "stat -t a.txt big empty tool";
    const got = await ours(script);
    expect(got.exitCode, got.stderr).toBe(0);
    expect(fields(got.stdout)).toEqual(fields(native(script).stdout));
    expect(got.stdout.split("\n")[0]!.split(" ")).toHaveLength(16);
  });

  it("agrees with the shell's ls -l, whoami, du and [ -ef ] where GNU's values are unknown here", async () => {
    const got = await ours(
      [
        "stat -c '%U %G %h %A %s' a.txt; ls -l a.txt | tr -s ' ' | cut -d' ' -f1-5; whoami",
        "stat -c '%u %g' a.txt; echo $UID",
        "stat -c '%b %B' big; du big | cut -f1",
        "ln a.txt hard; stat -c %i a.txt hard; stat -L -c %i l; [ a.txt -ef hard ] && echo same",
        "stat -c '%i' d big | sort -u | wc -l",
        "stat -c '%w %W' a.txt",
      ].join("; "),
    );
    expect(got.exitCode, got.stderr).toBe(0);
    const lines = got.stdout.split("\n");
    expect(lines[0]).toBe("user user 1 -rw-r--r-- 3");
    expect(lines[1]).toBe("-rw-r--r-- 1 user user 3");
    expect(lines[2]).toBe("user");
    expect(lines[3]).toBe("1000 1000");
    expect(lines[4]).toBe("1000");
    // 3000 bytes: 3 KiB as du counts it, in 512-byte blocks
    expect(lines[5]).toBe("6 512");
    expect(lines[6]).toBe("3");
    expect(lines[7]).toMatch(/^\d+$/u);
    expect(lines[8]).toBe(lines[7]);
    expect(lines[9]).toBe(lines[7]);
    expect(lines[10]).toBe("same");
    expect(lines[11]!.trim()).toBe("2");
    expect(lines[12]).toBe("- 0");
  });

  it("refuses -f: the sandbox has no file system numbers", async () => {
    for (const script of ["stat -f a.txt", "stat --file-system a.txt", "stat -fc %T a.txt"]) {
      const got = await ours(script);
      expect(got.exitCode).toBe(1);
      expect(got.stdout).toBe("");
      expect(got.stderr).toMatch(/^stat: -f\/--file-system is not available in the sandbox/u);
    }
  });

  it("quotes names as GNU's shell-escape-always style", () => {
    const real = (name: string, lang: string) =>
      spawnSync(
        "sh",
        [
          "-c",
          'printf %s "$1" | xargs -0 -I{} ls -d --quoting-style=shell-escape-always -- {} 2>&1',
          "sh",
          name,
        ],
        {
          encoding: "utf8",
          env: { LANG: lang, PATH: process.env.PATH ?? "" },
        },
      ).stdout;
    expect(real(".", "C")).toBe("'.'\n");
    for (const name of [
      "it's",
      "it's$x",
      "a\"b'c",
      "a'b'c",
      "\tx",
      "a\x7f",
      "nl\nx",
      "a\t\nb",
      "café",
      "-x",
    ]) {
      const dir = mkdtempSync(join(tmpdir(), "toolroom-quote-"));
      spawnSync("sh", ["-c", 'touch -- "$1"', "sh", name], { cwd: dir });
      for (const [lang, utf8] of [
        ["C", false],
        ["C.UTF-8", true],
      ] as const) {
        const want = spawnSync("stat", ["-c", "%N", "--", name], {
          cwd: dir,
          encoding: "utf8",
          env: { LANG: lang, PATH: process.env.PATH ?? "" },
        }).stdout;
        expect(`${shellQuote(name, utf8)}\n`, `${JSON.stringify(name)} ${lang}`).toBe(want);
      }
    }
  });
});
