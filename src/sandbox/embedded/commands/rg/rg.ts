import ignore, { type Ignore } from "ignore";
import { type Command, defineCommand, type ResolvedCommandContext } from "just-bash";
import { type Hir, literalBytes, loadRustRegex, walkHir } from "../../../../tools/rust-regex.ts";
import {
  type CommandResult,
  Poll,
  STOP_EXIT,
  Stopped,
  shellStopCheck,
  stdinIsPiped,
  stdinText,
  stopMessage,
} from "../command-io.ts";

/**
 * rg as ripgrep 13 prints when stdout is not a terminal, on ripgrep's own regex engine (Rust's
 * regex crate, as the search tools use): files under the paths in name order, hidden files and
 * what .gitignore/.ignore/.rgignore say skipped, binary files (a NUL byte) skipped in a walk.
 * Options it does not know fail with exit 2 rather than being ignored.
 */

interface RgOptions {
  patterns: string[];
  caseMode: "sensitive" | "insensitive" | "smart";
  word: boolean;
  line: boolean;
  fixed: boolean;
  invert: boolean;
  lineNumber: boolean | null;
  filesWithMatches: boolean;
  count: boolean;
  files: boolean;
  globs: string[];
  hidden: boolean;
  noIgnore: boolean;
  after: number;
  before: number;
  onlyMatching: boolean;
  maxCount: number;
  quiet: boolean;
  heading: boolean;
  withFilename: boolean | null;
  paths: string[];
}

class UsageError extends Error {}

const unsupported = (option: string) =>
  new UsageError(`rg: option ${option} is not supported in this sandbox`);

function count(option: string, value: string | undefined): number {
  if (value === undefined) throw new UsageError(`rg: option ${option} needs a value`);
  if (!/^\d+$/u.test(value))
    throw new UsageError(`rg: invalid value "${value}" for ${option}: a number is expected`);
  return Number(value);
}

