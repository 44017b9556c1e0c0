import { Bash, type Command, defineCommand, type ResolvedCommandContext } from "just-bash";
import { modeColumn } from "../ls/ls.ts";
import { inodeOf } from "../stat/stat.ts";
import { shellZone, zoned } from "../time-zone.ts";

/**
 * find is just-bash's, but its -printf knew a few directives and printed the others literally
 * (`%i %n %u` came out as-is, exit 0). Here -printf is GNU findutils 4.9's: every directive, escape,
 * flag, width and precision. The walk stays just-bash's (which files, in which order, the other
 * actions): each -printf is handed to it as a marker holding the file's depth and path, and the
 * markers in its output are replaced by the format expanded for that file. Values the in-memory
 * filesystem lacks are stat's (README, "stat"): user/user 1000/1000, one link, device 0, just-bash's
 * identity as inode, blocks from the size, access and change time = modification time.
 */

const USER = "user";
const ID = "1000";

let builtin: Command | undefined;

/** just-bash's own find (its command table is private: read once from a shell that has only find). */
function builtinFind(): Command {
  builtin ??= (
    new Bash({ commands: ["find"] }) as unknown as { commands: Map<string, Command> }
  ).commands.get("find");
  if (!builtin) throw new Error("just-bash has no find command");
  return builtin;
}

/** Options of just-bash's find that take the next word as their value (it is no predicate then). */
const TAKES_VALUE = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-regex",
  "-iregex",
  "-type",
  "-mtime",
  "-newer",
  "-size",
  "-perm",
  "-maxdepth",
  "-mindepth",
]);

type Piece =
  | { kind: "text"; text: string }
  | { kind: "stop" }
  | {
      kind: "directive";
      text: string;
      flags: string;
      width: number | null;
      precision: number | null;
      char: string;
      time?: string;
    };

class FormatError extends Error {}

