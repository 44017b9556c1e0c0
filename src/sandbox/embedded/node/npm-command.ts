import { type Command, defineCommand, type ExecResult, type ResolvedCommandContext } from "just-bash";

/** The npm version the embedded npm reports. */
export const EMBEDDED_NPM_VERSION = "10.8.2";

const LIFECYCLE = [
  "prepublish",
  "prepare",
  "prepublishOnly",
  "prepack",
  "postpack",
  "dependencies",
  "publish",
  "preinstall",
  "install",
  "postinstall",
  "preuninstall",
  "uninstall",
  "postuninstall",
  "preversion",
  "version",
  "postversion",
  "pretest",
  "test",
  "posttest",
  "prestop",
  "stop",
  "poststop",
  "prestart",
  "start",
  "poststart",
  "prerestart",
  "restart",
  "postrestart",
];

const NO_INSTALL = (verb: string) =>
  `npm error code ENOTSUP\nnpm error npm ${verb}: packages cannot be installed in the embedded sandbox (it has no network and no npm registry).\n` +
  "npm error What to do instead:\n" +
  "npm error   - open the workspace in a WebContainer, where npm install works; or\n" +
  "npm error   - vendor the package: put its files under node_modules/<name>/ (with its package.json), and require or import it as usual.\n";

interface PackageJson {
  name?: string;
  version?: string;
  scripts?: Record<string, string>;
}

async function findPackage(ctx: ResolvedCommandContext): Promise<{ dir: string; pkg: PackageJson } | null> {
  for (let dir = ctx.cwd; ; dir = dir.slice(0, dir.lastIndexOf("/")) || "/") {
    const path = `${dir === "/" ? "" : dir}/package.json`;
    if (await ctx.fs.exists(path)) {
      const text = await ctx.fs.readFile(path);
      try {
        return { dir, pkg: JSON.parse(text) as PackageJson };
      } catch (error) {
        throw new Error(
          `npm error code EJSONPARSE\nnpm error JSON.parse Invalid package.json: ${(error as Error).message}\n`,
        );
      }
    }
    if (dir === "/") return null;
  }
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/u.test(arg) ? arg : `'${arg.replace(/'/gu, `'\\''`)}'`;
}

async function binPath(ctx: ResolvedCommandContext, dir: string, name: string): Promise<string | null> {
  for (let d = dir; ; d = d.slice(0, d.lastIndexOf("/")) || "/") {
    const bin = `${d === "/" ? "" : d}/node_modules/.bin/${name}`;
    if (await ctx.fs.exists(bin)) {
      try {
        return await ctx.fs.realpath(bin);
      } catch {
        return bin;
      }
    }
    if (d === "/") return null;
  }
}

/** A script whose first word is a node_modules/.bin entry runs that entry with the embedded node. */
async function withBins(ctx: ResolvedCommandContext, dir: string, script: string): Promise<string> {
  const match = /^(\s*)([\w@./-]+)(.*)$/su.exec(script);
  if (!match) return script;
  const bin = await binPath(ctx, dir, match[2]!);
  return bin ? `${match[1]}node ${quote(bin)}${match[3]}` : script;
}

function binPaths(dir: string): string {
  const paths: string[] = [];
  for (let d = dir; ; d = d.slice(0, d.lastIndexOf("/")) || "/") {
    paths.push(`${d === "/" ? "" : d}/node_modules/.bin`);
    if (d === "/") break;
  }
  return paths.join(":");
}

async function runScript(
  ctx: ResolvedCommandContext,
  dir: string,
  pkg: PackageJson,
  event: string,
  script: string,
  extra: string[],
): Promise<ExecResult> {
  const exec = ctx.exec;
  if (!exec) return { stdout: "", stderr: "npm: this shell cannot run scripts\n", exitCode: 1 };
  const command = extra.length > 0 ? `${script} ${extra.map(quote).join(" ")}` : script;
  const banner = `\n> ${pkg.name ?? ""}${pkg.version ? `@${pkg.version}` : ""} ${event}\n> ${command}\n\n`;
  const path = ctx.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
  const env: Record<string, string> = {
    PATH: `${binPaths(dir)}:${path}`,
    npm_lifecycle_event: event,
    npm_lifecycle_script: script,
    npm_package_name: pkg.name ?? "",
    npm_package_version: pkg.version ?? "",
    npm_command: event === "test" || event === "start" ? event : "run-script",
    INIT_CWD: ctx.cwd,
    NODE: "/usr/local/bin/node",
  };
  // Exported, so that every command of the script (and node's process.env) sees them, as under npm.
  const exports = `export ${Object.entries(env)
    .map(([key, value]) => `${key}=${quote(value)}`)
    .join(" ")}\n`;
  const result = await exec(exports + (await withBins(ctx, dir, command)), {
    cwd: dir,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  let stderr = result.stderr;
  if (result.exitCode !== 0) {
    stderr +=
      `npm error Lifecycle script \`${event}\` failed with error:\nnpm error code ${result.exitCode}\n` +
      `npm error path ${dir}\nnpm error workspace ${pkg.name ?? ""}${pkg.version ? `@${pkg.version}` : ""}\n` +
      `npm error location ${dir}\nnpm error command failed\nnpm error command sh -c ${command}\n`;
  }
  return { stdout: banner + result.stdout, stderr, exitCode: result.exitCode };
}

