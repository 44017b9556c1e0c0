import { Bash, type Command, defineCommand, type ResolvedCommandContext } from "just-bash";

/**
 * ls is just-bash's, but its long format printed a fixed mode (-rw-r--r--, drwxr-xr-x) whatever
 * the file's: here each long line's mode column is the entry's real one, as GNU ls prints it
 * (chmod +x shows, a symlink is lrwxrwxrwx with its target, setuid/setgid/sticky as s/S/t/T), and
 * a folder's name has no "/" unless -F asks for one.
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
  operands: string[];
}

function options(args: string[]): Options {
  const result: Options = { long: false, directories: false, classify: false, operands: [] };
  let flags = true;
  for (const arg of args) {
    if (flags && arg === "--") flags = false;
    else if (flags && arg.startsWith("-") && !arg.startsWith("--") && arg.length > 1) {
      if (arg.includes("l")) result.long = true;
      if (arg.includes("d")) result.directories = true;
      if (arg.includes("F")) result.classify = true;
    } else if (flags && arg.startsWith("--")) {
      // just-bash's own long options; none changes which entry a line names
    } else result.operands.push(arg);
  }
  return result;
}

async function runLs(args: string[], ctx: ResolvedCommandContext) {
  const result = await builtinLs().execute(args, ctx);
  const parsed = options(args);
  if (!parsed.long || typeof result.stdout !== "string" || result.stdout === "") return result;
  // Which folder the names of a line are in: the one operand folder, else the cwd until a "dir:" header.
  let base = ctx.cwd;
  if (!parsed.directories && parsed.operands.length === 1) {
    const only = ctx.fs.resolvePath(ctx.cwd, parsed.operands[0]!);
    if ((await ctx.fs.stat(only).catch(() => null))?.isDirectory) base = only;
  }
  const lines = result.stdout.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = /^(.+):$/u.exec(line);
    if (header && !LONG_LINE.test(line)) {
      base = ctx.fs.resolvePath(ctx.cwd, header[1]!);
      continue;
    }
    const long = LONG_LINE.exec(line);
    if (!long) continue;
    const shown = long[3]!;
    // just-bash ends a folder's name with "/" even without -F; a name never holds a "/".
    const candidates = [shown];
    if (shown.endsWith("/") || (parsed.classify && /[*@|=]$/u.test(shown)))
      candidates.push(shown.slice(0, -1));
    for (const name of candidates.reverse()) {
      const path = ctx.fs.resolvePath(base, name);
      const stat = await ctx.fs.lstat(path).catch(() => null);
      if (!stat) continue;
      if (stat.isSymbolicLink) {
        const target = await ctx.fs.readlink(path).catch(() => null);
        // -F marks the target as GNU does: a folder "/", an executable "*".
        const to = parsed.classify ? await ctx.fs.stat(path).catch(() => null) : null;
        const mark = to?.isDirectory ? "/" : to && to.mode & 0o111 ? "*" : "";
        lines[i] =
          `${modeColumn("symlink", 0o777)}${long[2]}${name}${target === null ? "" : ` -> ${target}${mark}`}`;
      } else {
        const type = stat.isDirectory ? "directory" : "file";
        lines[i] = `${modeColumn(type, stat.mode)}${long[2]}${parsed.classify ? shown : name}`;
      }
      break;
    }
  }
  return { ...result, stdout: lines.join("\n") };
}

export function lsCommands(): Command[] {
  return [defineCommand("ls", (args, ctx) => runLs(args, ctx))];
}
