import { accessSync, constants, type Stats, statSync } from "node:fs";
import { parseArgs } from "node:util";
import packageJson from "../../package.json" with { type: "json" };
import { providerSchemas, SCHEMA_FORMATS, type SchemaFormat } from "../core/provider-schemas.ts";
import { registerNodeAssets } from "../host/node-assets.ts";
import { readPackageFolder } from "../host/python-packages.ts";
import { findProfile, PROFILES } from "../profiles/index.ts";
import { pythonRunner } from "../sandbox/embedded/python/index.ts";
import { SessionFormatError } from "../session/format.ts";
import { runBatch } from "./batch.ts";
import { runMcp } from "./mcp.ts";
import { runReplay } from "./replay.ts";
import { currentRunEnd, STDOUT_CLOSED } from "./run-end.ts";
import { describeFsError } from "./run-files.ts";

const USAGE = `toolroom — the Toolroom tool runtime on the embedded sandbox

Usage:
  toolroom batch --workspace DIR --profile NAME [--write-back] [--events FILE] [--artifacts DIR]
                 [--approve auto|deny] [--allow-net URL_PREFIX ...] [--python-packages DIR ...]
                 [--max-written-mb N]
      --approve deny refuses every tool that writes or runs commands, in every profile.
      Reads JSONL tool calls on stdin ({"tool", "params", "request_id"}, or the profile's own
      call shape) and writes one JSONL envelope per call on stdout, in order. DIR is loaded into
      the embedded sandbox; with --write-back each call's changes are written back before
      its answer is printed (deletions included; each file whole, through a temporary file;
      each call all or nothing: a run killed while writing a call back leaves a journal, and
      the next --write-back run on DIR puts that call back; never through a link, never a FIFO
      or device, never git's config or hooks; stderr says what was written), so a crash loses
      nothing answered. A call stopped at its deadline is undone. Exits 0 when every line was answered, even if tools returned errors.
      SIGTERM, SIGINT and SIGHUP end the run in order: the running call is stopped and
      undone, exit 128 + the signal's number.
      --python-packages: a folder of installed pure-Python packages (a site-packages, or one
      \`pip install --target\` made, e.g. with pytest) for the embedded python3's site-packages.
      --max-written-mb N: what the files the run writes may hold in memory (default 1024); a write
      past it is refused (the shell sees "no space left", a tool its profile's limit error).

  toolroom schemas --profile NAME --format ${SCHEMA_FORMATS.join("|")}
      Prints the profile's tool schemas as JSON.

  toolroom mcp --workspace DIR --profile NAME [--write-back] [--events FILE] [--artifacts DIR]
               [--approve auto|deny] [--allow-net URL_PREFIX ...] [--python-packages DIR ...]
               [--max-written-mb N]
      Serves the profile's tools over the Model Context Protocol on stdin/stdout (JSON-RPC, one
      message per line), on DIR loaded into the embedded sandbox; with --write-back each call's
      changes are written back before it is answered (as batch does); a cancelled call is undone.
      For desktop agents: command "npx", args ["toolroom", "mcp", …].

  toolroom replay SESSION [--json]
      Replays a session (a .json file, a share link with #s=, or ?session=URL) on its initial workspace and
      checks each call's result against the recorded one. Exits 0 when all match, 1 when any
      diverged (each divergence is printed), 2 when the session cannot be read.

Profiles: ${PROFILES.map((profile) => profile.name).join(", ")}
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  registerNodeAssets();
  // Piped into head or less that quit early: stop quietly, as Unix tools do.
  // A batch or MCP run still writes back what its answered calls did.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    const run = currentRunEnd();
    if (run) run.stop(STDOUT_CLOSED);
    else process.exit(0);
  });
  try {
    switch (command) {
      case "batch":
        return await batchCommand(rest);
      case "schemas":
        return schemasCommand(rest);
      case "replay":
        return await replayCommand(rest);
      case "mcp":
        return await mcpCommand(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        return usageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message);
    if (error instanceof SessionFormatError) {
      process.stderr.write(`toolroom: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

class UsageError extends Error {}

function usageError(message: string): number {
  process.stderr.write(`toolroom: ${message}\n\n${USAGE}`);
  return 2;
}

/** Runs parseArgs, turning its errors into usage errors. */
function parsing<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const HELP = { help: { type: "boolean", short: "h" } } as const;

function requireProfile(name: unknown) {
  if (typeof name !== "string") throw new UsageError("--profile is required");
  const profile = findProfile(name);
  if (!profile)
    throw new UsageError(`unknown profile "${name}" (profiles: ${PROFILES.map((p) => p.name).join(", ")})`);
  return profile;
}

