import { Bash, type Command, defineCommand, type ResolvedCommandContext } from "just-bash";
import { shellQuote } from "../stat/stat.ts";
import { shellZone, zoned } from "../time-zone.ts";

/**
 * ls is just-bash's, but its long format printed a fixed mode (-rw-r--r--, drwxr-xr-x) whatever
 * the file's: here each long line's mode column is the entry's real one, as GNU ls prints it
 * (chmod +x shows, a symlink is lrwxrwxrwx with its target, setuid/setgid/sticky as s/S/t/T), and
 * a folder's name has no "/" unless -F asks for one. A symlink's line shows the link's own size
 * (its target's length) and time, as GNU's and `stat`'s (just-bash's showed its target's, a dangling
 * one 0 and Jan 1), and every time is in the shell's zone ($TZ, else UTC, as `date` and `stat`;
 * just-bash's was the host's, a browser user's own).
 */

let builtin: Command | undefined;

/** just-bash's own ls (its command table is private: read once from a shell that has only ls). */
function builtinLs(): Command {
  builtin ??= (new Bash({ commands: ["ls"] }) as unknown as { commands: Map<string, Command> }).commands.get(
    "ls",
  );
  if (!builtin) throw new Error("just-bash has no ls command");
  return builtin;
}

/**
 * The size as GNU ls prints it; -h: powers of 1024 (K, M, G, T, P, E), rounded up as GNU's
 * human_ceiling, one decimal below 10 ("2.9K" was just-bash's for 3000 bytes, GNU says "3.0K").
 */
function sizeColumn(size: number, human: boolean): string {
  if (!human || size < 1024) return String(size);
  const units = ["K", "M", "G", "T", "P", "E"];
  let exponent = 1;
  while (exponent < units.length && size >= 1024 ** (exponent + 1)) exponent++;
  const unit = 1024 ** exponent;
  const tenths = Math.ceil((size * 10) / unit);
  if (tenths < 100) return `${Math.floor(tenths / 10)}.${tenths % 10}${units[exponent - 1]}`;
  const whole = Math.ceil(size / unit);
  // Rounded up to 1024 of a unit: one of the next, as GNU ("1.0M").
  if (whole >= 1024 && exponent < units.length) return `1.0${units[exponent]}`;
  return `${whole}${units[exponent - 1]}`;
}

