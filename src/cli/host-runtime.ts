import { stat } from "node:fs/promises";
import { resolve as resolvePath } from "node:path";
import type { ArtifactStore } from "../core/artifacts.ts";
import { rewind } from "../core/checkpoints.ts";
import type { ApprovalMode, Profile, ToolCall } from "../core/profile.ts";
import { type CallOutcome, Runtime } from "../core/runtime.ts";
import { gitShellCommand } from "../host/git-command.ts";
import { PROFILES } from "../profiles/index.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { createNodeCommands } from "../sandbox/embedded/node/index.ts";
import { createPythonCommands } from "../sandbox/embedded/python/index.ts";
import { DiskFolder } from "./disk-folder.ts";
import {
  applyWriteBack,
  describeWriteBack,
  planWriteBack,
  type WriteBackReport,
  writeBackChanges,
} from "./host-folder.ts";
import { hostGitIdentity } from "./host-git-identity.ts";
import { RunEnd } from "./run-end.ts";
import { ArtifactsFolder, EventsFile } from "./run-files.ts";
import { recoverWriteBack } from "./write-back-journal.ts";

export interface HostRuntimeOptions {
  /** The folder on disk loaded into the embedded sandbox. */
  workspace: string;
  events?: string | undefined;
  artifacts?: string | undefined;
  approve: "auto" | "deny";
  networkAllowList: string[];
  /** Write each answered call's changes to the folder before its answer goes out. */
  writeBack: boolean;
  /** What the files the run writes may hold in memory (the sandbox's default when not given). */
  maxWrittenBytes?: number | undefined;
}

/** What became of one call: its outcome, and whether the caller should answer it. */
export interface SettledCall {
  outcome: CallOutcome;
  /** False when the call was unwanted by the time it finished (its changes were undone). */
  answer: boolean;
}

export interface HostRuntime {
  runtime: Runtime;
  /** Signals that end the run in order (see run-end.ts). */
  end: RunEnd;
  /**
   * Runs one call and settles it before the next call starts. A call still wanted when it finishes
   * (`unwanted()` gives null) has its changes written back, with --write-back, before this
   * resolves, so a crash after its answer loses nothing of it. A call unwanted by then (cancelled
   * by the client, stopped by the run's end: the reason) or stopped at its deadline (its envelope
   * says timeout or cancelled) is undone in the sandbox and nothing of it is written.
   */
  invoke(profile: string, call: ToolCall, unwanted: () => string | null): Promise<SettledCall>;
  /** Says how the run ended and what was written, flushes logs, frees the sandbox; the exit code. */
  finish(options: { answered: number }): Promise<number>;
}

