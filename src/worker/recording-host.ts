import { exportSession } from "../session/export.ts";
import type { SessionFile } from "../session/format.ts";
import { type RecordingState, SessionRecorder } from "../session/record.ts";
import { type ShareResult, shareSession } from "../session/share.ts";
import type { WorkspaceStore } from "./store.ts";
import type { WorkspaceSession } from "./workspace-session.ts";

/** A recording of the calls made by hand (console, editor, terminal), as the Sessions menu shows it. */
export interface RecordingInfo {
  startedAt: string;
  /** Tool calls recorded so far. */
  calls: number;
}

const recordingKey = (workspaceId: string) => `recording:${workspaceId}`;

/**
 * Records what a person does in the open workspace as a session anyone can replay: the workspace as
 * it was when recording began, and every event since. Kept in the store, so a reload goes on with it.
 */
export class RecordingHost {
  private recorder: SessionRecorder | null = null;
  private session: WorkspaceSession | null = null;

  constructor(private readonly store: WorkspaceStore) {}

  /** Called for every workspace that opens: a recording begun there goes on. */
  async attach(session: WorkspaceSession): Promise<void> {
    this.session = session;
    const saved = await this.store.getSetting<RecordingState>(recordingKey(session.meta.id));
    this.recorder = saved ? SessionRecorder.resume(session.runtime, saved) : null;
  }

  async start(profile: string): Promise<RecordingInfo> {
    const session = this.require();
    this.recorder = await SessionRecorder.start(session.runtime, {
      profile,
      sandbox: session.sandbox.kind,
    });
    await this.store.setSetting(recordingKey(session.meta.id), this.recorder.state());
    return this.info()!;
  }

  async stop(): Promise<void> {
    const session = this.require();
    this.recorder = null;
    await this.store.setSetting(recordingKey(session.meta.id), undefined);
  }

  info(): RecordingInfo | null {
    if (!this.recorder) return null;
    return {
      startedAt: this.recorder.startedAt.toISOString(),
      calls: this.recorder.events().filter((event) => event.type === "tool_call_started").length,
    };
  }

  /** The recording as session JSON, with anything key-shaped redacted. */
  exportText(): string {
    return exportSession(this.sessionFile(), { pretty: true }).text;
  }

  share(pageUrl: string): ShareResult {
    return shareSession(this.sessionFile(), pageUrl);
  }

  private sessionFile(): SessionFile {
    const recorder = this.recorder;
    if (!recorder)
      throw new Error("Nothing is being recorded: start a recording in the Sessions menu first.");
    const calls = this.info()!.calls;
    if (calls === 0) throw new Error("The recording has no calls yet: run a tool from the console first.");
    return recorder.finish({
      meta: {
        title: `Calls by hand in ${this.require().meta.name}`,
        description: `${calls} tool call${calls === 1 ? "" : "s"} made by a person in Toolroom.`,
      },
    });
  }

  private require(): WorkspaceSession {
    if (!this.session) throw new Error("No workspace is open yet.");
    return this.session;
  }
}
