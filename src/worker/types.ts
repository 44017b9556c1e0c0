import type { ChangeKind } from "../core/checkpoints.ts";
import type { ApprovalMode, ToolKind } from "../core/profile.ts";
import type { CallOutcome } from "../core/runtime.ts";
import type { JsonSchema } from "../core/schema.ts";
import type { SerializedWorkspace } from "../sandbox/snapshot.ts";
import type { BackendKind, EntryType, SandboxCapabilities } from "../sandbox/types.ts";

/** Which sandbox the person wants: try a WebContainer first (auto), or one of the two outright. */
export type BackendChoice = "auto" | "embedded" | "webcontainer";

export interface Settings {
  backend: BackendChoice;
  /** How long auto mode waits for WebContainer.boot before falling back (ms). */
  webcontainerTimeoutMs: number;
  /** Per profile, per tool approval modes the person chose ("always for this tool" lands here). */
  approvals: Record<string, Record<string, ApprovalMode>>;
}

export const DEFAULT_SETTINGS: Settings = {
  backend: "auto",
  // StackBlitz is probed first, so an offline machine falls back at once; this covers a first boot online.
  webcontainerTimeoutMs: 12_000,
  approvals: {},
};

export interface ProfileInfo {
  name: string;
  title: string;
  description: string;
  spec: string;
  /** Internal profiles (the editor's) are not published dialects; the console hides them. */
  internal: boolean;
  approval: { write: ApprovalMode; command: ApprovalMode };
}

export interface ToolInfo {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  kind: ToolKind;
  /** How a call is approved right now (the profile's default or the person's choice). */
  approval: ApprovalMode;
}

/** A request as a dialect's client would send it. */
export interface CallRequest {
  tool: string;
  params: Record<string, unknown>;
  request_id?: string;
}

export interface FileEntry {
  /** Relative to the workspace root, "/"-separated. */
  path: string;
  type: EntryType;
}

export interface FileContent {
  path: string;
  size: number;
  /** UTF-8 text, or null when the file is binary or too large to show. */
  text: string | null;
  binary: boolean;
  tooLarge: boolean;
}

export interface CheckpointInfo {
  step: number;
  requestId: string;
  tool: string;
  files: { path: string; change: ChangeKind; entry: EntryType }[];
}

/** One file as one call left it: its text before and after (null: absent or binary). */
export interface FileDiff {
  path: string;
  step: number;
  requestId: string;
  tool: string;
  change: ChangeKind;
  before: string | null;
  after: string | null;
  binary: boolean;
}

export interface WorkspaceInfo {
  id: string;
  name: string;
  origin: string;
  createdAt: string;
  updatedAt: string;
  current: boolean;
}

/** Files for a new workspace: a starter, an opened folder, an import. */
export interface WorkspaceSeed {
  name: string;
  origin: string;
  files: SerializedWorkspace;
}

export interface BootResult {
  backend: BackendKind;
  capabilities: SandboxCapabilities;
  workspaceRoot: string;
  workspace: WorkspaceInfo;
  restored: { files: number; events: number; checkpoints: number };
  /** The call the watchdog cut off before this boot, recorded in the log with its timeout envelope. */
  interrupted?: CallOutcome;
  bootMs: number;
}

/** What the watchdog on the main thread needs to know about the call in flight. */
export type WatchNotice =
  /** `call`: what to record if the watchdog cuts it off (calls the agent or a replay made in the worker). */
  /** `job`: the stop-board job the call runs as (CALLS_CHANNEL), once its tool has started. */
  | { requestId: string; state: "running"; deadlineMs: number; call?: InterruptedCall; job?: number }
  | { requestId: string; state: "waiting" }
  | { requestId: string; state: "done" };

/** A call the watchdog cut off: the restarted worker records it with the dialect's timeout envelope. */
export interface InterruptedCall {
  profile: string;
  request: CallRequest;
  deadlineMs: number;
  startedAt: string;
}

export interface TerminalOptions {
  cols: number;
  rows: number;
}
