import { ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import { truncateHeadTailBytes } from "../core/truncate.ts";
import type { PtySession, Sandbox } from "../sandbox/types.ts";
import { resolveFolder } from "./walk.ts";

/** How long a start or a write waits for the command to settle before returning what it printed. */
export const DEFAULT_SESSION_YIELD_MS = 1000;
/** Output returned by one read at most; the middle of anything longer is dropped and marked. */
export const DEFAULT_SESSION_READ_BYTES = 64 * 1024;
/** Sessions running at once at most: each may hold a loop that shares the thread with every call. */
export const MAX_RUNNING_SESSIONS = 16;

export interface SessionReadOptions {
  yieldMs?: number;
  maxBytes?: number;
}

/** What a session printed since the previous read, and whether it has ended. */
export interface SessionOutput {
  id: string;
  output: string;
  truncated: boolean;
  exited: boolean;
  exitCode: number | null;
}

export interface SessionInfo {
  id: string;
  command: string;
  /** Workspace-relative folder it started in ("" for the root). */
  workdir: string;
  startedAt: string;
  exited: boolean;
  exitCode: number | null;
}

interface Entry {
  session: PtySession;
  info: Omit<SessionInfo, "exited" | "exitCode">;
}

/**
 * Long-running commands by caller-chosen id, on top of Sandbox.pty: start, write, read what
 * arrived since the last read (capped), kill, list. An ended session stays listed, so a write to
 * it says it ended rather than that it never existed; starting a new one under its id replaces it.
 */
export class PtySessions {
  private readonly sandbox: Sandbox;
  private readonly sessions = new Map<string, Entry>();

  constructor(sandbox: Sandbox) {
    this.sandbox = sandbox;
  }

  /** Starts `command` as session `id` in a workspace folder; returns its first output. */
  async start(
    context: ToolContext,
    id: string,
    command: string,
    workdir: unknown,
    options: SessionReadOptions = {},
  ): Promise<SessionOutput> {
    if (id.trim() === "") throw new ToolFailure("invalid_params", "session_id must not be empty.");
    const existing = this.sessions.get(id);
    if (existing && existing.session.exitCode() === null) {
      throw new ToolFailure(
        "session_exists",
        `A session with id "${id}" is already running (${existing.info.command}). Send it input, or pick another id.`,
        { session_id: id },
      );
    }
    const running = [...this.sessions.values()].filter((entry) => entry.session.exitCode() === null);
    if (running.length >= MAX_RUNNING_SESSIONS) {
      throw new ToolFailure(
        "limit_exceeded",
        `${running.length} sessions are running, the most there may be at once (${running.map((entry) => entry.info.id).join(", ")}). End one first: write "exit\\n" to a shell, "\\u0004" (Ctrl-D) to a command reading input, or "\\u0003" (Ctrl-C) to stop it.`,
        { running: running.length, limit: MAX_RUNNING_SESSIONS },
      );
    }
    const folder =
      workdir === undefined || workdir === null ? "" : await resolveFolder(context, workdir, "workdir");
    const root = this.sandbox.workspaceRoot;
    const session = await this.sandbox.pty(command, { cwd: folder === "" ? root : `${root}/${folder}` });
    this.sessions.set(id, {
      session,
      info: { id, command, workdir: folder, startedAt: context.clock.now().toISOString() },
    });
    return this.read(id, options);
  }

  /** Writes characters to a running session, then returns what it printed since the last read. */
  async write(id: string, chars: string, options: SessionReadOptions = {}): Promise<SessionOutput> {
    const entry = this.require(id);
    const code = entry.session.exitCode();
    if (code !== null) {
      // Output that arrived before the end is still delivered, with the news that it ended.
      const pending = await this.read(id, { ...options, yieldMs: 0 });
      if (pending.output !== "") return pending;
      throw new ToolFailure(
        "session_exited",
        `Session "${id}" has exited with code ${code}; start a new session to run more.`,
        { session_id: id, exit_code: code },
      );
    }
    await entry.session.write(chars);
    return this.read(id, options);
  }

  /** What the session printed since the previous read, waiting up to yieldMs for it to settle. */
  async read(id: string, options: SessionReadOptions = {}): Promise<SessionOutput> {
    const entry = this.require(id);
    const read = await entry.session.read({ yieldMs: options.yieldMs ?? DEFAULT_SESSION_YIELD_MS });
    const capped = truncateHeadTailBytes(read.output, options.maxBytes ?? DEFAULT_SESSION_READ_BYTES);
    return {
      id,
      output: capped.text,
      truncated: capped.truncated,
      exited: read.exited,
      exitCode: read.exitCode,
    };
  }

  /** Stops a session; its final read reports the exit. */
  async kill(id: string): Promise<SessionOutput> {
    const entry = this.require(id);
    await entry.session.kill();
    return this.read(id, { yieldMs: 0 });
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map(({ session, info }) => ({
      ...info,
      exited: session.exitCode() !== null,
      exitCode: session.exitCode(),
    }));
  }

  /** Kills every session still running; called when the runtime closes. */
  async dispose(): Promise<void> {
    const entries = [...this.sessions.values()];
    this.sessions.clear();
    for (const { session } of entries) if (session.exitCode() === null) await session.kill();
  }

  private require(id: string): Entry {
    const entry = this.sessions.get(id);
    if (!entry) {
      const known = [...this.sessions.keys()];
      throw new ToolFailure(
        "session_not_found",
        `No session with id "${id}". ${known.length > 0 ? `Sessions: ${known.join(", ")}.` : "There are no sessions; start one first."}`,
        { session_id: id },
      );
    }
    return entry;
  }
}

/** The runtime's one session registry (created on first use, disposed with the runtime). */
export function ptySessions(context: ToolContext): PtySessions {
  return context.services.get("pty-sessions", () => new PtySessions(context.sandbox));
}
