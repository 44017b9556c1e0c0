import { resolve as resolvePath } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { Profile } from "../core/profile.ts";
import { providerSchemas } from "../core/provider-schemas.ts";
import { type HostRuntimeOptions, openHostRuntime } from "./host-runtime.ts";
import { inputLines, parseRequestLine } from "./input-lines.ts";

export interface McpOptions extends HostRuntimeOptions {
  profile: Profile;
  writeBack: boolean;
  input: Readable;
  output: Writable;
  version: string;
}

/** The MCP revisions this server speaks; a client asking for another gets the newest. */
const PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"];

interface JsonRpcRequest {
  jsonrpc?: string;
  id?: string | number | null;
  method?: unknown;
  params?: unknown;
}

/** JSON-RPC's own error codes. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

/**
 * `toolroom mcp`: the profile's tools as a Model Context Protocol server on stdin/stdout (one JSON-RPC
 * message per line), so a desktop agent can work in a folder through a published tool API. Each
 * tools/call goes through the runtime and answers with the dialect's own envelope as text, flagged
 * isError when the tool failed. At end of input the changes are written back when asked.
 */
export async function runMcp(options: McpOptions): Promise<number> {
  const { runtime, finish } = await openHostRuntime(options);
  const profile = options.profile;
  const folder = resolvePath(options.workspace);
  const send = (message: unknown) =>
    new Promise<void>((resolve, reject) =>
      options.output.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve())),
    );
  const reply = (id: JsonRpcRequest["id"], result: unknown) => send({ jsonrpc: "2.0", id, result });
  const fail = (id: JsonRpcRequest["id"], code: number, message: string) =>
    send({ jsonrpc: "2.0", id: id ?? null, error: { code, message } });

  const handle = async (request: JsonRpcRequest): Promise<void> => {
    const { id, method } = request;
    const isNotification = id === undefined;
    if (request.jsonrpc !== "2.0" || typeof method !== "string") {
      if (!isNotification)
        await fail(id, INVALID_REQUEST, 'Expected a JSON-RPC 2.0 request with a "method".');
      return;
    }
    const params = (
      typeof request.params === "object" && request.params !== null ? request.params : {}
    ) as Record<string, unknown>;
    switch (method) {
      case "initialize": {
        const asked = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
        await reply(id, {
          protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: "toolroom", title: `Toolroom (${profile.title})`, version: options.version },
          instructions: `${profile.title} tools over a sandboxed copy of ${folder}: paths are relative to it (or absolute under it).${options.writeBack ? " Changes are written back when the session ends." : " Nothing on disk changes."}`,
        });
        return;
      }
      case "ping":
        await reply(id, {});
        return;
      case "tools/list":
        await reply(id, { tools: providerSchemas(profile, "mcp") });
        return;
      case "tools/call": {
        if (typeof params.name !== "string") {
          await fail(id, INVALID_PARAMS, 'tools/call needs a tool "name".');
          return;
        }
        if (!profile.tools.some((tool) => tool.name === params.name)) {
          await fail(
            id,
            INVALID_PARAMS,
            `Unknown tool "${params.name}"; tools/list has the ${profile.name} tools.`,
          );
          return;
        }
        const outcome = await runtime.invoke(profile.name, {
          tool: params.name,
          params: hostPathsMapped(params.arguments ?? {}, folder, runtime.sandbox.workspaceRoot) as Record<
            string,
            unknown
          >,
        });
        const { envelope, images } = imagesApart(outcome.envelope);
        await reply(id, {
          content: [{ type: "text", text: JSON.stringify(envelope) }, ...images],
          ...(isRecord(envelope) ? { structuredContent: envelope } : {}),
          isError: outcome.status === "error",
        });
        return;
      }
      default:
        // Notifications (initialized, cancelled, …) need no answer.
        if (!isNotification) await fail(id, METHOD_NOT_FOUND, `Method "${method}" is not supported.`);
    }
  };

  for await (const line of inputLines(options.input)) {
    const parsed = parseRequestLine(line);
    if (!parsed.ok) {
      await fail(
        null,
        parsed.message.includes("not valid JSON") ? PARSE_ERROR : INVALID_REQUEST,
        parsed.message,
      );
      continue;
    }
    const message = parsed.value;
    // MCP has no JSON-RPC batches (since 2025-06-18): an array is not a request.
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      await fail(null, INVALID_REQUEST, "Expected one JSON-RPC request object per line.");
      continue;
    }
    await handle(message as JsonRpcRequest);
  }
  await finish({ writeBack: options.writeBack });
  return 0;
}

/**
 * The client sees the folder on disk, and names files by their absolute path there (the path the
 * instructions give): an argument that is such a path, whole, is mapped to the same file in the
 * workspace. Anything else (relative paths, commands, patch texts) is left as it is.
 */
function hostPathsMapped(value: unknown, folder: string, workspaceRoot: string): unknown {
  if (typeof value === "string") {
    if (value === folder) return workspaceRoot;
    return value.startsWith(`${folder}/`) ? `${workspaceRoot}/${value.slice(folder.length + 1)}` : value;
  }
  if (Array.isArray(value)) return value.map((item) => hostPathsMapped(item, folder, workspaceRoot));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, hostPathsMapped(item, folder, workspaceRoot)]),
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
