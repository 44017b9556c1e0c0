import { type Command, defineCommand, type ResolvedCommandContext } from "just-bash";
import {
  type CommandResult,
  Poll,
  STOP_EXIT,
  type StopCheck,
  Stopped,
  shellStopCheck,
  splitLines,
  stdinText,
  stopMessage,
} from "../command-io.ts";
import { execPosix, linearRegex, loadLinearEngine, testPosix } from "../regex/linear.ts";
import {
  compilePosixRegex,
  type PosixRegex,
  type RegexDialect,
  RegexSyntaxError,
} from "../regex/posix-regex.ts";

/**
 * grep as GNU grep 3.8 behaves: BRE (-G, default), ERE (-E), fixed strings (-F) and JavaScript
 * regexes for -P; -i -v -w -x -c -l -L -o -q -s -n -b -H -h -m -A -B -C -r, --include/--exclude.
 * Exit status 0 when a line was selected, 1 when none was, 2 on an error. BRE, ERE and -F run on
 * Rust's linear regex engine (regex/linear.ts), so no pattern runs away on a line; a pattern with
 * a back-reference has no linear engine and runs on JavaScript's, stopped between lines only.
 */

export interface GrepOptions {
  dialect: RegexDialect | "perl";
  ignoreCase: boolean;
  invert: boolean;
  wordRegexp: boolean;
  lineRegexp: boolean;
  count: boolean;
  filesWithMatches: boolean;
  filesWithoutMatch: boolean;
  onlyMatching: boolean;
  quiet: boolean;
  noMessages: boolean;
  lineNumber: boolean;
  byteOffset: boolean;
  withFilename: boolean | null;
  maxCount: number;
  after: number;
  before: number;
  recursive: boolean;
  include: string[];
  exclude: string[];
  excludeDir: string[];
  nullAfterName: boolean;
  text: boolean;
  label: string;
}

export function defaultGrepOptions(): GrepOptions {
  return {
    dialect: "basic",
    ignoreCase: false,
    invert: false,
    wordRegexp: false,
    lineRegexp: false,
    count: false,
    filesWithMatches: false,
    filesWithoutMatch: false,
    onlyMatching: false,
    quiet: false,
    noMessages: false,
    lineNumber: false,
    byteOffset: false,
    withFilename: null,
    maxCount: Number.POSITIVE_INFINITY,
    after: 0,
    before: 0,
    recursive: false,
    include: [],
    exclude: [],
    excludeDir: [],
    nullAfterName: false,
    text: false,
    label: "(standard input)",
  };
}

/** A compiled grep pattern list: a line matches when any pattern does. */
export class GrepMatcher {
  private readonly regexes: PosixRegex[];
  private readonly perl: RegExp[];
  private readonly matchesEverything: boolean;

  /** The regex engine must be loaded first (loadLinearEngine). */
  constructor(
    patterns: string[],
    options: Pick<GrepOptions, "dialect" | "ignoreCase" | "wordRegexp" | "lineRegexp">,
  ) {
    this.regexes = [];
    this.perl = [];
    this.matchesEverything = false;
    for (const pattern of patterns) {
      if (options.dialect === "perl") {
        let source = pattern;
        if (options.lineRegexp) source = `^(?:${source})$`;
        else if (options.wordRegexp) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
        try {
          this.perl.push(new RegExp(source, `gu${options.ignoreCase ? "i" : ""}`));
        } catch (error) {
          throw new RegexSyntaxError(
            (error as Error).message.replace(/^Invalid regular expression: /u, ""),
            0,
          );
        }
        continue;
      }
      const re = compilePosixRegex(pattern, {
        dialect: options.dialect,
        ignoreCase: options.ignoreCase,
        wholeWord: options.wordRegexp,
        wholeLine: options.lineRegexp,
      });
      if (re.twoReadings) {
        // GNU grep's answer follows its dfa or glibc's matcher, which disagree here: said, not guessed.
        throw new RegexSyntaxError(
          `'${pattern}': GNU grep reads a quantifier after an anchor (^* $+ \\<*) or a "{" starting an expression two ways (escape it, or drop it)`,
          0,
        );
      }
      // Compiled for Rust's engine now, so a pattern too big for it is an error before any line.
      linearRegex(re);
      this.regexes.push(re);
    }
  }

  /** Whether a pattern runs on JavaScript's backtracking engine (a back-reference, -P). */
  get backtracks(): boolean {
    return this.perl.length > 0 || this.regexes.some((re) => re.hasBackrefs);
  }

