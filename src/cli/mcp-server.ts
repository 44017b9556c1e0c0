import type { Profile, ToolCall } from "../core/profile.ts";
import { providerSchemas } from "../core/provider-schemas.ts";
import type { CallOutcome } from "../core/runtime.ts";

/**
 * The Model Context Protocol's server side, over messages (one JSON value per line): lifecycle,
 * ping, tools/list and tools/call, answered concurrently, so a ping or a tools/list is answered
 * while a call runs. Calls still run one at a time, in the order they arrived (the runtime's
 * queue), so a read sees the write sent before it. A client's `notifications/cancelled` stops its
 * call (queued or running: a busy loop too, through the runtime's stop signal) and the call is
 * not answered, as the spec asks; a call sent with a progress token reports progress while it
 * runs; JSON-RPC batches are taken where the negotiated revision has them (2025-03-26).
 */

/** The MCP revisions this server speaks, newest first; a client asking for another gets the newest. */
export const PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"] as const;
/** The revisions whose transport takes JSON-RPC batches (added in 2025-03-26, removed in 2025-06-18). */
const BATCH_VERSIONS = new Set<string>(["2025-03-26"]);

/** JSON-RPC's own error codes. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

type Id = string | number;

interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

export interface McpServerOptions {
  profile: Profile;
  /** The folder the client sees on disk; its absolute paths are mapped into the workspace. */
  folder: string;
  workspaceRoot: string;
  version: string;
  writeBack: boolean;
  /**
   * Runs one call (queued behind the ones before it); `unwanted` says, once it finishes, why it
   * should not be answered (cancelled), so the host undoes it instead of keeping it.
   */
  invoke(
    profile: string,
    call: ToolCall,
    unwanted: () => string | null,
  ): Promise<{ outcome: CallOutcome; answer: boolean }>;
  /** Stops the call with this request id, queued or running. */
  cancel(requestId: string): void;
  /** Writes one message (a line of JSON). */
  send(message: unknown): void;
  /** How often a call sent with a progress token reports that it is still running. */
  progressIntervalMs?: number;
}

/** A tools/call the server has not answered yet. */
interface Pending {
  requestId: string;
  cancelled: boolean;
  /** Stopped because the run is ending (not by the client): what it did is undone. */
  abandoned?: boolean;
}

const DEFAULT_PROGRESS_MS = 1000;

export class McpServer {
  private readonly options: McpServerOptions;
  private protocolVersion: string | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly handling = new Set<Promise<unknown>>();
  private nextCall = 1;
  /** tools/call requests answered so far. */
  answeredCalls = 0;

  constructor(options: McpServerOptions) {
    this.options = options;
  }

  /** Takes one parsed line (a message, or a batch where allowed); answers when its work is done. */
  receive(message: unknown): void {
    const work = this.answer(message).catch((error: unknown) =>
      this.options.send(errorResponse(null, INTERNAL_ERROR, `Internal error: ${(error as Error).message}`)),
    );
    this.handling.add(work);
    void work.finally(() => this.handling.delete(work));
  }

  /** Answers a line that was not JSON (or not a message) with a JSON-RPC error. */
  refuse(code: number, message: string): void {
    this.options.send(errorResponse(null, code, message));
  }

  /** The run is ending: every call not answered yet is stopped (queued ones never run) and gets no answer. */
  abandon(): void {
    for (const pending of this.pending.values()) {
      if (pending.cancelled) continue;
      pending.cancelled = true;
      pending.abandoned = true;
      this.options.cancel(pending.requestId);
    }
  }

  /** Resolves once every message received so far has been answered. */
  async idle(): Promise<void> {
    while (this.handling.size > 0) await Promise.allSettled([...this.handling]);
  }

  private async answer(message: unknown): Promise<void> {
    if (Array.isArray(message)) {
      if (!this.protocolVersion || !BATCH_VERSIONS.has(this.protocolVersion)) {
        this.options.send(
          errorResponse(
            null,
            INVALID_REQUEST,
            `JSON-RPC batches are part of MCP 2025-03-26 only; this session speaks ${this.protocolVersion ?? "no revision yet (send initialize first)"}. Send one message per line.`,
          ),
        );
        return;
      }
      if (message.length === 0) {
        this.options.send(errorResponse(null, INVALID_REQUEST, "An empty batch has no requests to answer."));
        return;
      }
      // Every request of the batch starts now (calls queue in order); one array answers them all.
      const responses = await Promise.all(message.map((item) => this.handle(item, true)));
      const answered = responses.filter((response) => response !== null);
      if (answered.length > 0) this.options.send(answered);
      return;
    }
    const response = await this.handle(message, false);
    if (response !== null) this.options.send(response);
  }

