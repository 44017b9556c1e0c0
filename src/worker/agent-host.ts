import {
  AgentController,
  type AgentRunSummary,
  type AgentStatus,
  type AgentUpdate,
  type ConversationState,
} from "../agent/controller.ts";
import type { FetchLike, ProviderSettings } from "../agent/provider.ts";
import { withoutKey } from "../agent/settings.ts";
import { toolEntryOf } from "../agent/tool-results.ts";
import { type TokenUsage, type TranscriptEntry, unansweredToolCalls } from "../agent/transcript.ts";
import type { CallOutcome } from "../core/runtime.ts";
import type { RecordingState } from "../session/record.ts";
import type { ShareResult } from "../session/share.ts";
import type { WorkspaceStore } from "./store.ts";
import type { WorkspaceSession } from "./workspace-session.ts";

/** What the agent pane shows when it (re)loads: everything but the key. */
export interface AgentState {
  status: AgentStatus;
  profile: string;
  /** A model is connected (the key, if any, is held in the worker's memory). */
  connected: boolean;
  /** The connected model, without its key. */
  provider: Omit<ProviderSettings, "apiKey"> | null;
  transcript: TranscriptEntry[];
  usage: TokenUsage;
}

/** What the agent pane hears: a run's updates, and a conversation this browser failed to store. */
export type AgentPaneUpdate = AgentUpdate | { type: "save_failed"; message: string };

interface StoredConversation {
  conversation: ConversationState;
  recording: RecordingState | null;
}

const conversationKey = (workspaceId: string) => `agent:${workspaceId}`;

/** The profile a new conversation starts with. */
const DEFAULT_AGENT_PROFILE = "agentbench";

/**
 * The agent of the open workspace: one AgentController over its runtime, its conversation kept in
 * the store so a reload (or a worker restart) goes on with it. The provider settings, key included,
 * live in this object's memory only and carry over when another workspace opens.
 */
export class AgentHost {
  private controller: AgentController | null = null;
  private settings: ProviderSettings | null = null;
  private listener: ((update: AgentPaneUpdate) => void) | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: WorkspaceStore,
    private readonly fetch: FetchLike,
  ) {}

  /**
   * Called for every workspace that opens: its conversation, if it had one, is taken up again.
   * `tools`: per profile, the only tools the model gets (a lesson's workspace).
   */
  async attach(
    session: WorkspaceSession,
    sandbox: string,
    tools?: Record<string, readonly string[]>,
  ): Promise<void> {
    this.detach();
    const workspaceId = session.meta.id;
    const saved = await this.store.getSetting<StoredConversation>(conversationKey(workspaceId));
    const stored = saved && session.interrupted ? answerInterrupted(saved, session.interrupted) : saved;
    // Kept at once: the cut-off call's envelope is known only on the boot right after the restart.
    if (stored && stored !== saved) await this.store.setSetting(conversationKey(workspaceId), stored);
    let recording = stored?.recording ?? null;
    const store = this.store;
    const controller = new AgentController({
      runtime: session.runtime,
      fetch: this.fetch,
      profile: stored?.conversation.profile ?? DEFAULT_AGENT_PROFILE,
      sandbox,
      ...(tools ? { tools } : {}),
      // The model's turn is stored before its call runs (a call may hang the worker until the watchdog
      // restarts it), and through the session each call's log is stored before the model sees the result.
      invoke: async (profile, call) => {
        await controller.saved();
        return session.call(profile, call);
      },
      store: {
        async saveRecording(next) {
          recording = next;
        },
        async saveConversation(conversation) {
          await store.setSetting(conversationKey(workspaceId), {
            conversation,
            recording,
          });
        },
      },
      // The conversation lives on in memory; the pane says it will not survive a reload.
      onSaveError: (error) =>
        this.listener?.({
          type: "save_failed",
          message: error instanceof Error ? error.message : String(error),
        }),
      ...(stored ? { restore: stored } : {}),
    });
    if (this.settings) controller.configure(this.settings);
    this.unsubscribe = controller.subscribe((update) => this.listener?.(update));
    this.controller = controller;
  }

  /** Stops a run in progress and lets go of the workspace that is closing. */
  detach(): void {
    this.controller?.stop();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.controller = null;
  }

  /** One listener: the page's agent pane. */
  setListener(listener: ((update: AgentPaneUpdate) => void) | undefined): void {
    this.listener = listener;
  }

  /** Connects a model; throws with what is wrong when the settings are incomplete. */
  connect(settings: ProviderSettings): AgentState {
    this.require().configure(settings);
    this.settings = { ...settings };
    return this.state();
  }

  state(): AgentState {
    const controller = this.require();
    return {
      status: controller.status,
      profile: controller.profile,
      connected: this.settings !== null,
      provider: this.settings ? withoutKey(this.settings) : null,
      transcript: [...controller.transcript],
      usage: controller.usage,
    };
  }

  setProfile(profile: string): AgentState {
    this.require().setProfile(profile);
    return this.state();
  }

  send(task: string, maxIterations?: number): Promise<AgentRunSummary> {
    this.requireConnected();
    return this.require().send(task, maxIterations !== undefined ? { maxIterations } : {});
  }

  continue(maxIterations?: number): Promise<AgentRunSummary> {
    this.requireConnected();
    return this.require().continue(maxIterations !== undefined ? { maxIterations } : {});
  }

  stop(): void {
    this.controller?.stop();
  }

  newConversation(): AgentState {
    this.require().newConversation();
    return this.state();
  }

  /** The conversation as session JSON, redacted (the key in use and anything key-shaped). */
  exportSession(): string {
    return this.require().exportSession({ pretty: true }).text;
  }

  share(pageUrl: string): ShareResult {
    return this.require().share(pageUrl);
  }

  private require(): AgentController {
    if (!this.controller) throw new Error("No workspace is open yet; the agent works in one.");
    return this.controller;
  }

  private requireConnected(): void {
    if (!this.settings) {
      throw new Error("Connect a model first: choose a provider, a model and (for hosted ones) a key.");
    }
  }
}

/**
 * After the watchdog cut a call off, the model's call that started it is answered with the timeout
 * envelope the restarted worker recorded, rather than a bare "interrupted": the model learns what
 * really happened. Only a call of the same tool, still unanswered, is matched.
 */
function answerInterrupted(saved: StoredConversation, outcome: CallOutcome): StoredConversation {
  const transcript = saved.conversation.transcript;
  const call = unansweredToolCalls(transcript).find((candidate) => candidate.name === outcome.tool);
  if (!call) return saved;
  const entry = toolEntryOf(call, outcome);
  return { ...saved, conversation: { ...saved.conversation, transcript: [...transcript, entry] } };
}