  /** False when no line of `text` can match any pattern (one pass per pattern over a file). */
  mayMatchLines(text: string): boolean {
    if (this.matchesEverything || this.perl.length > 0) return true;
    return this.regexes.some((re) => linearRegex(re)?.mayMatchLines(text) ?? true);
  }

  test(line: string): boolean {
    if (this.matchesEverything) return true;
    for (const re of this.regexes) if (testPosix(re, line)) return true;
    for (const re of this.perl) {
      re.lastIndex = 0;
      if (re.test(line)) return true;
    }
    return false;
  }

  /** Non-empty matches left to right, each the leftmost-longest over all patterns (grep -o). */
  matches(line: string): { index: number; end: number }[] {
    const found: { index: number; end: number }[] = [];
    let from = 0;
    while (from <= line.length) {
      let best: { index: number; end: number } | null = null;
      for (const re of this.regexes) {
        const match = execPosix(re, line, from);
        if (
          match &&
          (!best || match.index < best.index || (match.index === best.index && match.end > best.end))
        ) {
          best = { index: match.index, end: match.end };
        }
      }
      for (const re of this.perl) {
        re.lastIndex = from;
        const match = re.exec(line);
        if (match) {
          const end = match.index + match[0].length;
          if (!best || match.index < best.index || (match.index === best.index && end > best.end)) {
            best = { index: match.index, end };
          }
        }
      }
      if (!best) break;
      if (best.end === best.index) {
        from = best.index + ((line.codePointAt(best.index) ?? 0) > 0xffff ? 2 : 1);
        continue;
      }
      found.push(best);
      from = best.end;
    }
    return found;
  }
}

/** Lines of `text` the pattern selects, 1-based: what the sandboxed grep tool returns. */
export async function grepLines(
  text: string,
  pattern: string,
  options: Partial<GrepOptions> = {},
  stop?: StopCheck,
): Promise<{ line: number; text: string }[]> {
  await loadLinearEngine();
  const settings = { ...defaultGrepOptions(), ...options };
  const matcher = new GrepMatcher(splitPatterns(pattern), settings);
  const poll = new Poll(stop);
  const selected: { line: number; text: string }[] = [];
  const anywhere = matcher.mayMatchLines(text);
  splitLines(text).lines.forEach((line, k) => {
    poll.tick();
    if ((anywhere && matcher.test(line)) !== settings.invert) selected.push({ line: k + 1, text: line });
  });
  return selected;
}

/** grep reads a pattern with newlines as several patterns. */
function splitPatterns(pattern: string): string[] {
  return pattern.split("\n");
}

interface Output {
  out: string[];
  err: string[];
}