async function runLifecycle(ctx: ResolvedCommandContext, name: string, extra: string[]): Promise<ExecResult> {
  const found = await findPackage(ctx);
  if (!found) {
    return {
      stdout: "",
      stderr: `npm error code ENOENT\nnpm error syscall open\nnpm error path ${ctx.cwd}/package.json\nnpm error enoent Could not read package.json: Error: ENOENT: no such file or directory, open '${ctx.cwd}/package.json'\n`,
      exitCode: 254,
    };
  }
  const { dir, pkg } = found;
  const scripts = pkg.scripts ?? {};
  let script = scripts[name];
  if (script === undefined && name === "start" && (await ctx.fs.exists(`${dir}/server.js`)))
    script = "node server.js";
  if (script === undefined) {
    return {
      stdout: "",
      stderr: `npm error Missing script: "${name}"\nnpm error\nnpm error To see a list of scripts, run:\nnpm error   npm run\n`,
      exitCode: 1,
    };
  }
  let stdout = "";
  let stderr = "";
  for (const [event, body, args] of [
    [`pre${name}`, scripts[`pre${name}`], []],
    [name, script, extra],
    [`post${name}`, scripts[`post${name}`], []],
  ] as Array<[string, string | undefined, string[]]>) {
    if (body === undefined) continue;
    const result = await runScript(ctx, dir, pkg, event, body, args);
    stdout += result.stdout;
    stderr += result.stderr;
    if (result.exitCode !== 0) return { stdout, stderr, exitCode: result.exitCode };
  }
  return { stdout, stderr, exitCode: 0 };
}

async function listScripts(ctx: ResolvedCommandContext): Promise<ExecResult> {
  const found = await findPackage(ctx);
  if (!found)
    return { stdout: "", stderr: "npm error code ENOENT\nnpm error no package.json found\n", exitCode: 254 };
  const { pkg } = found;
  const scripts = Object.entries(pkg.scripts ?? {});
  if (scripts.length === 0) return { stdout: "", stderr: "", exitCode: 0 };
  const id = `${pkg.name ?? ""}${pkg.version ? `@${pkg.version}` : ""}`;
  const lifecycle = scripts.filter(([name]) => LIFECYCLE.includes(name));
  const other = scripts.filter(([name]) => !LIFECYCLE.includes(name));
  let stdout = "";
  if (lifecycle.length > 0) {
    stdout += `Lifecycle scripts included in ${id}:\n`;
    for (const [name, body] of lifecycle) stdout += `  ${name}\n    ${body}\n`;
  }
  if (other.length > 0) {
    if (stdout) stdout += "\n";
    stdout += "available via `npm run-script`:\n";
    for (const [name, body] of other) stdout += `  ${name}\n    ${body}\n`;
  }
  return { stdout, stderr: "", exitCode: 0 };
}

const NPM_USAGE = `npm <command>

Usage (embedded sandbox):

npm test | npm t         run the "test" script (with pretest/posttest)
npm start                run the "start" script (or node server.js)
npm run <script> [-- <args>]
npm run                  list the scripts of package.json
npm init -y              write a package.json
npm --version

npm install / ci / add / update are not available here: the embedded sandbox has no registry.
`;