/** Parses a -printf format as GNU's insert_fprintf: the pieces and the warnings it prints once. */
function parseFormat(format: string, warnings: string[]): Piece[] {
  const pieces: Piece[] = [];
  let text = "";
  const flush = () => {
    if (text) pieces.push({ kind: "text", text });
    text = "";
  };
  let i = 0;
  while (i < format.length) {
    const char = format[i]!;
    if (char === "\\") {
      const next = format[i + 1];
      if (next === undefined) {
        warnings.push("find: warning: escape `\\' followed by nothing at all\n");
        text += "\\";
        i++;
        continue;
      }
      const octal = /^[0-7]{1,3}/u.exec(format.slice(i + 1));
      if (octal) {
        text += String.fromCharCode(Number.parseInt(octal[0], 8) & 0xff);
        i += 1 + octal[0].length;
        continue;
      }
      const simple: Record<string, string> = {
        a: "\x07",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
        v: "\v",
        "\\": "\\",
      };
      if (next === "c") {
        flush();
        pieces.push({ kind: "stop" });
        // GNU stops reading the format at \c: nothing after it is printed, nor warned about.
        return pieces;
      }
      if (simple[next] !== undefined) text += simple[next];
      else {
        warnings.push(`find: warning: unrecognized escape \`\\${next}'\n`);
        text += `\\${next}`;
      }
      i += 2;
      continue;
    }
    if (char !== "%") {
      text += char;
      i++;
      continue;
    }
    const spec = /^%([-+ #]*)(\d*)(?:\.(\d*))?/u.exec(format.slice(i))!;
    let j = i + spec[0].length;
    const conversion = format[j];
    if (conversion === undefined)
      throw new FormatError(
        spec[0] === "%"
          ? "find: error: % at end of format string\n"
          : // GNU reads the string's terminating NUL as the directive and prints it in its message
            "find: error: the format directive `%\0' is reserved for future use\n",
      );
    const directive = {
      kind: "directive" as const,
      text: format.slice(i, j),
      flags: spec[1]!,
      width: spec[2] ? Number(spec[2]) : null,
      precision: spec[3] === undefined ? null : Number(spec[3] || "0"),
      char: conversion,
    };
    j++;
    if (conversion === "%") {
      // GNU prints "%%" as "%", and "%5%" as the directive's text without its "%".
      text += spec[0] === "%" ? "%" : spec[0];
      i = j;
      continue;
    }
    if ("ACTB".includes(conversion)) {
      const kind = format[j];
      if (kind === undefined) {
        warnings.push(
          `find: warning: format directive \`%${conversion}' should be followed by another character\n`,
        );
        text += `%${conversion}`;
        i = j;
        continue;
      }
      flush();
      pieces.push({ ...directive, time: kind });
      i = j + 1;
      continue;
    }
    if (!"pPfhHdsmMyYlniuUgGtakbDcZFS".includes(conversion)) {
      warnings.push(`find: warning: unrecognized format directive \`%${conversion}'\n`);
      text += format.slice(i, j);
      i = j;
      continue;
    }
    flush();
    pieces.push(directive);
    i = j;
  }
  flush();
  return pieces;
}

/** Why a directive cannot be printed in the sandbox, or null. */
function unavailable(pieces: Piece[]): string | null {
  for (const piece of pieces) {
    if (piece.kind !== "directive") continue;
    if (piece.char === "F") return "%F (file system type): the in-memory filesystem has no file system type";
    if (piece.char === "S") return "%S (sparseness): the in-memory filesystem keeps no allocated blocks";
    if (piece.char === "B") return "%B (birth time): the in-memory filesystem keeps no birth time";
  }
  return null;
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** A value -printf cannot print honestly in the sandbox (said on stderr, exit 1). */
class PrintError extends Error {}

/** The zone's abbreviation as glibc prints %Z, where Intl knows it (else refused: no guess). */
function zoneName(date: Date, zone: string): string {
  if (zone === "UTC") return "UTC";
  const name =
    new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "short" })
      .formatToParts(date)
      .find((part) => part.type === "timeZoneName")?.value ?? "";
  if (/^[A-Z]{3,5}$/u.test(name) && !name.startsWith("GMT")) return name;
  throw new PrintError(
    `find: %Z: the abbreviation of time zone ${zone} is not known in the sandbox (%z prints its offset)\n`,
  );
}

const two = (n: number) => String(n).padStart(2, "0");

/** glibc's strftime in the C locale for one conversion character (an unknown one prints as given). */
function strftime(char: string, date: Date, zone: string): string {
  const { fields, offset } = zoned(date, zone);
  const [y, mo, d, h, mi, s] = fields.split(/[- :]/u).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const local = new Date(Date.UTC(y, mo - 1, d));
  const weekday = local.getUTCDay();
  const yday = Math.round((local.getTime() - Date.UTC(y, 0, 1)) / 86_400_000);
  const hour12 = h % 12 === 0 ? 12 : h % 12;
  // ISO 8601 week and year: the week holding the year's first Thursday is week 1.
  const isoWeek = () => {
    const thursday = new Date(local.getTime() + (3 - ((weekday + 6) % 7)) * 86_400_000);
    const year = thursday.getUTCFullYear();
    return { year, week: 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * 86_400_000)) };
  };
  const f = (c: string) => strftime(c, date, zone);
  switch (char) {
    case "a":
      return DAYS[weekday]!.slice(0, 3);
    case "A":
      return DAYS[weekday]!;
    case "b":
    case "h":
      return MONTHS[mo - 1]!.slice(0, 3);
    case "B":
      return MONTHS[mo - 1]!;
    case "c":
      return `${f("a")} ${f("b")} ${f("e")} ${f("T")} ${y}`;
    case "C":
      return two(Math.floor(y / 100));
    case "d":
      return two(d);
    case "D":
    case "x":
      return `${two(mo)}/${two(d)}/${two(y % 100)}`;
    case "e":
      return String(d).padStart(2);
    case "F":
      return `${String(y).padStart(4, "0")}-${two(mo)}-${two(d)}`;
    case "g":
      return two(isoWeek().year % 100);
    case "G":
      return String(isoWeek().year);
    case "H":
      return two(h);
    case "I":
      return two(hour12);
    case "j":
      return String(yday + 1).padStart(3, "0");
    case "k":
      return String(h).padStart(2);
    case "l":
      return String(hour12).padStart(2);
    case "m":
      return two(mo);
    case "M":
      return two(mi);
    case "n":
      return "\n";
    case "p":
      return h < 12 ? "AM" : "PM";
    case "P":
      return h < 12 ? "am" : "pm";
    case "r":
      return `${f("I")}:${two(mi)}:${two(s)} ${f("p")}`;
    case "R":
      return `${two(h)}:${two(mi)}`;
    case "s":
      return String(Math.floor(date.getTime() / 1000));
    case "S":
      return two(s);
    case "t":
      return "\t";
    case "T":
    case "X":
      return `${two(h)}:${two(mi)}:${two(s)}`;
    case "u":
      return String(weekday === 0 ? 7 : weekday);
    case "U":
      return two(Math.floor((yday + 7 - weekday) / 7));
    case "V":
      return two(isoWeek().week);
    case "w":
      return String(weekday);
    case "W":
      return two(Math.floor((yday + 7 - ((weekday + 6) % 7)) / 7));
    case "y":
      return two(y % 100);
    case "Y":
      return String(y);
    case "z":
      return offset;
    case "Z":
      return zoneName(date, zone);
    case "%":
      return "%";
    default:
      return `%${char}`;
  }
}