/** Runs grep over one input; returns how many lines were selected. */
function grepOne(
  name: string,
  text: string,
  matcher: GrepMatcher,
  options: GrepOptions,
  showName: boolean,
  output: Output,
  poll: Poll,
): number {
  const { lines } = splitLines(text);
  const binary = !options.text && text.includes("\0");
  const separator = (selected: boolean) => (selected ? ":" : "-");
  const prefix = (index: number, offset: number, selected: boolean) => {
    let head = "";
    if (showName) head += options.nullAfterName ? `${name}\0` : `${name}${separator(selected)}`;
    if (options.lineNumber) head += `${index + 1}${separator(selected)}`;
    if (options.byteOffset) head += `${offset}${separator(selected)}`;
    return head;
  };
  // Byte offsets (-b) only when printed: encoding every line costs more than matching it.
  const offsets: number[] = [];
  if (options.byteOffset) {
    const encoder = new TextEncoder();
    let offset = 0;
    for (const line of lines) {
      offsets.push(offset);
      offset += encoder.encode(line).length + 1;
    }
  }
  // A file where no line can match needs no line tested (most files of a grep -r).
  const anywhere = matcher.mayMatchLines(text);
  let selectedCount = 0;
  let lastPrinted = -1;
  let pendingAfter = 0;
  const printLines =
    !options.count && !options.filesWithMatches && !options.filesWithoutMatch && !options.quiet;
  for (let index = 0; index < lines.length; index++) {
    poll.tick();
    if (selectedCount >= options.maxCount) {
      // GNU prints trailing context after the last counted match.
      if (pendingAfter > 0 && printLines && !binary) {
        output.out.push(`${prefix(index, offsets[index] ?? 0, false)}${lines[index]}\n`);
        lastPrinted = index;
        pendingAfter--;
        continue;
      }
      break;
    }
    const line = lines[index]!;
    const selected = (anywhere && matcher.test(line)) !== options.invert;
    if (!selected) {
      if (pendingAfter > 0 && printLines && !binary) {
        output.out.push(`${prefix(index, offsets[index] ?? 0, false)}${line}\n`);
        lastPrinted = index;
        pendingAfter--;
      }
      continue;
    }
    selectedCount++;
    if (!printLines || binary) {
      if (options.quiet || options.filesWithMatches) break;
      continue;
    }
    const contextStart = Math.max(0, index - options.before, lastPrinted + 1);
    if ((options.before > 0 || options.after > 0) && lastPrinted >= 0 && contextStart > lastPrinted + 1) {
      output.out.push("--\n");
    }
    for (let k = contextStart; k < index; k++) {
      output.out.push(`${prefix(k, offsets[k] ?? 0, false)}${lines[k]}\n`);
    }
    if (options.onlyMatching) {
      if (!options.invert) {
        for (const match of matcher.matches(line)) {
          const byteStart =
            (offsets[index] ?? 0) + new TextEncoder().encode(line.slice(0, match.index)).length;
          output.out.push(`${prefix(index, byteStart, true)}${line.slice(match.index, match.end)}\n`);
        }
      }
    } else {
      output.out.push(`${prefix(index, offsets[index] ?? 0, true)}${line}\n`);
    }
    lastPrinted = index;
    pendingAfter = options.after;
  }
  if (options.count) {
    output.out.push(
      showName ? `${name}${options.nullAfterName ? "\0" : ":"}${selectedCount}\n` : `${selectedCount}\n`,
    );
  }
  if (options.filesWithMatches && selectedCount > 0)
    output.out.push(`${name}${options.nullAfterName ? "\0" : "\n"}`);
  if (options.filesWithoutMatch && selectedCount === 0)
    output.out.push(`${name}${options.nullAfterName ? "\0" : "\n"}`);
  if (binary && selectedCount > 0 && printLines) output.err.push(`grep: ${name}: binary file matches\n`);
  return selectedCount;
}

class UsageError extends Error {}

