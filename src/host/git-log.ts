/**
 * `git log` and `git show` for the embedded shell, printing what native git prints (held to it by
 * git-command.test.ts): the medium, short, full, fuller and oneline formats, --format / --pretty
 * format: and tformat: with the common placeholders, --date, -n, -p, --stat, --name-only,
 * --name-status, and `git show REV:PATH`. Layout rules from git's log-tree.c: entries of the
 * built-in formats are separated by a blank line, tformat and oneline entries each end with a
 * newline, format: entries are separated by one; a diff or stat after a (non-oneline) message
 * comes after a blank line ("---" then a newline when both a stat and a patch follow).
 */
import type { ToolContext } from "../core/profile.ts";
import { EMPTY_TREE_ID, type FileDiff, gitDiff, resolveRevision } from "../tools/git/diff.ts";
import { headCommit, openRepo, type Repo } from "../tools/git/repo.ts";

type Context = Pick<ToolContext, "sandbox" | "services">;
type Result = { stdout: string; stderr: string; exitCode: number };
const ok = (stdout: string): Result => ({ stdout, stderr: "", exitCode: 0 });
const fail = (stderr: string, exitCode = 128): Result => ({ stdout: "", stderr, exitCode });

interface Person {
  name: string;
  email: string;
  timestamp: number;
  timezoneOffset: number;
}

interface Commit {
  oid: string;
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  message: string;
}

type DateStyle = "default" | "short" | "iso" | "iso-strict" | "unix" | "raw" | "rfc";
type Output = { patch: boolean; stat: boolean; nameOnly: boolean; nameStatus: boolean };

/** How a commit is printed: a built-in format, or a user format (format: separates, tformat: terminates). */
type Pretty =
  | {
      kind: "builtin";
      name: "oneline" | "short" | "medium" | "full" | "fuller";
      /** --oneline is --pretty=oneline --abbrev-commit. */
      abbrev?: boolean;
    }
  | {
      kind: "user";
      template: string;
      terminator: boolean;
    };

interface LogOptions {
  pretty: Pretty;
  date: DateStyle;
  maxCount?: number;
  revision: string;
  output: Output;
  paths: string[];
}

/** Reads log/show options; what it does not know is an error, never silently ignored. */
function parseOptions(args: string[], show: boolean): LogOptions | string {
  const options: LogOptions = {
    pretty: { kind: "builtin", name: "medium" },
    date: "default",
    revision: "HEAD",
    output: { patch: show, stat: false, nameOnly: false, nameStatus: false },
    paths: [],
  };
  let noPatch = false;
  let explicitPatch = false;
  let afterDashes = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (afterDashes) {
      options.paths.push(arg);
      continue;
    }
    const value = (prefix: string) => (arg.startsWith(prefix) ? arg.slice(prefix.length) : undefined);
    if (arg === "--") afterDashes = true;
    else if (arg === "-n" || arg === "--max-count") options.maxCount = Number(args[++i]);
    else if (/^-\d+$/u.test(arg)) options.maxCount = Number(arg.slice(1));
    else if (/^-n\d+$/u.test(arg)) options.maxCount = Number(arg.slice(2));
    else if (value("--max-count=") !== undefined) options.maxCount = Number(value("--max-count="));
    else if (arg === "--oneline") options.pretty = { kind: "builtin", name: "oneline", abbrev: true };
    else if (value("--format=") !== undefined || value("--pretty=") !== undefined) {
      const spec = value("--format=") ?? value("--pretty=")!;
      const pretty = prettyOf(spec, arg.startsWith("--format="));
      if (typeof pretty === "string") return pretty;
      options.pretty = pretty;
    } else if (arg === "--pretty") options.pretty = { kind: "builtin", name: "medium" };
    else if (value("--date=") !== undefined) {
      const style = value("--date=")!;
      if (
        ![
          "default",
          "short",
          "iso",
          "iso8601",
          "iso-strict",
          "iso8601-strict",
          "unix",
          "raw",
          "rfc",
          "rfc2822",
        ].includes(style)
      ) {
        return `--date=${style} is not supported by Toolroom's built-in git (default, short, iso, iso-strict, unix, raw, rfc)`;
      }
      options.date = style.replace("iso8601", "iso").replace("rfc2822", "rfc") as DateStyle;
    } else if (arg === "-p" || arg === "-u" || arg === "--patch") explicitPatch = true;
    else if (arg === "-s" || arg === "--no-patch") noPatch = true;
    else if (arg === "--stat") options.output.stat = true;
    else if (arg === "--name-only") options.output.nameOnly = true;
    else if (arg === "--name-status") options.output.nameStatus = true;
    else if (arg === "--no-color" || arg === "--no-decorate" || arg === "--no-pager") continue;
    else if (arg.startsWith("-"))
      return `${arg} is not supported by Toolroom's built-in git ${show ? "show" : "log"}`;
    else options.revision = arg;
  }
  const listing = options.output.stat || options.output.nameOnly || options.output.nameStatus;
  // git show prints the patch unless another output was asked for (or -s); git log only with -p.
  options.output.patch = !noPatch && (explicitPatch || (show && !listing));
  if (noPatch) options.output = { patch: false, stat: false, nameOnly: false, nameStatus: false };
  return options;
}

