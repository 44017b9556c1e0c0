import { type Command, defineCommand, type ResolvedCommandContext } from "just-bash";
import { modeColumn } from "../ls/ls.ts";
import { shellZone, zoned } from "../time-zone.ts";

/**
 * stat as GNU coreutils' stat 9.1, for what the sandbox's filesystem can tell (just-bash's knew a few
 * `-c` directives and printed the others literally, exit 0). Options: -c/--format, --printf,
 * -L/--dereference, -t/--terse, --cached; -f/--file-system is refused (the sandbox has no file
 * system numbers to report). Where the in-memory filesystem keeps no such datum, the values agree
 * with the shell's other commands (README, "stat"): owner user/user (1000/1000, as `ls -l`,
 * `whoami` and $UID), one link (as `ls -l`), device 0, inode = just-bash's identity of the entry
 * (what `[ a -ef b ]` compares), blocks = the size in 1 KiB units (as `du`), access and change
 * time = modification time (the filesystem keeps one), birth unknown ("-", 0).
 */

const USER = "user";
const ID = 1000;
const DEVICE = 0;
const IO_BLOCK = 4096;

interface Entry {
  /** The operand as given. */
  name: string;
  type: "file" | "directory" | "symlink";
  mode: number;
  size: number;
  mtime: Date;
  inode: number;
  target: string | null;
}

type Value =
  | { kind: "string"; text: string }
  | { kind: "int"; n: number; base: 8 | 10 | 16; signed: boolean }
  | { kind: "time"; date: Date | null };

class InvalidDirective extends Error {}

/** GNU's default format after its File line (which names the file and its target unquoted). */
const DEFAULT_FORMAT = [
  "  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F",
  "Device: %Hd,%Ld\tInode: %-10i  Links: %h",
  "Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)",
  "Access: %x",
  "Modify: %y",
  "Change: %z",
  " Birth: %w",
  "",
].join("\n");

const TERSE_FORMAT = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n";

