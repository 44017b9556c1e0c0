import { isToolFailure } from "../../core/errors.ts";
import { checkAwkScript, checkSedExpression } from "../text-filters.ts";
import type { Analysis, CommandCheck, Cwd, Invocation } from "./analyzer.ts";
import { type Arg, hasOption, type OptionSpec, optionValue, parseOptions } from "./words.ts";

/**
 * What each command safe_shell knows does to files: which of its arguments it writes, creates or
 * deletes, and which commands it runs in turn. A command with no entry here and no file
 * arguments of its own (reading, building, testing) is allowed by name (ALLOWED_PROGRAMS);
 * anything else is refused.
 */

/** Commands that read, print or compute, and write no file named on their command line. */
const READERS = [
  ":",
  "[",
  "alias",
  "base64",
  "basename",
  "break",
  "cat",
  "cmp",
  "column",
  "comm",
  "continue",
  "cut",
  "df",
  "diff",
  "dirname",
  "du",
  "echo",
  "egrep",
  "exit",
  "expr",
  "false",
  "fgrep",
  "file",
  "fold",
  "getopts",
  "grep",
  "head",
  "hostname",
  "id",
  "jobs",
  "join",
  "jq",
  "less",
  "let",
  "ls",
  "mapfile",
  "md5sum",
  "more",
  "nl",
  "nproc",
  "od",
  "paste",
  "printenv",
  "printf",
  "pwd",
  "read",
  "readarray",
  "readlink",
  "realpath",
  "return",
  "rev",
  "seq",
  "set",
  "sha1sum",
  "sha256sum",
  "sha512sum",
  "shift",
  "shopt",
  "sleep",
  "stat",
  "strings",
  "tac",
  "tail",
  "test",
  "tr",
  "true",
  "type",
  "umask",
  "unalias",
  "uname",
  "unset",
  "wait",
  "wc",
  "which",
  "whoami",
  "yes",
  "zcat",
];

/** Build, test and lint tools: they run the project's own code, which is what they are for. */
const DEVELOPER_TOOLS = [
  "python",
  "python3",
  "pytest",
  "py.test",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "pipenv",
  "ruff",
  "mypy",
  "pyright",
  "black",
  "isort",
  "flake8",
  "pylint",
  "coverage",
  "tox",
  "nox",
  "node",
  "npm",
  "npx",
  "yarn",
  "pnpm",
  "bun",
  "deno",
  "tsc",
  "tsx",
  "ts-node",
  "eslint",
  "prettier",
  "vitest",
  "jest",
  "mocha",
  "biome",
  "cargo",
  "rustc",
  "rustfmt",
  "go",
  "gofmt",
  "make",
  "cmake",
  "javac",
  "java",
  "mvn",
  "gradle",
  "dotnet",
  "ruby",
  "bundle",
  "rake",
  "rspec",
  "php",
  "composer",
];

const ALLOWED_PROGRAMS = new Set([...READERS, ...DEVELOPER_TOOLS]);

export function isAllowedProgram(name: string): boolean {
  return ALLOWED_PROGRAMS.has(name);
}

/** Commands that delete what they are given: behind find -exec or xargs they delete in bulk. */
const DELETERS = new Set(["rm", "rmdir", "unlink", "shred"]);

/** A wildcard that matches every name of a folder (*, src/*, .*): rm with it empties the folder. */
function matchesEverything(arg: Arg): boolean {
  if (!arg.glob || arg.value === null) return false;
  const last = arg.value.replace(/\/+$/u, "").split("/").pop() ?? "";
  return /^(?:\.?[*?]+|\[[^\]]*\][*?]*|\*\.\*)$/u.test(last);
}

/** The operands of a command, checked as paths it writes (or deletes). */
function writesOperands(spec: OptionSpec, verb = "writes", skipFirst = false): CommandCheck {
  return (command, analysis) => {
    const parsed = parseOptions(command.args, spec);
    const operands = skipFirst ? parsed.operands.slice(1) : parsed.operands;
    for (const operand of operands) analysis.write(operand, command.cwd, `\`${command.text}\``, verb);
    return undefined;
  };
}