/** Runs `npm args...` in the shell context. */
export async function runNpm(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
  const [command, ...rest] = args;
  const dashDash = rest.indexOf("--");
  const extra = dashDash >= 0 ? rest.slice(dashDash + 1) : rest.filter((arg) => !arg.startsWith("-"));
  try {
    switch (command) {
      case undefined:
      case "help":
      case "-h":
      case "--help":
        return { stdout: NPM_USAGE, stderr: "", exitCode: command === undefined ? 1 : 0 };
      case "-v":
      case "--version":
      case "version":
        return { stdout: `${EMBEDDED_NPM_VERSION}\n`, stderr: "", exitCode: 0 };
      case "test":
      case "t":
      case "tst":
        return runLifecycle(ctx, "test", dashDash >= 0 ? extra : rest);
      case "start":
      case "stop":
      case "restart":
        return runLifecycle(ctx, command, dashDash >= 0 ? extra : rest);
      case "run":
      case "run-script":
      case "rum":
      case "urn": {
        const positional = (dashDash >= 0 ? rest.slice(0, dashDash) : rest).filter(
          (arg) => !arg.startsWith("-"),
        );
        const [name, ...more] = positional;
        if (name === undefined) return listScripts(ctx);
        return runLifecycle(ctx, name, dashDash >= 0 ? rest.slice(dashDash + 1) : more);
      }
      case "install":
      case "i":
      case "in":
      case "ins":
      case "add":
      case "ci":
      case "clean-install":
      case "install-test":
      case "it":
      case "update":
      case "up":
      case "upgrade":
      case "uninstall":
      case "remove":
      case "rm":
      case "un":
      case "link":
        return { stdout: "", stderr: NO_INSTALL(command), exitCode: 1 };
      case "init": {
        const path = `${ctx.cwd === "/" ? "" : ctx.cwd}/package.json`;
        if (await ctx.fs.exists(path))
          return { stdout: "", stderr: "npm error package.json already exists\n", exitCode: 1 };
        const name = ctx.cwd.split("/").filter(Boolean).pop() ?? "project";
        const pkg = {
          name,
          version: "1.0.0",
          description: "",
          main: "index.js",
          scripts: { test: 'echo "Error: no test specified" && exit 1' },
          keywords: [],
          author: "",
          license: "ISC",
        };
        const text = `${JSON.stringify(pkg, null, 2)}\n`;
        await ctx.fs.writeFile(path, text);
        return { stdout: `Wrote to ${path}:\n\n${text}\n\n`, stderr: "", exitCode: 0 };
      }
      default:
        return {
          stdout: "",
          stderr: `npm error npm ${command} is not available in the embedded sandbox (it runs package.json scripts only).\n${NPM_USAGE}`,
          exitCode: 1,
        };
    }
  } catch (error) {
    return { stdout: "", stderr: error instanceof Error ? error.message : String(error), exitCode: 1 };
  }
}

/** Runs a local node_modules/.bin entry, or explains that nothing can be downloaded. */
export async function runNpx(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
  const positional = args.filter((arg) => !arg.startsWith("-"));
  const name = positional[0];
  if (name === undefined) return { stdout: "", stderr: "npx: usage: npx <command> [args...]\n", exitCode: 1 };
  const bin = await binPath(ctx, ctx.cwd, name);
  if (bin && ctx.exec) {
    const rest = args.slice(args.indexOf(name) + 1);
    return ctx.exec(`node ${quote(bin)} ${rest.map(quote).join(" ")}`, {
      cwd: ctx.cwd,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  }
  return {
    stdout: "",
    stderr:
      `npx: '${name}' is not in node_modules/.bin, and the embedded sandbox cannot download packages (no network, no registry).\n` +
      "Open the workspace in a WebContainer to use npx with downloads, or vendor the package under node_modules/ with its .bin entry.\n",
    exitCode: 1,
  };
}

/** The `npm` command for just-bash. */
export function createNpmCommand(): Command {
  return defineCommand("npm", (args, ctx) => runNpm(args, ctx));
}

/** The `npx` command for just-bash. */
export function createNpxCommand(): Command {
  return defineCommand("npx", (args, ctx) => runNpx(args, ctx));
}