  /** One message's response, or null when it gets none (a notification, a cancelled call). */
  private async handle(raw: unknown, inBatch: boolean): Promise<unknown> {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      return errorResponse(
        null,
        INVALID_REQUEST,
        'Expected a JSON-RPC 2.0 message: an object with a "method".',
      );
    }
    const message = raw as JsonRpcMessage;
    const hasId = "id" in message;
    const id = message.id;
    // A response to a request of ours: this server sends none, so there is nothing to match.
    if (message.method === undefined && ("result" in message || "error" in message)) return null;
    if (hasId && !isId(id)) {
      return errorResponse(null, INVALID_REQUEST, 'A request\'s "id" must be a string or a number.');
    }
    // Without an id it is a notification only when well formed; anything else is an invalid
    // request, answered with id null as JSON-RPC 2.0 asks (else the line would go unanswered).
    if (message.jsonrpc !== "2.0" || typeof message.method !== "string") {
      return errorResponse(
        hasId ? (id as Id) : null,
        INVALID_REQUEST,
        'Expected a JSON-RPC 2.0 request: "jsonrpc": "2.0" and a "method".',
      );
    }
    if (
      message.params !== undefined &&
      (typeof message.params !== "object" || message.params === null || Array.isArray(message.params))
    ) {
      return hasId
        ? errorResponse(id as Id, INVALID_PARAMS, '"params" must be an object.')
        : errorResponse(null, INVALID_REQUEST, 'A notification\'s "params" must be an object.');
    }
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (!hasId) {
      this.notification(message.method, params);
      return null;
    }
    return this.request(id as Id, message.method, params, inBatch);
  }

  private notification(method: string, params: Record<string, unknown>): void {
    if (method !== "notifications/cancelled") return; // initialized, progress, roots/list_changed…
    const target = params.requestId;
    if (!isId(target)) return;
    const pending = this.pending.get(key(target));
    if (!pending || pending.cancelled) return;
    pending.cancelled = true;
    this.options.cancel(pending.requestId);
  }

  private async request(
    id: Id,
    method: string,
    params: Record<string, unknown>,
    inBatch: boolean,
  ): Promise<unknown> {
    switch (method) {
      case "initialize":
        if (inBatch) return errorResponse(id, INVALID_REQUEST, "initialize must not be part of a batch.");
        return { jsonrpc: "2.0", id, result: this.initialize(params) };
      case "ping":
        return { jsonrpc: "2.0", id, result: {} };
      case "tools/list":
        // One page holds every tool: no cursor this server handed out can come back.
        if (params.cursor !== undefined) {
          return errorResponse(
            id,
            INVALID_PARAMS,
            `Unknown cursor ${JSON.stringify(params.cursor)}: tools/list answers in one page and gives no cursor.`,
          );
        }
        return { jsonrpc: "2.0", id, result: { tools: providerSchemas(this.options.profile, "mcp") } };
      case "tools/call":
        return this.call(id, params);
      default:
        return errorResponse(id, METHOD_NOT_FOUND, `Method "${method}" is not supported.`);
    }
  }

  private initialize(params: Record<string, unknown>) {
    const { profile, folder, version, writeBack } = this.options;
    const asked = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
    this.protocolVersion = (PROTOCOL_VERSIONS as readonly string[]).includes(asked)
      ? asked
      : PROTOCOL_VERSIONS[0];
    return {
      protocolVersion: this.protocolVersion,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: "toolroom", title: `Toolroom (${profile.title})`, version },
      instructions: `${profile.title} tools over a sandboxed copy of ${folder}: paths are relative to it (or absolute under it).${writeBack ? " Each call's changes are written back to it before the call is answered." : " Nothing on disk changes."}`,
    };
  }

  private async call(id: Id, params: Record<string, unknown>): Promise<unknown> {
    const { profile, folder, workspaceRoot } = this.options;
    if (typeof params.name !== "string")
      return errorResponse(id, INVALID_PARAMS, 'tools/call needs a tool "name".');
    if (!profile.tools.some((tool) => tool.name === params.name)) {
      return errorResponse(
        id,
        INVALID_PARAMS,
        `Unknown tool "${params.name}"; tools/list has the ${profile.name} tools.`,
      );
    }
    if (params.arguments !== undefined && !isRecord(params.arguments)) {
      return errorResponse(id, INVALID_PARAMS, 'tools/call "arguments" must be an object.');
    }
    if (this.pending.has(key(id))) {
      return errorResponse(
        id,
        INVALID_REQUEST,
        `Request id ${JSON.stringify(id)} is already in use by a running call.`,
      );
    }
    const pending: Pending = { requestId: `mcp-${this.nextCall++}`, cancelled: false };
    this.pending.set(key(id), pending);
    const token = isRecord(params._meta) ? params._meta.progressToken : undefined;
    const progress = isId(token) ? this.reportProgress(token, params.name) : undefined;
    try {
      // Invoked before any await: calls queue in the order they arrived.
      const { outcome, answer } = await this.options.invoke(
        profile.name,
        {
          tool: params.name,
          params: hostPathsMapped(params.arguments ?? {}, folder, workspaceRoot) as Record<string, unknown>,
          request_id: pending.requestId,
        },
        () =>
          pending.abandoned
            ? "it was still running when the run was stopped"
            : pending.cancelled
              ? "the client cancelled it"
              : null,
      );
      // Cancelled: the client has forgotten the request, and the spec asks for no answer.
      if (!answer) return null;
      this.answeredCalls++;
      const { envelope, images } = imagesApart(outcome.envelope);
      return {
        jsonrpc: "2.0",
        id,
        result: {
          content: [{ type: "text", text: JSON.stringify(envelope) }, ...images],
          ...(isRecord(envelope) ? { structuredContent: envelope } : {}),
          isError: outcome.status === "error",
        },
      };
    } finally {
      progress?.stop();
      this.pending.delete(key(id));
    }
  }

  /** Sends notifications/progress for a running call every interval until stopped. */
  private reportProgress(token: Id, tool: string): { stop(): void } {
    const started = Date.now();
    let count = 0;
    const timer = setInterval(() => {
      count++;
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      this.options.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: count,
          message: `${tool}: still running after ${seconds} s`,
        },
      });
    }, this.options.progressIntervalMs ?? DEFAULT_PROGRESS_MS);
    timer.unref?.();
    return { stop: () => clearInterval(timer) };
  }
}