const rm: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    optionalLong: ["interactive"],
  });
  if (hasOption(parsed, "r", "R", "recursive")) {
    analysis.refuse(
      "recursiveDelete",
      `\`${command.text}\` deletes folders and everything in them, with no way back.`,
      "rm -r",
    );
    return undefined;
  }
  if (parsed.unknownBeforeOperands) {
    analysis.refuse(
      "unseen",
      `\`${command.text}\` passes rm an argument only known when it runs, which could be -r or a path anywhere.`,
    );
    return undefined;
  }
  for (const operand of parsed.operands) {
    if (matchesEverything(operand)) {
      analysis.refuse(
        "recursiveDelete",
        `\`${command.text}\` deletes every file ${operand.value} matches, in bulk.`,
        `rm ${operand.value}`,
      );
    }
    analysis.write(operand, command.cwd, `\`${command.text}\``, "deletes");
  }
  return undefined;
};

/** cp, mv, install, ln: the destination (last operand, or -t DIR); mv also takes its sources away. */
function copies(kind: "cp" | "mv" | "install" | "ln"): CommandCheck {
  return (command, analysis) => {
    const parsed = parseOptions(command.args, {
      short: kind === "install" ? "tSmogb" : "tS",
      long: [
        "target-directory",
        "suffix",
        "mode",
        "owner",
        "group",
        "backup",
        "sparse",
        "reflink",
        "preserve",
        "no-preserve",
      ],
    });
    const where = `\`${command.text}\``;
    if (kind === "install" && hasOption(parsed, "d", "directory")) {
      for (const operand of parsed.operands) analysis.write(operand, command.cwd, where, "creates");
      return undefined;
    }
    const target = optionValue(parsed, "t", "target-directory");
    const sources = target ? parsed.operands : parsed.operands.slice(0, -1);
    const destination =
      target ?? (parsed.operands.length > 1 || kind !== "ln" ? parsed.operands.at(-1) : undefined);
    if (destination) analysis.write(destination, command.cwd, where);
    else if (kind === "ln") analysis.write({ value: ".", text: ".", glob: false }, command.cwd, where);
    if (kind === "mv") for (const source of sources) analysis.write(source, command.cwd, where, "moves away");
    const linking = kind === "ln" || hasOption(parsed, "s", "symbolic-link", "l", "link");
    if (linking)
      linksStayInside(
        command,
        analysis,
        kind === "ln" ? (sources.length ? sources : parsed.operands.slice(0, 1)) : sources,
        destination,
        hasOption(parsed, "s", "symbolic", "symbolic-link"),
      );
    return undefined;
  };
}

/** A link made by ln or cp -s/-l must not lead out of the workspace: writes through it would follow. */
function linksStayInside(
  command: Invocation,
  analysis: Analysis,
  targets: readonly Arg[],
  destination: Arg | undefined,
  symbolic: boolean,
): void {
  for (const target of targets) {
    if (target.value === null) {
      analysis.refuse("unseen", `\`${command.text}\` links to ${target.text}, only known when it runs.`);
      continue;
    }
    // A symbolic link's target is read from the link's own folder; a hard link's from here.
    let folders: Cwd = command.cwd;
    if (symbolic && !target.value.startsWith("/") && destination?.value != null) {
      const dest = analysis.paths(destination, command.cwd);
      folders = dest ? dest.flatMap((path) => [path, path.slice(0, path.lastIndexOf("/")) || "/"]) : null;
    }
    const paths = analysis.paths(target, folders);
    if (paths === null) {
      analysis.refuse("unseen", `\`${command.text}\` makes a link whose target safe_shell cannot place.`);
      continue;
    }
    for (const path of paths) {
      if (analysis.place(path) !== "inside")
        analysis.refuse(
          "outsideWrite",
          `\`${command.text}\` makes a link to ${path}, outside the workspace: anything written through it would land there.`,
          "link out of the workspace",
        );
    }
  }
}

const cd: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args);
  return analysis.changeFolder(parsed.operands[0], command.cwd);
};