export function parseRgArgs(args: string[]): RgOptions {
  const o: RgOptions = {
    patterns: [],
    caseMode: "sensitive",
    word: false,
    line: false,
    fixed: false,
    invert: false,
    lineNumber: null,
    filesWithMatches: false,
    count: false,
    files: false,
    globs: [],
    hidden: false,
    noIgnore: false,
    after: 0,
    before: 0,
    onlyMatching: false,
    maxCount: Number.POSITIVE_INFINITY,
    quiet: false,
    heading: false,
    withFilename: null,
    paths: [],
  };
  const positional: string[] = [];
  let unrestricted = 0;
  let contextA: number | null = null;
  let contextB: number | null = null;
  let contextC = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq >= 0 ? arg.slice(0, eq) : arg;
      const inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
      const value = () => inline ?? args[++i];
      switch (name) {
        case "--ignore-case":
          o.caseMode = "insensitive";
          break;
        case "--smart-case":
          o.caseMode = "smart";
          break;
        case "--case-sensitive":
          o.caseMode = "sensitive";
          break;
        case "--word-regexp":
          o.word = true;
          o.line = false; // -w and -x: the last one given wins, as in ripgrep
          break;
        case "--line-regexp":
          o.line = true;
          o.word = false;
          break;
        case "--fixed-strings":
          o.fixed = true;
          break;
        case "--invert-match":
          o.invert = true;
          break;
        case "--line-number":
          o.lineNumber = true;
          break;
        case "--no-line-number":
          o.lineNumber = false;
          break;
        case "--files-with-matches":
          o.filesWithMatches = true;
          break;
        case "--count":
          o.count = true;
          break;
        case "--files":
          o.files = true;
          break;
        case "--glob": {
          const v = value();
          if (v === undefined) throw new UsageError("rg: option --glob needs a value");
          o.globs.push(v);
          break;
        }
        case "--hidden":
          o.hidden = true;
          break;
        case "--no-ignore":
          o.noIgnore = true;
          break;
        case "--after-context":
          contextA = count(name, value());
          break;
        case "--before-context":
          contextB = count(name, value());
          break;
        case "--context":
          contextC = count(name, value());
          break;
        case "--only-matching":
          o.onlyMatching = true;
          break;
        case "--regexp": {
          const v = value();
          if (v === undefined) throw new UsageError("rg: option --regexp needs a value");
          o.patterns.push(v);
          break;
        }
        case "--max-count":
          o.maxCount = count(name, value());
          break;
        case "--quiet":
          o.quiet = true;
          break;
        case "--heading":
          o.heading = true;
          break;
        case "--no-heading":
          o.heading = false;
          break;
        case "--with-filename":
          o.withFilename = true;
          break;
        case "--no-filename":
          o.withFilename = false;
          break;
        // What ripgrep prints to a pipe anyway: no colour, files in path order (ours always are).
        case "--color":
        case "--colour": {
          const v = value();
          if (v !== "never" && v !== "auto") throw unsupported(`${name}=${v ?? ""}`);
          break;
        }
        case "--sort": {
          const v = value();
          if (v !== "path" && v !== "none") throw unsupported(`${name}=${v ?? ""}`);
          break;
        }
        default:
          throw unsupported(name);
      }
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") {
      for (let k = 1; k < arg.length; k++) {
        const flag = arg[k]!;
        const rest = arg.slice(k + 1);
        const takeValue = () => {
          k = arg.length;
          return rest !== "" ? rest : args[++i];
        };
        switch (flag) {
          case "i":
            o.caseMode = "insensitive";
            break;
          case "S":
            o.caseMode = "smart";
            break;
          case "s":
            o.caseMode = "sensitive";
            break;
          case "w":
            o.word = true;
            o.line = false; // -w and -x: the last one given wins, as in ripgrep
            break;
          case "x":
            o.line = true;
            o.word = false;
            break;
          case "F":
            o.fixed = true;
            break;
          case "v":
            o.invert = true;
            break;
          case "n":
            o.lineNumber = true;
            break;
          case "N":
            o.lineNumber = false;
            break;
          case "l":
            o.filesWithMatches = true;
            break;
          case "c":
            o.count = true;
            break;
          case "o":
            o.onlyMatching = true;
            break;
          case "q":
            o.quiet = true;
            break;
          case "H":
            o.withFilename = true;
            break;
          case "u":
            unrestricted++;
            break;
          case "A":
            contextA = count("-A", takeValue());
            break;
          case "B":
            contextB = count("-B", takeValue());
            break;
          case "C":
            contextC = count("-C", takeValue());
            break;
          case "m":
            o.maxCount = count("-m", takeValue());
            break;
          case "g": {
            const v = takeValue();
            if (v === undefined) throw new UsageError("rg: option -g needs a value");
            o.globs.push(v);
            break;
          }
          case "e": {
            const v = takeValue();
            if (v === undefined) throw new UsageError("rg: option -e needs a value");
            o.patterns.push(v);
            break;
          }
          default:
            throw unsupported(`-${flag}`);
        }
      }
      continue;
    }
    positional.push(arg);
  }
  if (unrestricted >= 3) throw unsupported("-uuu");
  if (unrestricted >= 1) o.noIgnore = true;
  if (unrestricted >= 2) o.hidden = true;
  o.after = contextA ?? contextC;
  o.before = contextB ?? contextC;
  if (!o.files && o.patterns.length === 0) {
    const pattern = positional.shift();
    if (pattern === undefined)
      throw new UsageError("rg: no pattern given (usage: rg [OPTIONS] PATTERN [PATH ...])");
    o.patterns.push(pattern);
  }
  o.paths = positional;
  // Combinations whose exact output we have not held to ripgrep's are refused, not guessed.
  if (o.word && o.onlyMatching) throw unsupported("-w together with -o");
  if (o.onlyMatching && o.invert) throw unsupported("-o together with -v");
  if (o.onlyMatching && (o.after > 0 || o.before > 0))
    throw unsupported("-o together with context (-A/-B/-C)");
  if (o.heading && (o.after > 0 || o.before > 0))
    throw unsupported("--heading together with context (-A/-B/-C)");
  return o;
}

/**
 * ripgrep's smart case: insensitive when the patterns have a literal (a class range's ends count)
 * and none is an upper-case letter; a pattern of only classes (\p{Ll}, [[:lower:]]) stays sensitive.
 */
function smartCaseInsensitive(patterns: string[], fixed: boolean): boolean {
  const literals = patterns
    .map((pattern) =>
      fixed
        ? pattern
        : pattern
            .replace(/\[:\^?[a-z]+:\]/gu, "")
            .replace(/\\[pP](\{[^}]*\}|.)|\\x(\{[^}]*\}|[0-9a-fA-F]{2})|\\u\{[^}]*\}|\\[a-zA-Z]/gu, "")
            .replace(/\\[^a-zA-Z0-9]/gu, "\u0001")
            .replace(/\(\?P?<\w+>|\(\?[a-zA-Z-]*:?|\{\d+(,\d*)?\}/gu, "")
            .replace(/[[\]().*+?|^$\-{}]/gu, ""),
    )
    .join("");
  return literals !== "" && !/\p{Lu}/u.test(literals);
}

