import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  chunked,
  type RecordedRequest,
  render,
  replyFor,
  type Script,
  type WireFormat,
} from "./scripted-model.ts";

/**
 * A scripted model behind real HTTP on 127.0.0.1 (Node only): an OpenAI-compatible server at
 * /v1/chat/completions or an Anthropic one at /v1/messages. It streams each reply in small chunks
 * with a pause between them, so clients meet cut lines and cut UTF-8 characters, and it answers
 * CORS preflights, so a browser page (the web app's e2e) can call it too.
 */
export interface ScriptedServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** What to put in the provider settings: …/v1 for OpenAI-compatible, the origin for Anthropic. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Connections currently open (a hung stream stays here until the client leaves). */
  openStreams(): number;
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  format: WireFormat;
  script: Script;
  /** Bytes per write; default 7. */
  chunkSize?: number;
  /** Pause between writes; default 1 ms. */
  chunkDelayMs?: number;
  /** When set, requests without this key (Bearer or x-api-key) get the provider's 401. */
  requireKey?: string;
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-expose-headers": "retry-after",
};

export async function startScriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const path = options.format === "openai" ? "/v1/chat/completions" : "/v1/messages";

  const handle = async (incoming: IncomingMessage, response: ServerResponse) => {
    if (incoming.method === "OPTIONS") {
      response.writeHead(204, CORS).end();
      return;
    }
    const text = await readBody(incoming);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === "string") headers[name] = value;
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      response.writeHead(400, { ...CORS, "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "The request body is not JSON." } }));
      return;
    }
    const request: RecordedRequest = {
      method: incoming.method ?? "GET",
      path: incoming.url ?? "",
      headers,
      body,
    };
    if (request.path !== path) {
      response.writeHead(404, { ...CORS, "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { message: `No route ${request.path}; this server answers ${path}.` } }),
      );
      return;
    }
    const index = requests.length;
    requests.push(request);
    if (options.requireKey !== undefined && !hasKey(headers, options.requireKey)) {
      response.writeHead(401, { ...CORS, "content-type": "application/json" });
      response.end(JSON.stringify(unauthorized(options.format)));
      return;
    }
    const rendered = render(options.format, replyFor(options.script, request, index), request, index);
    response.writeHead(rendered.status, { ...CORS, ...rendered.headers });
    open.add(response);
    response.on("close", () => open.delete(response));
    for (const part of chunked(new TextEncoder().encode(rendered.body), options.chunkSize ?? 7)) {
      if (response.destroyed) return;
      response.write(part);
      await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs ?? 1));
    }
    if (rendered.end === "normal") response.end();
    else if (rendered.end === "drop") response.socket?.destroy();
    // hang: leave it open; the client's abort closes it.
  };

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, CORS);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: options.format === "openai" ? `${url}/v1` : url,
    requests,
    openStreams: () => open.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of open) response.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    incoming.on("data", (part: Buffer) => parts.push(part));
    incoming.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    incoming.on("error", reject);
  });
}

function hasKey(headers: Record<string, string>, key: string): boolean {
  return headers.authorization === `Bearer ${key}` || headers["x-api-key"] === key;
}

function unauthorized(format: WireFormat): unknown {
  return format === "openai"
    ? {
        error: {
          message:
            "Incorrect API key provided: sk-wro****. You can find your API key at https://platform.openai.com.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      }
    : { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } };
}
