import { type Command, defineCommand, type ResolvedCommandContext } from "just-bash";

/**
 * rm as GNU coreutils' rm: it removes the name given, so a symlink is removed itself, whatever it
 * points to (just-bash's rm looks through the link: a dangling link could not be removed, and a
 * link to a folder was refused as a folder). Options: -r/-R/--recursive, -f/--force, -d/--dir,
 * -v/--verbose, --.
 */
async function runRm(args: string[], ctx: ResolvedCommandContext) {
  let recursive = false;
  let force = false;
  let dir = false;
  let verbose = false;
  const operands: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === "--") options = false;
    else if (options && arg.startsWith("--") && arg.length > 2) {
      const name = arg.slice(2);
      if (name === "recursive") recursive = true;
      else if (name === "force") force = true;
      else if (name === "dir") dir = true;
      else if (name === "verbose") verbose = true;
      else return usage(`unrecognized option '${arg}'`);
    } else if (options && arg.startsWith("-") && arg.length > 1) {
      for (const flag of arg.slice(1)) {
        if (flag === "r" || flag === "R") recursive = true;
        else if (flag === "f") force = true;
        else if (flag === "d") dir = true;
        else if (flag === "v") verbose = true;
        else if (flag === "i" || flag === "I") force = false;
        else return usage(`invalid option -- '${flag}'`);
      }
    } else operands.push(arg);
  }
  if (operands.length === 0)
    return force ? { stdout: "", stderr: "", exitCode: 0 } : usage("missing operand");
  let stdout = "";
  let stderr = "";
  let exitCode = 0;
  for (const operand of operands) {
    const path = ctx.fs.resolvePath(ctx.cwd, operand);
    const fail = (why: string) => {
      stderr += `rm: cannot remove '${operand}': ${why}\n`;
      exitCode = 1;
    };
    const last = operand.replace(/\/+$/u, "").split("/").pop();
    if (last === "." || last === "..") {
      stderr += `rm: refusing to remove '.' or '..' directory: skipping '${operand}'\n`;
      exitCode = 1;
      continue;
    }
    let stat: Awaited<ReturnType<typeof ctx.fs.lstat>>;
    try {
      stat = await ctx.fs.lstat(path);
    } catch {
      if (!force) fail("No such file or directory");
      continue;
    }
    if (stat.isDirectory && !stat.isSymbolicLink) {
      if (!recursive && !dir) {
        fail("Is a directory");
        continue;
      }
      if (!recursive && (await ctx.fs.readdir(path)).length > 0) {
        fail("Directory not empty");
        continue;
      }
    }
    try {
      const removed = verbose
        ? await namesBelow(ctx, path, operand, stat.isDirectory && !stat.isSymbolicLink)
        : [];
      await ctx.fs.rm(path, { recursive, force: false });
      for (const line of removed) stdout += line;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      fail(message.includes("ENOTEMPTY") ? "Directory not empty" : message.replace(/^[A-Z]+: /u, ""));
    }
  }
  return { stdout, stderr, exitCode };
}

/** What -v prints for a removal: everything below first (in name order), then the name itself. */
async function namesBelow(
  ctx: ResolvedCommandContext,
  path: string,
  shown: string,
  isFolder: boolean,
): Promise<string[]> {
  if (!isFolder) return [`removed '${shown}'\n`];
  const lines: string[] = [];
  for (const name of (await ctx.fs.readdir(path)).sort()) {
    const child = await ctx.fs.lstat(`${path}/${name}`);
    lines.push(
      ...(await namesBelow(
        ctx,
        `${path}/${name}`,
        `${shown}/${name}`,
        child.isDirectory && !child.isSymbolicLink,
      )),
    );
  }
  lines.push(`removed directory '${shown}'\n`);
  return lines;
}

function usage(message: string) {
  return { stdout: "", stderr: `rm: ${message}\nTry 'rm --help' for more information.\n`, exitCode: 1 };
}

export function rmCommands(): Command[] {
  return [defineCommand("rm", (args, ctx) => runRm(args, ctx))];
}