const NEWLINE = `the literal '"\\n"' is not allowed in a regex

Consider enabling multiline mode with the --multiline flag (or -U for short).
When multiline mode is enabled, new line characters can be matched.`;

interface Matcher {
  isMatch(line: string): boolean;
  findAll(line: string): string[];
}

async function compile(o: RgOptions): Promise<Matcher> {
  const engine = await loadRustRegex();
  const bodies = o.patterns.map((p) => (o.fixed ? engine.escape(p) : p));
  // Each pattern alone first, so a bad one is reported by itself as ripgrep reports it.
  for (const body of bodies) {
    const hir = (new engine.RRegex(body) as unknown as { syntax(): Hir }).syntax();
    walkHir(hir, (node) => {
      if (node.kind["@variant"] === "Literal" && literalBytes(node).includes(10)) throw new Error(NEWLINE);
    });
  }
  const insensitive =
    o.caseMode === "insensitive" || (o.caseMode === "smart" && smartCaseInsensitive(o.patterns, o.fixed));
  let body = bodies.length === 1 ? bodies[0]! : bodies.map((b) => `(?:${b})`).join("|");
  if (o.line) body = `^(?:${body})$`;
  else if (o.word) body = `(?:^|\\W)(?:${body})(?:$|\\W)`;
  const regex = new (
    engine as unknown as {
      RRegex: new (s: string) => { isMatch(t: string): boolean; findAll(t: string): { value: string }[] };
    }
  ).RRegex(`${insensitive ? "(?i)" : ""}${body}`);
  return {
    isMatch: (line) => regex.isMatch(line),
    findAll: (line) => regex.findAll(line).map((m) => m.value),
  };
}

interface Target {
  /** As printed. */
  name: string;
  absolute: string | null;
  /** Named on the command line (binary files are then reported, not skipped). */
  explicit: boolean;
}

class Rules {
  constructor(private readonly scopes: { base: string; rules: Ignore }[]) {}
  with(base: string, rules: Ignore | null): Rules {
    return rules ? new Rules([...this.scopes, { base, rules }]) : this;
  }
  ignores(absolute: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const scope of this.scopes) {
      if (!absolute.startsWith(`${scope.base}/`)) continue;
      const relative = absolute.slice(scope.base.length + 1);
      const result = scope.rules.test(isDirectory ? `${relative}/` : relative);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }
}

async function readTextOrNull(ctx: ResolvedCommandContext, path: string): Promise<string | null> {
  try {
    return new TextDecoder().decode(await ctx.fs.readFileBuffer(path));
  } catch {
    return null;
  }
}