/** The fraction GNU find appends to seconds: nine digits of nanoseconds and a "0" (its quirk). */
function fraction(date: Date): string {
  const ms = date.getTime() - Math.floor(date.getTime() / 1000) * 1000;
  return `.${String(ms * 1_000_000).padStart(9, "0")}0`;
}

/** A time as %T<kind> (and %t = ctime's layout with the fraction). */
function timeText(kind: string, date: Date, zone: string): string {
  if (kind === "@") return `${Math.floor(date.getTime() / 1000)}${fraction(date)}`;
  if (kind === "+") return `${strftime("F", date, zone)}+${strftime("T", date, zone)}${fraction(date)}`;
  const text = strftime(kind, date, zone);
  return "STX".includes(kind) ? text + fraction(date) : text;
}

function ctimeText(date: Date, zone: string): string {
  const year = zoned(date, zone).fields.slice(0, 4);
  return `${strftime("a", date, zone)} ${strftime("b", date, zone)} ${strftime("e", date, zone)} ${strftime("T", date, zone)}${fraction(date)} ${Number(year)}`;
}

/** C's %s with the directive's width ("-" pads after) and precision (bytes, cut at a whole character). */
function padString(
  text: string,
  piece: { flags: string; width: number | null; precision: number | null },
): string {
  let shown = text;
  if (piece.precision !== null) {
    const encoder = new TextEncoder();
    let bytes = 0;
    shown = "";
    for (const char of text) {
      const size = encoder.encode(char).length;
      if (bytes + size > piece.precision) {
        // C cuts the character's bytes; the shell's output is text, where half a character cannot be said.
        if (bytes < piece.precision)
          throw new PrintError(
            `find: -printf: precision ${piece.precision} cuts the character '${char}' of '${text}' in half, which the sandbox cannot print\n`,
          );
        break;
      }
      bytes += size;
      shown += char;
    }
  }
  const length = new TextEncoder().encode(shown).length;
  const width = piece.width ?? 0;
  if (length >= width) return shown;
  const fill = " ".repeat(width - length);
  return piece.flags.includes("-") ? shown + fill : fill + shown;
}