const sed: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    short: "efl",
    long: ["expression", "file", "line-length"],
    optionalShort: "i",
    optionalLong: ["in-place"],
  });
  const given = parsed.values
    .filter((entry) => entry.name === "e" || entry.name === "expression")
    .map((entry) => entry.value);
  let files = parsed.operands;
  if (optionValue(parsed, "f", "file")) {
    analysis.refuse(
      "unseen",
      `\`${command.text}\` runs a sed script from a file, which safe_shell cannot read.`,
    );
  } else if (given.length === 0) {
    if (files[0]) given.push(files[0]);
    files = files.slice(1);
  }
  for (const script of given) {
    if (script.value === null) {
      analysis.refuse("unseen", `\`${command.text}\` runs a sed script only known when it runs.`);
      continue;
    }
    try {
      checkSedExpression(script.value);
    } catch (error) {
      if (isToolFailure(error) && error.code === "invalid_params") continue; // sed reports its own syntax errors
      if (!isToolFailure(error) || error.code !== "command_blocked") {
        analysis.refuse(
          "unseen",
          `\`${command.text}\` has a sed script safe_shell could not check (${(error as Error).message}).`,
        );
        continue;
      }
      const construct = String(error.details?.construct ?? "");
      if (/the [rR] command/u.test(construct)) continue; // reading a file harms nothing
      analysis.refuse(
        "unseen",
        `\`${command.text}\` uses ${construct}, which writes files or runs commands safe_shell cannot check.`,
        `sed ${construct}`,
      );
    }
  }
  if (hasOption(parsed, "i", "in-place"))
    for (const file of files) analysis.write(file, command.cwd, `\`${command.text}\``, "rewrites");
  return undefined;
};

const awk: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    short: "fvFi",
    long: ["file", "assign", "field-separator", "include"],
  });
  if (optionValue(parsed, "f", "file")) {
    analysis.refuse(
      "unseen",
      `\`${command.text}\` runs an awk program from a file, which safe_shell cannot read.`,
    );
    return undefined;
  }
  const [program, ...files] = parsed.operands;
  if (program && program.value === null) {
    analysis.refuse("unseen", `\`${command.text}\` runs an awk program only known when it runs.`);
  } else if (program) {
    try {
      checkAwkScript(program.value!);
    } catch (error) {
      if (isToolFailure(error) && error.code === "command_blocked") {
        const construct = String(error.details?.construct ?? "");
        if (!/getline < file/u.test(construct))
          analysis.refuse(
            "unseen",
            `\`${command.text}\` uses ${construct}, which writes files or runs commands safe_shell cannot check.`,
            `awk ${construct}`,
          );
      } else if (!isToolFailure(error) || error.code !== "invalid_params") {
        // Only a syntax error (awk reports it itself) is let through: a check that broke refuses.
        analysis.refuse(
          "unseen",
          `\`${command.text}\` has an awk program safe_shell could not check (${(error as Error).message}).`,
        );
      }
    }
  }
  if (optionValue(parsed, "i", "include")?.value === "inplace")
    for (const file of files)
      if (!/^\w+=/u.test(file.value ?? ""))
        analysis.write(file, command.cwd, `\`${command.text}\``, "rewrites");
  return undefined;
};

const find: CommandCheck = (command, analysis) => {
  const args = command.args;
  let i = 0;
  while (i < args.length && /^-[HLP]$|^-O\d$|^-D$/u.test(args[i]!.value ?? ""))
    i += args[i]!.value === "-D" ? 2 : 1;
  const roots: Arg[] = [];
  while (i < args.length && !/^[-(!)]/u.test(args[i]!.value ?? "x")) roots.push(args[i++]!);
  const rootPaths = (roots.length ? roots : [{ value: ".", text: ".", glob: false }]).map((root) =>
    analysis.paths(root, command.cwd),
  );
  const within = rootPaths.some((paths) => paths === null) ? undefined : rootPaths.flatMap((paths) => paths!);
  const VALUED =
    /^-(?:i?name|i?path|i?regex|i?wholename|i?lname|type|xtype|newer\w*|anewer|cnewer|perm|size|user|group|uid|gid|[amc]time|[amc]min|used|links|inum|samefile|maxdepth|mindepth|printf|fstype|context|files0-from|regextype)$/u;
  for (; i < args.length; i++) {
    const token = args[i]!.value ?? "";
    if (VALUED.test(token)) {
      i++;
      continue;
    }
    if (token === "-delete") {
      analysis.refuse(
        "recursiveDelete",
        `\`${command.text}\` deletes every file it finds, in bulk.`,
        "find -delete",
      );
      continue;
    }
    if (/^-f(?:print0?|ls|printf)$/u.test(token)) {
      const file = args[++i];
      if (file) analysis.write(file, command.cwd, `\`${command.text}\``);
      if (token === "-fprintf") i++;
      continue;
    }
    if (/^-(?:exec|execdir|ok|okdir)$/u.test(token)) {
      const start = i + 1;
      let end = start;
      while (end < args.length && args[end]!.value !== ";" && args[end]!.value !== "+") end++;
      const argv = args.slice(start, end).map((arg) =>
        arg.value?.includes("{}")
          ? {
              value: null,
              text: arg.text,
              glob: false,
              ...(within && arg.value === "{}" ? { within } : {}),
            }
          : arg,
      );
      const program = argv[0]?.value ?? "";
      const base = program.slice(program.lastIndexOf("/") + 1);
      if (DELETERS.has(base)) {
        analysis.refuse(
          "recursiveDelete",
          `\`${command.text}\` deletes every file it finds, in bulk.`,
          `find ${token} ${base}`,
        );
      } else if (argv.length > 0) {
        // -execdir runs in each found file's folder: somewhere under the roots.
        analysis.run(
          argv,
          `${token} ${argv.map((arg) => arg.text).join(" ")}`,
          token.endsWith("dir") ? null : command.cwd,
        );
      }
      i = end;
    }
  }
  return undefined;
};