/** Each block of long lines with its size column as wide as its widest size, as GNU pads it. */
function alignSizes(lines: string[]): string[] {
  const LINE = /^([-dl][-rwxsStT]{9} 1 user user) +(\S+) (.*)$/su;
  const out = [...lines];
  let start = 0;
  while (start < out.length) {
    if (!LINE.test(out[start]!)) {
      start++;
      continue;
    }
    let end = start;
    while (end < out.length && LINE.test(out[end]!)) end++;
    const parts = out.slice(start, end).map((line) => LINE.exec(line)!);
    const width = Math.max(...parts.map((part) => part[2]!.length));
    parts.forEach((part, k) => {
      out[start + k] = `${part[1]} ${part[2]!.padStart(width)} ${part[3]}`;
    });
    start = end;
  }
  return out;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * The date column as GNU ls prints it, in `zone`: the time of day for a time within the last six
 * months (GNU's 31556952 / 2 seconds; just-bash's was 180 days), else, in the future too, the year.
 */
export function dateColumn(date: Date, zone: string, now: number): string {
  const [day, time] = zoned(date, zone).fields.split(" ") as [string, string];
  const [year, month, dayOfMonth] = day.split("-") as [string, string, string];
  const head = `${MONTHS[Number(month) - 1]} ${String(Number(dayOfMonth)).padStart(2)}`;
  const at = date.getTime();
  return at > now - (31_556_952 / 2) * 1000 && at <= now
    ? `${head} ${time.slice(0, 5)}`
    : `${head}  ${Number(year)}`;
}

/** A long line as just-bash prints it: mode, links, owner, group, size, date, name. */
const LONG_LINE =
  /^([-dl])[-rwx]{9}( 1 user user +\S+ [A-Z][a-z]{2} [ \d]\d (?:\d\d:\d\d| {1,2}\d{4}) )(.*)$/u;

/** The mode column GNU ls prints for a type and permission bits. */
export function modeColumn(type: "file" | "directory" | "symlink", mode: number): string {
  const bit = (mask: number, char: string) => (mode & mask ? char : "-");
  const exec = (mask: number, special: number, on: string, off: string) =>
    mode & special ? (mode & mask ? on : off) : bit(mask, "x");
  return (
    (type === "directory" ? "d" : type === "symlink" ? "l" : "-") +
    bit(0o400, "r") +
    bit(0o200, "w") +
    exec(0o100, 0o4000, "s", "S") +
    bit(0o040, "r") +
    bit(0o020, "w") +
    exec(0o010, 0o2000, "s", "S") +
    bit(0o004, "r") +
    bit(0o002, "w") +
    exec(0o001, 0o1000, "t", "T")
  );
}

interface Options {
  long: boolean;
  directories: boolean;
  classify: boolean;
  human: boolean;
  /** -t or -S, whichever was given last (GNU's rule). */
  sort: "time" | "size" | null;
  reverse: boolean;
  operands: string[];
}

function options(args: string[]): Options {
  const result: Options = {
    long: false,
    directories: false,
    classify: false,
    human: false,
    sort: null,
    reverse: false,
    operands: [],
  };
  let flags = true;
  for (const arg of args) {
    if (flags && arg === "--") flags = false;
    else if (flags && arg.startsWith("-") && !arg.startsWith("--") && arg.length > 1) {
      if (arg.includes("l")) result.long = true;
      if (arg.includes("d")) result.directories = true;
      if (arg.includes("F")) result.classify = true;
      if (arg.includes("h")) result.human = true;
      // -t and -S: the last given wins, as GNU's
      for (const flag of arg) if (flag === "t" || flag === "S") result.sort = flag === "t" ? "time" : "size";
      if (arg.includes("r")) result.reverse = true;
    } else if (flags && arg.startsWith("--")) {
      if (arg === "--human-readable") result.human = true;
      if (arg === "--reverse") result.reverse = true;
      // just-bash's other long options change no column we rewrite
    } else result.operands.push(arg);
  }
  return result;
}

const SHORT_FLAGS = "aAlhRrSFdt1";
const LONG_FLAGS = [
  "--all",
  "--almost-all",
  "--human-readable",
  "--recursive",
  "--reverse",
  "--classify",
  "--directory",
];

/** The option words and operands of a command line just-bash's ls fully understands, else null. */
function operandsOf(args: string[]): { flags: string[]; operands: string[] } | null {
  const flags: string[] = [];
  const operands: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === "--") options = false;
    else if (options && arg.startsWith("--")) {
      if (!LONG_FLAGS.includes(arg)) return null;
      flags.push(arg);
    } else if (options && arg.startsWith("-") && arg.length > 1) {
      if (![...arg.slice(1)].every((flag) => SHORT_FLAGS.includes(flag))) return null;
      flags.push(arg);
    } else operands.push(arg);
  }
  return { flags, operands };
}

/**
 * Several operands, or one that is a link to a folder, laid out as GNU ls does (just-bash's put a
 * blank line between any two operands and listed a link's folder under -l): the operands that are
 * not folders first, sorted, in one block; then each folder, sorted, under a "name:" header, a
 * blank line between blocks. A link to a folder is listed itself under -l, -d or -F (GNU's
 * default), its folder with a trailing slash. null: just-bash's ls lays it out as GNU does.
 */