function prettyOf(spec: string, isFormatOption: boolean): Pretty | string {
  if (["oneline", "short", "medium", "full", "fuller"].includes(spec)) {
    return { kind: "builtin", name: spec as "oneline" };
  }
  if (spec.startsWith("format:")) return { kind: "user", template: spec.slice(7), terminator: false };
  if (spec.startsWith("tformat:")) return { kind: "user", template: spec.slice(8), terminator: true };
  // --format=<text> and --pretty=<text with a %> are tformat: (each entry ends with a newline).
  if (isFormatOption || spec.includes("%")) return { kind: "user", template: spec, terminator: true };
  return `--pretty=${spec} is not supported by Toolroom's built-in git (oneline, short, medium, full, fuller, format:, tformat:)`;
}

async function readCommit(repo: Repo, oid: string): Promise<Commit> {
  const { commit } = await repo.git.readCommit({ fs: repo.fs, dir: repo.dir, cache: repo.cache, oid });
  return {
    oid,
    tree: commit.tree,
    parents: commit.parent,
    author: commit.author,
    committer: commit.committer,
    message: commit.message,
  };
}

/** `git log`: the history from a revision, first parents and merges alike, newest first (by committer time). */
export async function gitLog(context: Context, args: string[]): Promise<Result> {
  const options = parseOptions(args, false);
  if (typeof options === "string") return fail(`fatal: ${options}\n`);
  const repo = await openRepo(context);
  if (!(await headCommit(repo)))
    return fail("fatal: your current branch 'main' does not have any commits yet\n");
  const start = await resolveRevision(repo, options.revision);
  const entries = await repo.git.log({
    fs: repo.fs,
    dir: repo.dir,
    cache: repo.cache,
    ref: start,
    ...(options.maxCount ? { depth: options.maxCount } : {}),
  });
  const commits: Commit[] = entries.map(({ oid, commit }) => ({
    oid,
    tree: commit.tree,
    parents: commit.parent,
    author: commit.author,
    committer: commit.committer,
    message: commit.message,
  }));
  return ok(await render(context, commits, options));
}

/** `git show [REV]` (a commit with its patch) and `git show REV:PATH` (a file as it was). */
export async function gitShow(context: Context, args: string[]): Promise<Result> {
  const options = parseOptions(args, true);
  if (typeof options === "string") return fail(`fatal: ${options}\n`);
  const repo = await openRepo(context);
  const colon = options.revision.indexOf(":");
  if (colon !== -1)
    return showFile(repo, options.revision.slice(0, colon) || "HEAD", options.revision.slice(colon + 1));
  if (!(await headCommit(repo)) && options.revision === "HEAD")
    return fail("fatal: your current branch 'main' does not have any commits yet\n");
  const commit = await readCommit(repo, await resolveRevision(repo, options.revision));
  return ok(await render(context, [commit], options));
}

