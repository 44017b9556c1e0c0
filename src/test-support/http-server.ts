import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { gzipSync } from "node:zlib";

/** Test-only: a local HTTP server on 127.0.0.1 with the routes the network tests need. */
export interface TestHttpServer {
  /** "http://127.0.0.1:PORT" */
  origin: string;
  /** Same server under another host name, which an allow-list of 127.0.0.1 does not cover. */
  otherOrigin: string;
  /** A raw TCP server that answers with a close-delimited body (no Content-Length, no chunking). */
  rawOrigin: string;
  /** Per path: whether the server finished sending the body (false when the client cut it off). */
  finished: Map<string, boolean>;
  close(): Promise<void>;
}

const MB = 1024 * 1024;

export async function startTestHttpServer(): Promise<TestHttpServer> {
  const finished = new Map<string, boolean>();
  let origin = "";
  let otherOrigin = "";

  const stream = (request: IncomingMessage, response: ServerResponse, total: number, length?: number) => {
    const path = request.url ?? "";
    finished.set(path, false);
    response.writeHead(200, {
      "content-type": "application/octet-stream",
      ...(length !== undefined ? { "content-length": String(length) } : {}),
    });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!response.write(chunk)) {
          response.once("drain", pump);
          return;
        }
      }
      response.end(() => finished.set(path, true));
    };
    response.on("close", () => undefined);
    pump();
  };

  const server = createServer((request, response) => {
    const path = request.url ?? "/";
    switch (path) {
      case "/hello.txt":
        response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        response.end("hello from the test server\n");
        return;
      case "/data.json":
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ users: [{ name: "ada", active: true }] }));
        return;
      case "/missing":
        response.writeHead(404, { "content-type": "text/plain" });
        response.end("not here\n");
        return;
      case "/exactly-10mb":
        stream(request, response, 10 * MB, 10 * MB);
        return;
      case "/big-declared":
        stream(request, response, 11 * MB, 11 * MB);
        return;
      case "/big-chunked":
        stream(request, response, 64 * MB);
        return;
      case "/gzip-bomb": {
        const body = gzipSync(Buffer.alloc(20 * MB, 0x61));
        response.writeHead(200, {
          "content-type": "text/plain",
          "content-encoding": "gzip",
          "content-length": String(body.length),
        });
        response.end(body);
        return;
      }
      case "/redirect":
        response.writeHead(302, { location: "/hello.txt" });
        response.end();
        return;
      case "/redirect-chain":
        response.writeHead(301, { location: "/redirect" });
        response.end();
        return;
      case "/redirect-loop":
        response.writeHead(302, { location: "/redirect-loop" });
        response.end();
        return;
      case "/redirect-other-host":
        response.writeHead(302, { location: `${otherOrigin}/hello.txt` });
        response.end();
        return;
      case "/redirect-file":
        response.writeHead(302, { location: "file:///etc/passwd" });
        response.end();
        return;
      case "/redirect-ftp":
        response.writeHead(307, { location: "ftp://127.0.0.1/file" });
        response.end();
        return;
      case "/slow":
        response.writeHead(200, { "content-type": "text/plain" });
        response.write("partial");
        setTimeout(() => response.end(), 5000).unref();
        return;
      case "/image.png":
        response.writeHead(200, { "content-type": "image/png" });
        response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
        return;
      default:
        response.writeHead(404);
        response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  origin = `http://127.0.0.1:${port}`;
  otherOrigin = `http://localhost:${port}`;

  const raw: TcpServer = createTcpServer((socket) => {
    socket.once("data", () => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\nconnection: close\r\n\r\n");
      const chunk = Buffer.alloc(64 * 1024, 0x62);
      let sent = 0;
      const pump = () => {
        while (sent < 64 * MB) {
          sent += chunk.length;
          if (!socket.write(chunk)) {
            socket.once("drain", pump);
            return;
          }
        }
        socket.end();
      };
      socket.on("error", () => undefined);
      pump();
    });
  });
  await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
  const rawPort = (raw.address() as { port: number }).port;

  return {
    origin,
    otherOrigin,
    rawOrigin: `http://127.0.0.1:${rawPort}`,
    finished,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    },
  };
}
