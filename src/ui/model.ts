import { proxy } from "comlink";
import { useSyncExternalStore } from "react";
import type { AgentRunSummary } from "../agent/controller.ts";
import type { ProviderSettings } from "../agent/provider.ts";
import { loadProviderSettings, saveProviderSettings } from "../agent/settings.ts";
import type { AssistantEntry, TranscriptEntry } from "../agent/transcript.ts";
import type { ToolEvent } from "../core/events.ts";
import type { ApprovalDecision, ApprovalRequest, CallOutcome } from "../core/runtime.ts";
import type { Lesson } from "../lessons/lesson.ts";
import { lessonFromUrl } from "../lessons/share.ts";
import type { SerializedWorkspace } from "../sandbox/snapshot.ts";
import type { EntryType, SandboxCapabilities } from "../sandbox/types.ts";
import type { SessionFile } from "../session/format.ts";
import { loadSessionFromUrl, type ShareResult } from "../session/share.ts";
import type {
  AgentPaneUpdate,
  AgentState,
  BackendChoice,
  BootResult,
  CallRequest,
  DemoInfo,
  FileContent,
  FileDiff,
  ProfileInfo,
  RecordingInfo,
  ReplayStatus,
  Settings,
  WorkspaceInfo,
} from "../worker/api.ts";
import type { LessonComparison, LessonProgress, LessonStatus } from "../worker/lessons.ts";
import type { EarlyBoot } from "./boot/boot-runtime.ts";
import type { SupportLine } from "./boot/browser-support.ts";
import { forgetLayout } from "./layout/panes.tsx";
import type { WorkerHost } from "./worker-host.ts";

export type Tone = "info" | "ok" | "warn" | "error";

/** How long a notice stays on screen: errors stay until dismissed; anything with an action a while longer. */
const NOTICE_MS: Record<Tone, number | null> = { ok: 6000, info: 6000, warn: 12_000, error: null };
const ACTION_EXTRA_MS = 6000;
/** Notices kept to read again after they went away. */
const NOTICE_HISTORY = 30;

export interface BootStep {
  ms: number;
  text: string;
  tone: Tone;
}

export interface SandboxStatus {
  backend: "embedded" | "webcontainer";
  /** Why this backend runs, in the person's words. */
  reason: string;
  capabilities: SandboxCapabilities;
  choice: BackendChoice;
}

export interface Notice {
  id: number;
  tone: Tone;
  text: string;
  /** When it was said, for the list of earlier messages. */
  at: number;
  action?: { label: string; run: () => void };
}

export interface PendingApproval {
  request: ApprovalRequest;
  answer(decision: ApprovalDecision): void;
}

export interface OpenFile extends FileContent {
  /** What the editor holds; differs from `text` while unsaved. */
  draft: string | null;
  /** The file changed in the workspace while the editor had unsaved edits. */
  changedOnDisk: boolean;
}

export interface DiffView {
  title: string;
  path: string;
  before: string;
  after: string;
  note?: string;
}

/** What the agent pane shows while a run goes on. */
export interface AgentLive {
  /** The model's text of the turn in progress, as it streams. */
  text: string;
  /** The tool the model is calling now. */
  calling: string | null;
  iteration: number;
}

export type SideTab = "agent" | "console";

export interface AppState {
  booting: boolean;
  bootSteps: BootStep[];
  support: SupportLine[];
  waitingForWebContainer: number | null;
  sandbox: SandboxStatus | null;
  workspace: WorkspaceInfo | null;
  workspaces: WorkspaceInfo[];
  profiles: ProfileInfo[];
  settings: Settings | null;
  /** The tree's selection: a file or a folder. The editor shows `openFile`, which only a file can be. */
  selectedPath: string | null;
  openFile: OpenFile | null;
  editorView: "file" | "diff";
  diff: DiffView | null;
  filesVersion: number;
  eventsVersion: number;
  /** Bumped when the worker or the workspace was replaced: terminals reopen, views reload. */
  sessionVersion: number;
  notices: Notice[];
  /** Every recent notice, those gone from the screen included. */
  noticeHistory: Notice[];
  approvals: PendingApproval[];
  readyMs: number | null;
  /** The lesson of the open workspace, when it is a lesson's workspace. */
  lesson: LessonStatus | null;
  lessonProgress: Record<string, LessonProgress>;
  authoringLesson: boolean;
  /** The learner's calls beside the model's, once asked for. */
  lessonComparison: LessonComparison | null;
  /** The agent of the open workspace (never its key). */
  agent: AgentState | null;
  agentLive: AgentLive | null;
  /** How the last run ended. */
  agentSummary: AgentRunSummary | null;
  /** Provider settings as last connected or remembered, without the key (the form starts there). */
  providerDraft: ProviderSettings | null;
  /** The replay of the open workspace, when it was opened from a session. */
  replay: ReplayStatus | null;
  replayBusy: boolean;
  /** The replay is playing on its own (Pause stops it). */
  replayPlaying: boolean;
  /** Steps per second a replay plays at; 0 as fast as the calls run. */
  replayPace: number;
  sideTab: SideTab;
  /** Whether the agent's profile asks before writes and commands. */
  agentApprovals: "ask" | "auto" | "mixed";
  /** The built-in demo sessions. */
  demos: DemoInfo[];
  /** The recording of the person's own calls in this workspace, if one is on. */
  recording: RecordingInfo | null;
}