/** Parses grep's command line (GNU's short and long options). */
export function parseGrepArgs(args: string[]): {
  options: GrepOptions;
  patterns: string[] | null;
  patternFiles: string[];
  files: string[];
} {
  const options = defaultGrepOptions();
  let patterns: string[] | null = null;
  const patternFiles: string[] = [];
  const files: string[] = [];
  const addPattern = (pattern: string) => {
    patterns = [...(patterns ?? []), ...splitPatterns(pattern)];
  };
  const number = (value: string | undefined, what: string) => {
    if (value === undefined || !/^[0-9]+$/u.test(value))
      throw new UsageError(`grep: ${value ?? ""}: invalid ${what} argument`);
    return Number(value);
  };
  const long: Record<string, (value: string | undefined) => void> = {
    "extended-regexp": () => (options.dialect = "extended"),
    "basic-regexp": () => (options.dialect = "basic"),
    "fixed-strings": () => (options.dialect = "fixed"),
    "perl-regexp": () => (options.dialect = "perl"),
    "ignore-case": () => (options.ignoreCase = true),
    "no-ignore-case": () => (options.ignoreCase = false),
    "invert-match": () => (options.invert = true),
    "word-regexp": () => (options.wordRegexp = true),
    "line-regexp": () => (options.lineRegexp = true),
    count: () => (options.count = true),
    "files-with-matches": () => (options.filesWithMatches = true),
    "files-without-match": () => (options.filesWithoutMatch = true),
    "only-matching": () => (options.onlyMatching = true),
    quiet: () => (options.quiet = true),
    silent: () => (options.quiet = true),
    "no-messages": () => (options.noMessages = true),
    "line-number": () => (options.lineNumber = true),
    "byte-offset": () => (options.byteOffset = true),
    "with-filename": () => (options.withFilename = true),
    "no-filename": () => (options.withFilename = false),
    recursive: () => (options.recursive = true),
    "dereference-recursive": () => (options.recursive = true),
    null: () => (options.nullAfterName = true),
    text: () => (options.text = true),
    "max-count": (value) => (options.maxCount = number(value, "max count")),
    "after-context": (value) => (options.after = number(value, "context length")),
    "before-context": (value) => (options.before = number(value, "context length")),
    context: (value) => (options.after = options.before = number(value, "context length")),
    regexp: (value) => addPattern(value ?? ""),
    file: (value) => patternFiles.push(value ?? ""),
    include: (value) => options.include.push(value ?? ""),
    exclude: (value) => options.exclude.push(value ?? ""),
    "exclude-dir": (value) => options.excludeDir.push(value ?? ""),
    label: (value) => (options.label = value ?? ""),
    color: () => undefined,
    colour: () => undefined,
    "line-buffered": () => undefined,
    binary: () => undefined,
  };
  const needsValue = new Set([
    "max-count",
    "after-context",
    "before-context",
    "context",
    "regexp",
    "file",
    "include",
    "exclude",
    "exclude-dir",
    "label",
  ]);
  const shortFlags: Record<string, string> = {
    E: "extended-regexp",
    G: "basic-regexp",
    F: "fixed-strings",
    P: "perl-regexp",
    i: "ignore-case",
    y: "ignore-case",
    v: "invert-match",
    w: "word-regexp",
    x: "line-regexp",
    c: "count",
    l: "files-with-matches",
    L: "files-without-match",
    o: "only-matching",
    q: "quiet",
    s: "no-messages",
    n: "line-number",
    b: "byte-offset",
    H: "with-filename",
    h: "no-filename",
    r: "recursive",
    R: "recursive",
    Z: "null",
    a: "text",
    I: "binary",
    U: "binary",
    m: "max-count",
    A: "after-context",
    B: "before-context",
    C: "context",
    e: "regexp",
    f: "file",
  };
  let i = 0;
  let endOfOptions = false;
  while (i < args.length) {
    const arg = args[i++]!;
    if (endOfOptions || arg === "-" || !arg.startsWith("-")) {
      files.push(arg);
      continue;
    }
    if (arg === "--") {
      endOfOptions = true;
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      const handler = long[name];
      if (!handler) throw new UsageError(`grep: unrecognized option '${arg}'`);
      let value = eq >= 0 ? arg.slice(eq + 1) : undefined;
      if (value === undefined && needsValue.has(name)) {
        if (i >= args.length) throw new UsageError(`grep: option '--${name}' requires an argument`);
        value = args[i++];
      }
      handler(value);
      continue;
    }
    for (let k = 1; k < arg.length; k++) {
      const flag = arg[k]!;
      if (/[0-9]/u.test(flag)) {
        const digits = /^[0-9]+/u.exec(arg.slice(k))![0];
        options.after = options.before = Number(digits);
        k += digits.length - 1;
        continue;
      }
      const name = shortFlags[flag];
      if (!name) throw new UsageError(`grep: invalid option -- '${flag}'`);
      if (needsValue.has(name)) {
        let value = arg.slice(k + 1);
        if (value === "") {
          if (i >= args.length) throw new UsageError(`grep: option requires an argument -- '${flag}'`);
          value = args[i++]!;
        }
        long[name]!(value);
        break;
      }
      long[name]!(undefined);
    }
  }
  if (patterns === null && patternFiles.length === 0) {
    const first = files.shift();
    if (first === undefined) throw new UsageError("Usage: grep [OPTION]... PATTERNS [FILE]...");
    addPattern(first);
  }
  return { options, patterns, patternFiles, files };
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const char of glob) {
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[\\^$.+()[\]{}|]/gu, "\\$&");
  }
  return new RegExp(`^${source}$`, "u");
}

/** The files a recursive grep reads under `path`, in GNU's order (directory order, sorted here). */
async function walk(
  ctx: ResolvedCommandContext,
  path: string,
  shown: string,
  options: GrepOptions,
  out: string[],
) {
  const absolute = ctx.fs.resolvePath(ctx.cwd, path);
  const stat = await ctx.fs.stat(absolute);
  if (!stat.isDirectory) {
    out.push(shown);
    return;
  }
  const names = (await ctx.fs.readdir(absolute)).sort();
  for (const name of names) {
    const child = `${shown.replace(/\/$/u, "")}/${name}`;
    const childAbsolute = `${absolute.replace(/\/$/u, "")}/${name}`;
    const childStat = await ctx.fs.lstat(childAbsolute);
    if (childStat.isDirectory) {
      if (options.excludeDir.some((glob) => globToRegExp(glob).test(name))) continue;
      await walk(ctx, child, child, options, out);
    } else if (childStat.isFile) {
      if (options.include.length > 0 && !options.include.some((glob) => globToRegExp(glob).test(name)))
        continue;
      if (options.exclude.some((glob) => globToRegExp(glob).test(name))) continue;
      out.push(child);
    }
  }
}

