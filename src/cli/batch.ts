import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { MemoryArtifacts } from "../core/artifacts.ts";
import { normalizeCall } from "../core/calls.ts";
import { asToolFailure, ToolFailure } from "../core/errors.ts";
import type { Profile } from "../core/profile.ts";
import { Runtime } from "../core/runtime.ts";
import { gitShellCommand } from "../host/git-command.ts";
import { PROFILES } from "../profiles/index.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { createNodeCommands } from "../sandbox/embedded/node/index.ts";
import { diffSnapshots } from "../sandbox/snapshot.ts";
import { readHostFolder, writeBackChanges } from "./host-folder.ts";

export interface BatchOptions {
  workspace: string;
  profile: Profile;
  writeBack: boolean;
  events?: string | undefined;
  artifacts?: string | undefined;
  approve: "auto" | "deny";
  networkAllowList: string[];
  input: Readable;
  output: Writable;
}

/** `toolroom batch`: JSONL calls in, one JSONL envelope out per line, in order. */
export async function runBatch(options: BatchOptions): Promise<number> {
  // node, npm and npx, and Toolroom's built-in git, as in createEmbeddedRuntime.
  const sandbox: EmbeddedSandbox = await EmbeddedSandbox.create({
    commands: [...createNodeCommands(), gitShellCommand(() => sandbox)],
  });
  const initial = await readHostFolder(options.workspace);
  await sandbox.restore(initial);

  const artifacts = new MemoryArtifacts();
  const pendingWrites: Promise<void>[] = [];
  if (options.artifacts) {
    const folder = options.artifacts;
    artifacts.onPut((path) => {
      const target = join(folder, ...path.split("/"));
      pendingWrites.push(
        mkdir(dirname(target), { recursive: true }).then(() => writeFile(target, artifacts.get(path)!)),
      );
    });
  }
  const runtime = new Runtime({
    sandbox,
    profiles: [...PROFILES],
    artifacts,
    approver: async () => (options.approve === "auto" ? "allow" : "deny"),
    settings: { networkAllowList: options.networkAllowList },
    fetch: (input, init) => fetch(input, init),
  });
  let events: WriteStream | undefined;
  if (options.events) {
    await mkdir(dirname(options.events), { recursive: true });
    events = createWriteStream(options.events, { flags: "w" });
    const stream = events;
    runtime.subscribe((event) => stream.write(`${JSON.stringify(event)}\n`));
  }

  const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === "") continue;
    let envelope: unknown;
    try {
      const call = normalizeCall(options.profile, parseJsonLine(line, lineNumber));
      envelope = await runtime.call(options.profile.name, call);
    } catch (error) {
      // A line that is not a call still gets an answer, in the profile's own envelope.
      const now = new Date();
      envelope = options.profile.envelope.failure(
        { requestId: "", tool: "", params: {}, step: 0, startedAt: now, endedAt: now },
        asToolFailure(error),
      );
    }
    await write(options.output, `${JSON.stringify(envelope)}\n`);
  }

  if (options.writeBack) {
    const warnings = await writeBackChanges(
      options.workspace,
      diffSnapshots(initial, await sandbox.snapshot()),
    );
    for (const warning of warnings) process.stderr.write(`toolroom: ${warning}\n`);
  }
  await Promise.all(pendingWrites);
  if (events) await new Promise<void>((resolve) => events.end(resolve));
  await runtime.dispose();
  await sandbox.dispose();
  return 0;
}

function parseJsonLine(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new ToolFailure(
      "invalid_params",
      `Line ${lineNumber} is not valid JSON: ${(error as Error).message}`,
    );
  }
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (error) => (error ? reject(error) : resolve())));
}