const xargs: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    short: "adEeIiLlnPs",
    long: [
      "arg-file",
      "delimiter",
      "eof",
      "replace",
      "max-lines",
      "max-args",
      "max-procs",
      "max-chars",
      "process-slot-var",
    ],
    posix: true,
  });
  const argv = parsed.operands.length ? parsed.operands : [{ value: "echo", text: "echo", glob: false }];
  const program = argv[0]!.value ?? "";
  const base = program.slice(program.lastIndexOf("/") + 1);
  if (DELETERS.has(base)) {
    analysis.refuse(
      "recursiveDelete",
      `\`${command.text}\` deletes whatever names arrive on its input, in bulk.`,
      `xargs ${base}`,
    );
    return undefined;
  }
  const replace = optionValue(parsed, "I", "replace")?.value;
  const input: Arg = { value: null, text: "(names from input)", glob: false };
  const withInput = replace
    ? argv.map((arg) => (arg.value?.includes(replace) ? { ...input, text: arg.text } : arg))
    : [...argv, input];
  analysis.run(withInput, command.text, command.cwd);
  return undefined;
};

/** env, nice, nohup, timeout, command, builtin, exec, time: run the command after their own options. */
function wrapper(
  spec: OptionSpec,
  options: { skipOperands?: number; lookupOnly?: string[] } = {},
): CommandCheck {
  return (command, analysis) => {
    const parsed = parseOptions(command.args, { ...spec, posix: true });
    if (options.lookupOnly && hasOption(parsed, ...options.lookupOnly)) return undefined;
    let operands = parsed.operands.slice(options.skipOperands ?? 0);
    let cwd = command.cwd;
    if (command.name === "env") {
      if (hasOption(parsed, "S", "split-string")) {
        analysis.refuse(
          "unseen",
          `\`${command.text}\` splits a string into a command, which safe_shell cannot check.`,
        );
        return undefined;
      }
      const chdir = optionValue(parsed, "C", "chdir");
      if (chdir) cwd = analysis.changeFolder(chdir, cwd);
      const assignments = operands.filter((_, i) =>
        operands.slice(0, i + 1).every((a) => /^[A-Za-z_]\w*=/u.test(a.value ?? "")),
      );
      analysis.declared(assignments);
      operands = operands.slice(assignments.length);
    }
    if (command.name === "time") {
      const output = optionValue(parsed, "o", "output");
      if (output) analysis.write(output, command.cwd, `\`${command.text}\``);
    }
    if (operands.length > 0) analysis.run(operands, command.text, cwd);
    return undefined;
  };
}

const SHELL_SPEC: OptionSpec = { short: "oO", long: ["rcfile", "init-file"], posix: true };

