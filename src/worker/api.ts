import { type ProxyMarked, proxy, type Remote } from "comlink";
import type { AgentRunSummary } from "../agent/controller.ts";
import type { FetchLike, ProviderSettings } from "../agent/provider.ts";
import type { ToolEvent } from "../core/events.ts";
import type { ApprovalMode, Profile } from "../core/profile.ts";
import type { ApprovalDecision, ApprovalRequest, CallOutcome } from "../core/runtime.ts";
import type { Lesson } from "../lessons/lesson.ts";
import { PROFILES } from "../profiles/index.ts";
import { DeferredSandbox } from "../sandbox/deferred-sandbox.ts";
import { RemoteSandbox, type SandboxPort } from "../sandbox/port.ts";
import { type SerializedWorkspace, serializeWorkspace } from "../sandbox/snapshot.ts";
import { StopBoard } from "../sandbox/stop-signal.ts";
import type { PtyRead, Sandbox } from "../sandbox/types.ts";
import { parseSession, type SessionFile } from "../session/format.ts";
import type { ShareResult } from "../session/share.ts";
import type { AgentHost, AgentPaneUpdate, AgentState } from "./agent-host.ts";
import { EDITOR_PROFILE, editorProfile } from "./editor-profile.ts";
import { createWorkspace, workspaceToOpen } from "./first-workspace.ts";
import {
  type LessonComparison,
  LessonHost,
  type LessonProgress,
  type LessonStatus,
  lessonAgentOrigin,
  lessonOrigin,
} from "./lessons.ts";
import { type PythonPackagesApi, pythonPackagesApi } from "./python-host.ts";
import { RecordingHost, type RecordingInfo } from "./recording-host.ts";
import { ReplayHost, type ReplayStatus } from "./replay-host.ts";
import { type WorkspaceMeta, WorkspaceStore } from "./store.ts";
import { indexedDbSymbolStore } from "./symbol-store.ts";
import {
  type BootResult,
  type CallRequest,
  type CheckpointInfo,
  DEFAULT_SETTINGS,
  type FileContent,
  type FileDiff,
  type FileEntry,
  type InterruptedCall,
  type ProfileInfo,
  type Settings,
  type TerminalOptions,
  type ToolInfo,
  type WatchNotice,
  type WorkspaceInfo,
  type WorkspaceSeed,
} from "./types.ts";
import { WorkspaceSession } from "./workspace-session.ts";
import { zipWorkspace } from "./zip.ts";

export type { AgentPaneUpdate, AgentState } from "./agent-host.ts";
export type { RecordingInfo } from "./recording-host.ts";
export type { ReplayStatus, ReplayStepView } from "./replay-host.ts";
export type * from "./types.ts";

/** A built-in demo session, as the Sessions menu lists it. */
export interface DemoInfo {
  id: string;
  title: string;
  description: string;
}

/**
 * A group of methods reached by path over comlink (`api.checkpoints.list()`). Marked as a proxy so
 * that comlink's Remote type maps it to remote methods rather than a promised plain object.
 */
export type Namespace<T> = T & ProxyMarked;

export interface BootOptions {
  /** "embedded": a just-bash sandbox in this worker; "remote": the sandbox behind boot's `port` (a WebContainer). */
  sandbox: "embedded" | "remote";
  /** The first workspace, created when the store has none. */
  firstWorkspace: WorkspaceSeed;
  /** Set when the watchdog restarted this worker: the call it cut off, to record with a timeout envelope. */
  interrupted?: InterruptedCall;
  /**
   * Shared memory (src/sandbox/stop-signal.ts) through which the page stops a running call and a
   * terminal's command, busy loops included, without waiting for this worker to read a message.
   */
  stops?: SharedArrayBuffer;
}

/**
 * The one object the UI talks to, through comlink. Everything the page does to the workspace goes
 * through here; the runtime, the sandbox and the store stay inside the worker.
 */
export interface WorkerApi {
  /** `port` (a comlink proxy, so a top-level argument) reaches a sandbox on the main thread. */
  boot(options: BootOptions, port?: Remote<SandboxPort>): Promise<BootResult>;
  /**
   * Chooses the workspace the next boot opens (on a first visit, makes it from `firstWorkspace`)
   * while the page is still picking the sandbox, so the two overlap. Optional; boot does it if not.
   */
  prepare(firstWorkspace: WorkspaceSeed, stops?: SharedArrayBuffer): Promise<void>;
  /** A no-op round trip: what the watchdog and the bench measure. */
  ping(): Promise<number>;

  listProfiles(): Promise<ProfileInfo[]>;
  listTools(profile: string): Promise<ToolInfo[]>;
  call(profile: string, request: CallRequest): Promise<CallOutcome>;
  /** Stops a call by request id (queued, waiting for approval or running); true when it was known. */
  cancel(requestId: string): Promise<boolean>;