/** C's %d / %o with the directive's flags (GNU find honours them for %d and %m only). */
function padInt(
  n: number,
  octal: boolean,
  piece: { flags: string; width: number | null; precision: number | null; text: string },
): string {
  // C prints no digit for 0 at precision 0 ("%.0d"), but "#" keeps octal's leading 0.
  let digits = n === 0 && piece.precision === 0 ? "" : Math.abs(n).toString(octal ? 8 : 10);
  if (piece.precision !== null) digits = digits.padStart(piece.precision, "0");
  if (octal && piece.flags.includes("#") && !digits.startsWith("0")) digits = `0${digits}`;
  let sign = "";
  if (!octal) sign = n < 0 ? "-" : piece.flags.includes("+") ? "+" : piece.flags.includes(" ") ? " " : "";
  const text = sign + digits;
  const width = piece.width ?? 0;
  if (text.length >= width) return text;
  if (piece.flags.includes("-")) return text.padEnd(width);
  // A width written with a leading 0 is C's zero flag (ignored with a precision).
  const zero = /^%[-+ #]*0/u.test(piece.text) && piece.precision === null;
  return zero ? sign + digits.padStart(width - sign.length, "0") : text.padStart(width);
}

interface Visit {
  path: string;
  start: string;
  depth: number;
}

interface FileInfo {
  type: "file" | "directory" | "symlink";
  mode: number;
  size: number;
  mtime: Date;
  inode: number;
  target: string;
  followed: string;
}

/** %h and %f of a path as GNU find prints them (a starting point's trailing slashes are its own). */
function dirAndBase(path: string): { dir: string; base: string } {
  if (path.length > 1 && path.endsWith("/")) {
    const core = path.replace(/\/+$/u, "");
    const base = core === "" ? "/" : `${core.slice(core.lastIndexOf("/") + 1)}/`;
    // GNU 4.9's quirk, as measured: a one-character name (or "/") keeps the slashes before the last
    // one ("x//" → "x/"), a longer name has no leading directories (".").
    if (!core.includes("/"))
      return { dir: core.length <= 1 ? path.slice(0, path.lastIndexOf("/")) : ".", base };
    return { dir: core.slice(0, core.lastIndexOf("/")), base };
  }
  const slash = path.lastIndexOf("/");
  if (slash < 0) return { dir: ".", base: path };
  if (path === "/") return { dir: "", base: "/" };
  return { dir: path.slice(0, slash), base: path.slice(slash + 1) };
}

async function fileInfo(ctx: ResolvedCommandContext, path: string): Promise<FileInfo | null> {
  const resolved = ctx.fs.resolvePath(ctx.cwd, path);
  const stat = await ctx.fs.lstat(resolved).catch(() => null);
  if (!stat) return null;
  const type = stat.isSymbolicLink ? "symlink" : stat.isDirectory ? "directory" : "file";
  let target = "";
  let followed = type === "directory" ? "d" : type === "symlink" ? "l" : "f";
  if (type === "symlink") {
    target = (await ctx.fs.readlink(resolved).catch(() => null)) ?? "";
    try {
      const to = await ctx.fs.stat(resolved);
      followed = to.isDirectory ? "d" : "f";
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      followed = /ELOOP|too many/iu.test(message) ? "L" : "N";
    }
  }
  return {
    type,
    mode: stat.mode,
    size: stat.size,
    mtime: stat.mtime,
    inode: inodeOf(resolved, stat as { ino?: number; identity?: string }),
    target,
    followed,
  };
}

/** One file's -printf output; `errors` gathers GNU's per-file messages (%Z). */
function expand(
  pieces: Piece[],
  visit: Visit,
  info: FileInfo,
  zone: string,
  quote: (text: string) => string,
  errors: string[],
): string {
  let out = "";
  const { dir, base } = dirAndBase(visit.path);
  const blocks = info.type === "file" ? Math.ceil(info.size / 1024) * 2 : 0;
  for (const piece of pieces) {
    if (piece.kind === "stop") break;
    if (piece.kind === "text") {
      out += piece.text;
      continue;
    }
    if (piece.time !== undefined) {
      out += padString(timeText(piece.time, info.mtime, zone), piece);
      continue;
    }
    const string = (text: string) => {
      out += padString(text, piece);
    };
    switch (piece.char) {
      case "p":
        string(visit.path);
        break;
      case "P": {
        const rest = visit.depth === 0 ? "" : visit.path.slice(visit.start.length);
        string(rest.startsWith("/") ? rest.slice(1) : rest);
        break;
      }
      case "f":
        string(base);
        break;
      case "h":
        string(dir);
        break;
      case "H":
        string(visit.start);
        break;
      case "d":
        out += padInt(visit.depth, false, piece);
        break;
      case "m":
        out += padInt(info.mode & 0o7777, true, piece);
        break;
      case "M":
        string(modeColumn(info.type, info.type === "symlink" ? 0o777 : info.mode));
        break;
      case "s":
        string(String(info.size));
        break;
      case "y":
        string(info.type === "directory" ? "d" : info.type === "symlink" ? "l" : "f");
        break;
      case "Y":
        string(info.followed);
        break;
      case "l":
        string(info.target);
        break;
      case "n":
        string("1");
        break;
      case "i":
        string(String(info.inode));
        break;
      case "u":
      case "g":
        string(USER);
        break;
      case "U":
      case "G":
        string(ID);
        break;
      case "t":
      case "a":
      case "c":
        string(ctimeText(info.mtime, zone));
        break;
      case "k":
        string(String(blocks / 2));
        break;
      case "b":
        string(String(blocks));
        break;
      case "D":
        string("0");
        break;
      case "Z":
        // No SELinux context in the sandbox: said as GNU says it where there is none.
        string("");
        errors.push(`find: getfilecon failed: ${quote(visit.path)}: No data available\n`);
        break;
    }
  }
  return out;
}

const SIZE_UNITS: Record<string, number> = { b: 512, c: 1, k: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/**
 * A -size, -mtime or -perm test as words just-bash's find evaluates as GNU's, or why it cannot.
 * just-bash compared -size in bytes (GNU rounds the size up to the unit: -size -1k is an empty
 * file, -size 1k 1 to 1024 bytes), -mtime +N by the exact age (GNU by whole days: older than N+1),
 * and -perm without setuid, setgid and sticky bits (-perm -4000 matched every file).
 */
function gnuTest(test: string, value: string): string[] | string {
  if (test === "-size") {
    const size = /^([-+]?)(\d+)([bckMG]?)$/u.exec(value);
    if (!size || size[3] === "c") return [test, value];
    const n = Number(size[2]);
    const unit = SIZE_UNITS[size[3] || "b"]!;
    if (!Number.isSafeInteger(n * unit + 1)) return [test, value];
    if (size[1] === "+") return [test, `+${n * unit}c`];
    if (size[1] === "-") return [test, n === 0 ? "-0c" : `-${(n - 1) * unit + 1}c`];
    return n === 0 ? [test, "0c"] : ["(", test, `+${(n - 1) * unit}c`, test, `-${n * unit + 1}c`, ")"];
  }
  if (test === "-mtime") {
    const days = /^\+(\d+)$/u.exec(value);
    return days ? ["(", "!", test, `-${Number(days[1]) + 1}`, ")"] : [test, value];
  }
  const perm = /^([-/]?)([0-7]{1,4})$/u.exec(value);
  if (!perm) return [test, value];
  const mode = Number.parseInt(perm[2]!, 8);
  if (mode & 0o7000)
    return `find: -perm ${value} is not available in the sandbox's find: it compares only the permission bits (rwx), not setuid, setgid or sticky\n`;
  if (perm[1]) return [test, value];
  // Exactly MODE: all of its bits and none of the others (the special bits are checked before the walk).
  const others = 0o777 & ~mode;
  return others === 0
    ? [test, `-${perm[2]}`]
    : ["(", test, `-${perm[2]}`, "!", test, `/${others.toString(8)}`, ")"];
}

/**
 * A shell pattern as GNU's fnmatch reads it (no flags: `*` and `?` match "/" and a leading "."),
 * in RE2 syntax: `[!…]`/`[^…]` negate, `]` first is itself, `[:class:]` inside, a backslash quotes
 * the next character; an unterminated `[` is itself.
 */
function globRegex(pattern: string, name: boolean): string {
  // In a name, nothing matches a "/": the pattern then matches the last name only.
  const any = name ? "[^/]" : "[\\s\\S]";
  const literal = (char: string) => (/[\\^$.|?*+()[\]{}]/u.test(char) ? `\\${char}` : char);
  let out = "";
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i]!;
    if (char === "*") out += `${any}*`;
    else if (char === "?") out += any;
    else if (char === "\\" && i + 1 < pattern.length) out += literal(pattern[++i]!);
    else if (char === "[") {
      let j = i + 1;
      let body = "";
      if (pattern[j] === "!" || pattern[j] === "^") {
        body += "^";
        j++;
      }
      let first = true;
      while (j < pattern.length && (pattern[j] !== "]" || first)) {
        const c = pattern[j]!;
        first = false;
        if (c === "[" && pattern[j + 1] === ":") {
          const end = pattern.indexOf(":]", j + 2);
          if (end > 0) {
            body += pattern.slice(j, end + 2);
            j = end + 2;
            continue;
          }
        }
        if (c === "\\" && j + 1 < pattern.length) {
          body += `\\${pattern[++j]}`;
          j++;
          continue;
        }
        body += c === "]" || c === "[" || c === "\\" ? `\\${c}` : c;
        j++;
      }
      if (j >= pattern.length) out += "\\[";
      else {
        out += `[${body}${name && body.startsWith("^") ? "/" : ""}]`;
        i = j;
      }
    } else out += literal(char);
    i++;
  }
  return out;
}