const initialState: AppState = {
  booting: true,
  bootSteps: [],
  support: [],
  waitingForWebContainer: null,
  sandbox: null,
  workspace: null,
  workspaces: [],
  profiles: [],
  settings: null,
  selectedPath: null,
  openFile: null,
  editorView: "file",
  diff: null,
  filesVersion: 0,
  eventsVersion: 0,
  sessionVersion: 0,
  notices: [],
  noticeHistory: [],
  approvals: [],
  readyMs: null,
  lesson: null,
  lessonProgress: {},
  authoringLesson: false,
  lessonComparison: null,
  agent: null,
  agentLive: null,
  agentSummary: null,
  providerDraft: null,
  replay: null,
  replayBusy: false,
  replayPlaying: false,
  replayPace: 2,
  sideTab: "agent",
  agentApprovals: "auto",
  demos: [],
  recording: null,
};

const SIDE_TAB_KEY = "toolroom.sideTab";
const REPLAY_PACE_KEY = "toolroom.replayPace";

/**
 * The page's state and everything the person can do. Components read slices of `state` and call
 * these methods; nothing here touches the runtime except through the worker API.
 */
export class AppModel {
  state: AppState = initialState;
  /** Every path of the workspace with its type; mutated in place, `filesVersion` says when. */
  readonly files = new Map<string, EntryType>();
  /** The event log; appended in place, `eventsVersion` says when. */
  readonly events: ToolEvent[] = [];
  /**
   * The console's dialect and tool: what the person is doing, not the workspace's, so a switch
   * (which draws the panes anew) keeps them; its result and fields start from nothing.
   */
  readonly consoleChoice = { profile: "", tool: "" };
  private readonly listeners = new Set<() => void>();
  /** Boot times count from the page's navigation, where the first script began the boot. */
  private readonly started = 0;
  private frame: number | undefined;
  private pendingBump = { files: false, events: false };
  private nextNotice = 1;
  private seenSeq = new Set<string>();
  /** The connected model's settings, key included: in this page's memory only (and the worker's). */
  private provider: ProviderSettings | null = null;
  /** The replay's play under way, so a seek can wait for it to stop. */
  private playingReplay: Promise<void> | null = null;
  private seeking: Promise<void> | null = null;
  private seekTarget: number | null = null;

