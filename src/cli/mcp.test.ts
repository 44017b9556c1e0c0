import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolroom-mcp-"));
  writeFileSync(join(dir, "a.txt"), "hello\n");
  return dir;
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
});

/** The official SDK's client on `toolroom mcp` over stdio. */
async function connect(profile = "agentbench", dir = folder(), extra: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp", "--workspace", dir, "--profile", profile, ...extra],
    stderr: "pipe",
  });
  const client = new Client({ name: "toolroom-test", version: "1.0.0" });
  await client.connect(transport);
  closers.push(() => client.close());
  return client;
}

const text = (result: object) =>
  JSON.parse((result as { content: { type: string; text: string }[] }).content[0]!.text);

/** A raw line-level session, for what the SDK client never sends (batches, bad lines). */
class RawSession {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Record<string, unknown>[] = [];
  readonly lines: string[] = [];
  private buffer = "";
  private waiters: (() => void)[] = [];

  constructor(args: string[] = []) {
    this.child = spawn(BIN, ["mcp", "--workspace", folder(), "--profile", "agentbench", ...args], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      this.buffer += chunk;
      let end = this.buffer.indexOf("\n");
      while (end !== -1) {
        const line = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 1);
        this.lines.push(line);
        this.messages.push(JSON.parse(line));
        end = this.buffer.indexOf("\n");
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    closers.push(() => this.close());
  }

  send(...messages: unknown[]): void {
    for (const message of messages)
      this.child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  }

  async waitFor(test: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.messages.find(test);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async initialize(protocolVersion: string): Promise<void> {
    this.send({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    await this.waitFor((message) => message.id === "init");
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  close(): Promise<number> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve(this.child.exitCode);
      this.child.on("close", (code) => resolve(code ?? -1));
      this.child.stdin.end();
    });
  }
}

const call = (
  id: number | string,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe("toolroom mcp with the official SDK client", () => {
  it("answers pings and tools/list while a call runs", async () => {
    const client = await connect();
    let callDone = false;
    const running = client
      .callTool({ name: "run", arguments: { command: "sleep 3; echo slept" } })
      .then((result) => {
        callDone = true;
        return result;
      });
    await client.ping();
    const tools = await client.listTools();
    expect(callDone).toBe(false);
    expect(tools.tools.map((tool) => tool.name)).toContain("run");
    expect(text(await running).data.stdout).toBe("slept\n");
  }, 60_000);

  it("stops a running command when the client cancels, answers nothing for it, undoes it, and serves the next call", async () => {
    const dir = folder();
    const client = await connect("agentbench", dir, ["--write-back"]);
    const controller = new AbortController();
    const progress: number[] = [];
    const busy = client.callTool(
      { name: "run", arguments: { command: "echo started > started.txt; sleep 100" } },
      undefined,
      {
        signal: controller.signal,
        onprogress: (update) => {
          progress.push(update.progress);
          // Cancel once the loop runs (it wrote its marker first).
          controller.abort("the person pressed stop");
        },
      },
    );
    await expect(busy).rejects.toThrow();
    expect(progress.length).toBeGreaterThan(0);
    // The command was stopped (the next call would wait for the 100 s sleep otherwise) and what it
    // wrote before the cancel is undone: a cancelled call leaves nothing, in the sandbox or on disk.
    const next = await client.callTool({ name: "read_file", arguments: { path: "started.txt" } });
    expect(text(next).error.error_type).toBe("file_not_found");
    const kept = await client.callTool({ name: "run", arguments: { command: "echo k > kept.txt" } });
    expect(text(kept).exit_code).toBe(0);
    // Answered, so on disk already, before the session ends.
    expect(readdirSync(dir).sort()).toEqual(["a.txt", "kept.txt"]);
    await client.close();
    expect(readdirSync(dir).sort()).toEqual(["a.txt", "kept.txt"]);
  }, 60_000);

  it("stops the call a client gave up on at its request timeout", async () => {
    const client = await connect();
    await expect(
      client.callTool({ name: "run", arguments: { command: "sleep 100" } }, undefined, { timeout: 1500 }),
    ).rejects.toThrow(/timed out/iu);
    const next = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    expect(text(next).data.content).toBe("hello");
  }, 60_000);

  it("reports progress on a long call sent with a progress token", async () => {
    const client = await connect();
    const updates: { progress: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: "run", arguments: { command: "sleep 2.5; echo done" } },
      undefined,
      { onprogress: (update) => updates.push(update), resetTimeoutOnProgress: true },
    );
    expect(text(result).data.stdout).toBe("done\n");
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates[0]!.message).toMatch(/^run: still running after [\d.]+ s$/u);
    expect(updates.map((update) => update.progress)).toEqual(updates.map((_, i) => i + 1));
  }, 60_000);

  it("refuses a cursor it never gave out", async () => {
    const client = await connect();
    const error = await client.listTools({ cursor: "page-2" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toContain('Unknown cursor "page-2"');
  }, 60_000);
});

describe("toolroom mcp on raw lines", () => {
  it("answers a JSON-RPC batch with one array under 2025-03-26", async () => {
    const session = new RawSession();
    await session.initialize("2025-03-26");
    session.send([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      call(3, "read_file", { path: "a.txt" }),
    ]);
    const batch = await session.waitFor((message) => Array.isArray(message));
    const answers = batch as unknown as { id: number; result: Record<string, unknown> }[];
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    expect((answers[1]!.result.tools as unknown[]).length).toBeGreaterThan(3);
    expect(JSON.parse((answers[2]!.result.content as { text: string }[])[0]!.text).data.content).toBe(
      "hello",
    );
    session.send([{ jsonrpc: "2.0", method: "notifications/initialized" }], {
      jsonrpc: "2.0",
      id: 4,
      method: "ping",
    });
    await session.waitFor((message) => message.id === 4);
    // A batch of notifications only gets no answer: the ping's is the next line.
    expect(session.messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    expect(await session.close()).toBe(0);
  }, 60_000);

  it("refuses batches where the negotiated revision has none", async () => {
    const session = new RawSession();
    await session.initialize("2025-06-18");
    session.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    const refusal = await session.waitFor((message) => message.id === null);
    expect(refusal.error).toMatchObject({ code: -32600 });
    expect((refusal.error as { message: string }).message).toContain("2025-03-26 only");
  }, 60_000);

  it("sends no answer for a cancelled call and runs the calls after it", async () => {
    const session = new RawSession();
    await session.initialize("2025-06-18");
    session.send(
      call(5, "run", { command: "sleep 100" }),
      call(6, "run", { command: "echo never" }),
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 6, reason: "changed my mind" },
      },
      { jsonrpc: "2.0", id: 7, method: "ping" },
    );
    await session.waitFor((message) => message.id === 7);
    session.send(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } },
      call(8, "read_file", { path: "a.txt" }),
    );
    await session.waitFor((message) => message.id === 8);
    expect(await session.close()).toBe(0);
    expect(session.messages.map((message) => message.id)).toEqual(["init", 7, 8]);
  }, 60_000);

  it("answers every request line once: bad JSON, blank lines, bad ids and unknown methods", async () => {
    const session = new RawSession();
    session.send(
      "not json",
      "",
      "   ",
      "\u00a0",
      '{"jsonrpc":"2.0","id":1,"method":"ping",\r"params":{}}',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
      '{"jsonrpc":"1.0","id":2,"method":"ping"}',
      '{"jsonrpc":"2.0","id":3,"method":"resources/list"}',
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}',
      `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":${"[".repeat(600)}${"]".repeat(600)}}}`,
      '{"jsonrpc":"2.0","id":6,"result":{}}',
      '{"jsonrpc":"2.0","method":"notifications/whatever"}',
      '{"foo":"bar"}',
      '{"jsonrpc":"2.0","method":1,"params":"bar"}',
      '{"jsonrpc":"2.0","method":"notifications/whatever","params":5}',
    );
    expect(await session.close()).toBe(0);
    const codes = session.messages.map((message) => [
      message.id,
      (message.error as { code?: number } | undefined)?.code ?? "ok",
    ]);
    // Answers come as each is ready (a call takes longer than a parse error): compare them as a set.
    const sorted = (list: unknown[]) => list.map((item) => JSON.stringify(item)).sort();
    expect(sorted(codes)).toEqual(
      sorted([
        [null, -32700],
        [null, -32600],
        [null, -32600],
        [null, -32700],
        [1, "ok"],
        [null, -32600],
        [2, -32600],
        [3, -32601],
        [4, -32602],
        [null, -32600],
        // Objects without an id that are no notification (JSON-RPC 2.0's own examples).
        [null, -32600],
        [null, -32600],
        [null, -32600],
      ]),
    );
  }, 60_000);
});
