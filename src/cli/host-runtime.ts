import { stat } from "node:fs/promises";
import { resolve as resolvePath } from "node:path";
import type { ArtifactStore } from "../core/artifacts.ts";
import { rewind } from "../core/checkpoints.ts";
import type { ApprovalMode, Profile } from "../core/profile.ts";
import { type CallOutcome, Runtime } from "../core/runtime.ts";
import { gitShellCommand } from "../host/git-command.ts";
import { PROFILES } from "../profiles/index.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { createNodeCommands } from "../sandbox/embedded/node/index.ts";
import { createPythonCommands } from "../sandbox/embedded/python/index.ts";
import { DiskFolder } from "./disk-folder.ts";
import { describeWriteBack, writeBackChanges } from "./host-folder.ts";
import { hostGitIdentity } from "./host-git-identity.ts";
import { RunEnd } from "./run-end.ts";
import { ArtifactsFolder, EventsFile } from "./run-files.ts";

export interface HostRuntimeOptions {
  /** The folder on disk loaded into the embedded sandbox. */
  workspace: string;
  events?: string | undefined;
  artifacts?: string | undefined;
  approve: "auto" | "deny";
  networkAllowList: string[];
}

export interface HostRuntime {
  runtime: Runtime;
  /** Signals that end the run in order (see run-end.ts). */
  end: RunEnd;
  /** Undoes calls stopped before they were answered, saying so on stderr. */
  undo(outcomes: readonly CallOutcome[], why: string): Promise<void>;
  /**
   * Writes the workspace's changes back to the folder when asked, says how the run ended and what
   * was written, flushes logs, frees the sandbox. Returns the exit code.
   */
  finish(options: { writeBack: boolean; answered: number }): Promise<number>;
}

/** Every tool of every profile that is not read-only, set to "deny". */
function denyChanges(profiles: readonly Profile[]): Record<string, Record<string, ApprovalMode>> {
  return Object.fromEntries(
    profiles.map((profile) => [
      profile.name,
      Object.fromEntries(
        profile.tools.filter((tool) => tool.kind !== "read").map((tool) => [tool.name, "deny"]),
      ),
    ]),
  );
}

/**
 * The runtime the command line serves: a folder loaded into the embedded sandbox (with node, npm,
 * npx and git), every profile, events and artifacts written to disk as they come.
 */
export async function openHostRuntime(options: HostRuntimeOptions): Promise<HostRuntime> {
  const sandbox: EmbeddedSandbox = await EmbeddedSandbox.create({
    commands: [...createNodeCommands(), ...createPythonCommands(), gitShellCommand(() => sandbox)],
  });
  const warn = (message: string) => process.stderr.write(`toolroom: ${message}\n`);
  // The folder is read on demand: start-up costs the same for 1 MB as for 400 MB.
  const folder = resolvePath(options.workspace);
  const rootStat = await stat(folder);
  sandbox.mountFolder(new DiskFolder(folder, warn), {
    mode: rootStat.mode & 0o7777,
    mtimeMs: rootStat.mtimeMs,
  });

  const artifactsFolder = options.artifacts ? new ArtifactsFolder(options.artifacts, warn) : undefined;
  const artifacts = new PassedOnArtifacts(artifactsFolder);
  const runtime = new Runtime({
    sandbox,
    profiles: [...PROFILES],
    artifacts,
    approver: async () => (options.approve === "auto" ? "allow" : "deny"),
    // deny: every tool that writes or runs commands is refused by policy, in every profile.
    ...(options.approve === "deny" ? { approvalOverrides: denyChanges(PROFILES) } : {}),
    // Commits name the user as their own git config does when the repository's names nobody.
    settings: { networkAllowList: options.networkAllowList, gitIdentity: await hostGitIdentity() },
    fetch: (input, init) => fetch(input, init),
    // Nothing restores here: keeping every version of every file written would only grow.
    keepCheckpoints: false,
    // Events go to --events as they come; holding them would keep every call's params and envelope.
    keepEvents: false,
  });
  const events = options.events ? await EventsFile.open(options.events, warn) : undefined;
  if (events) runtime.subscribe((event) => events.write(`${JSON.stringify(event)}\n`));

  const end = new RunEnd(warn);
  return {
    runtime,
    end,
    async undo(outcomes, why) {
      const undone = outcomes.filter((outcome) => outcome.changes.length > 0);
      // Nothing else runs now (every later call was stopped too), and the CLI keeps no checkpoints:
      // each call's own record of what it changed is put back, latest first.
      await rewind(
        sandbox,
        undone.map(({ step, requestId, tool, changes }) => ({ step, requestId, tool, changes })),
      );
      for (const outcome of undone)
        warn(
          `${outcome.tool} (request ${outcome.requestId}) was not answered, ${why}: its changes are undone and not written back (${outcome.changes.map((change) => change.path).join(", ")})`,
        );
    },
    async finish({ writeBack, answered }) {
      if (end.stopped)
        warn(
          `${end.reason}: stopped after ${answered} answered call${answered === 1 ? "" : "s"}${writeBack ? "; writing back what they did" : "; nothing is written back (no --write-back)"}`,
        );
      end.writing();
      if (writeBack) {
        const rootGone = !(await sandbox.fs.statIfExists(sandbox.workspaceRoot, false));
        const report = await writeBackChanges(folder, rootGone ? [] : sandbox.folderChanges(), {
          rootGone,
          loaded: (path) => sandbox.fs.loadedEntry(path),
        });
        for (const line of describeWriteBack(report)) warn(line);
      }
      await artifactsFolder?.close();
      await events?.close();
      await runtime.dispose();
      await sandbox.dispose();
      end.dispose();
      // Stopped from outside: exit even if a handle (a stdin half-read) would keep Node waiting.
      if (end.stopped) setTimeout(() => process.exit(end.exitCode()), 200).unref();
      return end.exitCode();
    },
  };
}

/**
 * The command line's artifacts go to --artifacts DIR as they are made, and nowhere without it:
 * none is kept in memory, where every call's full logs (up to the output cap each) piled up for
 * as long as a batch or an MCP session ran. Nothing here reads one back.
 */
class PassedOnArtifacts implements ArtifactStore {
  private readonly paths = new Set<string>();

  constructor(private readonly folder: ArtifactsFolder | undefined) {}

  put(path: string, content: string | Uint8Array): void {
    this.paths.add(path);
    this.folder?.put(path, content);
  }

  get(): Uint8Array | undefined {
    return undefined;
  }

  list(): string[] {
    return [...this.paths].sort();
  }
}