/**
 * A GNU find regular expression (its default, Emacs syntax) as the RE2 syntax just-bash's find
 * compiles, matching the whole path as GNU's does (just-bash's matched anywhere in the path and
 * read `\(a\|b\)` as literal characters): `\( \) \|` group and alternate, `( ) | { }` are literal,
 * `* + ?` repeat (literal first), `^ $` anchor only at an end, `\w \W \s \S \b \B`, `` \` `` and
 * `\'` the ends; a bracket knows no class (`[[:alpha:]]` is `[[:alph]` then `]`) and a backslash in
 * it is itself. Back-references and `\< \>` are refused.
 */
function emacsRegex(pattern: string): { source: string; error?: undefined } | { error: string } {
  const special = /[\\^$.|?*+()[\]{}]/u;
  const literal = (char: string) => (special.test(char) ? `\\${char}` : char);
  let out = "";
  let atStart = true;
  let lastWasRepeat = false;
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i]!;
    if (char === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return { error: "Trailing backslash" };
      i += 2;
      lastWasRepeat = false;
      if (next === "(") out += "(";
      else if (next === ")") out += ")";
      else if (next === "|") out += "|";
      if ("(|".includes(next)) {
        atStart = true;
        continue;
      }
      atStart = false;
      if (next === ")") continue;
      if ("wWsSbB".includes(next)) out += `\\${next}`;
      else if (next === "`") out += "^";
      else if (next === "'") out += "$";
      else if (/[1-9]/u.test(next))
        return { error: "back-references are not available in the sandbox's find" };
      else if ("<>_=".includes(next)) return { error: `\\${next} is not available in the sandbox's find` };
      else out += literal(next);
      continue;
    }
    if (char === "[") {
      let j = i + 1;
      let body = "";
      if (pattern[j] === "^") {
        body += "^";
        j++;
      }
      if (pattern[j] === "]") {
        body += "\\]";
        j++;
      }
      while (j < pattern.length && pattern[j] !== "]") {
        const c = pattern[j]!;
        body += c === "\\" || c === "[" ? `\\${c}` : c;
        j++;
      }
      if (j >= pattern.length) return { error: "Unmatched [, [^, [:, [., or [=" };
      out += `[${body}]`;
      i = j + 1;
      atStart = false;
      lastWasRepeat = false;
      continue;
    }
    if ("*+?".includes(char) && !atStart) {
      // GNU reads a run of repetitions as one ("a**" is "a*"); RE2 refuses a repeated repetition
      if (lastWasRepeat) {
        if (char !== "*" || !out.endsWith("*"))
          return { error: `"${pattern.slice(i - 1, i + 1)}" is not available in the sandbox's find` };
      } else out += char;
      lastWasRepeat = true;
      i++;
      continue;
    }
    lastWasRepeat = false;
    if (char === "^") out += atStart ? "^" : "\\^";
    else if (char === "$") {
      const rest = pattern.slice(i + 1);
      out += rest === "" || rest.startsWith("\\)") || rest.startsWith("\\|") ? "$" : "\\$";
    } else if (char === ".") out += ".";
    else out += literal(char);
    atStart = false;
    i++;
  }
  const source = `^(?:${out})$`;
  try {
    new RegExp(source, "u");
  } catch {
    return { error: "Invalid regular expression" };
  }
  return { source };
}