/** bash -c '…' is checked like the line itself; a script file or commands on stdin cannot be. */
const shell: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, SHELL_SPEC);
  const inline = [...parsed.options.keys()].some((name) => name === "c");
  const [first] = parsed.operands;
  if (inline && first) {
    if (first.value === null) {
      analysis.refuse("unseen", `\`${command.text}\` runs a command string only known when it runs.`);
      return undefined;
    }
    analysis.nested(first.value, command.cwd, `${command.name} -c`);
    return undefined;
  }
  analysis.refuse(
    "unseen",
    first
      ? `\`${command.text}\` runs the script ${first.text}, which safe_shell cannot read.`
      : `\`${command.text}\` runs commands from its input, which safe_shell cannot read.`,
  );
  return undefined;
};

/** eval and trap take command text: checked when it is written out, refused when it is computed. */
function commandText(kind: "eval" | "trap"): CommandCheck {
  return (command, analysis) => {
    let args = command.args;
    if (kind === "trap") {
      if (args.length === 0 || /^-[lp]$/u.test(args[0]!.value ?? "")) return undefined;
      args = args.slice(0, 1);
      if (args[0]!.value === "-" || args[0]!.value === "") return undefined;
    }
    if (args.some((arg) => arg.value === null)) {
      analysis.refuse("unseen", `\`${command.text}\` runs command text only known when it runs.`);
      return undefined;
    }
    return analysis.nested(args.map((arg) => arg.value).join(" "), command.cwd, kind);
  };
}

const source: CommandCheck = (command, analysis) => {
  analysis.refuse(
    "unseen",
    `\`${command.text}\` runs the commands in ${command.args[0]?.text ?? "a file"}, which safe_shell cannot read.`,
  );
  return undefined;
};

const declaration: CommandCheck = (command, analysis) => {
  analysis.declared(command.args);
  return undefined;
};

const refuseAs =
  (rule: "shutdown" | "mkfs" | "sudo", reason: string): CommandCheck =>
  (command, analysis) => {
    analysis.refuse(rule, `\`${command.text}\`: ${reason}`);
    return undefined;
  };

const dd: CommandCheck = (command, analysis) => {
  for (const arg of command.args) {
    if (arg.value === null) {
      analysis.refuse("unseen", `\`${command.text}\` takes ${arg.text}, only known when it runs.`);
      continue;
    }
    if (!arg.value.startsWith("of=")) continue;
    const target = arg.value.slice(3);
    const paths = analysis.paths({ ...arg, value: target }, command.cwd) ?? [];
    if (paths.some((path) => path.startsWith("/dev/") && analysis.place(path) !== "harmless")) {
      analysis.refuse(
        "device",
        `\`${command.text}\` writes raw bytes to the device ${target}, destroying what is on it.`,
      );
    } else {
      analysis.write({ ...arg, value: target }, command.cwd, `\`${command.text}\``);
    }
  }
  return undefined;
};

const date: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, { short: "dfrI", long: ["date", "file", "reference"] });
  if (hasOption(parsed, "s", "set"))
    analysis.refuse("clock", `\`${command.text}\` sets the machine's clock.`);
  return undefined;
};

const tar: CommandCheck = (command, analysis) => {
  let args = command.args;
  // tar xzf a.tgz: a first word without a dash is a bundle of short options.
  if (args[0]?.value && !args[0].value.startsWith("-"))
    args = [{ ...args[0], value: `-${args[0].value}` }, ...args.slice(1)];
  const parsed = parseOptions(args, {
    short: "fCbHIKLNTVXgF",
    long: [
      "file",
      "directory",
      "use-compress-program",
      "to-command",
      "info-script",
      "new-volume-script",
      "rsh-command",
      "rmt-command",
      "checkpoint-action",
      "exclude",
      "transform",
      "xform",
      "owner",
      "group",
      "mode",
      "format",
      "newer",
      "after-date",
    ],
  });
  const where = `\`${command.text}\``;
  if (
    hasOption(
      parsed,
      "I",
      "use-compress-program",
      "to-command",
      "info-script",
      "F",
      "new-volume-script",
      "rsh-command",
      "rmt-command",
      "checkpoint-action",
    )
  ) {
    analysis.refuse("unseen", `${where} runs another program, which safe_shell cannot check.`);
  }
  if (hasOption(parsed, "P", "absolute-names")) {
    analysis.refuse(
      "outsideWrite",
      `${where} keeps absolute names and .. in the archive, so it can write anywhere.`,
      "tar -P",
    );
  }
  const archive = optionValue(parsed, "f", "file");
  const directory = optionValue(parsed, "C", "directory");
  const extracting = hasOption(parsed, "x", "extract", "get");
  const creating = hasOption(
    parsed,
    "c",
    "create",
    "r",
    "append",
    "u",
    "update",
    "A",
    "catenate",
    "concatenate",
    "delete",
  );
  if (creating && archive && archive.value !== "-") analysis.write(archive, command.cwd, where);
  if (extracting) {
    if (directory) analysis.write(directory, command.cwd, where, "extracts into");
    else analysis.write({ value: ".", text: ".", glob: false }, command.cwd, where, "extracts into");
  }
  return undefined;
};