function errorResponse(id: Id | null, code: number, message: string) {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

function isId(value: unknown): value is Id {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** One map key per id: the number 1 and the string "1" are different requests. */
function key(id: Id): string {
  return `${typeof id}:${id}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The client sees the folder on disk, and names files by their absolute path there (the path the
 * instructions give): an argument that is such a path, whole, is mapped to the same file in the
 * workspace. Anything else (relative paths, commands, patch texts) is left as it is.
 */
export function hostPathsMapped(value: unknown, folder: string, workspaceRoot: string): unknown {
  if (typeof value === "string") {
    if (value === folder) return workspaceRoot;
    return value.startsWith(`${folder}/`) ? `${workspaceRoot}/${value.slice(folder.length + 1)}` : value;
  }
  if (Array.isArray(value)) return value.map((item) => hostPathsMapped(item, folder, workspaceRoot));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, hostPathsMapped(item, folder, workspaceRoot)]),
    );
  }
  return value;
}

/**
 * Images a dialect hands the model as data URLs (baseagent's inject_content) go to the client as MCP
 * image content blocks; the envelope keeps a note of where each went instead of the bytes.
 */
function imagesApart(envelope: unknown): {
  envelope: unknown;
  images: { type: "image"; data: string; mimeType: string }[];
} {
  const images: { type: "image"; data: string; mimeType: string }[] = [];
  if (!isRecord(envelope) || !Array.isArray(envelope.inject_content)) return { envelope, images };
  const inject = envelope.inject_content.map((item: unknown) => {
    const url = isRecord(item) && isRecord(item.image_url) ? item.image_url.url : undefined;
    const data = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/su.exec(url) : null;
    if (!data || !isRecord(item)) return item;
    images.push({ type: "image", data: data[2]!, mimeType: data[1]! });
    return { ...item, image_url: { url: `(${data[1]}, sent as MCP image content ${images.length})` } };
  });
  return { envelope: { ...envelope, inject_content: inject }, images };
}