/** The first file under the starting points with a setuid, setgid or sticky bit, or null. */
async function specialBitsUnder(ctx: ResolvedCommandContext, starts: string[]): Promise<string | null> {
  const pending = starts.map((start) => ctx.fs.resolvePath(ctx.cwd, start));
  while (pending.length > 0) {
    if (ctx.signal?.aborted) return null;
    const path = pending.pop()!;
    const stat = await ctx.fs.lstat(path).catch(() => null);
    if (!stat) continue;
    if (stat.mode & 0o7000) return path;
    if (!stat.isDirectory) continue;
    for (const name of await ctx.fs.readdir(path).catch(() => [] as string[]))
      pending.push(path === "/" ? `/${name}` : `${path}/${name}`);
  }
  return null;
}

/** Where the words of find's expression start (just-bash's rule: the first option-like word). */
function expressionStart(args: string[]): number {
  const index = args.findIndex((arg) => arg.startsWith("-") || ["(", "\\(", ")", "\\)", "!"].includes(arg));
  return index < 0 ? args.length : index;
}

/**
 * The context for just-bash's find: its output goes to just-bash's own execution scope, which a command
 * defined outside just-bash is handed only a view of (deadline, work limits, no output). find keeps
 * that view, and its output is collected in its result, counted by the shell as any command's (the
 * -printf markers are replaced before anything is printed).
 */
function collectingContext(ctx: ResolvedCommandContext): ResolvedCommandContext {
  const scope = ctx.executionScope;
  if (!scope) return ctx;
  const collector = Object.defineProperties(Object.create(null), {
    ...Object.getOwnPropertyDescriptors(scope),
    appendOutput: { value: (_stream: string, text: string) => new TextEncoder().encode(text).length },
  });
  return new Proxy(ctx, {
    get: (target, key) => (key === "executionScope" ? collector : Reflect.get(target, key, target)),
  });
}

/**
 * A result without just-bash's note that its output was already counted (here it was not), its
 * "find: x: No such file or directory" quoted as GNU's (‘x’ in a UTF-8 locale, 'x' else; a name
 * GNU would escape is left as just-bash says it).
 */