const unzip: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, { short: "dx" });
  if (hasOption(parsed, "l", "t", "v", "p", "c", "z")) return undefined;
  analysis.write(
    optionValue(parsed, "d") ?? { value: ".", text: ".", glob: false },
    command.cwd,
    `\`${command.text}\``,
    "extracts into",
  );
  return undefined;
};

const gunzip: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, { short: "S", long: ["suffix"] });
  if (hasOption(parsed, "c", "stdout", "to-stdout", "t", "test", "l", "list")) return undefined;
  for (const file of parsed.operands) analysis.write(file, command.cwd, `\`${command.text}\``, "replaces");
  return undefined;
};

const sort: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    short: "ktToS",
    long: [
      "key",
      "field-separator",
      "temporary-directory",
      "output",
      "buffer-size",
      "parallel",
      "files0-from",
      "batch-size",
      "compress-program",
      "random-source",
      "sort",
    ],
  });
  const output = optionValue(parsed, "o", "output");
  if (output) analysis.write(output, command.cwd, `\`${command.text}\``);
  if (hasOption(parsed, "compress-program"))
    analysis.refuse("unseen", `\`${command.text}\` runs a compression program safe_shell cannot check.`);
  return undefined;
};

/** uniq IN OUT and xxd IN OUT write their second operand. */
function secondOperand(spec: OptionSpec): CommandCheck {
  return (command, analysis) => {
    const output = parseOptions(command.args, spec).operands[1];
    if (output) analysis.write(output, command.cwd, `\`${command.text}\``);
    return undefined;
  };
}

const tree: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    short: "LPIoH",
    long: ["filelimit", "timefmt", "sort", "charset"],
  });
  const output = optionValue(parsed, "o");
  if (output) analysis.write(output, command.cwd, `\`${command.text}\``);
  return undefined;
};

const rg: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    short: "egtTmACBMjfrE",
    long: [
      "regexp",
      "glob",
      "iglob",
      "type",
      "type-not",
      "max-count",
      "after-context",
      "before-context",
      "context",
      "max-columns",
      "threads",
      "file",
      "replace",
      "encoding",
      "pre",
      "pre-glob",
      "type-add",
      "sort",
      "sortr",
      "max-depth",
      "ignore-file",
      "colors",
      "path-separator",
    ],
  });
  if (hasOption(parsed, "pre"))
    analysis.refuse(
      "unseen",
      `\`${command.text}\` runs a preprocessor command on every file, which safe_shell cannot check.`,
      "rg --pre",
    );
  return undefined;
};

/** Package managers and compilers: the options that send their output somewhere else. */
const npm: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    long: ["prefix", "location", "cache", "userconfig", "globalconfig"],
  });
  if (hasOption(parsed, "g", "global") || optionValue(parsed, "location")?.value === "global") {
    analysis.refuse(
      "outsideWrite",
      `\`${command.text}\` installs globally, outside the workspace.`,
      `${command.name} --global`,
    );
  }
  const prefix = optionValue(parsed, "prefix");
  if (prefix) analysis.write(prefix, command.cwd, `\`${command.text}\``, "installs into");
  return undefined;
};

const pip: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    short: "trce",
    long: [
      "target",
      "prefix",
      "root",
      "src",
      "requirement",
      "constraint",
      "editable",
      "index-url",
      "extra-index-url",
      "find-links",
      "cache-dir",
    ],
  });
  for (const name of ["t", "target", "prefix", "root", "src"]) {
    const folder = optionValue(parsed, name);
    if (folder) analysis.write(folder, command.cwd, `\`${command.text}\``, "installs into");
  }
  return undefined;
};

