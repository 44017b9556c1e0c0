import type { Sandbox } from "../sandbox/types.ts";
import type { ArtifactStore } from "./artifacts.ts";
import type { ToolFailure } from "./errors.ts";
import type { Clock, EventType, LogLevel } from "./events.ts";
import type { JsonSchema } from "./schema.ts";
import type { ParentSegmentPolicy, ResolveOptions, SymlinkPolicy, WorkspacePath } from "./workspace-path.ts";

/** read: no side effects; write: changes files; command: runs commands (may do anything). */
export type ToolKind = "read" | "write" | "command";

export type ApprovalMode = "auto" | "ask" | "deny";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Per-runtime singletons that a tool family keeps between calls (PTY sessions, state, plan). */
export interface Services {
  get<T>(key: string, create: () => T): T;
}

/** What a tool gets besides its params. Tools reach files, time and network only through it. */
export interface ToolContext {
  readonly sandbox: Sandbox;
  readonly profile: string;
  readonly tool: string;
  readonly requestId: string;
  /** 1-based number of this call in the session; names its artifacts. */
  readonly step: number;
  readonly signal: AbortSignal;
  readonly deadlineMs: number;
  readonly clock: Clock;
  readonly artifacts: ArtifactStore;
  /** The workspace-path resolver, bound to this sandbox and the profile's symlink policy. */
  resolve(path: unknown, options?: ResolveOptions): Promise<WorkspacePath>;
  emit(type: EventType, data: Record<string, unknown>): void;
  readonly fetch: FetchLike | undefined;
  readonly services: Services;
  readonly settings: RuntimeSettings;
}

export interface RuntimeSettings {
  /** URL prefixes the network tools may reach; empty means the network is off. */
  networkAllowList: string[];
  /** The user's own git identity (their global git config), for commits where the repository names none. */
  gitIdentity?: { name?: string; email?: string };
}

/** One tool of one dialect: its printed schema, and an adapter from the dialect onto capabilities. */
export interface ToolSpec<Params = Record<string, unknown>> {
  name: string;
  description: string;
  /** The JSON Schema of the params, exactly as the dialect prints it. */
  inputSchema: JsonSchema;
  kind: ToolKind;
  /** A "read" tool that still changes the session (a plan, a stored value): not read-only to a client. */
  changesSession?: boolean;
  /** Reaches the network (MCP's openWorldHint). */
  openWorld?: boolean;
  /** The spec's deadline; may depend on params (a command's own timeout). */
  deadlineMs: number | ((params: Params) => number);
  /** Params that hold workspace paths: checked before approval so escapes fail fast. */
  pathParams?: string[];
  /**
   * A check on the params as sent, before schema validation: for a refusal the spec names that must
   * win over a schema error (git_commit's confirmation: missing or not `true` is CONFIRMATION_REQUIRED).
   */
  checkSent?(params: Record<string, unknown>): void;
  /** The tool's own policy check (safe_shell's patterns), run with the guards, before approval. */
  guard?(params: Params, context: { sandbox: Sandbox }): void | Promise<void>;
  run(params: Params, context: ToolContext): Promise<unknown>;
}

export interface CallInfo {
  requestId: string;
  tool: string;
  params: Record<string, unknown>;
  step: number;
  startedAt: Date;
  endedAt: Date;
}

/** How a dialect wraps results and errors. */
export interface Envelope {
  success(call: CallInfo, data: unknown): unknown;
  failure(call: CallInfo, failure: ToolFailure): unknown;
  /**
   * Whether an envelope of this dialect reports a failed call, by the dialect's own notion
   * (`success: false`, `ok: false`, `status: "error"`, an `error` object): a tool that ran but
   * answered a failure (a command's non-zero exit, where the dialect counts it so) is an error.
   */
  failed(envelope: unknown): boolean;
}

/** A normalised call: every dialect's call shape is turned into this. */
export interface ToolCall {
  tool: string;
  params: Record<string, unknown>;
  request_id?: string;
}

/** A dialect: a table mapping its names, schemas and envelopes onto capabilities. */
export interface Profile {
  name: string;
  title: string;
  /** The spec file in ../shared/specs this profile follows. */
  spec: string;
  description: string;
  // biome-ignore lint/suspicious/noExplicitAny: a table of tools whose params differ
  tools: ToolSpec<any>[];
  symlinks: SymlinkPolicy;
  /** `..` in paths: resolved while it stays inside (default), or refused (a spec that blocks `../`). */
  parentSegments?: ParentSegmentPolicy;
  /** Log levels the spec gives a call's request and response records, if it names any. */
  logLevels?: { request: LogLevel; response: LogLevel };
  /** Default approval policy for tools that are not read-only. */
  approval: { write: ApprovalMode; command: ApprovalMode };
  envelope: Envelope;
  /** Accepts the dialect's own call shapes besides {tool, params, request_id}; undefined if not one. */
  parseCall?(raw: Record<string, unknown>): ToolCall | undefined;
}