  constructor(readonly host: WorkerHost) {
    host.onEvent((event) => this.receive(event));
    host.onRestart(({ reason, boot }) => {
      this.notify(
        "warn",
        `The worker was restarted: ${reason}. The workspace is back as it was after the last completed call.`,
      );
      void this.afterBoot(boot).then(() => this.reconnectAgent());
    });
    host.onAgentUpdate((update) => this.onAgentUpdate(update));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(patch: Partial<AppState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  private step(text: string, tone: Tone = "info"): void {
    const ms = Math.round(performance.now() - this.started);
    this.set({ bootSteps: [...this.state.bootSteps, { ms, text, tone }] });
  }

  notify(tone: Tone, text: string, action?: Notice["action"]): void {
    const notice: Notice = {
      id: this.nextNotice++,
      tone,
      text,
      at: Date.now(),
      ...(action ? { action } : {}),
    };
    this.set({
      notices: [...this.state.notices.slice(-4), notice],
      noticeHistory: [...this.state.noticeHistory.slice(1 - NOTICE_HISTORY), notice],
    });
    // Errors wait to be read; everything else goes away by itself (and stays in the history).
    const ms = NOTICE_MS[tone];
    if (ms !== null) setTimeout(() => this.dismiss(notice.id), ms + (action ? ACTION_EXTRA_MS : 0));
  }

  dismiss(id: number): void {
    this.set({ notices: this.state.notices.filter((notice) => notice.id !== id) });
  }

  /**
   * Boot, begun by the page's first script (EarlyBoot: check the browser, pick a sandbox, open the
   * workspace) before this model existed: its steps are replayed here, then the views load.
   */
  async start(early: EarlyBoot): Promise<void> {
    try {
      this.loadAgentPreferences();
      early.attach({
        step: (text, tone, ms) => this.set({ bootSteps: [...this.state.bootSteps, { ms, text, tone }] }),
        support: (support) => this.set({ support }),
        waiting: (msLeft) => this.set({ waitingForWebContainer: msLeft }),
      });
      early.setAsker((request) => this.ask(request));
      const { settings, backend, boot } = await early.result;
      this.set({
        settings,
        sandbox: {
          backend: boot.backend,
          reason: backend.reason,
          capabilities: boot.capabilities,
          choice: backend.choice,
        },
      });
      await this.afterBoot(boot);
      await this.reconnectAgent();
      const readyMs = Math.round(performance.now() - this.started);
      this.step(
        `Ready in ${readyMs} ms: ${boot.restored.files} files, ${boot.restored.events} log events restored`,
        "ok",
      );
      this.set({ booting: false, readyMs });
      await this.openLessonFromUrl();
      await this.openSessionFromUrl();
    } catch (error) {
      this.step(
        `Boot failed: ${message(error)}. Reload the page; if it fails again, clear this site's data (it resets the saved workspaces).`,
        "error",
      );
    }
  }

  /** After any boot, restart or switch: reload everything the views show. */
  private async afterBoot(boot: BootResult): Promise<void> {
    const api = this.host.api;
    const [
      files,
      events,
      workspaces,
      profiles,
      settings,
      lesson,
      lessonProgress,
      agent,
      replay,
      demos,
      recording,
    ] = await Promise.all([
      api.listFiles(),
      api.events(),
      api.workspaces.list(),
      api.listProfiles(),
      api.settings.get(),
      api.lessons.status(),
      api.lessons.progress(),
      api.agent.state(),
      api.sessions.status(),
      // The demos never change: asked for once.
      this.state.demos.length > 0 ? this.state.demos : api.sessions.demos(),
      api.sessions.recording(),
    ]);
    this.files.clear();
    for (const entry of files) this.files.set(entry.path, entry.type);
    this.events.length = 0;
    this.seenSeq.clear();
    for (const event of events) this.pushEvent(event);
    // The selection belongs to one workspace: a switch (or a new workspace) starts from nothing,
    // then from the file this workspace had open before, if it is still there.
    const sameWorkspace = this.state.workspace?.id === boot.workspace.id;
    const openPath = this.state.openFile?.path;
    const keep = sameWorkspace && openPath !== undefined && this.files.get(openPath) === "file";
    const remembered = rememberedFile(boot.workspace.id);
    const reopen = keep
      ? openPath
      : remembered && this.files.get(remembered.path) === "file"
        ? remembered.path
        : undefined;
    this.set({
      workspace: boot.workspace,
      workspaces,
      profiles,
      settings,
      lesson,
      lessonProgress,
      agent,
      agentLive: null,
      agentSummary: null,
      lessonComparison: null,
      replay,
      demos,
      recording,
      filesVersion: this.state.filesVersion + 1,
      eventsVersion: this.state.eventsVersion + 1,
      sessionVersion: this.state.sessionVersion + 1,
      approvals: [],
      ...(keep && this.state.selectedPath && this.files.has(this.state.selectedPath)
        ? {}
        : { selectedPath: null, openFile: null, diff: null, editorView: "file" as const }),
    });
    if (reopen) await this.openPath(reopen, { force: true });
    await this.refreshAgentApprovals();
  }

  private pushEvent(event: ToolEvent): boolean {
    const key = `${event.session}:${event.seq}`;
    if (this.seenSeq.has(key)) return false;
    this.seenSeq.add(key);
    this.events.push(event);
    return true;
  }

  private receive(event: ToolEvent): void {
    if (!this.pushEvent(event)) return;
    this.pendingBump.events = true;
    const changed = event.type === "file_changed" ? (event.data as { path: string }).path : "";
    // git's own folder is not shown in the tree (listFiles leaves it out too).
    if (changed !== "" && changed !== ".git" && !changed.startsWith(".git/")) {
      const data = event.data as { path: string; change: string; entry?: EntryType };
      if (data.change === "deleted") {
        this.files.delete(data.path);
        for (const path of [...this.files.keys()])
          if (path.startsWith(`${data.path}/`)) this.files.delete(path);
      } else {
        this.files.set(data.path, data.entry ?? "file");
      }
      this.pendingBump.files = true;
      if (data.path === this.state.openFile?.path) void this.refreshOpenFile();
    }
    this.scheduleBump();
  }

  /** Many events can arrive in one frame (a restore of 10,000 files): redraw once per frame. */
  private scheduleBump(): void {
    if (this.frame !== undefined) return;
    const flush = () => {
      this.frame = undefined;
      const patch: Partial<AppState> = {};
      if (this.pendingBump.files) patch.filesVersion = this.state.filesVersion + 1;
      if (this.pendingBump.events) patch.eventsVersion = this.state.eventsVersion + 1;
      this.pendingBump = { files: false, events: false };
      this.set(patch);
    };
    this.frame =
      typeof requestAnimationFrame === "function"
        ? requestAnimationFrame(flush)
        : (setTimeout(flush, 16) as unknown as number);
  }

  // --- files and the editor -------------------------------------------------------------------

  async openPath(path: string, options: { force?: boolean } = {}): Promise<void> {
    if (!options.force && path === this.state.openFile?.path) {
      this.set({ selectedPath: path });
      return;
    }
    if (this.files.get(path) !== "file") {
      this.set({ selectedPath: path });
      return;
    }
    try {
      const content = await this.host.api.readFile(path);
      rememberFile(this.state.workspace?.id, { path });
      this.set({
        selectedPath: path,
        openFile: { ...content, draft: content.text, changedOnDisk: false },
        editorView: "file",
      });
    } catch (error) {
      this.notify(
        "error",
        `Could not open ${path}: ${message(error)}. It may have been deleted; pick another file.`,
      );
    }
  }

  selectPath(path: string): void {
    if (this.files.get(path) === "file") void this.openPath(path);
    else this.set({ selectedPath: path });
  }

  editDraft(text: string): void {
    const open = this.state.openFile;
    if (!open) return;
    this.set({ openFile: { ...open, draft: text } });
  }

  private async refreshOpenFile(): Promise<void> {
    const open = this.state.openFile;
    const path = open?.path;
    if (!path) return;
    if (this.files.get(path) !== "file") {
      this.set({ openFile: null });
      return;
    }
    if (open && open.draft !== open.text) {
      this.set({ openFile: { ...open, changedOnDisk: true } });
      return;
    }
    await this.openPath(path, { force: true });
  }

  /** Saves the editor's text as a runtime call (editor profile), so it is logged and undoable. */
  async saveOpenFile(): Promise<CallOutcome | null> {
    const open = this.state.openFile;
    if (!open || open.draft === null) return null;
    const outcome = await this.host.call("editor", {
      tool: "write_file",
      params: { path: open.path, content: open.draft },
    });
    if (outcome.status === "error") {
      this.notify("error", `Saving ${open.path} failed: ${outcome.failure?.message ?? "unknown error"}`);
      return outcome;
    }
    const current = this.state.openFile;
    if (current?.path === open.path) {
      this.set({ openFile: { ...current, text: open.draft, changedOnDisk: false, size: open.draft.length } });
    }
    return outcome;
  }

  async reloadOpenFile(): Promise<void> {
    const path = this.state.openFile?.path;
    if (path) await this.openPath(path, { force: true });
  }

  /** File-tree actions, as editor-profile calls. */
  async editFiles(tool: string, params: Record<string, unknown>, done: string): Promise<boolean> {
    try {
      const outcome = await this.host.call("editor", { tool, params });
      if (outcome.status === "error") {
        this.notify("error", `${outcome.failure?.message ?? "That did not work."}`);
        return false;
      }
      this.notify("ok", done);
      return true;
    } catch (error) {
      this.notify("error", message(error));
      return false;
    }
  }

  async showLastChange(path: string): Promise<void> {
    const change = await this.host.api.checkpoints.lastChange(path);
    if (!change) {
      this.notify("info", `${path} has not been changed by any call yet; there is no diff to show.`);
      return;
    }
    this.showDiff(change);
  }

  showDiff(change: FileDiff): void {
    this.set({
      diff: {
        title: `${change.path} — step ${change.step} (${change.tool}, ${change.change})`,
        path: change.path,
        before: change.before ?? "",
        after: change.after ?? "",
        ...(change.binary ? { note: "Binary content is not shown." } : {}),
      },
      editorView: "diff",
      selectedPath: change.path,
    });
    if (this.files.get(change.path) === "file" && this.state.openFile?.path !== change.path) {
      void this.openPath(change.path, { force: true }).then(() => this.set({ editorView: "diff" }));
    }
  }

  setEditorView(view: "file" | "diff"): void {
    this.set({ editorView: view });
  }

  // --- calls, approvals, checkpoints ------------------------------------------------------------

  run(profile: string, request: CallRequest): Promise<CallOutcome> {
    return this.host.call(profile, request);
  }

  /** A fresh request id for a call the page makes, so that it can be cancelled by name. */
  newRequestId(): string {
    return this.host.newRequestId();
  }

  /** Stops a call run from the page (the console's Cancel): it ends with its output so far. */
  cancel(requestId: string): void {
    this.host.cancel(requestId);
  }

  private ask(request: ApprovalRequest): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      const pending: PendingApproval = {
        request,
        answer: (decision) => {
          this.set({ approvals: this.state.approvals.filter((item) => item !== pending) });
          resolve(decision);
        },
      };
      this.set({ approvals: [...this.state.approvals, pending] });
    });
  }

  async restoreBefore(step: number): Promise<void> {
    try {
      const restore = await this.host.api.checkpoints.restoreBefore(step);
      this.notify("ok", `Workspace restored to just before step ${step} (${restore.files.length} paths).`, {
        label: "Undo",
        run: () => void this.restoreBefore(restore.step),
      });
    } catch (error) {
      this.notify("error", `Could not restore: ${message(error)}`);
    }
  }

  // --- lessons -------------------------------------------------------------------------------------

  /** Opens a lesson in its own workspace (taken up where the learner left it, if opened before). */
  async openLesson(lesson: Lesson): Promise<void> {
    try {
      const { boot } = await this.host.api.lessons.open(lesson);
      await this.afterBoot(boot);
      this.notify(
        "ok",
        `Lesson "${lesson.title}" is open: read its instructions, then call tools from the console.`,
      );
    } catch (error) {
      this.notify("error", `Could not open the lesson: ${message(error)}`);
    }
  }

  /** Opens the lesson a #lesson= link carries, if the page was opened from one. */
  async openLessonFromUrl(): Promise<void> {
    let lesson: Lesson | null;
    try {
      lesson = lessonFromUrl(location.href);
    } catch (error) {
      this.notify("error", `${message(error)} Ask for the link again, or for the lesson file.`);
      return;
    }
    if (!lesson) return;
    history.replaceState(null, "", location.pathname + location.search);
    await this.openLesson(lesson);
  }

  /** Check, Hint and Reset: each answers with the lesson's new status. */
  async lessonAction(action: "check" | "hint" | "reset"): Promise<void> {
    try {
      const status = await this.host.api.lessons[action]();
      const lessonProgress = await this.host.api.lessons.progress();
      this.set({ lesson: status, lessonProgress });
      if (action === "hint" && status.hints.length === status.lesson.hints.length) {
        this.notify("info", "That was the last hint.");
      }
      if (action === "check" && status.results?.every((result) => result.passed)) {
        this.notify(
          "ok",
          status.byAgent
            ? "The model's attempt passes every check. Compare its calls with yours below."
            : "Every check passes: lesson complete.",
        );
      }
    } catch (error) {
      this.notify("error", `${message(error)}`);
    }
  }

  /** Shows what a correct solution changes, file by file, in the diff view. */
  async showLessonSolution(): Promise<void> {
    const solution = this.state.lesson?.lesson.solution;
    if (!solution) {
      this.notify("info", "This lesson has no solution to show.");
      return;
    }
    const [path, after] = Object.entries(solution.files)[0] ?? [];
    if (path === undefined || after === undefined) return;
    const current = this.files.get(path) === "file" ? (await this.host.api.readFile(path)).text : "";
    this.set({
      diff: {
        title: `Solution: ${path}`,
        path,
        before: current ?? "",
        after,
        note: [
          solution.explanation,
          Object.keys(solution.files).length > 1
            ? `Also changed: ${Object.keys(solution.files).slice(1).join(", ")}`
            : "",
        ]
          .filter(Boolean)
          .join(" "),
      },
      editorView: "diff",
    });
  }

  /**
   * Hands the open lesson to the connected model: it works in a workspace of its own with the same
   * tools and controls; then its checks run and its calls are shown beside the learner's.
   */
  async handLessonToAgent(): Promise<void> {
    if (!this.state.agent?.connected) {
      this.setSideTab("agent");
      this.notify("info", "Connect a model in the Agent tab first, then hand the lesson over again.");
      return;
    }
    try {
      const { boot, task } = await this.host.api.lessons.handToAgent();
      await this.afterBoot(boot);
      this.setSideTab("agent");
      await this.sendTask(task);
      await this.lessonAction("check");
      await this.loadLessonComparison();
    } catch (error) {
      this.notify("error", `Could not hand the lesson over: ${message(error)}`);
    }
  }

  async loadLessonComparison(): Promise<void> {
    try {
      this.set({ lessonComparison: await this.host.api.lessons.compare() });
    } catch (error) {
      this.notify("error", message(error));
    }
  }

  setAuthoringLesson(authoringLesson: boolean): void {
    this.set({ authoringLesson });
  }

  // --- the agent ----------------------------------------------------------------------------------

  setSideTab(sideTab: SideTab): void {
    this.set({ sideTab });
    try {
      localStorage.setItem(SIDE_TAB_KEY, sideTab);
    } catch {
      // Storage may be off (private mode): the tab choice is a nicety.
    }
  }

  private loadAgentPreferences(): void {
    try {
      const pace = Number(localStorage.getItem(REPLAY_PACE_KEY) ?? Number.NaN);
      if (Number.isFinite(pace) && pace >= 0) this.set({ replayPace: pace });
      const tab = localStorage.getItem(SIDE_TAB_KEY);
      if (tab === "agent" || tab === "console") this.set({ sideTab: tab });
      const saved = loadProviderSettings(localStorage);
      if (saved) {
        this.set({ providerDraft: saved });
        // A remembered key, or a local server that needs none: connect as the page opens.
        if (saved.apiKey || isLocal(saved.baseUrl)) this.provider = saved;
      }
    } catch {
      // No storage: the person fills the form in.
    }
  }

  /** Connects a model; the key stays in memory unless `rememberKey`. */
  async connectAgent(settings: ProviderSettings, rememberKey: boolean): Promise<boolean> {
    try {
      const agent = await this.host.api.agent.connect(settings);
      this.provider = { ...settings };
      try {
        saveProviderSettings(localStorage, settings, { rememberKey });
      } catch {
        // Storage may be off: the connection holds for this page all the same.
      }
      this.set({ agent, providerDraft: settings });
      this.notify("ok", `Connected to ${settings.model}. Give the agent a task.`);
      return true;
    } catch (error) {
      this.notify("error", `Could not connect: ${message(error)}`);
      return false;
    }
  }

  /** After a boot or a worker restart the worker has forgotten the key: hand it over again. */
  private async reconnectAgent(): Promise<void> {
    if (!this.provider) return;
    try {
      this.set({ agent: await this.host.api.agent.connect(this.provider) });
    } catch {
      this.provider = null;
    }
  }

  async sendTask(task: string, maxIterations?: number): Promise<void> {
    await this.runAgent(() => this.host.api.agent.send(task, maxIterations));
  }

  async continueAgent(maxIterations?: number): Promise<void> {
    await this.runAgent(() => this.host.api.agent.continue(maxIterations));
  }

  private async runAgent(start: () => Promise<AgentRunSummary>): Promise<void> {
    this.set({ agentSummary: null, agentLive: { text: "", calling: null, iteration: 0 } });
    try {
      const summary = await start();
      this.set({ agentSummary: summary });
      if (summary.error) this.notify("error", summary.error.message);
    } catch (error) {
      this.notify(
        "error",
        `${message(error)} The conversation so far is kept: press Continue to go on from where it stopped.`,
      );
    } finally {
      this.set({ agentLive: null });
      await this.refreshAgent();
    }
  }

  async stopAgent(): Promise<void> {
    // The tool call running now stops at once too, not only the turns after it.
    this.host.cancelRunning();
    await this.host.api.agent.stop();
  }

  async newConversation(): Promise<void> {
    try {
      this.set({ agent: await this.host.api.agent.newConversation(), agentSummary: null });
    } catch (error) {
      this.notify("error", message(error));
    }
  }

  /**
   * How the agent's changing tools are approved, all at once: "ask" before every write or command,
   * "auto" never, "default" as the profile says. The same settings the console's per-tool choice sets.
   */
  async setAgentApprovals(mode: "ask" | "auto" | "default"): Promise<void> {
    const profile = this.state.agent?.profile;
    if (!profile) return;
    try {
      const tools = await this.host.api.listTools(profile);
      for (const tool of tools) {
        if (tool.kind !== "read") await this.host.api.approvals.set(profile, tool.name, mode);
      }
      await this.refreshAgentApprovals();
    } catch (error) {
      this.notify("error", `Could not change approvals: ${message(error)}`);
    }
  }

  /** Whether the agent's profile asks before its changing tools: all, none, or some. */
  async refreshAgentApprovals(): Promise<void> {
    const profile = this.state.agent?.profile;
    if (!profile) return;
    const changing = (await this.host.api.listTools(profile)).filter((tool) => tool.kind !== "read");
    const asking = changing.filter((tool) => tool.approval === "ask").length;
    this.set({ agentApprovals: asking === 0 ? "auto" : asking === changing.length ? "ask" : "mixed" });
  }

  async setAgentProfile(profile: string): Promise<void> {
    try {
      this.set({ agent: await this.host.api.agent.setProfile(profile), agentSummary: null });
      await this.refreshAgentApprovals();
    } catch (error) {
      this.notify("error", message(error));
    }
  }

  private async refreshAgent(): Promise<void> {
    try {
      this.set({ agent: await this.host.api.agent.state() });
    } catch {
      // The worker is restarting; afterBoot reloads the agent.
    }
  }

  private onAgentUpdate(update: AgentPaneUpdate): void {
    const live = this.state.agentLive ?? { text: "", calling: null, iteration: 0 };
    const agent = this.state.agent;
    switch (update.type) {
      case "turn":
        this.set({ agentLive: { text: "", calling: null, iteration: update.iteration } });
        break;
      case "text":
        this.set({ agentLive: { ...live, text: live.text + update.delta } });
        break;
      case "tool_call_start":
        this.set({ agentLive: { ...live, calling: update.name } });
        break;
      case "entry":
        if (agent) {
          const transcript: TranscriptEntry[] = [...agent.transcript, update.entry];
          const usage = addUsage(agent.usage, update.entry);
          this.set({
            agent: { ...agent, transcript, usage },
            ...(update.entry.role === "assistant" ? { agentLive: { ...live, text: "" } } : {}),
          });
        }
        break;
      case "status":
        if (agent) this.set({ agent: { ...agent, status: update.status } });
        break;
      case "save_failed":
        this.notify(
          "error",
          `The conversation could not be stored in this browser (${update.message}); it will not survive a reload. Export it from the Sessions menu to keep it, or free some storage.`,
        );
        break;
      case "finished":
      case "reset":
        break;
    }
  }

  // --- sessions and replay -----------------------------------------------------------------------

  /** The agent's conversation as a session file's text (keys redacted); null, with a notice, when there is none. */
  exportSession(): Promise<string | null> {
    return this.orNotice(() => this.host.api.agent.exportSession());
  }

  /** A link to the conversation's session; when too long, its file to download instead. */
  shareSession(): Promise<SharedSession | null> {
    return this.orNotice(async () => sharedAs(await this.host.api.agent.share(location.href)));
  }

  /** What `get` answers, or null after telling the person why it failed. */
  private async orNotice<T>(get: () => Promise<T>): Promise<T | null> {
    try {
      return await get();
    } catch (error) {
      this.notify("error", message(error));
      return null;
    }
  }

  /** Opens a session (a file's text, or one from a link) in a workspace of its own, ready to replay. */
  async openSession(session: string | SessionFile): Promise<void> {
    try {
      const { boot } = await this.host.api.sessions.open(session);
      await this.afterBoot(boot);
      this.notify(
        "ok",
        "Session opened in a workspace of its own: Step through its calls, or Play them all.",
      );
    } catch (error) {
      this.notify("error", `${message(error)} Check that it is a Toolroom session file (.json).`);
    }
  }

  async openDemo(id: string): Promise<void> {
    try {
      const { boot } = await this.host.api.sessions.openDemo(id);
      await this.afterBoot(boot);
      await this.replayPlay();
    } catch (error) {
      this.notify("error", message(error));
    }
  }

  /** Opens the session a #s= link or a ?session= address carries, if the page was opened from one. */
  async openSessionFromUrl(): Promise<void> {
    let session: Awaited<ReturnType<typeof loadSessionFromUrl>>;
    try {
      session = await loadSessionFromUrl(location.href, {
        fetch: (input, init) => fetch(input, init),
        profiles: this.state.profiles.map((profile) => profile.name),
      });
    } catch (error) {
      this.notify("error", `${message(error)} Ask for the link again, or for the session file.`);
      return;
    }
    if (!session) return;
    history.replaceState(null, "", location.pathname);
    await this.openSession(session);
  }

  async replayStep(): Promise<void> {
    await this.replayAction(() => this.host.api.sessions.step());
  }

  /** Plays the replay at the chosen pace (from the start again once it has finished), until Pause. */
  async replayPlay(): Promise<void> {
    if (this.state.replayBusy) return;
    this.set({ replayPlaying: true });
    try {
      this.playingReplay = this.replayAction(() =>
        this.host.api.sessions.play(
          proxy((replay: ReplayStatus) => this.set({ replay })),
          this.state.replayPace,
        ),
      );
      await this.playingReplay;
    } finally {
      this.playingReplay = null;
      this.set({ replayPlaying: false });
    }
  }

  async replayPause(): Promise<void> {
    try {
      const replay = await this.host.api.sessions.pause();
      if (replay) this.set({ replay });
    } catch (error) {
      this.notify("error", `Could not pause the replay: ${message(error)}`);
    }
  }

  /** Moves the playhead to before step `index`: back restores the workspace to then, forward replays. */
  async replaySeek(index: number): Promise<void> {
    // A playhead moved again while the replay is still getting to the last place goes to the newest.
    this.seekTarget = index;
    if (this.seeking) return this.seeking;
    this.seeking = (async () => {
      if (this.playingReplay) {
        await this.replayPause();
        await this.playingReplay;
      }
      while (this.seekTarget !== null) {
        const target = this.seekTarget;
        this.seekTarget = null;
        await this.replayAction(() => this.host.api.sessions.seek(target), { announce: false });
      }
    })().finally(() => {
      this.seeking = null;
    });
    return this.seeking;
  }

  setReplayPace(replayPace: number): void {
    this.set({ replayPace });
    try {
      localStorage.setItem(REPLAY_PACE_KEY, String(replayPace));
    } catch {
      // Storage may be off: the pace holds for this page.
    }
  }

  private async replayAction(
    action: () => Promise<ReplayStatus>,
    options: { announce?: boolean } = {},
  ): Promise<void> {
    if (this.state.replayBusy) return;
    this.set({ replayBusy: true });
    try {
      const replay = await action();
      this.set({ replay });
      if (replay.done === replay.steps.length && options.announce !== false) {
        if (replay.diverged === 0)
          this.notify("ok", `Replay complete: all ${replay.matched} calls matched the recording.`);
        else this.notify("warn", `Replay complete: ${replay.diverged} calls diverged from the recording.`);
      }
    } catch (error) {
      this.notify("error", `Replay stopped: ${message(error)}`);
    } finally {
      this.set({ replayBusy: false });
    }
  }

  /** Starts recording the person's own calls here, as a session anyone can replay. */
  async startRecording(): Promise<void> {
    const profile =
      this.state.lesson?.lesson.profiles[0]?.profile ?? this.state.agent?.profile ?? "agentbench";
    try {
      this.set({ recording: await this.host.api.sessions.record(profile) });
      this.notify(
        "ok",
        "Recording: every call from now on (console, editor, terminal) goes into the session.",
      );
    } catch (error) {
      this.notify("error", message(error));
    }
  }

  async refreshRecording(): Promise<void> {
    this.set({ recording: await this.host.api.sessions.recording() });
  }

  async stopRecording(): Promise<void> {
    await this.host.api.sessions.stopRecording();
    this.set({ recording: null });
  }

  /** The recording as a file's text, or a link to it; null (with a notice) when there is nothing yet. */
  exportRecording(): Promise<string | null> {
    return this.orNotice(() => this.host.api.sessions.exportRecording());
  }

  shareRecording(): Promise<SharedSession | null> {
    return this.orNotice(async () => sharedAs(await this.host.api.sessions.shareRecording(location.href)));
  }

  async closeReplay(): Promise<void> {
    await this.host.api.sessions.close();
    this.set({ replay: null });
  }

  // --- workspaces and settings ---------------------------------------------------------------------

  async createWorkspace(name: string, origin: string, files: SerializedWorkspace): Promise<void> {
    try {
      const created = await this.host.api.workspaces.create({ name, origin, files });
      await this.switchWorkspace(created.id);
      this.notify("ok", `Workspace "${name}" created.`);
    } catch (error) {
      this.notify(
        "error",
        `Could not create the workspace: ${message(error)}. Storage may be full; delete an old workspace.`,
      );
    }
  }

  async switchWorkspace(id: string): Promise<void> {
    try {
      const boot = await this.host.api.workspaces.switch(id);
      await this.afterBoot(boot);
    } catch (error) {
      this.notify("error", `Could not open that workspace: ${message(error)}`);
    }
  }

  async renameWorkspace(id: string, name: string): Promise<void> {
    try {
      const renamed = await this.host.api.workspaces.rename(id, name);
      const workspaces = await this.host.api.workspaces.list();
      this.set({ workspaces, ...(this.state.workspace?.id === id ? { workspace: renamed } : {}) });
    } catch (error) {
      this.notify("error", message(error));
    }
  }

  async deleteWorkspace(id: string): Promise<void> {
    forgetLayout(id);
    const reopened = await this.host.api.workspaces.delete(id);
    if (reopened) await this.afterBoot(reopened);
    else this.set({ workspaces: await this.host.api.workspaces.list() });
  }

  async setBackend(backend: BackendChoice): Promise<void> {
    const settings = await this.host.api.settings.set({ backend });
    this.set({ settings });
    this.notify("info", `Sandbox set to "${backend}". It takes effect on the next reload.`, {
      label: "Reload now",
      run: () => location.reload(),
    });
  }
}