async function showFile(repo: Repo, revision: string, path: string): Promise<Result> {
  const commit = await readCommit(repo, await resolveRevision(repo, revision));
  const wanted = path.replace(/^\.?\//u, "");
  try {
    const { blob } = await repo.git.readBlob({
      fs: repo.fs,
      dir: repo.dir,
      cache: repo.cache,
      oid: commit.tree,
      filepath: wanted,
    });
    return ok(new TextDecoder().decode(blob));
  } catch {
    return fail(`fatal: path '${wanted}' does not exist in '${revision}'\n`);
  }
}

async function render(context: Context, commits: Commit[], options: LogOptions): Promise<string> {
  const { pretty, output } = options;
  const oneline = pretty.kind === "builtin" && pretty.name === "oneline";
  const userFormat = pretty.kind === "user";
  // Entries of the built-in formats (and format:) are separated; oneline and tformat: are terminated.
  const terminated = oneline || (pretty.kind === "user" && pretty.terminator);
  const diffs = output.patch || output.stat || output.nameOnly || output.nameStatus;
  let text = "";
  for (const [k, commit] of commits.entries()) {
    if (k > 0 && !terminated) text += "\n";
    let entry = header(commit, pretty, options.date);
    if (terminated) entry += "\n";
    text += entry;
    if (!diffs) continue;
    const files = await changes(context, commit, options.paths);
    const emptyFormat = pretty.kind === "user" && pretty.template === "";
    if (!oneline && !emptyFormat) text += `${output.stat && output.patch ? "---" : ""}\n`;
    else if (userFormat && !terminated) text += "\n";
    const parts: string[] = [];
    if (output.nameOnly) parts.push(files.map((file) => `${file.path}\n`).join(""));
    else if (output.nameStatus) parts.push(files.map(nameStatusLine).join(""));
    if (output.stat) parts.push(statBlock(files));
    let listing = parts.join("");
    if (output.patch) listing += `${output.stat ? "\n" : ""}${files.map((file) => file.diff).join("")}`;
    text += listing;
  }
  return text;
}

/** The changes a commit made: against its first parent, or against nothing for a root commit. */
async function changes(context: Context, commit: Commit, paths: string[]): Promise<FileDiff[]> {
  const diff = await gitDiff(context, {
    baseRef: commit.parents[0] ?? EMPTY_TREE_ID,
    targetRef: commit.oid,
    ...(paths.length > 0 ? { pathspec: paths } : {}),
  });
  return diff.files_changed;
}

const LETTERS: Record<FileDiff["status"], string> = { added: "A", modified: "M", deleted: "D", renamed: "R" };

function nameStatusLine(file: FileDiff): string {
  if (file.old_path) {
    return `R${String(file.similarity ?? 0).padStart(3, "0")}\t${file.old_path}\t${file.path}\n`;
  }
  return `${LETTERS[file.status]}\t${file.path}\n`;
}

function header(commit: Commit, pretty: Pretty, date: DateStyle): string {
  if (pretty.kind === "user") return expand(pretty.template, commit, date);
  const lines = messageLines(commit.message);
  const indented = (all: string[]) => all.map((line) => `    ${line}\n`).join("");
  const who = (person: Person) => `${person.name} <${person.email}>`;
  switch (pretty.name) {
    case "oneline":
      return `${pretty.abbrev ? commit.oid.slice(0, 7) : commit.oid} ${subject(commit.message)}`;
    case "short":
      return `commit ${commit.oid}\nAuthor: ${who(commit.author)}\n\n${indented(titleLines(lines))}`;
    case "medium":
      return `commit ${commit.oid}\n${merge(commit)}Author: ${who(commit.author)}\nDate:   ${formatDate(commit.author, date)}\n\n${indented(lines)}`;
    case "full":
      return `commit ${commit.oid}\n${merge(commit)}Author: ${who(commit.author)}\nCommit: ${who(commit.committer)}\n\n${indented(lines)}`;
    case "fuller":
      return `commit ${commit.oid}\n${merge(commit)}Author:     ${who(commit.author)}\nAuthorDate: ${formatDate(commit.author, date)}\nCommit:     ${who(commit.committer)}\nCommitDate: ${formatDate(commit.committer, date)}\n\n${indented(lines)}`;
  }
}

function merge(commit: Commit): string {
  return commit.parents.length > 1 ? `Merge: ${commit.parents.map((p) => p.slice(0, 7)).join(" ")}\n` : "";
}

/** The message's lines, without the blank lines at its ends. */
function messageLines(message: string): string[] {
  const lines = message.replace(/\n+$/u, "").split("\n");
  while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
  return lines;
}

/** The first paragraph (git's "title"). */
function titleLines(lines: string[]): string[] {
  const end = lines.findIndex((line) => line.trim() === "");
  return end === -1 ? lines : lines.slice(0, end);
}

/** %s: the first paragraph on one line. */
function subject(message: string): string {
  return titleLines(messageLines(message))
    .map((line) => line.trim())
    .join(" ");
}

/** %b: what follows the first paragraph, with a final newline. */
function body(message: string): string {
  const lines = messageLines(message);
  const end = lines.findIndex((line) => line.trim() === "");
  if (end === -1) return "";
  const rest = lines.slice(end);
  while (rest.length > 0 && rest[0]!.trim() === "") rest.shift();
  return rest.length === 0 ? "" : `${rest.join("\n")}\n`;
}

/** A --format template with its placeholders filled in; an unknown placeholder stays as written, as in git. */
function expand(template: string, commit: Commit, date: DateStyle): string {
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!;
    if (ch !== "%") {
      out += ch;
      continue;
    }
    const rest = template.slice(i + 1);
    const hex = /^x([0-9a-fA-F]{2})/u.exec(rest);
    if (hex) {
      out += String.fromCharCode(Number.parseInt(hex[1]!, 16));
      i += 3;
      continue;
    }
    const two = rest.slice(0, 2);
    const person = two[0] === "a" ? commit.author : two[0] === "c" ? commit.committer : undefined;
    if (person && two.length === 2) {
      const value = personField(person, two[1]!, date);
      if (value !== undefined) {
        out += value;
        i += 2;
        continue;
      }
    }
    const one = rest[0];
    const simple: Record<string, string> = {
      H: commit.oid,
      h: commit.oid.slice(0, 7),
      T: commit.tree,
      t: commit.tree.slice(0, 7),
      P: commit.parents.join(" "),
      p: commit.parents.map((parent) => parent.slice(0, 7)).join(" "),
      s: subject(commit.message),
      b: body(commit.message),
      B: commit.message,
      n: "\n",
      "%": "%",
    };
    if (one !== undefined && one in simple) {
      out += simple[one];
      i += 1;
      continue;
    }
    out += "%";
  }
  return out;
}