/** Failures that mean the call was stopped before it finished: nothing it did should stay. */
const STOPPED_CODES = new Set(["timeout", "cancelled"]);

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
    ...(options.maxWrittenBytes ? { maxWrittenBytes: options.maxWrittenBytes } : {}),
  });
  const warn = (message: string) => process.stderr.write(`toolroom: ${message}\n`);
  // The folder is read on demand: start-up costs the same for 1 MB as for 400 MB.
  const folder = resolvePath(options.workspace);
  const rootStat = await stat(folder);
  // A run killed while writing a call back left its journal: that call is put back (or tidied) first.
  await recoverWriteBack(folder, warn, !options.writeBack);
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
  const total: WriteBackReport = { written: [], deleted: [], skipped: [], failed: [], notes: [] };
  /** Each path whose last write failed, with why; a later write that succeeds takes it off. */
  const failing = new Map<string, string>();
  const cleaned = new Set<string>();
  let rootGone = false;

  /** Puts each call's own record of changes back, latest first (the CLI keeps no checkpoints). */
  const undo = async (outcome: CallOutcome, why: string): Promise<void> => {
    if (outcome.changes.length === 0) return;
    await rewind(sandbox, [outcome]);
    warn(
      `${outcome.tool} (request ${outcome.requestId}) ${why}: its changes are undone and not written back (${outcome.changes.map((change) => change.path).join(", ")})`,
    );
  };

  /** The call's changed paths, as they now differ from the disk, written back; said as it goes. */
  /** Paths whose write failed on disk (a full disk): tried again with the next call, and at the end. */
  let retry = new Set<string>();
  const writeBackCall = async (
    outcome: Pick<CallOutcome, "changes"> & Partial<Pick<CallOutcome, "tool" | "requestId">>,
  ): Promise<void> => {
    if ((outcome.changes.length === 0 && retry.size === 0) || rootGone) return;
    if (!(await sandbox.fs.statIfExists(sandbox.workspaceRoot, false))) {
      rootGone = true;
      const report = await writeBackChanges(folder, [], { rootGone });
      total.skipped.push(...report.skipped);
      for (const line of describeProblems(report)) warn(line);
      warn("write-back: nothing more is written back in this run (the sandbox no longer has the folder)");
      return;
    }
    const changes = sandbox.fs.folderChangesAt([...outcome.changes.map((change) => change.path), ...retry]);
    const failed = new Set<string>();
    const { steps, report } = await planWriteBack(folder, changes, {
      loaded: (path) => sandbox.fs.loadedEntry(path),
    });
    await applyWriteBack(folder, steps, report, {
      call: outcome.tool ? `${outcome.tool} (request ${outcome.requestId})` : "the run's last retry",
      cleaned,
      done: (path, entry) => sandbox.fs.rebaseFolder(path, entry),
      failed: (path) => failed.add(path),
    });
    retry = failed;
    for (const key of ["written", "deleted", "skipped", "notes"] as const) total[key].push(...report[key]);
    for (const path of [...report.written, ...report.deleted]) failing.delete(path);
    for (const path of failing.keys())
      if (!failed.has(path) && report.skipped.some((line) => line.startsWith(`${path}: `)))
        failing.delete(path);
    for (const path of failed)
      failing.set(path, report.failed.find((line) => line.startsWith(`${path}: `)) ?? `${path}: failed`);
    for (const line of describeProblems(report)) warn(line);
  };

  let previous: Promise<unknown> = Promise.resolve();
  return {
    runtime,
    end,
    invoke(profile, call, unwanted) {
      const settled = previous.then(async (): Promise<SettledCall> => {
        const outcome = await runtime.invoke(profile, call);
        const why = unwanted();
        if (why !== null) {
          await undo(outcome, `was not answered, ${why}`);
          return { outcome, answer: false };
        }
        const code = outcome.failure?.code;
        if (code !== undefined && STOPPED_CODES.has(code))
          await undo(outcome, `was stopped (${code}) before it finished`);
        else if (options.writeBack) {
          end.writing(true);
          try {
            await writeBackCall(outcome);
          } finally {
            end.writing(false);
          }
        }
        return { outcome, answer: true };
      });
      previous = settled.catch(() => undefined);
      return settled;
    },
    async finish({ answered }) {
      if (end.stopped)
        warn(
          `${end.reason}: stopped after ${answered} answered call${answered === 1 ? "" : "s"}${options.writeBack ? "; each was written back before it was answered" : "; nothing is written back (no --write-back)"}`,
        );
      end.writing();
      // Every answered call is on disk already, but for writes that failed: they get a last try.
      await previous;
      if (options.writeBack && retry.size > 0) await writeBackCall({ changes: [] });
      // Each path once, however many calls wrote it.
      const once = (paths: string[]) => [...new Set(paths)];
      if (options.writeBack)
        warn(
          describeWriteBack({
            ...total,
            written: once(total.written),
            deleted: once(total.deleted),
            failed: [...failing.values()],
          })[0]!,
        );
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

/** A report's skipped and failed paths and notes, for stderr as each call is written back. */
function describeProblems(report: WriteBackReport): string[] {
  return describeWriteBack(report).slice(1);
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