async function layOut(args: string[], ctx: ResolvedCommandContext) {
  const line = operandsOf(args);
  if (!line || line.operands.length === 0) return null;
  const { flags, operands } = line;
  const has = (short: string, long: string) =>
    flags.some((flag) => flag === long || (!flag.startsWith("--") && flag.includes(short)));
  // -d lists every operand itself, folders included, in the one block.
  const directories = has("d", "--directory");
  // just-bash globs an operand holding a pattern character itself: left to it.
  if (operands.some((operand) => /[*?[]/u.test(operand))) return null;
  const follow = !has("l", "") && !has("F", "--classify") && !directories;
  const files: { name: string; stat: { size: number; mtime: Date } }[] = [];
  const folders: { name: string; stat: { size: number; mtime: Date } }[] = [];
  let stderr = "";
  let exitCode = 0;
  let linkToFolder = false;
  let dangling = false;
  const locale = ctx.env.get("LC_ALL") || ctx.env.get("LC_CTYPE") || ctx.env.get("LANG") || "";
  for (const name of operands) {
    const path = ctx.fs.resolvePath(ctx.cwd, name);
    const own = await ctx.fs.lstat(path).catch(() => null);
    const target = own?.isSymbolicLink ? await ctx.fs.stat(path).catch(() => null) : own;
    if (!own || (name.endsWith("/") && !target?.isDirectory)) {
      stderr += `ls: cannot access ${shellQuote(name, /utf-?8/iu.test(locale))}: ${own && (!own.isSymbolicLink || target) ? "Not a directory" : "No such file or directory"}\n`;
      exitCode = 2;
      continue;
    }
    if (own.isSymbolicLink && target?.isDirectory && !follow && !name.endsWith("/")) linkToFolder = true;
    if (own.isSymbolicLink && !target) dangling = true;
    const folder =
      !directories && target?.isDirectory === true && (!own.isSymbolicLink || follow || name.endsWith("/"));
    // sorted by what is listed: a followed link's folder, else the entry itself (a link's own time)
    (folder ? folders : files).push({ name, stat: folder && target ? target : own });
  }
  if (operands.length === 1 && !linkToFolder && !dangling && exitCode === 0) return null;
  // GNU's order in the C locale: by name in bytes, -t newest and -S largest first, -r reversed.
  // -t and -S: the last given wins, as GNU's
  const last = flags
    .filter((flag) => !flag.startsWith("--"))
    .join("")
    .replace(/[^tS]/gu, "")
    .slice(-1);
  const byTime = last === "t";
  const bySize = last === "S";
  const reverse = has("r", "--reverse");
  const order = (a: (typeof files)[number], b: (typeof files)[number]) => {
    const key = bySize
      ? b.stat.size - a.stat.size
      : byTime
        ? b.stat.mtime.getTime() - a.stat.mtime.getTime()
        : 0;
    const byName = Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
    return (key || byName) * (reverse ? -1 : 1);
  };
  files.sort(order);
  folders.sort(order);
  let stdout = "";
  const run = async (more: string[]) => {
    const result = await builtinLs().execute([...flags, ...more], ctx);
    stderr += result.stderr ?? "";
    if (result.exitCode !== 0) exitCode = result.exitCode;
    return typeof result.stdout === "string" ? result.stdout : "";
  };
  const long = has("l", "");
  for (const file of files) {
    const path = ctx.fs.resolvePath(ctx.cwd, file.name);
    if (!(await ctx.fs.stat(path).catch(() => null))) {
      // A dangling link: GNU lists it, just-bash's (which follows it) cannot; a long line in
      // just-bash's layout, which the long format below rewrites as the link's.
      const mark = has("F", "--classify") ? "@" : "";
      stdout += long ? `-rw-r--r-- 1 user user     0 Jan  1 00:00 ${file.name}\n` : `${file.name}${mark}\n`;
      continue;
    }
    stdout += await run(directories ? ["--", file.name] : ["-d", "--", file.name]);
  }
  const recursive = has("R", "--recursive");
  for (const folder of folders) {
    const listing = await run(["--", folder.name]);
    if (stdout) stdout += "\n";
    // With -R just-bash heads the folder itself; GNU heads every folder when more than one operand is given.
    const headed = recursive || operands.length > 1;
    stdout += headed && !listing.startsWith(`${folder.name}:\n`) ? `${folder.name}:\n${listing}` : listing;
  }
  return { stdout, stderr, exitCode };
}

/** Each run of consecutive entries newest first, equal times by name (in bytes), -r reversed: GNU's -t. */
type SortKey = { name: string; time: number; size: number; blocks: number };

/**
 * Each run of consecutive entries sorted as GNU's -t (newest first) or -S (largest first), equal
 * ones by name in bytes, -r reversed.
 */
function sortRuns(lines: string[], keys: (SortKey | undefined)[], by: "time" | "size", reverse: boolean) {
  let start = 0;
  while (start < lines.length) {
    if (!keys[start]) {
      start++;
      continue;
    }
    let end = start;
    while (end < lines.length && keys[end]) end++;
    const run = lines.slice(start, end).map((line, k) => ({ line, key: keys[start + k]! }));
    run.sort(
      (a, b) =>
        ((by === "time" ? b.key.time - a.key.time : b.key.size - a.key.size) ||
          Buffer.compare(Buffer.from(a.key.name), Buffer.from(b.key.name))) * (reverse ? -1 : 1),
    );
    run.forEach((entry, k) => {
      lines[start + k] = entry.line;
    });
    start = end;
  }
}

async function runLs(args: string[], ctx: ResolvedCommandContext) {
  const laidOut = await layOut(args, ctx);
  const result = laidOut ?? (await builtinLs().execute(args, ctx));
  const parsed = options(args);
  // just-bash's ls takes -t and sorts a folder's entries by name all the same, and -S by a link's
  // target's size: they are sorted here.
  const sortBy = parsed.directories ? null : parsed.sort;
  if ((!parsed.long && !sortBy) || typeof result.stdout !== "string" || result.stdout === "") return result;
  // Which folder the names of a line are in: the one operand folder, else the cwd until a "dir:" header.
  let base = ctx.cwd;
  if (!laidOut && !parsed.directories && parsed.operands.length === 1) {
    const only = ctx.fs.resolvePath(ctx.cwd, parsed.operands[0]!);
    if ((await ctx.fs.stat(only).catch(() => null))?.isDirectory) base = only;
  }
  const zone = shellZone(ctx);
  const now = Date.now();
  // Owner, group and links as just-bash's; size and time the entry's own (a link's, not its target's).
  const middle = (stat: { size: number; mtime: Date }) =>
    ` 1 user user ${sizeColumn(stat.size, parsed.human)} ${dateColumn(stat.mtime, zone, now)} `;
  const lines = result.stdout.split("\n");
  const keys: (SortKey | undefined)[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = /^(.+):$/u.exec(line);
    if (header && !LONG_LINE.test(line)) {
      base = ctx.fs.resolvePath(ctx.cwd, header[1]!);
      continue;
    }
    const long = LONG_LINE.exec(line);
    if (!long) {
      if (!sortBy || parsed.long || line === "") continue;
      // A name alone (with -F its mark): its time, to sort by.
      const candidates = parsed.classify && /[*@|=/]$/u.test(line) ? [line.slice(0, -1), line] : [line];
      for (const name of candidates) {
        const stat = await ctx.fs.lstat(ctx.fs.resolvePath(base, name)).catch(() => null);
        if (!stat) continue;
        keys[i] = { name, time: stat.mtime.getTime(), size: stat.size, blocks: 0 };
        break;
      }
      continue;
    }
    const shown = long[3]!;
    // just-bash ends a folder's name with "/" even without -F; a name never holds a "/".
    const candidates = [shown];
    if (shown.endsWith("/") || (parsed.classify && /[*@|=]$/u.test(shown)))
      candidates.push(shown.slice(0, -1));
    for (const name of candidates.reverse()) {
      const path = ctx.fs.resolvePath(base, name);
      // An operand ending in "/" names what it leads to (a link's folder), as GNU lists it.
      const stat = await (name.endsWith("/") ? ctx.fs.stat(path) : ctx.fs.lstat(path)).catch(() => null);
      if (!stat) continue;
      // 1 KiB blocks as stat's %b and du count them: a file's size rounded up, none for a folder or link
      const blocks = stat.isFile ? Math.ceil(stat.size / 1024) : 0;
      keys[i] = { name, time: stat.mtime.getTime(), size: stat.size, blocks };
      if (stat.isSymbolicLink) {
        const target = await ctx.fs.readlink(path).catch(() => null);
        // -F marks the target as GNU does: a folder "/", an executable "*".
        const to = parsed.classify ? await ctx.fs.stat(path).catch(() => null) : null;
        const mark = to?.isDirectory ? "/" : to && to.mode & 0o111 ? "*" : "";
        lines[i] =
          `${modeColumn("symlink", 0o777)}${middle(stat)}${name}${target === null ? "" : ` -> ${target}${mark}`}`;
      } else {
        const type = stat.isDirectory ? "directory" : "file";
        lines[i] = `${modeColumn(type, stat.mode)}${middle(stat)}${parsed.classify ? shown : name}`;
      }
      break;
    }
  }
  if (parsed.long) {
    // "total": the blocks of the entries listed below it, as GNU's (just-bash's counted the entries)
    for (let i = 0; i < lines.length; i++) {
      if (!/^total \d+$/u.test(lines[i]!)) continue;
      let blocks = 0;
      for (let k = i + 1; k < lines.length && keys[k]; k++) blocks += keys[k]!.blocks;
      lines[i] = `total ${parsed.human ? sizeColumn(blocks * 1024, true) : blocks}`;
    }
  }
  if (sortBy) sortRuns(lines, keys, sortBy, parsed.reverse);
  return { ...result, stdout: (parsed.long ? alignSizes(lines) : lines).join("\n") };
}

export function lsCommands(): Command[] {
  return [defineCommand("ls", (args, ctx) => runLs(args, ctx))];
}