function personField(person: Person, field: string, date: DateStyle): string | undefined {
  switch (field) {
    case "n":
    case "N":
      return person.name;
    case "e":
    case "E":
      return person.email;
    case "l":
      return person.email.split("@")[0];
    case "d":
      return formatDate(person, date);
    case "D":
      return formatDate(person, "rfc");
    case "i":
      return formatDate(person, "iso");
    case "I":
      return formatDate(person, "iso-strict");
    case "t":
      return String(person.timestamp);
    case "s":
      return formatDate(person, "short");
    default:
      return undefined;
  }
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A person's date in the named style, in their own timezone (git's timezoneOffset is minutes west). */
export function formatDate(person: Pick<Person, "timestamp" | "timezoneOffset">, style: DateStyle): string {
  const { timestamp, timezoneOffset } = person;
  const local = new Date((timestamp - timezoneOffset * 60) * 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  const east = -timezoneOffset;
  const sign = east >= 0 ? "+" : "-";
  const hours = pad(Math.floor(Math.abs(east) / 60));
  const minutes = pad(Math.abs(east) % 60);
  const ymd = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const hms = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  switch (style) {
    case "short":
      return ymd;
    case "iso":
      return `${ymd} ${hms} ${sign}${hours}${minutes}`;
    case "iso-strict":
      return `${ymd}T${hms}${sign}${hours}:${minutes}`;
    case "unix":
      return String(timestamp);
    case "raw":
      return `${timestamp} ${sign}${hours}${minutes}`;
    case "rfc":
      return `${DAYS[local.getUTCDay()]}, ${local.getUTCDate()} ${MONTHS[local.getUTCMonth()]} ${local.getUTCFullYear()} ${hms} ${sign}${hours}${minutes}`;
    default:
      return `${DAYS[local.getUTCDay()]} ${MONTHS[local.getUTCMonth()]} ${local.getUTCDate()} ${hms} ${local.getUTCFullYear()} ${sign}${hours}${minutes}`;
  }
}

/** A rename as --stat names it: the common folders outside braces, "src/{a.py => b.py}". */
export function renamedName(from: string, to: string): string {
  let prefix = 0;
  for (let i = 0; i < from.length && i < to.length && from[i] === to[i]; i++)
    if (from[i] === "/") prefix = i + 1;
  let suffix = 0;
  const adjust = prefix ? 1 : 0;
  for (
    let i = from.length - 1, j = to.length - 1;
    i >= prefix - adjust && j >= prefix - adjust && from[i] === to[j];
    i--, j--
  ) {
    if (from[i] === "/") suffix = from.length - i;
  }
  const middleFrom = from.slice(prefix, Math.max(prefix, from.length - suffix));
  const middleTo = to.slice(prefix, Math.max(prefix, to.length - suffix));
  if (prefix + suffix === 0) return `${middleFrom} => ${middleTo}`;
  return `${from.slice(0, prefix)}{${middleFrom} => ${middleTo}}${from.slice(from.length - suffix)}`;
}

/** Columns git's --stat fills when it does not write to a terminal. */
const STAT_WIDTH = 80;

/** git's --stat block (diff.c show_stats): names, counts and a +/- graph scaled to 80 columns, then the summary. */
export function statBlock(files: FileDiff[]): string {
  if (files.length === 0) return "";
  const names = files.map((file) => (file.old_path ? renamedName(file.old_path, file.path) : file.path));
  const changed = files.map((file) => (file.binary ? 0 : file.additions + file.deletions));
  const maxLen = Math.max(...names.map((name) => name.length));
  const maxChange = Math.max(...changed);
  const binWidth = files.some((file) => file.binary) ? "Bin".length : 0;
  let numberWidth = Math.max(String(maxChange).length, binWidth);
  let width = STAT_WIDTH;
  if (width < 16 + 6 + numberWidth) width = 16 + 6 + numberWidth;
  let graphWidth = maxChange;
  let nameWidth = maxLen;
  if (nameWidth + numberWidth + 6 + graphWidth > width) {
    if (graphWidth > Math.floor((width * 3) / 8) - numberWidth - 6) {
      graphWidth = Math.floor((width * 3) / 8) - numberWidth - 6;
      if (graphWidth < 6) graphWidth = 6;
    }
    if (nameWidth > width - numberWidth - 6 - graphWidth) nameWidth = width - numberWidth - 6 - graphWidth;
    else graphWidth = width - numberWidth - 6 - nameWidth;
  }
  numberWidth = Math.max(numberWidth, 1);
  const scale = (it: number) => (it === 0 ? 0 : 1 + Math.floor((it * (graphWidth - 1)) / maxChange));
  let lines = "";
  let insertions = 0;
  let deletions = 0;
  files.forEach((file, k) => {
    let name = names[k]!;
    let prefix = "";
    if (name.length > nameWidth) {
      prefix = "...";
      name = name.slice(name.length - (nameWidth - 3));
      const slash = name.indexOf("/");
      if (slash !== -1) name = name.slice(slash);
    }
    const padded = `${prefix}${name}`.padEnd(nameWidth);
    if (file.binary) {
      lines += ` ${padded} | ${"Bin".padStart(numberWidth)}\n`;
      return;
    }
    let add = file.additions;
    let del = file.deletions;
    insertions += add;
    deletions += del;
    const total = add + del;
    if (graphWidth <= maxChange) {
      let scaled = scale(total);
      if (scaled < 2 && add && del) scaled = 2;
      if (add < del) {
        add = scale(add);
        del = scaled - add;
      } else {
        del = scale(del);
        add = scaled - del;
      }
    }
    const graph = `${"+".repeat(add)}${"-".repeat(del)}`;
    lines += ` ${padded} | ${String(total).padStart(numberWidth)}${graph ? ` ${graph}` : ""}\n`;
  });
  const count = files.length;
  let summary = ` ${count} ${count === 1 ? "file" : "files"} changed`;
  if (insertions || deletions === 0)
    summary += `, ${insertions} ${insertions === 1 ? "insertion" : "insertions"}(+)`;
  if (deletions || insertions === 0)
    summary += `, ${deletions} ${deletions === 1 ? "deletion" : "deletions"}(-)`;
  return `${lines}${summary}\n`;
}