const tsc: CommandCheck = (command, analysis) => {
  const parsed = parseOptions(command.args, {
    short: "po",
    long: [
      "outDir",
      "outFile",
      "declarationDir",
      "tsBuildInfoFile",
      "project",
      "out",
      "rootDir",
      "target",
      "module",
      "lib",
      "jsx",
      "moduleResolution",
    ],
  });
  for (const name of ["outDir", "outFile", "declarationDir", "tsBuildInfoFile", "out"]) {
    const path = optionValue(parsed, name);
    if (path) analysis.write(path, command.cwd, `\`${command.text}\``);
  }
  return undefined;
};

export const COMMANDS: Record<string, CommandCheck> = {
  rm,
  rmdir: writesOperands({}, "deletes"),
  unlink: writesOperands({}, "deletes"),
  shred: writesOperands({ short: "ns", long: ["iterations", "size", "random-source"] }),
  truncate: writesOperands({ short: "sr", long: ["size", "reference"] }),
  touch: writesOperands({ short: "drt", long: ["date", "reference", "time"] }, "touches"),
  mkdir: writesOperands({ short: "m", long: ["mode", "context"] }, "creates"),
  tee: writesOperands({ optionalLong: ["output-error"] }),
  chmod: writesOperands({ long: ["reference"] }, "changes", true),
  chown: writesOperands({ long: ["reference", "from"] }, "changes", true),
  chgrp: writesOperands({ long: ["reference"] }, "changes", true),
  cp: copies("cp"),
  mv: copies("mv"),
  install: copies("install"),
  ln: copies("ln"),
  cd,
  pushd: cd,
  popd: () => null,
  sed,
  awk,
  gawk: awk,
  find,
  xargs,
  dd,
  date,
  tar,
  unzip,
  gunzip,
  sort,
  uniq: secondOperand({
    short: "fsw",
    long: ["skip-fields", "skip-chars", "check-chars", "group", "all-repeated"],
  }),
  xxd: secondOperand({ short: "cglsno", long: [] }),
  tree,
  rg,
  npm,
  pnpm: npm,
  yarn: npm,
  bun: npm,
  pip,
  pip3: pip,
  tsc,
  git: (command, analysis) => checkGit(command, analysis),
  env: wrapper({ short: "uCS", long: ["unset", "chdir", "split-string"] }),
  nice: wrapper({ short: "n", long: ["adjustment"] }),
  nohup: wrapper({}),
  timeout: wrapper({ short: "sk", long: ["signal", "kill-after"] }, { skipOperands: 1 }),
  command: wrapper({}, { lookupOnly: ["v", "V"] }),
  builtin: wrapper({}),
  exec: wrapper({ short: "a" }),
  time: wrapper({ short: "fo", long: ["format", "output"] }),
  bash: shell,
  sh: shell,
  dash: shell,
  zsh: shell,
  ksh: shell,
  ash: shell,
  fish: shell,
  eval: commandText("eval"),
  trap: commandText("trap"),
  source,
  ".": source,
  export: declaration,
  declare: declaration,
  typeset: declaration,
  local: declaration,
  readonly: declaration,
  sudo: refuseAs("sudo", "there is no superuser in the sandbox, and a coding task should not need one."),
  su: refuseAs("sudo", "switching users is not part of a coding task."),
  doas: refuseAs("sudo", "there is no superuser in the sandbox, and a coding task should not need one."),
  shutdown: refuseAs("shutdown", "stopping or restarting the machine is never part of a coding task."),
  reboot: refuseAs("shutdown", "stopping or restarting the machine is never part of a coding task."),
  halt: refuseAs("shutdown", "stopping or restarting the machine is never part of a coding task."),
  poweroff: refuseAs("shutdown", "stopping or restarting the machine is never part of a coding task."),
  mkfs: refuseAs("mkfs", "formatting a filesystem destroys everything on it."),
};
for (const type of [
  "ext2",
  "ext3",
  "ext4",
  "xfs",
  "btrfs",
  "vfat",
  "fat",
  "msdos",
  "ntfs",
  "exfat",
  "minix",
  "bfs",
  "cramfs",
])
  COMMANDS[`mkfs.${type}`] = COMMANDS.mkfs!;