  subscribe(listener: (event: ToolEvent) => void): Promise<number>;
  unsubscribe(token: number): Promise<void>;
  /** The whole log of the open workspace (its earlier sessions included). */
  events(): Promise<ToolEvent[]>;
  eventsJsonl(): Promise<string>;
  /** The main thread's watchdog learns here when a call starts running, waits for approval, ends. */
  watch(listener: (notice: WatchNotice) => void): Promise<void>;

  snapshot(): Promise<SerializedWorkspace>;
  /** Replaces the open workspace's files; every changed path is logged and stored. */
  restore(files: SerializedWorkspace): Promise<number>;

  listFiles(): Promise<FileEntry[]>;
  readFile(path: string): Promise<FileContent>;
  /** A save from the editor: a runtime call of the internal editor profile, logged like any other. */
  writeFile(path: string, content: string): Promise<CallOutcome>;
  /** A file-tree action (create_folder, delete_path, rename_path) through the same profile. */
  editFiles(tool: string, params: Record<string, unknown>): Promise<CallOutcome>;

  approvals: Namespace<{
    /** The worker asks the person through this callback; without one, asked-for calls are denied. */
    setPrompt(prompt: (request: ApprovalRequest) => Promise<ApprovalDecision>): Promise<void>;
    set(profile: string, tool: string, mode: ApprovalMode | "default"): Promise<void>;
    list(): Promise<Settings["approvals"]>;
  }>;

  checkpoints: Namespace<{
    list(): Promise<CheckpointInfo[]>;
    /** Puts the workspace back as it was just before `step`; itself a checkpoint, so it can be undone. */
    restoreBefore(step: number): Promise<CheckpointInfo>;
    diff(step: number): Promise<FileDiff[]>;
    lastChange(path: string): Promise<FileDiff | null>;
  }>;

  artifacts: Namespace<{
    list(): Promise<string[]>;
    get(path: string): Promise<Uint8Array>;
  }>;

  terminal: Namespace<{
    /** Opens a shell; with `onOutput`, output is pushed as it comes, otherwise pull it with read(). */
    open(options: TerminalOptions, onOutput?: (chunk: string) => void): Promise<string>;
    write(id: string, data: string): Promise<void>;
    read(id: string, yieldMs?: number): Promise<PtyRead>;
    resize(id: string, cols: number, rows: number): Promise<void>;
    kill(id: string): Promise<void>;
    /** The stop-board channel of the terminal's foreground command (Ctrl-C: board.stopRunning(channel)). */
    channel(id: string): Promise<number | null>;
  }>;

  workspaces: Namespace<{
    list(): Promise<WorkspaceInfo[]>;
    create(seed: WorkspaceSeed): Promise<WorkspaceInfo>;
    /** Closes the open workspace and opens another; the UI reloads its views after. */
    switch(id: string): Promise<BootResult>;
    rename(id: string, name: string): Promise<WorkspaceInfo>;
    /** Deletes a workspace; deleting the open one opens another (or a new empty one). */
    delete(id: string): Promise<BootResult | null>;
    exportZip(id?: string): Promise<Uint8Array>;
  }>;

  lessons: Namespace<{
    /**
     * Opens a lesson in a workspace of its own (made on first open, taken up again after), with
     * its controls on the runtime. The UI reloads its views after, as after a switch.
     */
    open(lesson: Lesson): Promise<{ boot: BootResult; status: LessonStatus }>;
    /** The lesson of the open workspace, or null when it is not a lesson's workspace. */
    status(): Promise<LessonStatus | null>;
    check(): Promise<LessonStatus>;
    hint(): Promise<LessonStatus>;
    reset(): Promise<LessonStatus>;
    /** The learner's progress in every lesson they opened in this browser. */
    progress(): Promise<Record<string, LessonProgress>>;
    /**
     * Hands the open lesson to the connected model: a workspace of its own with the lesson fresh and
     * its controls on, the agent set to the lesson's profile and tools. The UI then sends `task`.
     */
    handToAgent(): Promise<{ boot: BootResult; status: LessonStatus; task: string; profile: string }>;
    /** The learner's calls and checks beside the model's, for the open lesson. */
    compare(): Promise<LessonComparison>;
  }>;

  agent: Namespace<{
    /** The agent pane hears every update of a run here (text as it streams, calls, the end). */
    subscribe(listener: (update: AgentPaneUpdate) => void): Promise<void>;
    state(): Promise<AgentState>;
    /** Connects a model; the key stays in the worker's memory and is never stored or logged here. */
    connect(settings: ProviderSettings): Promise<AgentState>;
    /** The tool API the model gets; a conversation begun with another one starts over. */
    setProfile(profile: string): Promise<AgentState>;
    /** Gives the agent a task and resolves when the run ends (done, stopped, limited or failing). */
    send(task: string, maxIterations?: number): Promise<AgentRunSummary>;
    continue(maxIterations?: number): Promise<AgentRunSummary>;
    stop(): Promise<void>;
    newConversation(): Promise<AgentState>;
    /** The conversation as a session file's JSON, keys redacted. */
    exportSession(): Promise<string>;
    /** A #s= link to the session, or its file when too long for a link. */
    share(pageUrl: string): Promise<ShareResult>;
  }>;