/** A folder this process can list and read, or a usage error saying what the path is instead. */
function requireFolder(path: string): void {
  const refuse = (why: string) => new UsageError(`--workspace ${path}: ${why}; give the folder to work in`);
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw refuse(code === "ENOENT" ? "no such folder" : describeFsError(error));
  }
  if (!stat.isDirectory()) throw refuse("not a folder");
  try {
    accessSync(path, constants.R_OK | constants.X_OK);
  } catch (error) {
    throw refuse(describeFsError(error));
  }
}

/** The options batch and mcp share: a folder, a profile, and how the runtime over it behaves. */
const RUNTIME_OPTIONS = {
  ...HELP,
  workspace: { type: "string" },
  profile: { type: "string" },
  "write-back": { type: "boolean", default: false },
  events: { type: "string" },
  artifacts: { type: "string" },
  approve: { type: "string", default: "auto" },
  "allow-net": { type: "string", multiple: true },
  "python-packages": { type: "string", multiple: true },
  "max-written-mb": { type: "string" },
} as const;

/** Reads the shared options; null when --help was asked for (and printed). */
function runtimeOptions(args: string[]) {
  const { values } = parsing(() => parseArgs({ args, strict: true, options: RUNTIME_OPTIONS }));
  if (values.help) {
    process.stdout.write(USAGE);
    return null;
  }
  const profile = requireProfile(values.profile);
  if (typeof values.workspace !== "string") throw new UsageError("--workspace is required");
  requireFolder(values.workspace);
  if (values.approve === "ask")
    throw new UsageError(
      "--approve ask needs a person to answer each prompt, and batch and mcp have none (stdin carries the calls). Use --approve deny to refuse every write and command, or --approve auto.",
    );
  if (values.approve !== "auto" && values.approve !== "deny")
    throw new UsageError("--approve must be auto or deny");
  return {
    workspace: values.workspace,
    profile,
    writeBack: values["write-back"] === true,
    events: values.events,
    artifacts: values.artifacts,
    approve: values.approve,
    networkAllowList: values["allow-net"] ?? [],
    pythonPackages: values["python-packages"] ?? [],
    maxWrittenBytes: writtenQuota(values["max-written-mb"]),
    input: process.stdin,
    output: process.stdout,
  } as const;
}

/** --max-written-mb: a whole number of megabytes, at least 1. */
function writtenQuota(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,6}$/u.test(value))
    throw new UsageError(`--max-written-mb must be a whole number of megabytes from 1 (got "${value}")`);
  return Number(value) * 1024 * 1024;
}

async function batchCommand(args: string[]): Promise<number> {
  const options = runtimeOptions(args);
  if (!options) return 0;
  await loadPythonPackages(options.pythonPackages);
  return runBatch(options);
}

async function mcpCommand(args: string[]): Promise<number> {
  const options = runtimeOptions(args);
  if (!options) return 0;
  await loadPythonPackages(options.pythonPackages);
  return runMcp({ ...options, version: packageJson.version });
}

/** Loads --python-packages folders into the embedded Python's site-packages (later folders win). */
async function loadPythonPackages(folders: string[]): Promise<void> {
  if (folders.length === 0) return;
  const byPath = new Map<string, Awaited<ReturnType<typeof readPackageFolder>>[number]>();
  for (const folder of folders) {
    const files = await readPackageFolder(folder).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(
        `--python-packages ${folder}: ${error.code === "ENOENT" ? "no such folder" : error.message}`,
      );
    });
    for (const file of files) byPath.set(file.path, file);
  }
  pythonRunner()?.setPackages([...byPath.values()]);
}

function schemasCommand(args: string[]): number {
  const { values } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      options: { ...HELP, profile: { type: "string" }, format: { type: "string", default: "jsonschema" } },
    }),
  );
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const profile = requireProfile(values.profile);
  const format = values.format as SchemaFormat;
  if (!SCHEMA_FORMATS.includes(format))
    throw new UsageError(`--format must be one of ${SCHEMA_FORMATS.join(", ")}`);
  process.stdout.write(`${JSON.stringify(providerSchemas(profile, format), null, 2)}\n`);
  return 0;
}

async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parsing(() =>
    parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { ...HELP, json: { type: "boolean" } },
    }),
  );
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [source, ...extra] = positionals;
  if (source === undefined) throw new UsageError("replay needs a session file or a share link");
  if (extra.length > 0) throw new UsageError(`replay takes one session, not ${positionals.length}`);
  try {
    return await runReplay({
      source,
      profiles: PROFILES.map((profile) => profile.name),
      json: values.json === true,
      output: process.stdout,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "EISDIR" && code !== "EACCES") throw error;
    process.stderr.write(`toolroom: cannot read ${source} (${code}); give a session file or a share link\n`);
    return 2;
  }
}