// ---- git ------------------------------------------------------------------------------------------

/** What safe_shell says about each git subcommand it does not run, and what to use instead. */
const GIT_REFUSALS: { names: RegExp; why: string; instead: string }[] = [
  {
    names: /^(?:commit|add|stage)$/u,
    why: "records changes in the repository's history without git_commit's confirmation",
    instead: "Use git_commit: it shows what it will commit and needs confirmed=true.",
  },
  {
    names:
      /^(?:reset|checkout|restore|switch|stash|clean|rm|mv|apply|am|revert|cherry-pick|rebase|merge|pull|bisect)$/u,
    why: "changes or throws away files, the index or history",
    instead:
      "Look with git_status and git_diff; change files with file_write, file_patch or file_delete, which can be undone.",
  },
  {
    names: /^(?:push|fetch|clone|remote|submodule|send-email|request-pull)$/u,
    why: "changes remote repositories or this one's remote refs",
    instead: "Leave pushing and fetching to the person, in their own terminal.",
  },
  {
    names:
      /^(?:branch|tag|update-ref|symbolic-ref|reflog|notes|replace|gc|prune|repack|pack-refs|filter-branch|filter-repo|worktree|init|config|maintenance|commit-tree|read-tree|write-tree|hash-object|update-index|fast-import|mktag|mktree|rerere)$/u,
    why: "changes refs, history or git's setup",
    instead:
      "Ask the person to change branches, tags or settings; git_status and git log show where things stand.",
  },
];

/** Global options that make git run something else or work on another repository. */
const GIT_DANGEROUS_GLOBALS =
  /^(?:c|config-env|exec-path|git-dir|work-tree|namespace|super-prefix|attr-source)$/u;

function checkGit(command: Invocation, analysis: Analysis): undefined {
  const args = command.args;
  let i = 0;
  let cwd = command.cwd;
  for (; i < args.length; i++) {
    const value = args[i]!.value;
    if (value === null) {
      analysis.refuse("unseen", `\`${command.text}\` passes git ${args[i]!.text}, only known when it runs.`);
      return undefined;
    }
    if (!value.startsWith("-")) break;
    const name = value.replace(/^--?/u, "").replace(/=.*$/u, "");
    if (GIT_DANGEROUS_GLOBALS.test(name)) {
      analysis.refuse(
        "git",
        `\`${command.text}\` uses git's ${value.split("=")[0]} option, which can make git run other commands or work on another repository.`,
        `git ${value.split("=")[0]}`,
      );
      return undefined;
    }
    if (value === "-C") cwd = analysis.changeFolder(args[++i], cwd);
  }
  const sub = args[i]?.value;
  if (sub === undefined || sub === null) return undefined;
  const rest = args.slice(i + 1);
  if (sub === "status" || sub === "diff" || sub === "log") {
    const parsed = parseOptions(rest, { long: ["output"] });
    const output = optionValue(parsed, "output");
    if (output) analysis.write(output, cwd, `\`${command.text}\``);
    return undefined;
  }
  if (sub === "--version" || sub === "version" || sub === "help") return undefined;
  const force = rest.some((arg) => /^(?:--force|-f\w*|--force-with-lease.*|\+.*)$/u.test(arg.value ?? ""));
  const refusal = GIT_REFUSALS.find((entry) => entry.names.test(sub));
  const pattern =
    sub === "clean"
      ? "git clean"
      : sub === "push" && force
        ? "git push --force"
        : sub === "reset" && rest.some((arg) => arg.value === "--hard")
          ? "git reset --hard"
          : `git ${sub}`;
  if (sub === "clean") {
    analysis.refuse(
      "recursiveDelete",
      `\`${command.text}\` deletes untracked files, which git cannot bring back.`,
      pattern,
    );
    return undefined;
  }
  if (refusal) {
    analysis.refuse(
      "git",
      `\`${command.text}\` ${refusal.why}; safe_shell runs only git status, diff and log.`,
      pattern,
      refusal.instead,
    );
    return undefined;
  }
  analysis.refuse(
    "git",
    `\`${command.text}\`: safe_shell runs only git status, diff and log (git log -p shows commits with their changes).`,
    pattern,
  );
  return undefined;
}