  sessions: Namespace<{
    demos(): Promise<DemoInfo[]>;
    /**
     * Opens a session (a file's JSON text, or one decoded from a link) in a new workspace made of
     * its initial files, ready to replay. The UI reloads its views after, as after a switch.
     */
    open(session: string | SessionFile): Promise<{ boot: BootResult; replay: ReplayStatus }>;
    openDemo(id: string): Promise<{ boot: BootResult; replay: ReplayStatus }>;
    /** The replay of the open workspace, or null. */
    status(): Promise<ReplayStatus | null>;
    /** Replays the next call and checks it against the recorded result. */
    step(): Promise<ReplayStatus>;
    /**
     * Replays the calls left at a pace (steps per second; 0, the default: as fast as they run)
     * until the end or a pause; `onStep` (a proxy) hears after each. A finished replay plays again.
     */
    play(onStep?: (status: ReplayStatus) => void, stepsPerSecond?: number): Promise<ReplayStatus>;
    /** Stops a playing replay after the step under way. */
    pause(): Promise<ReplayStatus | null>;
    /** Moves the playhead to before plan step `index`: back restores the workspace, forward replays. */
    seek(index: number): Promise<ReplayStatus>;
    close(): Promise<void>;
    /** Starts recording the person's own calls in the open workspace, as a session of `profile`. */
    record(profile: string): Promise<RecordingInfo>;
    /** The recording of the open workspace, or null. */
    recording(): Promise<RecordingInfo | null>;
    stopRecording(): Promise<void>;
    exportRecording(): Promise<string>;
    shareRecording(pageUrl: string): Promise<ShareResult>;
  }>;

  settings: Namespace<{
    get(): Promise<Settings>;
    set(patch: Partial<Omit<Settings, "approvals">>): Promise<Settings>;
  }>;

  /** The embedded Python's installed packages (pytest…), installed from PyPI and kept in IndexedDB. */
  python: Namespace<PythonPackagesApi>;
}

const ALL_PROFILES: Profile[] = [...PROFILES, editorProfile];
/** Where the embedded sandbox keeps the workspace. */
const WORKSPACE_ROOT = "/workspace";