async function exists(ctx: ResolvedCommandContext, path: string): Promise<boolean> {
  try {
    await ctx.fs.stat(path);
    return true;
  } catch {
    return false;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

const parentOf = (path: string) => (path.lastIndexOf("/") <= 0 ? "/" : path.slice(0, path.lastIndexOf("/")));

/** A folder's ignore files: .gitignore only inside a git repository (as ripgrep), .ignore and .rgignore always. */
async function folderRules(
  ctx: ResolvedCommandContext,
  folder: string,
  inRepo: boolean,
): Promise<Ignore | null> {
  let text = "";
  for (const name of inRepo ? [".gitignore", ".ignore", ".rgignore"] : [".ignore", ".rgignore"]) {
    const content = await readTextOrNull(ctx, `${folder === "/" ? "" : folder}/${name}`);
    if (content !== null) text += `${content}\n`;
  }
  return text === "" ? null : ignore().add(text);
}

/** Rules from the folders above `start` up to the repository root (ripgrep reads parents' ignore files too). */
async function rulesAbove(
  ctx: ResolvedCommandContext,
  start: string,
): Promise<{ rules: Rules; inRepo: boolean }> {
  const chain: string[] = [];
  let inRepo = false;
  for (let folder = start; ; folder = parentOf(folder)) {
    chain.unshift(folder);
    if (await exists(ctx, `${folder === "/" ? "" : folder}/.git`)) {
      inRepo = true;
      break;
    }
    if (folder === "/") break;
  }
  let rules = new Rules([]);
  if (inRepo) {
    const exclude = await readTextOrNull(ctx, `${chain[0] === "/" ? "" : chain[0]}/.git/info/exclude`);
    if (exclude) rules = rules.with(chain[0] === "/" ? "" : chain[0]!, ignore().add(exclude));
  } else chain.splice(0, chain.length - 1);
  for (const folder of chain.slice(0, -1))
    rules = rules.with(folder === "/" ? "" : folder, await folderRules(ctx, folder, inRepo));
  return { rules, inRepo };
}

/**
 * rg's -g globs, which rank above hidden and ignore rules (as ripgrep's overrides): "keep" takes an
 * entry whatever they say, "skip" leaves it out, "none" lets them decide (a file matching no glob is
 * left out when some glob is a plain one; a folder never is).
 */
type GlobVerdict = "keep" | "skip" | "none";
function globFilter(globs: string[]): ((relative: string, isDirectory: boolean) => GlobVerdict) | null {
  if (globs.length === 0) return null;
  const matcher = ignore().add(globs);
  const whitelist = globs.some((g) => !g.startsWith("!"));
  return (relative, isDirectory) => {
    const result = matcher.test(isDirectory ? `${relative}/` : relative);
    if (result.ignored) return "keep";
    if (result.unignored) return "skip";
    return whitelist && !isDirectory ? "skip" : "none";
  };
}

async function walk(
  ctx: ResolvedCommandContext,
  o: RgOptions,
  display: string,
  absolute: string,
  base: string,
  rules: Rules,
  inRepo: boolean,
  keep: ((relative: string, isDirectory: boolean) => GlobVerdict) | null,
  poll: Poll,
  out: Target[],
): Promise<void> {
  poll.tick();
  const here = o.noIgnore
    ? rules
    : rules.with(absolute === "/" ? "" : absolute, await folderRules(ctx, absolute, inRepo));
  const names = (await ctx.fs.readdir(absolute)).sort();
  for (const name of names) {
    poll.tick();
    const child = `${absolute === "/" ? "" : absolute}/${name}`;
    const shown = display === "" ? name : display.endsWith("/") ? `${display}${name}` : `${display}/${name}`;
    const stat = await ctx.fs.lstat(child);
    if (!stat.isDirectory && !stat.isFile) continue;
    // -g globs match the path from the current folder (ripgrep's override root), not from the search root.
    const verdict = keep ? keep(child.slice(base === "/" ? 1 : base.length + 1), stat.isDirectory) : "none";
    if (verdict === "skip") continue;
    if (verdict === "none") {
      if (!o.hidden && name.startsWith(".")) continue;
      if (!o.noIgnore && here.ignores(child, stat.isDirectory)) continue;
    }
    if (stat.isDirectory) await walk(ctx, o, shown, child, base, here, inRepo, keep, poll, out);
    else out.push({ name: shown, absolute: child, explicit: false });
  }
}

export async function runRg(args: string[], ctx: ResolvedCommandContext): Promise<CommandResult> {
  let o: RgOptions;
  try {
    o = parseRgArgs(args);
  } catch (error) {
    if (error instanceof UsageError) return { stdout: "", stderr: `${error.message}\n`, exitCode: 2 };
    throw error;
  }
  let matcher: Matcher | null = null;
  if (!o.files) {
    try {
      matcher = await compile(o);
    } catch (error) {
      return { stdout: "", stderr: `${String((error as Error).message ?? error)}\n`, exitCode: 2 };
    }
  }
  const poll = new Poll(shellStopCheck(ctx), 100);
  const out: string[] = [];
  const err: string[] = [];
  let troubled = false;
  let matched = false;
  try {
    const targets: Target[] = [];
    const stdin = stdinText(ctx);
    // As ripgrep: no path and stdin a pipe or a file (even empty) → search stdin, else the folder.
    const searchStdin = !o.files && (stdin !== "" || stdinIsPiped(ctx));
    const paths = o.paths.length > 0 ? o.paths : searchStdin ? ["-"] : [""];
    let walked = false;
    for (const path of paths) {
      if (path === "-") {
        targets.push({ name: "<stdin>", absolute: null, explicit: true });
        continue;
      }
      const absolute = ctx.fs.resolvePath(ctx.cwd, path === "" ? "." : path);
      let isDirectory: boolean;
      try {
        isDirectory = (await ctx.fs.stat(absolute)).isDirectory;
      } catch {
        err.push(`${path}: No such file or directory (os error 2)\n`);
        troubled = true;
        continue;
      }
      if (!isDirectory) {
        targets.push({ name: path, absolute, explicit: true });
        continue;
      }
      walked = true;
      const cwd = ctx.fs.resolvePath(ctx.cwd, ".");
      if (o.globs.length > 0 && cwd !== "/" && absolute !== cwd && !absolute.startsWith(`${cwd}/`)) {
        err.push(
          `rg: option -g with a folder outside the current one (${path}) is not supported in this sandbox\n`,
        );
        return finish(out, err, 2);
      }
      const { rules, inRepo } = o.noIgnore
        ? { rules: new Rules([]), inRepo: false }
        : await rulesAbove(ctx, absolute);
      await walk(ctx, o, path, absolute, cwd, rules, inRepo, globFilter(o.globs), poll, targets);
    }
    if (o.files) {
      for (const target of targets) out.push(`${target.name}\n`);
      return finish(out, err, targets.length > 0 ? (troubled ? 2 : 0) : troubled ? 2 : 1);
    }
    const showName = o.withFilename ?? (walked || paths.length > 1);
    const lineNumber = o.lineNumber ?? false;
    let printedGroup = false;
    for (const target of targets) {
      let text: string;
      if (target.absolute === null) text = stdin;
      else {
        try {
          const bytes = await ctx.fs.readFileBuffer(target.absolute);
          const nul = bytes.indexOf(0);
          if (nul >= 0) {
            if (!target.explicit) continue;
            err.push(`rg: ${target.name}: binary files are not searched in this sandbox\n`);
            troubled = true;
            continue;
          }
          try {
            text = utf8.decode(bytes);
          } catch {
            // ripgrep prints such lines' raw bytes; a decoded guess would be a different answer.
            err.push(`rg: ${target.name}: not UTF-8 text, not searched in this sandbox\n`);
            troubled = true;
            continue;
          }
        } catch {
          err.push(`${target.name}: No such file or directory (os error 2)\n`);
          troubled = true;
          continue;
        }
      }
      const prefix = showName && !o.heading ? `${target.name}` : "";
      const lines = text.split("\n");
      if (lines.at(-1) === "") lines.pop();
      let found = 0;
      const body: string[] = [];
      let lastPrinted = -1;
      let afterLeft = 0;
      const emit = (index: number, separator: string, content: string) => {
        let line = "";
        if (prefix) line += `${prefix}${separator}`;
        if (lineNumber) line += `${index + 1}${separator}`;
        body.push(`${line}${content}\n`);
      };
      for (let index = 0; index < lines.length; index++) {
        poll.tick();
        const line = lines[index]!;
        const selected = matcher!.isMatch(line) !== o.invert;
        if (selected && found < o.maxCount) {
          found++;
          // -c with -o counts matches, as ripgrep does.
          if (o.count && o.onlyMatching) found += matcher!.findAll(line).length - 1;
          if (o.quiet || o.filesWithMatches || o.count) continue;
          const from = Math.max(lastPrinted + 1, index - o.before);
          if ((o.before > 0 || o.after > 0) && lastPrinted >= 0 && from > lastPrinted + 1) body.push("--\n");
          else if ((o.before > 0 || o.after > 0) && lastPrinted < 0 && printedGroup) body.push("--\n");
          for (let k = from; k < index; k++) emit(k, "-", lines[k]!);
          if (o.onlyMatching) for (const part of matcher!.findAll(line)) emit(index, ":", part);
          else emit(index, ":", line);
          lastPrinted = index;
          afterLeft = o.after;
        } else if (afterLeft > 0) {
          // Past -m, ripgrep still prints the last match's after-context, matches marked as matches.
          emit(index, selected ? ":" : "-", line);
          lastPrinted = index;
          afterLeft--;
        } else if (found >= o.maxCount) break;
      }
      if (found === 0) continue;
      matched = true;
      if (o.quiet) break;
      if (o.count) out.push(showName ? `${target.name}:${found}\n` : `${found}\n`);
      else if (o.filesWithMatches) out.push(`${target.name}\n`);
      else {
        if (o.heading && showName) {
          if (printedGroup) out.push("\n");
          out.push(`${target.name}\n`);
        }
        out.push(...body);
      }
      printedGroup = true;
    }
  } catch (error) {
    if (!(error instanceof Stopped)) throw error;
    return {
      stdout: out.join(""),
      stderr: err.join("") + stopMessage("rg", error.reason),
      exitCode: STOP_EXIT[error.reason],
    };
  }
  return finish(out, err, troubled && !(o.quiet && matched) ? 2 : matched ? 0 : 1);
}

function finish(out: string[], err: string[], exitCode: number): CommandResult {
  return { stdout: out.join(""), stderr: err.join(""), exitCode };
}

export function rgCommands(): Command[] {
  return [defineCommand("rg", (args, ctx) => runRg(args, ctx))];
}