function plain(result: { stdout?: unknown; stderr?: string; exitCode: number }, ctx: ResolvedCommandContext) {
  const quote = localeQuote(ctx);
  return {
    stdout: typeof result.stdout === "string" ? result.stdout : "",
    stderr: (result.stderr ?? "").replace(
      /^find: ([^\n'‘’\\\x00-\x1f\x7f]+): No such file or directory$/gmu,
      (_line, name: string) => `find: ${quote(name)}: No such file or directory`,
    ),
    exitCode: result.exitCode,
  };
}

/** GNU's quote(): the locale's quotation marks around a word of a message. */
function localeQuote(ctx: ResolvedCommandContext): (text: string) => string {
  const locale = ctx.env.get("LC_ALL") || ctx.env.get("LC_CTYPE") || ctx.env.get("LANG") || "";
  return (text) => (/utf-?8/iu.test(locale) ? `\u2018${text}\u2019` : `'${text}'`);
}

const MARK_START = "\uE000";
const MARK_FIELD = "\uE001";
const MARK_END = "\uE002";
const MARKER = /\uE000(\d+)\uE001(\d+)\uE001([^\uE000-\uE002]*)\uE002/gu;

async function runFind(args: string[], ctx: ResolvedCommandContext) {
  const starts = args.slice(0, expressionStart(args));
  const formats: Piece[][] = [];
  const warnings: string[] = [];
  const rewritten = args.slice(0, starts.length);
  let exactPerm = false;
  // GNU prints a starting point as given ("src/"), just-bash without its slash: its prints are then
  // made -printf %p, which prints the starting point as given.
  const slashed = starts.some((start) => start.length > 1 && start.endsWith("/"));
  const pathFormat = (end: string): string => {
    formats.push([
      { kind: "directive", text: "%", flags: "", width: null, precision: null, char: "p" },
      { kind: "text", text: end },
    ]);
    return `${MARK_START}${formats.length - 1}${MARK_FIELD}%d${MARK_FIELD}%p${MARK_END}`;
  };
  let acts = false;
  const globals: string[] = [];
  for (let i = starts.length; i < args.length; i++) {
    const arg = args[i]!;
    if (["-print", "-print0", "-printf", "-exec", "-delete"].includes(arg)) acts = true;
    // options, global in both finds: kept out of the parentheses of the default action below
    if (slashed && (arg === "-maxdepth" || arg === "-mindepth" || arg === "-depth")) {
      globals.push(arg);
      if (arg !== "-depth" && args[i + 1] !== undefined) globals.push(args[++i]!);
      continue;
    }
    if (slashed && (arg === "-print" || arg === "-print0")) {
      rewritten.push("-printf", pathFormat(arg === "-print" ? "\n" : "\0"));
      continue;
    }
    const value = args[i + 1];
    if (arg === "-exec") {
      while (i < args.length && args[i] !== ";" && args[i] !== "+") rewritten.push(args[i++]!);
      if (i < args.length) rewritten.push(args[i]!);
    } else if (
      ["-name", "-iname", "-path", "-ipath"].includes(arg) &&
      value !== undefined &&
      // just-bash's own matcher (compiled once, where a regular expression is compiled per file)
      // reads a name pattern of plain characters, * and ? as GNU does
      !(arg.endsWith("name") && !/[[\\]/u.test(value))
    ) {
      // handed over as the regular expression of GNU's fnmatch (just-bash's matcher read [!a-z] as
      // "!" or a to z, knew no backslash escape, and missed -path 'sub/t*' under sub)
      const path = arg.endsWith("path");
      // -name: the last name of the path, which holds no "/" (a pattern with one matches nothing)
      const glob = path || !value.includes("/") || value === "/" ? globRegex(value, !path) : "[^\\s\\S]";
      const whole = path ? glob : `(?:[\\s\\S]*/)?(?:${glob})`;
      rewritten.push(arg.startsWith("-i") ? "-iregex" : "-regex", `^(?:${whole})$`);
      i++;
    } else if ((arg === "-regex" || arg === "-iregex") && value !== undefined) {
      const regex = emacsRegex(value);
      if (regex.error !== undefined)
        return {
          stdout: "",
          stderr: `find: -regex ${localeQuote(ctx)(value)}: ${regex.error}\n`,
          exitCode: 1,
        };
      rewritten.push(arg, regex.source);
      i++;
    } else if ((arg === "-size" || arg === "-mtime" || arg === "-perm") && value !== undefined) {
      const test = gnuTest(arg, value);
      if (typeof test === "string") return { stdout: "", stderr: test, exitCode: 1 };
      if (arg === "-perm" && /^[0-7]+$/u.test(value)) exactPerm = true;
      rewritten.push(...test);
      i++;
    } else if (TAKES_VALUE.has(arg)) {
      rewritten.push(arg);
      if (value !== undefined) rewritten.push(value);
      i++;
    } else if (arg === "-printf" && value !== undefined) {
      try {
        formats.push(parseFormat(value, warnings));
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        return { stdout: "", stderr: warnings.join("") + error.message, exitCode: 1 };
      }
      rewritten.push(arg, `${MARK_START}${formats.length - 1}${MARK_FIELD}%d${MARK_FIELD}%p${MARK_END}`);
      i++;
    } else if (["-fprintf", "-fprint", "-fprint0", "-fls", "-ls"].includes(arg)) {
      return {
        stdout: "",
        stderr: `find: ${arg} is not available in the sandbox's find (-print, -print0 and -printf are)\n`,
        exitCode: 1,
      };
    } else rewritten.push(arg);
  }
  // GNU's default action: the whole expression, then -print
  if (slashed) {
    const expression = rewritten.splice(starts.length);
    if (acts) rewritten.push(...globals, ...expression);
    else
      rewritten.push(
        ...globals,
        ...(expression.length > 0 ? ["(", ...expression, ")"] : []),
        "-printf",
        pathFormat("\n"),
      );
  }
  // GNU descends "link/" (the slash names the folder the link leads to); just-bash lists the link alone.
  for (const start of starts) {
    if (start.length < 2 || !start.endsWith("/")) continue;
    const path = ctx.fs.resolvePath(ctx.cwd, start);
    const own = await ctx.fs.lstat(path).catch(() => null);
    if (own?.isSymbolicLink && (await ctx.fs.stat(path).catch(() => null))?.isDirectory)
      return {
        stdout: "",
        stderr: `find: ${localeQuote(ctx)(start)}: a link to a folder given with a trailing slash is not available in the sandbox's find (give the folder it leads to)\n`,
        exitCode: 1,
      };
  }
  if (exactPerm) {
    const special = await specialBitsUnder(ctx, starts.length > 0 ? starts : ["."]);
    if (special !== null)
      return {
        stdout: "",
        stderr: `find: -perm MODE (exact) is not available where a file has setuid, setgid or sticky bits (${special}): the sandbox's find compares only the permission bits; -perm -MODE and -perm /MODE are\n`,
        exitCode: 1,
      };
  }
  const collecting = collectingContext(ctx);
  if (formats.length === 0) return plain(await builtinFind().execute(rewritten, collecting), ctx);
  for (const pieces of formats) {
    const reason = unavailable(pieces);
    if (reason) return { stdout: "", stderr: `find: ${reason}\n`, exitCode: 1 };
  }
  const result = await builtinFind().execute(rewritten, collecting);
  const stdout = typeof result.stdout === "string" ? result.stdout : "";
  const visits: { format: number; visit: Visit }[] = [];
  const givenStarts = starts.length > 0 ? starts : ["."];
  let failure: string | null = null;
  for (const match of stdout.matchAll(MARKER)) {
    const depth = Number(match[2]);
    const shown = match[3]!;
    // The starting point: the path without its last `depth` names (a name holds no "/").
    let cut = shown;
    for (let d = 0; d < depth; d++) cut = cut.slice(0, cut.lastIndexOf("/"));
    const derived = depth > 0 && cut === "" ? "/" : cut;
    // just-bash drops one trailing "/" of a starting point; GNU prints it as given.
    const candidates = new Set(
      givenStarts.filter(
        (start) => (start.length > 1 && start.endsWith("/") ? start.slice(0, -1) : start) === derived,
      ),
    );
    if (candidates.size !== 1) {
      failure = `find: -printf cannot tell which starting point ${JSON.stringify(shown)} is under (give each once)\n`;
      break;
    }
    const start = [...candidates][0]!;
    visits.push({ format: Number(match[1]), visit: { path: depth === 0 ? start : shown, start, depth } });
  }
  const markers = stdout.split(MARK_START).length - 1;
  if (!failure && markers !== visits.length)
    failure = "find: -printf cannot print file names holding the characters U+E000 to U+E002\n";
  if (failure) return { stdout: "", stderr: failure, exitCode: 1 };
  const zone = shellZone(ctx);
  const quote = localeQuote(ctx);
  const errors: string[] = [];
  const expanded: string[] = [];
  try {
    for (const { format, visit } of visits) {
      const info = await fileInfo(ctx, visit.path);
      if (!info) {
        errors.push(`find: ${quote(visit.path)}: No such file or directory\n`);
        expanded.push("");
        continue;
      }
      expanded.push(expand(formats[format]!, visit, info, zone, quote, errors));
    }
  } catch (error) {
    if (!(error instanceof PrintError)) throw error;
    return { stdout: "", stderr: error.message, exitCode: 1 };
  }
  let next = 0;
  const output = stdout.replace(MARKER, () => expanded[next++]!);
  return {
    stdout: output,
    stderr: warnings.join("") + plain(result, ctx).stderr + errors.join(""),
    exitCode: errors.length > 0 && result.exitCode === 0 ? 1 : result.exitCode,
  };
}

export function findCommands(): Command[] {
  return [defineCommand("find", (args, ctx) => runFind(args, ctx))];
}