export async function runGrep(
  args: string[],
  ctx: ResolvedCommandContext,
  dialect?: RegexDialect,
): Promise<CommandResult> {
  let parsed: ReturnType<typeof parseGrepArgs>;
  try {
    parsed = parseGrepArgs(dialect === undefined ? args : [dialect === "extended" ? "-E" : "-F", ...args]);
  } catch (error) {
    if (error instanceof UsageError) {
      return {
        stdout: "",
        stderr: `${error.message}\nUsage: grep [OPTION]... PATTERNS [FILE]...\n`,
        exitCode: 2,
      };
    }
    throw error;
  }
  const { options, patternFiles } = parsed;
  let patterns = parsed.patterns ?? [];
  for (const file of patternFiles) {
    try {
      const text =
        file === "-"
          ? stdinText(ctx)
          : new TextDecoder().decode(await ctx.fs.readFileBuffer(ctx.fs.resolvePath(ctx.cwd, file)));
      patterns = [...patterns, ...splitLines(text).lines];
    } catch {
      return { stdout: "", stderr: `grep: ${file}: No such file or directory\n`, exitCode: 2 };
    }
  }
  let matcher: GrepMatcher;
  try {
    await loadLinearEngine();
    matcher = new GrepMatcher(patterns, options);
  } catch (error) {
    if (error instanceof RegexSyntaxError)
      return { stdout: "", stderr: `grep: ${error.gnuMessage}\n`, exitCode: 2 };
    throw error;
  }
  let files = parsed.files;
  if (files.length === 0) files = options.recursive ? ["."] : ["-"];
  const output: Output = { out: [], err: [] };
  let troubled = false;
  const inputs: string[] = [];
  if (options.recursive) {
    for (const file of files) {
      if (file === "-") {
        inputs.push(file);
        continue;
      }
      try {
        await walk(ctx, file, file, options, inputs);
      } catch {
        if (!options.noMessages) output.err.push(`grep: ${file}: No such file or directory\n`);
        troubled = true;
      }
    }
    if (parsed.files.length === 0) {
      for (let k = 0; k < inputs.length; k++) inputs[k] = inputs[k]!.replace(/^\.\//u, "");
    }
  } else inputs.push(...files);
  const showName = options.withFilename ?? (inputs.length > 1 || options.recursive);
  // JavaScript's backtracking engine may spend long on one line: ask about stopping after each.
  const poll = new Poll(shellStopCheck(ctx), matcher.backtracks ? 1 : 1000);
  let selected = 0;
  try {
    for (const input of inputs) {
      let text: string;
      let name = input;
      if (input === "-") {
        text = stdinText(ctx);
        name = options.label;
      } else {
        const path = ctx.fs.resolvePath(ctx.cwd, input);
        try {
          const stat = await ctx.fs.stat(path);
          if (stat.isDirectory) {
            if (!options.noMessages) output.err.push(`grep: ${input}: Is a directory\n`);
            continue;
          }
          text = new TextDecoder().decode(await ctx.fs.readFileBuffer(path));
        } catch {
          if (!options.noMessages) output.err.push(`grep: ${input}: No such file or directory\n`);
          troubled = true;
          continue;
        }
      }
      selected += grepOne(name, text, matcher, options, showName, output, poll);
      if (options.quiet && selected > 0) break;
    }
  } catch (error) {
    // A pattern too big to finish on this text (regex/linear.ts) is said, after what was printed.
    if (error instanceof RegexSyntaxError)
      return {
        stdout: output.out.join(""),
        stderr: `${output.err.join("")}grep: ${error.gnuMessage}\n`,
        exitCode: 2,
      };
    if (!(error instanceof Stopped)) throw error;
    return {
      stdout: output.out.join(""),
      stderr: output.err.join("") + stopMessage("grep", error.reason),
      exitCode: STOP_EXIT[error.reason],
    };
  }
  const exitCode = options.quiet && selected > 0 ? 0 : troubled ? 2 : selected > 0 ? 0 : 1;
  return { stdout: output.out.join(""), stderr: output.err.join(""), exitCode };
}

export function grepCommands(): Command[] {
  return [
    defineCommand("grep", (args, ctx) => runGrep(args, ctx)),
    defineCommand("egrep", (args, ctx) => runGrep(args, ctx, "extended")),
    defineCommand("fgrep", (args, ctx) => runGrep(args, ctx, "fixed")),
  ];
}