/** Builds the API object the worker exposes (tests call it directly, without a worker). */
export function createWorkerApi(
  options: {
    database?: string;
    fetch?: FetchLike;
    /**
     * The browser's worker: open the store at once (the page's boot asks for the settings first),
     * and have calls that come before the first boot wait for it rather than fail.
     */
    eager?: boolean;
    /** The store, already being opened by the worker's first module. */
    store?: Promise<WorkspaceStore>;
    /** Makes an embedded sandbox (loading the shell, 1.3 MB of script); the worker's also registers python and jq. */
    embedded?: () => Promise<Sandbox>;
    /** The workspace prepare() opens, when the worker's first module has begun choosing it (see first-workspace.ts). */
    chooseFirstWorkspace?: (seed: WorkspaceSeed) => Promise<WorkspaceMeta>;
  } = {},
): WorkerApi {
  let store: WorkspaceStore | undefined;
  let session: WorkspaceSession | undefined;
  let remotePort: Remote<SandboxPort> | undefined;
  let remote: RemoteSandbox | undefined;
  let settings: Settings = { ...DEFAULT_SETTINGS };
  const listeners = new Map<number, (event: ToolEvent) => void>();
  let nextListener = 1;
  let watcher: ((notice: WatchNotice) => void) | undefined;
  /** The page's stop board (shared memory) once boot brings it; each workspace's runtime uses it. */
  let stops: StopBoard | undefined;
  let prompt: ((request: ApprovalRequest) => Promise<ApprovalDecision>) | undefined;

  let lessons: LessonHost | undefined;
  let agent: AgentHost | undefined;
  let agentListener: ((update: AgentPaneUpdate) => void) | undefined;
  let replays: ReplayHost | undefined;
  const requireReplays = (): ReplayHost => {
    if (!replays) throw new Error("No workspace is open yet; call boot() first.");
    return replays;
  };
  let recordings: RecordingHost | undefined;
  const requireRecordings = (): RecordingHost => {
    if (!recordings) throw new Error("No workspace is open yet; call boot() first.");
    return recordings;
  };
  const requireAgent = (): AgentHost => {
    if (!agent) throw new Error("No workspace is open yet; the agent works in one.");
    return agent;
  };
  const requireStore = (): WorkspaceStore => {
    if (!store) throw new Error("The worker has not booted yet; call boot() first.");
    return store;
  };
  /** symbols_index's parses, kept across reloads beside the workspaces (opened on its first use). */
  const symbols =
    typeof indexedDB === "undefined"
      ? undefined
      : indexedDbSymbolStore(`${options.database ?? "toolroom"}-symbols`);
  /** Settings are read before boot (they pick the sandbox), so the store opens on first need. */
  let opening: Promise<WorkspaceStore> | undefined;
  const openStore = (): Promise<WorkspaceStore> => {
    opening ??= (async () => {
      const opened = await (options.store ?? WorkspaceStore.open(options.database));
      settings = { ...DEFAULT_SETTINGS, ...(await opened.getSetting<Settings>("settings")) };
      store = opened;
      return opened;
    })();
    opening.catch(() => {
      opening = undefined;
    });
    return opening;
  };
  if (options.eager) {
    // Once the calls that were waiting for this API have been taken in (and counted).
    setTimeout(() => startShellWhenIdle(), 0);
    void openStore().catch(() => undefined);
  }
  const current = (): WorkspaceSession => {
    if (!session) throw new Error("No workspace is open yet; call boot() first.");
    return session;
  };
  /**
   * The first open workspace: calls made before the first boot wait for it (in the browser's
   * worker); a boot that fails before any workspace opened fails them too (the next boot is awaited).
   */
  let firstOpen: () => void = () => undefined;
  let firstFailed: (error: unknown) => void = () => undefined;
  const awaitFirst = () => {
    const first = new Promise<void>((resolve, reject) => {
      firstOpen = resolve;
      firstFailed = reject;
    });
    first.catch(() => undefined);
    return first;
  };
  let firstSession = awaitFirst();
  const ready = async (): Promise<WorkspaceSession> => {
    if (options.eager) await firstSession;
    return current();
  };
  const saveSettings = async (next: Settings): Promise<Settings> => {
    settings = next;
    await requireStore().setSetting("settings", settings);
    return settings;
  };
  const info = (meta: WorkspaceMeta): WorkspaceInfo => ({
    id: meta.id,
    name: meta.name,
    origin: meta.origin,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
    current: meta.id === session?.meta.id,
  });
  const embedded =
    options.embedded ?? (async () => (await import("../host/create-runtime.ts")).createEmbeddedSandbox());
  /** A shell loaded ahead, before any workspace was open to ask for one. */
  let spare: Promise<Sandbox> | undefined;
  const takeShell = (): Promise<Sandbox> => {
    const shell = spare ?? embedded();
    spare = undefined;
    return shell;
  };
  const newSandbox = async (): Promise<Sandbox> => {
    if (remotePort) {
      remote ??= await RemoteSandbox.connect(remotePort);
      return remote;
    }
    // The workspace's files answer reads while the shell loads (see DeferredSandbox).
    return new DeferredSandbox({ kind: "embedded", workspaceRoot: WORKSPACE_ROOT, backend: takeShell });
  };

  /**
   * Runtime calls waiting for the first workspace, and those under way in each open one: a
   * workspace's shell load waits for its own calls (compiling the shell's 1.3 MB would delay their
   * answers, and reads do not need it), never for those of a workspace already closed. In the
   * browser a spare shell starts loading as soon as no call waits, even before a workspace is open.
   */
  let callsWaiting = 0;
  const callsIn = new Map<WorkspaceSession, number>();
  /** The shell loads those calls hold back: each open workspace's, and the spare's before any. */
  const heldStarts = new Map<WorkspaceSession | "spare", () => void>();
  if (options.eager) {
    heldStarts.set("spare", () => {
      if (session || spare) return;
      spare = embedded();
      spare.catch(() => undefined);
    });
  }
  const startShellWhenIdle = () => {
    if (callsWaiting > 0) return;
    for (const [owner, start] of heldStarts) {
      if (owner !== "spare" && (callsIn.get(owner) ?? 0) > 0) continue;
      heldStarts.delete(owner);
      start();
    }
  };

  /**
   * A workspace prepare() opened before boot, while the page still picks the sandbox (a WebContainer
   * probe can take seconds): its reads are answered from its stored files meanwhile, and boot gives
   * it its backend.
   */
  let opened:
    | {
        meta: WorkspaceMeta;
        session: WorkspaceSession;
        sandbox: DeferredSandbox;
        arrival: Promise<Sandbox>;
        started: number;
        choose(backend: () => Promise<Sandbox>): void;
      }
    | undefined;
  /** An early workspace closed before boot chose its backend: whatever waits for one is told. */
  const abandonEarly = () => {
    opened?.choose(() =>
      Promise.reject(new Error("The workspace was closed before its sandbox was chosen.")),
    );
    opened = undefined;
  };

  /** Closes the open workspace, if any: its terminals, its pending writes, its shell. */
  const closeCurrent = async (): Promise<void> => {
    const previous = session;
    session = undefined;
    if (!previous) return;
    // Its shell is not needed any more; its sandbox's dispose tells whoever waits for it.
    heldStarts.delete(previous);
    if (opened?.sandbox === previous.sandbox) abandonEarly();
    await previous.close();
    if (previous.sandbox.kind === "embedded") await previous.sandbox.dispose();
  };

  /** The opening under way: the next waits for it, so each closes the one before (two at once both stayed open). */
  let openings: Promise<unknown> = Promise.resolve();
  /**
   * Opens a workspace on `sandbox`, after any opening under way; calls are answered from here on.
   * Gives the session and its backend's arrival (which fails if the workspace is closed before its
   * shell has loaded).
   */
  const openWorkspace = (
    meta: WorkspaceMeta,
    sandbox: Sandbox,
    interrupted?: InterruptedCall,
  ): Promise<{ session: WorkspaceSession; arrival: Promise<Sandbox> }> => {
    const opening = openings.then(() => openNow(meta, sandbox, interrupted));
    openings = opening.catch(() => undefined);
    return opening;
  };
  const openNow = async (
    meta: WorkspaceMeta,
    sandbox: Sandbox,
    interrupted?: InterruptedCall,
  ): Promise<{ session: WorkspaceSession; arrival: Promise<Sandbox> }> => {
    await closeCurrent();
    performance.mark("toolroom:sandbox");
    const fresh = await WorkspaceSession.open({
      store: requireStore(),
      ...(symbols ? { symbols } : {}),
      meta,
      sandbox,
      profiles: ALL_PROFILES,
      approvals: settings.approvals,
      ...(interrupted ? { interrupted } : {}),
      ...(stops ? { stops } : {}),
      hooks: {
        onEvent: (event) => {
          for (const listener of listeners.values())
            void Promise.resolve(listener(event)).catch(() => undefined);
        },
        onWatch: (notice) => void Promise.resolve(watcher?.(notice)).catch(() => undefined),
        // A replay answers as its recording did; everything else asks the person.
        askApproval: (request) => replays?.answer(request) ?? prompt?.(request),
        onAlwaysAllow: (profile, tool) => {
          const approvals = {
            ...settings.approvals,
            [profile]: { ...settings.approvals[profile], [tool]: "auto" as ApprovalMode },
          };
          void saveSettings({ ...settings, approvals }).catch(() => undefined);
        },
      },
    });
    session = fresh;
    performance.mark("toolroom:workspace-loaded");
    lessons ??= new LessonHost(requireStore());
    replays ??= new ReplayHost(requireStore());
    recordings ??= new RecordingHost(requireStore());
    // A lesson's controls are on the runtime before anyone can call it.
    const attached = Promise.all([
      requireStore().setSetting("currentWorkspace", meta.id),
      lessons.attach(fresh),
      replays.attach(fresh),
      recordings.attach(fresh),
    ]);
    await attached;
    performance.mark("toolroom:workspace-open");
    firstOpen();
    if (!(sandbox instanceof DeferredSandbox)) return { session: fresh, arrival: Promise.resolve(sandbox) };
    // The shell loads once the calls waiting for this workspace have been answered (compiling it
    // would hold them up), or when one needs it.
    heldStarts.set(fresh, () => {
      if (!spare && !remotePort) {
        spare = embedded();
        spare.catch(() => undefined);
      }
      void sandbox.start();
    });
    startShellWhenIdle();
    return { session: fresh, arrival: sandbox.arrived };
  };

  /** What boot reports, once the sandbox has arrived (what it can run is known then). */
  const booted = async (
    meta: WorkspaceMeta,
    { session: open, arrival }: { session: WorkspaceSession; arrival: Promise<Sandbox> },
    started: number,
  ): Promise<BootResult> => {
    const arrived = await arrival;
    if (open !== session)
      throw new Error(`"${meta.name}" was closed as it opened: another workspace was opened.`);
    if (!agent) {
      // The agent (its loop and the providers' adapters) loads with the boot's end, not before the first answer.
      const { AgentHost } = await import("./agent-host.ts");
      // Called unbound: a browser's fetch throws "Illegal invocation" as another object's method.
      agent ??= new AgentHost(requireStore(), options.fetch ?? ((input, init) => fetch(input, init)));
      agent.setListener((update) => void Promise.resolve(agentListener?.(update)).catch(() => undefined));
    }
    await agent.attach(open, arrived.kind, lessonTools());
    // Rust's regex engine (1 MB of WebAssembly, every search and the shell's grep, sed and awk)
    // loads after the boot, so a person's first regex search does not wait for it.
    setTimeout(() => {
      import("../sandbox/embedded/commands/regex/linear.ts")
        .then((linear) => linear.loadLinearEngine())
        .catch(() => undefined);
    }, 0);
    return {
      backend: arrived.kind,
      capabilities: arrived.capabilities,
      workspaceRoot: arrived.workspaceRoot,
      workspace: info(meta),
      restored: open.restored,
      ...(open.interrupted ? { interrupted: open.interrupted } : {}),
      bootMs: Math.round(performance.now() - started),
    };
  };

  const open = async (meta: WorkspaceMeta, interrupted?: InterruptedCall): Promise<BootResult> => {
    const started = performance.now();
    const sandbox = await newSandbox();
    return booted(meta, await openWorkspace(meta, sandbox, interrupted), started);
  };

  const create = (seed: WorkspaceSeed, asIs = false): Promise<WorkspaceMeta> =>
    createWorkspace(requireStore(), seed, embedded, asIs);

  /** In a lesson's workspace the model gets the lesson's tools only (its guards refuse the rest anyway). */
  const lessonTools = (): Record<string, string[]> | undefined => {
    const lesson = lessons?.current()?.lesson;
    return lesson
      ? Object.fromEntries(lesson.profiles.map((entry) => [entry.profile, entry.tools]))
      : undefined;
  };

  const openSession = async (session: SessionFile) => {
    const boot = await open(
      await create(
        {
          name: `Replay: ${session.meta.title}`,
          origin: `session:${session.meta.sessionId ?? "imported"}`,
          files: session.workspace,
        },
        true,
      ),
    );
    return { boot, replay: await replays!.start(session, current()) };
  };
  const profileNames = ALL_PROFILES.map((profile) => profile.name);
  /** Chosen (and on a first visit made) by prepare() while the page still picks the sandbox. */
  let preparing: Promise<WorkspaceMeta> | undefined;
  /** prepare() opening the workspace early: boot waits for it rather than open another beside it. */
  let openingEarly: Promise<void> | undefined;

  const bootWorkspace = async (options: BootOptions, port?: Remote<SandboxPort>): Promise<BootResult> => {
    await openingEarly?.catch(() => undefined);
    // A prepare() from now on leaves the opening to this boot (two openings would race).
    openingEarly ??= Promise.resolve();
    const store = await openStore();
    performance.mark("toolroom:store-open");
    if (options.sandbox === "remote" && !port) throw new Error("A remote sandbox needs its port.");
    remotePort = options.sandbox === "remote" ? port : undefined;
    remote = undefined;
    stops = options.stops ? StopBoard.attach(options.stops) : undefined;
    const prepared = preparing;
    preparing = undefined;
    const early = opened;
    if (early && !options.interrupted && session?.sandbox === early.sandbox) {
      // The workspace prepare() opened: its files have been answering reads; now its sandbox comes.
      opened = undefined;
      const port = remotePort;
      early.choose(port ? async () => (remote ??= await RemoteSandbox.connect(port)) : takeShell);
      return booted(early.meta, early, early.started);
    }
    abandonEarly();
    const meta =
      (await prepared?.catch(() => undefined)) ??
      (await workspaceToOpen(store, options.firstWorkspace, embedded));
    return open(meta, options.interrupted);
  };

  const api: WorkerApi = {
    async boot(options, port) {
      try {
        return await bootWorkspace(options, port);
      } catch (error) {
        if (!session) {
          const fail = firstFailed;
          firstSession = awaitFirst();
          fail(error);
        }
        throw error;
      }
    },

    async prepare(firstWorkspace, board) {
      if (board && !stops) stops = StopBoard.attach(board);
      preparing ??= openStore().then(
        (store) =>
          options.chooseFirstWorkspace?.(firstWorkspace) ?? workspaceToOpen(store, firstWorkspace, embedded),
      );
      const choice = preparing;
      // Claimed before the choice is known: a boot that comes meanwhile waits for this opening and
      // takes it, rather than opening the workspace a second time beside it.
      openingEarly ??= (async () => {
        const meta = await choice.catch(() => undefined);
        if (!meta || session || opened) return;
        // Opened now, so the first calls need not wait for the page to pick the sandbox.
        const started = performance.now();
        let choose: (backend: () => Promise<Sandbox>) => void = () => undefined;
        const chosen = new Promise<() => Promise<Sandbox>>((resolve) => {
          choose = resolve;
        });
        const sandbox = new DeferredSandbox({
          kind: "embedded",
          workspaceRoot: WORKSPACE_ROOT,
          backend: async () => (await chosen)(),
        });
        const early = await openWorkspace(meta, sandbox);
        opened = { meta, sandbox, started, choose, ...early };
      })();
      await openingEarly.catch(() => undefined);
    },

    async ping() {
      return 1;
    },

    async listProfiles() {
      return ALL_PROFILES.map((profile) => ({
        name: profile.name,
        title: profile.title,
        description: profile.description,
        spec: profile.spec,
        internal: profile.name === EDITOR_PROFILE,
        approval: { ...profile.approval },
      }));
    },

    async listTools(profileName) {
      const runtime = current().runtime;
      const profile = runtime.profile(profileName);
      return profile.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        kind: tool.kind,
        approval: runtime.approvalMode(profile, tool),
      }));
    },

    async call(profile, request) {
      let answering: WorkspaceSession;
      callsWaiting++;
      try {
        answering = await ready();
      } catch (error) {
        callsWaiting--;
        startShellWhenIdle();
        throw error;
      }
      callsWaiting--;
      callsIn.set(answering, (callsIn.get(answering) ?? 0) + 1);
      try {
        return await answering.call(profile, request);
      } finally {
        const left = (callsIn.get(answering) ?? 1) - 1;
        if (left > 0) callsIn.set(answering, left);
        else callsIn.delete(answering);
        startShellWhenIdle();
      }
    },
    cancel: async (requestId) => session?.cancel(requestId) ?? false,

    async subscribe(listener) {
      const token = nextListener++;
      listeners.set(token, listener);
      return token;
    },
    async unsubscribe(token) {
      listeners.delete(token);
    },
    async events() {
      return current().events();
    },
    async eventsJsonl() {
      return current().runtime.events.toJsonl();
    },
    async watch(listener) {
      watcher = listener;
    },

    async snapshot() {
      return serializeWorkspace(await current().sandbox.snapshot());
    },
    restore: (files) => current().replaceFiles(files),

    listFiles: async () => (await ready()).listFiles(),
    readFile: async (path) => (await ready()).readFile(path),
    writeFile: (path, content) =>
      current().call(EDITOR_PROFILE, { tool: "write_file", params: { path, content } }),
    editFiles: (tool, params) => current().call(EDITOR_PROFILE, { tool, params }),

    approvals: proxy({
      async setPrompt(next) {
        prompt = next;
      },
      async set(profileName, tool, mode) {
        const runtime = current().runtime;
        const profile = runtime.profile(profileName);
        const spec = profile.tools.find((candidate) => candidate.name === tool);
        if (!spec) throw new Error(`${profileName} has no tool ${tool}.`);
        const forProfile = { ...settings.approvals[profileName] };
        if (mode === "default") delete forProfile[tool];
        else forProfile[tool] = mode;
        const fallback = spec.kind === "command" ? profile.approval.command : profile.approval.write;
        runtime.setApproval(profileName, tool, mode === "default" ? fallback : mode);
        await saveSettings({ ...settings, approvals: { ...settings.approvals, [profileName]: forProfile } });
      },
      async list() {
        return settings.approvals;
      },
    }),

    checkpoints: proxy({
      list: async () => current().checkpoints(),
      restoreBefore: (step) => current().restoreBefore(step),
      diff: async (step) => current().diff(step),
      lastChange: async (path) => current().lastChange(path),
    }),

    artifacts: proxy({
      list: async () => current().listArtifacts(),
      get: async (path) => current().getArtifact(path),
    }),

    terminal: proxy({
      open: (options, onOutput) => current().openTerminal(options, onOutput),
      write: (id, data) => current().terminal(id).write(data),
      read: (id, yieldMs) => current().terminal(id).read(yieldMs),
      resize: (id, cols, rows) => current().terminal(id).resize(cols, rows),
      kill: (id) => current().closeTerminal(id),
      channel: async (id) => current().terminalChannel(id),
    }),

    workspaces: proxy({
      async list() {
        return (await requireStore().listWorkspaces()).map(info);
      },
      async create(seed) {
        return info(await create(seed));
      },
      async switch(id) {
        const meta = await requireStore().getWorkspace(id);
        if (!meta) throw new Error(`No workspace with id ${id}; it may have been deleted in another tab.`);
        return open(meta);
      },
      async rename(id, name) {
        const trimmed = name.trim();
        if (trimmed === "") throw new Error("A workspace needs a name.");
        const meta = await requireStore().renameWorkspace(id, trimmed);
        if (session?.meta.id === id) Object.assign(session.meta, { name: trimmed });
        return info(meta);
      },
      async delete(id) {
        const db = requireStore();
        const wasOpen = session?.meta.id === id;
        // Closed first: its last writes must not land after it is deleted.
        if (wasOpen) await closeCurrent();
        await db.deleteWorkspace(id);
        if (!wasOpen) return null;
        const next =
          (await db.listWorkspaces())[0] ??
          (await create({ name: "Empty", origin: "empty", files: { files: {} } }));
        return open(next);
      },
      async exportZip(id) {
        if (id === undefined || id === session?.meta.id) {
          return zipWorkspace((await current().sandbox.snapshot()).entries);
        }
        return zipWorkspace(await requireStore().loadFiles(id));
      },
    }),

    lessons: proxy({
      async open(lesson) {
        const { checkLesson } = await import("../lessons/lesson.ts");
        const checked = checkLesson(lesson);
        const existing = (await requireStore().listWorkspaces()).find(
          (meta) => meta.origin === lessonOrigin(checked.id),
        );
        const boot = await open(
          existing ??
            (await create({
              name: `Lesson: ${checked.title}`,
              origin: lessonOrigin(checked.id),
              files: { files: {} },
            })),
        );
        const taken = lessons!.current();
        // The same lesson again is taken up where the learner left it; a changed one starts over.
        if (taken && JSON.stringify(taken.lesson) === JSON.stringify(checked))
          return { boot, status: await lessons!.status() };
        return { boot, status: await lessons!.start(current(), checked) };
      },
      async status() {
        return lessons?.current() ? lessons.status() : null;
      },
      check: async () => lessons!.check(current()),
      hint: async () => lessons!.hint(current()),
      reset: async () => lessons!.reset(current()),
      async progress() {
        await openStore();
        lessons ??= new LessonHost(requireStore());
        return lessons.progress();
      },
      async handToAgent() {
        const lesson = lessons?.current()?.lesson;
        if (!lesson) throw new Error("No lesson is open. Open one from the Lessons menu first.");
        const db = requireStore();
        const earlier = (await db.listWorkspaces()).filter(
          (meta) => meta.origin === lessonAgentOrigin(lesson.id),
        );
        const boot = await open(
          await create({
            name: `Agent: ${lesson.title}`,
            origin: lessonAgentOrigin(lesson.id),
            files: { files: {} },
          }),
        );
        // One model attempt per lesson: the earlier one goes once the new one is open (and it closed).
        for (const meta of earlier) await db.deleteWorkspace(meta.id);
        const status = await lessons!.start(current(), lesson, { byAgent: true });
        const profile = lesson.profiles[0]!.profile;
        await agent!.attach(current(), boot.backend, lessonTools());
        agent!.setProfile(profile);
        return { boot, status, task: lesson.instructions, profile };
      },
      async compare() {
        const lesson = lessons?.current()?.lesson;
        if (!lesson) throw new Error("No lesson is open. Open one from the Lessons menu first.");
        const db = requireStore();
        const workspaces = await db.listWorkspaces();
        const attemptIn = async (origin: string) => {
          const meta = workspaces.find((candidate) => candidate.origin === origin);
          if (!meta) return null;
          const events = meta.id === session?.meta.id ? current().events() : await db.loadEvents(meta.id);
          return lessons!.attempt(meta.id, events);
        };
        return {
          lessonId: lesson.id,
          learner: await attemptIn(lessonOrigin(lesson.id)),
          agent: await attemptIn(lessonAgentOrigin(lesson.id)),
        };
      },
    }),

    agent: proxy({
      async subscribe(listener) {
        agentListener = listener;
      },
      state: async () => requireAgent().state(),
      connect: async (settings) => requireAgent().connect(settings),
      setProfile: async (profile) => requireAgent().setProfile(profile),
      send: async (task, maxIterations) => requireAgent().send(task, maxIterations),
      continue: async (maxIterations) => requireAgent().continue(maxIterations),
      stop: async () => requireAgent().stop(),
      newConversation: async () => requireAgent().newConversation(),
      exportSession: async () => requireAgent().exportSession(),
      share: async (pageUrl) => requireAgent().share(pageUrl),
    }),

    sessions: proxy({
      async demos() {
        return (await demoSessions()).map(({ id, title, description }) => ({ id, title, description }));
      },
      async open(session) {
        return openSession(
          typeof session === "string" ? parseSession(session, { profiles: profileNames }) : session,
        );
      },
      async openDemo(id) {
        const demo = (await demoSessions()).find((candidate) => candidate.id === id);
        if (!demo) throw new Error(`There is no demo "${id}".`);
        return openSession(structuredClone(demo.session));
      },
      status: async () => replays?.status() ?? null,
      step: async () => requireReplays().step(),
      play: async (onStep, stepsPerSecond) => requireReplays().play(onStep, stepsPerSecond),
      pause: async () => replays?.pause() ?? null,
      seek: async (index) => requireReplays().seek(index),
      close: async () => replays?.close(),
      record: async (profile) => requireRecordings().start(profile),
      recording: async () => recordings?.info() ?? null,
      stopRecording: async () => requireRecordings().stop(),
      exportRecording: async () => requireRecordings().exportText(),
      shareRecording: async (pageUrl) => requireRecordings().share(pageUrl),
    }),

    settings: proxy({
      async get() {
        await openStore();
        return settings;
      },
      async set(patch) {
        await openStore();
        const { approvals: _ignored, ...rest } = patch as Partial<Settings>;
        return saveSettings({ ...settings, ...rest });
      },
    }),

    python: proxy(pythonPackagesApi(openStore, options.fetch ?? ((input, init) => fetch(input, init)))),
  };
  return api;
}

/** The built-in demos (60 KB of recorded sessions), loaded when the demo list is first asked for. */
async function demoSessions() {
  return (await import("../session/demos/index.ts")).DEMO_SESSIONS;
}