const OPEN_FILE_KEY = "toolroom.openFile";

/** Where a workspace's editor was: its file and how far it was scrolled, to come back to after a reload. */
export interface RememberedFile {
  path: string;
  scrollTop?: number;
}

export function rememberedFile(workspace: string | undefined): RememberedFile | undefined {
  if (!workspace) return undefined;
  try {
    return (JSON.parse(localStorage.getItem(OPEN_FILE_KEY) ?? "{}") as Record<string, RememberedFile>)[
      workspace
    ];
  } catch {
    return undefined;
  }
}

export function rememberFile(workspace: string | undefined, file: RememberedFile): void {
  if (!workspace) return;
  try {
    const all = JSON.parse(localStorage.getItem(OPEN_FILE_KEY) ?? "{}") as Record<string, RememberedFile>;
    const same = all[workspace]?.path === file.path;
    all[workspace] = { ...(same ? all[workspace] : {}), ...file };
    localStorage.setItem(OPEN_FILE_KEY, JSON.stringify(all));
  } catch {
    // Storage may be off: the editor simply starts empty after a reload.
  }
}

/** A session to hand on: a link, or (too long for one) its file and why. */
export type SharedSession = { url: string } | { file: string; reason: string };

function sharedAs(shared: ShareResult): SharedSession {
  return shared.kind === "link" ? { url: shared.url } : { file: shared.text, reason: shared.reason };
}

function isLocal(baseUrl: string): boolean {
  try {
    return ["localhost", "127.0.0.1", "[::1]"].includes(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

function addUsage(usage: AgentState["usage"], entry: TranscriptEntry): AgentState["usage"] {
  const turn = entry.role === "assistant" ? (entry as AssistantEntry).usage : undefined;
  return turn ? { input: usage.input + turn.input, output: usage.output + turn.output } : usage;
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let model: AppModel | undefined;

export function setModel(next: AppModel): void {
  model = next;
}

export function getModel(): AppModel {
  if (!model) throw new Error("The app model is not set up.");
  return model;
}

/** Reads a slice of the state and re-renders when it changes. */
export function useAppState<T>(select: (state: AppState) => T): T {
  const current = getModel();
  return useSyncExternalStore(current.subscribe, () => select(current.state));
}