/** A name quoted as GNU's shell-escape-always style prints it (stat's %N and its error messages). */
export function shellQuote(name: string, utf8: boolean): string {
  const escapeOf = (char: string): string | null => {
    const code = char.codePointAt(0)!;
    const named: Record<number, string> = { 7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r" };
    if (named[code]) return `\\${named[code]}`;
    if (code < 0x20 || code === 0x7f) return `\\${code.toString(8).padStart(3, "0")}`;
    if (code >= 0x80 && (!utf8 || (code >= 0x80 && code < 0xa0))) {
      return [...new TextEncoder().encode(char)].map((byte) => `\\${byte.toString(8)}`).join("");
    }
    return null;
  };
  const chars = [...name];
  const escapes = chars.map(escapeOf);
  if (!escapes.some((e) => e !== null) && name.includes("'") && !/["$`\\!]/u.test(name)) return `"${name}"`;
  let out = "'";
  let quoted = true;
  let pending = "";
  const flush = () => {
    if (pending) out += `$'${pending}'`;
    pending = "";
  };
  chars.forEach((char, i) => {
    const escaped = escapes[i];
    if (escaped !== null && escaped !== undefined) {
      if (quoted) out += "'";
      quoted = false;
      pending += escaped;
      return;
    }
    flush();
    if (!quoted) out += "'";
    quoted = true;
    out += char === "'" ? "'\\''" : char;
  });
  flush();
  if (quoted) out += "'";
  return out;
}

function fileType(entry: Entry): string {
  if (entry.type === "directory") return "directory";
  if (entry.type === "symlink") return "symbolic link";
  return entry.size === 0 ? "regular empty file" : "regular file";
}

function rawMode(entry: Entry): number {
  const type = entry.type === "directory" ? 0o040000 : entry.type === "symlink" ? 0o120000 : 0o100000;
  return type | (entry.mode & 0o7777);
}

/** Seconds and nanoseconds of a Date (millisecond precision, as the filesystem keeps it). */
function epoch(date: Date): { seconds: number; nanos: number } {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * 1_000_000 };
}

function humanTime(date: Date, zone: string): string {
  const { fields, offset } = zoned(date, zone);
  return `${fields}.${String(epoch(date).nanos).padStart(9, "0")} ${offset}`;
}

interface Spec {
  flags: string;
  width: number | null;
  precision: number | null;
}

function pad(text: string, spec: Spec, zeroOk: boolean): string {
  const width = spec.width ?? 0;
  if (text.length >= width) return text;
  if (spec.flags.includes("-")) return text.padEnd(width);
  if (zeroOk && spec.flags.includes("0")) {
    const sign = /^[-+ ]|^0x/u.exec(text)?.[0] ?? "";
    return sign + text.slice(sign.length).padStart(width - sign.length, "0");
  }
  return text.padStart(width);
}

/** An integer as C's printf prints it with the directive's flags, width and precision. */
function formatInt(n: number, base: 8 | 10 | 16, spec: Spec, signed = true): string {
  let digits = Math.abs(n).toString(base);
  if (spec.precision !== null) digits = digits.padStart(spec.precision, "0");
  let prefix = "";
  if (base === 10 && signed)
    prefix = n < 0 ? "-" : spec.flags.includes("+") ? "+" : spec.flags.includes(" ") ? " " : "";
  else if (spec.flags.includes("#") && n !== 0) {
    if (base === 8 && !digits.startsWith("0")) digits = `0${digits}`;
    if (base === 16) prefix = "0x";
  }
  return pad(prefix + digits, spec, spec.precision === null);
}

function formatString(text: string, spec: Spec): string {
  const cut = spec.precision === null ? text : [...text].slice(0, spec.precision).join("");
  return pad(cut, spec, false);
}

/**
 * A time in seconds since the epoch as GNU's out_epoch_sec prints it from the directive's text
 * (`prefix`: "%", flags, width, "." and precision): the precision adds that many digits of the
 * fraction ("." alone nine), the width holds the whole number (a "-" pads after the fraction).
 */
function formatEpoch(date: Date | null, prefix: string): string {
  const { seconds, nanos } = date ? epoch(date) : { seconds: 0, nanos: 0 };
  const dot = prefix.indexOf(".");
  let secondsPrefix = prefix;
  let width = 0;
  let precision = 0;
  if (dot >= 0) {
    secondsPrefix = prefix.slice(0, dot);
    const digits = /^\d+/u.exec(prefix.slice(dot + 1))?.[0];
    precision = digits === undefined ? 9 : Math.min(Number(digits), 2 ** 31 - 1);
    if (precision > 0 && /\d/u.test(prefix[dot - 1] ?? "")) {
      let start = dot - 1;
      while (/\d/u.test(prefix[start - 1] ?? "")) start--;
      width = Number(prefix.slice(start, dot));
      if (width > 1) {
        // The digits before the dot are the width (their first "0" stays a flag).
        if (prefix[start] === "0") start++;
        secondsPrefix = prefix.slice(0, start);
        const forSeconds = width - 1 - precision;
        if (width - 1 > 1 && forSeconds > 1) {
          const left = secondsPrefix.includes("-");
          secondsPrefix = secondsPrefix.replaceAll("-", "") + (left ? "" : String(forSeconds));
        }
      }
    }
  }
  const parsed = /^%([-+ #0'I]*)(\d*)/u.exec(secondsPrefix)!;
  const whole = formatInt(seconds, 10, {
    flags: parsed[1]!,
    width: parsed[2] ? Number(parsed[2]) : null,
    precision: null,
  });
  if (precision === 0) return whole;
  const shown = Math.min(9, precision);
  const fraction = String(Math.floor(nanos / 10 ** (9 - shown))).padStart(shown, "0");
  // Digits past nine are zeros; the rest of the width, spaces after them (C's "%-*.*d" of 0).
  const trailingWidth =
    whole.length < width && width - whole.length > 1 ? width - whole.length - 1 - shown : 0;
  return `${whole}.${fraction}${"0".repeat(precision - shown).padEnd(Math.abs(trailingWidth))}`;
}

function directive(entry: Entry, char: string, zone: string): Value | null {
  const string = (text: string): Value => ({ kind: "string", text });
  // Unsigned, as GNU's: "+" and " " add no sign (only the size and the times are signed).
  const int = (n: number, base: 8 | 10 | 16 = 10, signed = false): Value => ({
    kind: "int",
    n,
    base,
    signed,
  });
  switch (char) {
    case "a":
      return int(entry.mode & 0o7777, 8);
    case "A":
      return string(modeColumn(entry.type, entry.mode));
    case "b":
      return int(entry.type === "file" ? Math.ceil(entry.size / 1024) * 2 : 0);
    case "B":
      return int(512);
    case "d":
      return int(DEVICE);
    case "D":
      return int(DEVICE, 16);
    case "f":
      return int(rawMode(entry), 16);
    case "F":
      return string(fileType(entry));
    case "g":
    case "u":
      return int(ID);
    case "G":
    case "U":
      return string(USER);
    case "h":
      return int(1);
    case "i":
      return int(entry.inode);
    case "m":
      return string("/");
    case "n":
      return string(entry.name);
    case "o":
      return int(IO_BLOCK);
    case "s":
      return int(entry.size, 10, true);
    case "t":
    case "T":
      return int(0, 16);
    case "w":
      return string("-");
    case "W":
      return { kind: "time", date: null };
    case "x":
    case "y":
    case "z":
      return string(humanTime(entry.mtime, zone));
    case "X":
    case "Y":
    case "Z":
      return { kind: "time", date: entry.mtime };
    default:
      return null;
  }
}

const FLAGS = "-+ #0'I";

/** Expands a format for one entry; throws InvalidDirective (after what came before it was printed). */
function expand(
  format: string,
  entry: Entry,
  options: { escapes: boolean; zone: string; utf8: boolean; quote: boolean },
  out: { text: string; warnings: string; failed: boolean },
): void {
  let i = 0;
  while (i < format.length) {
    const char = format[i]!;
    if (char === "\\" && options.escapes) {
      i = backslash(format, i, out);
      continue;
    }
    if (char !== "%") {
      out.text += char;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < format.length && FLAGS.includes(format[j]!)) j++;
    const flags = format.slice(i + 1, j);
    const widthStart = j;
    while (j < format.length && /\d/u.test(format[j]!)) j++;
    const width = j > widthStart ? Number(format.slice(widthStart, j)) : null;
    let precision: number | null = null;
    if (format[j] === ".") {
      j++;
      const precisionStart = j;
      while (j < format.length && /\d/u.test(format[j]!)) j++;
      precision = j > precisionStart ? Number(format.slice(precisionStart, j)) : null;
      // "%.Y": a dot alone is the full nine digits for a time, precision 0 for the rest.
      if (precision === null) precision = /[XYZW]/u.test(format[j] ?? "") ? 9 : 0;
    }
    const conversion = format[j];
    const spec: Spec = { flags, width, precision };
    if (conversion === undefined || conversion === "%") {
      if (j - i > 1) throw new InvalidDirective(format.slice(i, j + (conversion ? 1 : 0)));
      out.text += "%";
      i = j + 1;
      continue;
    }
    // %Hd / %Ld (%Hr / %Lr): the device's major / minor number, 0 here.
    if ((conversion === "H" || conversion === "L") && (format[j + 1] === "d" || format[j + 1] === "r")) {
      out.text += formatInt(0, 10, spec);
      i = j + 2;
      continue;
    }
    // %N: the name and a link's target, each formatted, quoted only where GNU quotes (see runStat).
    // %C, the SELinux context: none in the sandbox, said as GNU says it where there is none.
    if (conversion === "C") {
      out.text += formatString("?", spec);
      out.warnings += `stat: failed to get security context of ${shellQuote(entry.name, options.utf8)}: No data available\n`;
      out.failed = true;
      i = j + 1;
      continue;
    }
    if (conversion === "N") {
      const name = (text: string) =>
        formatString(options.quote ? shellQuote(text, options.utf8) : text, spec);
      out.text += name(entry.name);
      if (entry.target !== null) {
        out.text += ` -> ${name(entry.target)}`;
        // GNU 9.1 strips a string's flags other than "-" in place and reuses the directive for the
        // target: one stripped flag leaves its "s" conversion behind, printed after the target.
        if ([...flags].filter((flag) => flag !== "-").length === 1) out.text += "s";
      }
      i = j + 1;
      continue;
    }
    const value = directive(entry, conversion, options.zone);
    if (value === null) out.text += "?";
    else if (value.kind === "string") out.text += formatString(value.text, spec);
    else if (value.kind === "int") out.text += formatInt(value.n, value.base, spec, value.signed);
    else out.text += formatEpoch(value.date, format.slice(i, j));
    i = j + 1;
  }
}

/** One backslash escape of --printf (GNU's print_esc); returns the index after it. */
function backslash(format: string, at: number, out: { text: string; warnings: string }): number {
  const next = format[at + 1];
  if (next === undefined) {
    out.warnings += "stat: warning: backslash at end of format\n";
    out.text += "\\";
    return at + 1;
  }
  const octal = /^[0-7]{1,3}/u.exec(format.slice(at + 1));
  if (octal) {
    out.text += String.fromCharCode(Number.parseInt(octal[0], 8) & 0xff);
    return at + 1 + octal[0].length;
  }
  if (next === "x") {
    const hex = /^[0-9a-fA-F]{1,2}/u.exec(format.slice(at + 2));
    if (hex) {
      out.text += String.fromCharCode(Number.parseInt(hex[0], 16));
      return at + 2 + hex[0].length;
    }
  }
  const simple: Record<string, string> = {
    a: "\x07",
    b: "\b",
    e: "\x1b",
    f: "\f",
    n: "\n",
    r: "\r",
    t: "\t",
    v: "\v",
    '"': '"',
    "\\": "\\",
  };
  const known = simple[next];
  if (known !== undefined) out.text += known;
  else {
    out.warnings += `stat: warning: unrecognized escape '\\${next}'\n`;
    out.text += next;
  }
  return at + 2;
}

interface Options {
  format: string | null;
  /** -c/--format: a newline after each use of the format. */
  newline: boolean;
  escapes: boolean;
  dereference: boolean;
  terse: boolean;
  fileSystem: boolean;
  operands: string[];
}

const LONG_OPTIONS = ["format", "printf", "dereference", "file-system", "terse", "cached", "help", "version"];
const TAKES_ARGUMENT = new Set(["format", "printf", "cached"]);

class Usage extends Error {}

const CACHED = ["default", "never", "always"];

function parseOptions(args: string[], quote: (text: string) => string): Options | "help" | "version" {
  const options: Options = {
    format: null,
    newline: false,
    escapes: false,
    dereference: false,
    terse: false,
    fileSystem: false,
    operands: [],
  };
  let i = 0;
  let flags = true;
  while (i < args.length) {
    const arg = args[i++]!;
    if (!flags || arg === "-" || !arg.startsWith("-")) {
      options.operands.push(arg);
      continue;
    }
    if (arg === "--") {
      flags = false;
      continue;
    }
    if (arg.startsWith("--")) {
      const [given, inline] = arg.slice(2).split(/=(.*)/su) as [string, string | undefined];
      const matches = LONG_OPTIONS.filter((name) => name.startsWith(given));
      const name = LONG_OPTIONS.includes(given) ? given : matches.length === 1 ? matches[0]! : null;
      if (name === null)
        throw new Usage(
          matches.length > 1 ? `option '${arg}' is ambiguous` : `unrecognized option '${arg.split("=")[0]}'`,
        );
      let value: string | undefined;
      if (TAKES_ARGUMENT.has(name)) {
        value = inline ?? args[i++];
        if (value === undefined) throw new Usage(`option '--${name}' requires an argument`);
      } else if (inline !== undefined) throw new Usage(`option '--${name}' doesn't allow an argument`);
      if (name === "help") return "help";
      if (name === "version") return "version";
      if (name === "format") {
        options.format = value!;
        options.newline = true;
        options.escapes = false;
      } else if (name === "printf") {
        options.format = value!;
        options.newline = false;
        options.escapes = true;
      } else if (name === "dereference") options.dereference = true;
      else if (name === "terse") options.terse = true;
      else if (name === "file-system") options.fileSystem = true;
      else if (name === "cached" && !CACHED.some((v) => value && v.startsWith(value))) {
        const list = CACHED.map((v) => `\n  - ${quote(v)}`).join("");
        throw new Usage(
          `invalid argument ${quote(value!)} for ${quote("--cached")}\nValid arguments are:${list}`,
        );
      }
      continue;
    }
    for (let k = 1; k < arg.length; k++) {
      const flag = arg[k]!;
      if (flag === "c") {
        const value = k + 1 < arg.length ? arg.slice(k + 1) : args[i++];
        if (value === undefined) throw new Usage("option requires an argument -- 'c'");
        options.format = value;
        options.newline = true;
        options.escapes = false;
        break;
      }
      if (flag === "L") options.dereference = true;
      else if (flag === "t") options.terse = true;
      else if (flag === "f") options.fileSystem = true;
      else throw new Usage(`invalid option -- '${flag}'`);
    }
  }
  return options;
}

const HELP = `Usage: stat [OPTION]... FILE...
Display file status (GNU coreutils' stat, over the sandbox's filesystem).

  -L, --dereference     follow links
  -c  --format=FORMAT   use the specified FORMAT instead of the default;
                          output a newline after each use of FORMAT
      --printf=FORMAT   like --format, but interpret backslash escapes,
                          and do not output a mandatory trailing newline
  -t, --terse           print the information in terse form
      --help            display this help and exit
      --version         output version information and exit

-f/--file-system is not available: the sandbox has no file system numbers to report.
Directives: %a %A %b %B %d %D %f %F %g %G %h %i %m %n %N %o %s %t %T %u %U %w %W %x %X %y %Y %z %Z %%
`;

function failureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("ENOTDIR")) return "Not a directory";
  if (message.startsWith("ELOOP") || /too many (levels of )?symbolic links/iu.test(message))
    return "Too many levels of symbolic links";
  if (message.startsWith("EACCES")) return "Permission denied";
  return "No such file or directory";
}

/**
 * The entry's inode: just-bash's identity of it (what `[ a -ef b ]` compares; a hard link shares it).
 * A symlink has none a command can read: its own number is drawn from its path, above 2^32, where
 * just-bash's counted identities never reach.
 */
export function inodeOf(path: string, stat: { ino?: number | bigint; identity?: string }): number {
  if (typeof stat.ino === "number") return stat.ino;
  const counted = stat.identity?.startsWith("memfs:") ? Number(stat.identity.slice(6)) : Number.NaN;
  if (Number.isSafeInteger(counted)) return counted;
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(path)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return 2 ** 32 + hash;
}

/** Why a path that does not exist fails: a component on the way that is not a folder says "Not a directory". */
async function missingReason(ctx: ResolvedCommandContext, path: string, error: unknown): Promise<string> {
  const reason = failureReason(error);
  if (reason !== "No such file or directory") return reason;
  const parts = path.split("/").filter(Boolean);
  let prefix = "";
  for (const part of parts.slice(0, -1)) {
    prefix += `/${part}`;
    const stat = await ctx.fs.stat(prefix).catch(() => null);
    if (!stat) return reason;
    if (!stat.isDirectory) return "Not a directory";
  }
  return reason;
}

async function runStat(args: string[], ctx: ResolvedCommandContext) {
  const locale = ctx.env.get("LC_ALL") || ctx.env.get("LC_CTYPE") || ctx.env.get("LANG") || "";
  const utf8 = /utf-?8/iu.test(locale);
  // GNU's quote(): the locale's quotation marks around a word of a message.
  const quote = (text: string) => (utf8 ? `\u2018${text}\u2019` : `'${text}'`);
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(args, quote);
  } catch (error) {
    if (!(error instanceof Usage)) throw error;
    return {
      stdout: "",
      stderr: `stat: ${error.message}\nTry 'stat --help' for more information.\n`,
      exitCode: 1,
    };
  }
  if (parsed === "help") return { stdout: HELP, stderr: "", exitCode: 0 };
  if (parsed === "version")
    return {
      stdout: "stat (Toolroom) imitating GNU coreutils 9.1 over the sandbox's filesystem\n",
      stderr: "",
      exitCode: 0,
    };
  if (parsed.fileSystem)
    return {
      stdout: "",
      stderr:
        "stat: -f/--file-system is not available in the sandbox: its in-memory filesystem has no file system type, block or inode counts to report\n",
      exitCode: 1,
    };
  if (parsed.operands.length === 0)
    return {
      stdout: "",
      stderr: "stat: missing operand\nTry 'stat --help' for more information.\n",
      exitCode: 1,
    };
  const zone = shellZone(ctx);
  const format = parsed.format ?? (parsed.terse ? TERSE_FORMAT : DEFAULT_FORMAT);
  // GNU quotes %N's names only when the format given holds "%N" as such (its default format names
  // the file unquoted, and so does "%13N" alone), in $QUOTING_STYLE's style, shell-escape-always unless set.
  const style = ctx.env.get("QUOTING_STYLE") ?? "";
  if (parsed.format?.includes("%N") && !["", "shell-escape-always", "literal"].includes(style))
    return {
      stdout: "",
      stderr: `stat: QUOTING_STYLE=${style} is not available in the sandbox (shell-escape-always and literal are)\n`,
      exitCode: 1,
    };
  const quoteNames = parsed.format?.includes("%N") === true && style !== "literal";
  const out = { text: "", warnings: "", failed: false };
  let stderr = "";
  let exitCode = 0;
  for (const operand of parsed.operands) {
    if (operand === "-") {
      stderr += "stat: cannot stat standard input in the sandbox (it is not a file there)\n";
      exitCode = 1;
      continue;
    }
    const path = ctx.fs.resolvePath(ctx.cwd, operand);
    let entry: Entry;
    try {
      // A trailing slash names the folder a link points to, and only a folder (as the kernel reads it).
      const slash = operand.endsWith("/");
      const stat = parsed.dereference || slash ? await ctx.fs.stat(path) : await ctx.fs.lstat(path);
      if (slash && !stat.isDirectory) throw new Error("ENOTDIR: not a directory");
      const type = stat.isSymbolicLink ? "symlink" : stat.isDirectory ? "directory" : "file";
      const target = type === "symlink" ? await ctx.fs.readlink(path) : null;
      entry = {
        name: operand,
        type,
        mode: stat.mode,
        size: stat.size,
        mtime: stat.mtime,
        inode: inodeOf(path, stat),
        target,
      };
    } catch (error) {
      const reason = await missingReason(ctx, path, error);
      stderr += `stat: cannot statx ${shellQuote(operand, utf8)}: ${reason}\n`;
      exitCode = 1;
      continue;
    }
    if (parsed.format === null && !parsed.terse)
      out.text += `  File: ${entry.name}${entry.target === null ? "" : ` -> ${entry.target}`}\n`;
    try {
      expand(format, entry, { escapes: parsed.escapes, zone, utf8, quote: quoteNames }, out);
      if (parsed.newline) out.text += "\n";
    } catch (error) {
      if (!(error instanceof InvalidDirective)) throw error;
      return {
        stdout: out.text,
        stderr: `${stderr}${out.warnings}stat: ${quote(error.message)}: invalid directive\n`,
        exitCode: 1,
      };
    }
  }
  return { stdout: out.text, stderr: stderr + out.warnings, exitCode: out.failed ? 1 : exitCode };
}

export function statCommands(): Command[] {
  return [defineCommand("stat", (args, ctx) => runStat(args, ctx))];
}
