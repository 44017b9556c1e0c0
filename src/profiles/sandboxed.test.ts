import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeCall } from "../core/calls.ts";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { registerNodeAssets } from "../host/node-assets.ts";
import { startTestHttpServer, type TestHttpServer } from "../test-support/http-server.ts";
import { sandboxed } from "./sandboxed.ts";

/** Conformance with ../shared/specs/003_84f4d4dfe7eebb81.txt, section by section. */

type Envelope = {
  success: boolean;
  tool: string;
  result?: Record<string, unknown>;
  error?: { type: string; message: string; details: Record<string, unknown> };
};

const KB32 = 32 * 1024;

let server: TestHttpServer;
beforeAll(async () => {
  registerNodeAssets();
  server = await startTestHttpServer();
});
afterAll(async () => {
  await server.close();
});

async function setup(files: Record<string, string> = {}, allow: string[] = []) {
  const runtime = await createEmbeddedRuntime({
    files,
    session: "test",
    fetch: (input, init) => globalThis.fetch(input, init),
    settings: { networkAllowList: allow },
  });
  /** Sends a request in the dialect's own flat shape. */
  const call = async (request: Record<string, unknown>) =>
    (await runtime.call("sandboxed", normalizeCall(sandboxed, request))) as Envelope;
  const read = async (path: string) =>
    new TextDecoder().decode(await runtime.sandbox.readFile(`/workspace/${path}`));
  const exists = (path: string) =>
    runtime.sandbox.stat(`/workspace/${path}`).then(
      () => true,
      () => false,
    );
  return { runtime, call, read, exists, sandbox: runtime.sandbox };
}

const USERS = JSON.stringify({
  users: [
    { name: "ada", active: true },
    { name: "bob", active: false },
  ],
});

describe("call shape and envelopes", () => {
  it("takes the flat {tool, ...params} call of the spec's examples, and the generic one", async () => {
    const { call, runtime } = await setup({ "config.json": "{}" });
    expect(await call({ tool: "read_file", path: "config.json" })).toEqual({
      success: true,
      tool: "read_file",
      result: { path: "config.json", content: "{}", size: 2 },
    });
    expect(normalizeCall(sandboxed, { tool: "read_file", path: "a", request_id: 7 })).toEqual({
      tool: "read_file",
      params: { path: "a" },
      request_id: "7",
    });
    const generic = await runtime.call("sandboxed", { tool: "read_file", params: { path: "config.json" } });
    expect(generic).toMatchObject({ success: true, result: { content: "{}" } });
  });

  it("returns structured errors with a type, a message and diagnostic details", async () => {
    const { call } = await setup();
    const missing = await call({ tool: "read_file", path: "nope.txt" });
    expect(missing).toEqual({
      success: false,
      tool: "read_file",
      error: {
        type: "file_not_found",
        message: expect.stringContaining("nope.txt"),
        details: { code: "file_not_found", path: "nope.txt" },
      },
    });
    const invalid = await call({ tool: "read_file" });
    expect(invalid.error).toMatchObject({
      type: "invalid_arguments",
      message: expect.stringContaining("missing required parameter 'path'"),
    });
    expect((await call({ tool: "read_file", path: "a", mode: "x" })).error?.type).toBe("invalid_arguments");
    expect((await call({ tool: "rm", path: "a" })).error?.type).toBe("unknown_tool");
  });

  it("lists the ten tools with every parameter the spec names, required as it says", () => {
    const params = Object.fromEntries(
      sandboxed.tools.map((tool) => [
        tool.name,
        { all: Object.keys(tool.inputSchema.properties ?? {}), required: tool.inputSchema.required },
      ]),
    );
    expect(params).toEqual({
      jq: { all: ["filter", "input"], required: ["filter"] },
      grep: { all: ["pattern", "file"], required: ["pattern", "file"] },
      sed: { all: ["expression", "file"], required: ["expression", "file"] },
      awk: { all: ["script", "file"], required: ["script", "file"] },
      curl: { all: ["url"], required: ["url"] },
      download_file: { all: ["url", "path"], required: ["url", "path"] },
      write_file: { all: ["path", "content"], required: ["path", "content"] },
      append_file: { all: ["path", "content"], required: ["path", "content"] },
      read_file: { all: ["path"], required: ["path"] },
      text_replace: { all: ["file", "search", "replace"], required: ["file", "search", "replace"] },
    });
    for (const tool of sandboxed.tools) expect(tool.inputSchema.additionalProperties).toBe(false);
  });
});

describe("jq", () => {
  it("runs the spec's example on an input file", async () => {
    const { call } = await setup({ "users.json": USERS });
    const result = await call({
      tool: "jq",
      filter: ".users[] | select(.active == true)",
      input: "users.json",
    });
    expect(result).toEqual({
      success: true,
      tool: "jq",
      result: { output: '{\n  "name": "ada",\n  "active": true\n}\n', input: "users.json" },
    });
  });

  it("without input runs on null input (a call has no stdin)", async () => {
    const { call } = await setup();
    expect((await call({ tool: "jq", filter: "{a: 1} | .a + 1" })).result).toEqual({
      output: "2\n",
      input: null,
    });
    expect((await call({ tool: "jq", filter: ".", input: null })).result?.output).toBe("null\n");
  });

  it("refuses output over 32 KB, naming the limit", async () => {
    const { call } = await setup();
    const result = await call({ tool: "jq", filter: '[range(5000)] | map("item-\\(.)")' });
    expect(result.error).toMatchObject({
      type: "size_limit_exceeded",
      message: expect.stringContaining("32 KB output limit (max_output_size)"),
      details: { limit: "max_output_size", limit_bytes: KB32 },
    });
  });

  it("reports a bad filter, bad JSON and a missing input file", async () => {
    const { call } = await setup({ "bad.json": "{" });
    expect((await call({ tool: "jq", filter: ".[" })).error?.type).toBe("command_failed");
    expect((await call({ tool: "jq", filter: ".", input: "bad.json" })).error).toMatchObject({
      type: "command_failed",
      details: { command: "jq", exit_code: expect.any(Number), stderr: expect.stringContaining("jq") },
    });
    expect((await call({ tool: "jq", filter: ".", input: "missing.json" })).error?.type).toBe(
      "file_not_found",
    );
  });
});

describe("grep", () => {
  const LOG = "boot ok\nerror: disk full\nretry\nerror: disk full again\n";

  it("returns matching lines with their numbers, as in the spec's example", async () => {
    const { call } = await setup({ "logs/app.log": LOG });
    expect(await call({ tool: "grep", pattern: "error", file: "logs/app.log" })).toEqual({
      success: true,
      tool: "grep",
      result: {
        file: "logs/app.log",
        matches: [
          { line: 2, text: "error: disk full" },
          { line: 4, text: "error: disk full again" },
        ],
        count: 2,
      },
    });
  });

  it("reads a basic regular expression, case-sensitively; no match is an empty result", async () => {
    const { call } = await setup({ "logs/app.log": LOG });
    const alternation = await call({ tool: "grep", pattern: "^boot\\|^retry", file: "logs/app.log" });
    expect(alternation.result?.count).toBe(2);
    expect((await call({ tool: "grep", pattern: "ERROR", file: "logs/app.log" })).result).toEqual({
      file: "logs/app.log",
      matches: [],
      count: 0,
    });
    expect((await call({ tool: "grep", pattern: "[", file: "logs/app.log" })).error?.type).toBe(
      "invalid_pattern",
    );
  });

  it("searches files up to 32 KB and refuses larger ones", async () => {
    const { call } = await setup({ "exact.txt": "x".repeat(KB32), "over.txt": "x".repeat(KB32 + 1) });
    expect((await call({ tool: "grep", pattern: "x", file: "exact.txt" })).success).toBe(true);
    expect((await call({ tool: "grep", pattern: "x", file: "over.txt" })).error).toMatchObject({
      type: "size_limit_exceeded",
      message: "over.txt is 32769 bytes, over the 32 KB file size limit (max_file_size).",
      details: { limit: "max_file_size", limit_bytes: KB32, size_bytes: KB32 + 1 },
    });
  });

  it("cannot be steered into running anything by quotes in the pattern", async () => {
    const { call, exists } = await setup({ "a.txt": "it's\n" });
    const result = await call({ tool: "grep", pattern: "'; touch /workspace/pwned; '", file: "a.txt" });
    expect(result.result?.count).toBe(0);
    expect(await exists("pwned")).toBe(false);
  });
});

describe("sed", () => {
  const DATA = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("");

  it("extracts lines, as in the spec's example", async () => {
    const { call } = await setup({ "data.txt": DATA });
    const result = await call({ tool: "sed", expression: "1,10p", file: "data.txt" });
    expect(result.result).toEqual({
      file: "data.txt",
      output: `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n")}\n`,
    });
    expect((await call({ tool: "sed", expression: "/line 19/,$p", file: "data.txt" })).result?.output).toBe(
      "line 19\nline 20\n",
    );
    expect(
      (await call({ tool: "sed", expression: "s/line/row/p;3q", file: "data.txt" })).result?.output,
    ).toBe("row 1\nrow 2\nrow 3\n");
  });

  it("is read-only: expressions that write, read other files or run commands are refused", async () => {
    const { call, read, exists } = await setup({ "data.txt": DATA, "secret.txt": "s" });
    for (const expression of [
      "w out.txt",
      "1,5W out.txt",
      "s/line/x/w out.txt",
      "r secret.txt",
      "1e id",
      "s/x/y/e",
      "-i s/line/x/",
    ]) {
      const result = await call({ tool: "sed", expression, file: "data.txt" });
      expect(result.error?.type, expression).toBe("operation_not_allowed");
    }
    expect(await exists("out.txt")).toBe(false);
    expect(await read("data.txt")).toBe(DATA);
  });

  it("refuses files over 32 KB", async () => {
    const { call } = await setup({ "big.txt": "x\n".repeat(KB32) });
    expect((await call({ tool: "sed", expression: "1p", file: "big.txt" })).error?.type).toBe(
      "size_limit_exceeded",
    );
  });
});

describe("awk", () => {
  it("processes fields, as in the spec's example", async () => {
    const { call } = await setup({ "data.csv": "a b c\nd e f\n", "real.csv": "x,1,y\nz,2,w\n" });
    expect((await call({ tool: "awk", script: "{ print $1, $3 }", file: "data.csv" })).result).toEqual({
      file: "data.csv",
      output: "a c\nd f\n",
    });
    const csv = await call({
      tool: "awk",
      script: 'BEGIN { FS = "," } { s += $2 } END { print s }',
      file: "real.csv",
    });
    expect(csv.result?.output).toBe("3\n");
  });

  it("refuses system(), command and file getline, pipes and redirection", async () => {
    const { call, exists } = await setup({ "data.csv": "a b\n" });
    for (const script of [
      'BEGIN { system("touch /workspace/pwned") }',
      'BEGIN { "id" | getline x; print x }',
      'BEGIN { while ((getline l < "/etc/passwd") > 0) print l }',
      '{ print > "out.txt" }',
      '{ print $1 >> "out.txt" }',
      '{ print | "sh" }',
    ]) {
      expect((await call({ tool: "awk", script, file: "data.csv" })).error?.type, script).toBe(
        "operation_not_allowed",
      );
    }
    expect(await exists("pwned")).toBe(false);
    expect(await exists("out.txt")).toBe(false);
  });

  it("stops a runaway loop and says which limit it hit", async () => {
    const { call } = await setup({ "data.csv": "a\n" });
    expect(
      (await call({ tool: "awk", script: "BEGIN { while (1) n++ }", file: "data.csv" })).error,
    ).toMatchObject({
      type: "iteration_limit_exceeded",
      details: { limit: "max_loop_iterations" },
    });
  });
});

describe("curl", () => {
  it("is off until the user allows URL prefixes", async () => {
    const { call } = await setup();
    expect((await call({ tool: "curl", url: `${server.origin}/hello.txt` })).error).toMatchObject({
      type: "network_denied",
      details: { reason: "network_off" },
    });
  });

  it("returns the body as text, with the status and type", async () => {
    const { call } = await setup({}, [`${server.origin}/`]);
    expect(await call({ tool: "curl", url: `${server.origin}/data.json` })).toEqual({
      success: true,
      tool: "curl",
      result: {
        url: `${server.origin}/data.json`,
        final_url: `${server.origin}/data.json`,
        status: 200,
        content_type: "application/json",
        bytes: 40,
        body: '{"users":[{"name":"ada","active":true}]}',
        truncated: false,
        binary: false,
      },
    });
  });

  it("returns an HTTP error status as a result, and no binary body", async () => {
    const { call } = await setup({}, [`${server.origin}/`]);
    expect((await call({ tool: "curl", url: `${server.origin}/missing` })).result).toMatchObject({
      status: 404,
      body: "not here\n",
    });
    expect((await call({ tool: "curl", url: `${server.origin}/image.png` })).result).toMatchObject({
      body: null,
      binary: true,
      bytes: 12,
    });
  });

  it("caps the text it returns at 32 KB and says so", async () => {
    const { call } = await setup({}, [`${server.origin}/`]);
    const result = await call({ tool: "curl", url: `${server.origin}/exactly-10mb` });
    expect(result.result).toMatchObject({ bytes: 10 * 1024 * 1024, truncated: true });
    expect(String(result.result?.body).length).toBe(KB32);
  });

  it("refuses a body over 10 MB, cut off while streaming, with or without an honest length", async () => {
    const { call } = await setup({}, [`${server.origin}/`]);
    for (const path of ["/big-declared", "/big-chunked", "/gzip-bomb"]) {
      expect((await call({ tool: "curl", url: `${server.origin}${path}` })).error, path).toMatchObject({
        type: "size_limit_exceeded",
        message: expect.stringContaining("10 MB download limit (max_download_size)"),
        details: { limit: "max_download_size", limit_bytes: 10 * 1024 * 1024 },
      });
    }
  });

  it("follows redirects, checking every hop against the allow-list and the scheme", async () => {
    const { call } = await setup({}, [`${server.origin}/`]);
    expect((await call({ tool: "curl", url: `${server.origin}/redirect` })).result).toMatchObject({
      final_url: `${server.origin}/hello.txt`,
      body: "hello from the test server\n",
    });
    expect((await call({ tool: "curl", url: `${server.origin}/redirect-other-host` })).error).toMatchObject({
      type: "network_denied",
      details: { reason: "not_allowed" },
    });
    expect((await call({ tool: "curl", url: `${server.origin}/redirect-file` })).error).toMatchObject({
      type: "network_denied",
      details: { reason: "scheme" },
    });
  });

  it("refuses non-HTTP schemes: file:, ftp:, data:, javascript:", async () => {
    const { call } = await setup({}, ["file:///", "ftp://127.0.0.1/", "data:", "javascript:"]);
    for (const url of [
      "file:///etc/passwd",
      "ftp://127.0.0.1/f",
      "data:text/plain,hi",
      "javascript:alert(1)",
    ]) {
      expect((await call({ tool: "curl", url })).error, url).toMatchObject({
        type: "network_denied",
        details: { reason: "scheme" },
      });
    }
  });
});

describe("download_file", () => {
  it("saves the resource, creating folders", async () => {
    const { call, read } = await setup({}, [`${server.origin}/`]);
    const result = await call({
      tool: "download_file",
      url: `${server.origin}/hello.txt`,
      path: "downloads/file.txt",
    });
    expect(result.result).toEqual({
      url: `${server.origin}/hello.txt`,
      final_url: `${server.origin}/hello.txt`,
      path: "downloads/file.txt",
      bytes: 27,
      status: 200,
      content_type: "text/plain; charset=utf-8",
    });
    expect(await read("downloads/file.txt")).toBe("hello from the test server\n");
  });

  it("saves binary bodies byte for byte", async () => {
    const { call, sandbox } = await setup({}, [`${server.origin}/`]);
    await call({ tool: "download_file", url: `${server.origin}/image.png`, path: "img.png" });
    expect(Array.from(await sandbox.readFile("/workspace/img.png")).slice(0, 4)).toEqual([
      0x89, 0x50, 0x4e, 0x47,
    ]);
  });

  it("saves nothing over 10 MB, nothing for an HTTP error, nothing when the network is off", async () => {
    const { call, exists } = await setup({}, [`${server.origin}/`]);
    expect(
      (await call({ tool: "download_file", url: `${server.origin}/big-chunked`, path: "big.bin" })).error
        ?.type,
    ).toBe("size_limit_exceeded");
    expect(
      (await call({ tool: "download_file", url: `${server.origin}/missing`, path: "m.txt" })).error,
    ).toMatchObject({
      type: "network_error",
      message: expect.stringContaining("HTTP 404"),
    });
    expect(await exists("big.bin")).toBe(false);
    expect(await exists("m.txt")).toBe(false);
    const off = await setup();
    expect(
      (await off.call({ tool: "download_file", url: `${server.origin}/hello.txt`, path: "h.txt" })).error
        ?.type,
    ).toBe("network_denied");
  });

  it("refuses a path outside the sandbox before downloading", async () => {
    const { call, sandbox } = await setup({}, [`${server.origin}/`]);
    expect(
      (await call({ tool: "download_file", url: `${server.origin}/hello.txt`, path: "../x.txt" })).error
        ?.type,
    ).toBe("path_traversal");
    await sandbox.symlink("/tmp", "/workspace/out");
    expect(
      (await call({ tool: "download_file", url: `${server.origin}/hello.txt`, path: "out/x.txt" })).error
        ?.type,
    ).toBe("symlink_outside_sandbox");
    await expect(sandbox.stat("/tmp/x.txt")).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("write_file", () => {
  it("creates or overwrites a file, as in the spec's example", async () => {
    const { call, read } = await setup({ "output.txt": "old" });
    expect(await call({ tool: "write_file", path: "output.txt", content: "Hello, World!" })).toEqual({
      success: true,
      tool: "write_file",
      result: { path: "output.txt", bytes_written: 13, created: false },
    });
    expect(await read("output.txt")).toBe("Hello, World!");
    expect((await call({ tool: "write_file", path: "new/dir/f.txt", content: "x" })).result?.created).toBe(
      true,
    );
  });

  it("writes up to 32 KB and refuses more, writing nothing", async () => {
    const { call, exists } = await setup();
    expect((await call({ tool: "write_file", path: "exact.txt", content: "x".repeat(KB32) })).success).toBe(
      true,
    );
    const over = await call({ tool: "write_file", path: "over.txt", content: "é".repeat(KB32 / 2 + 1) });
    expect(over.error).toMatchObject({
      type: "size_limit_exceeded",
      details: { limit: "max_file_size", limit_bytes: KB32, size_bytes: KB32 + 2 },
    });
    expect(await exists("over.txt")).toBe(false);
  });
});

describe("append_file", () => {
  it("appends, as in the spec's example, creating the file if needed", async () => {
    const { call, read } = await setup({ "log.txt": "first\n" });
    expect((await call({ tool: "append_file", path: "log.txt", content: "New log entry\n" })).result).toEqual(
      {
        path: "log.txt",
        bytes_appended: 14,
        size: 20,
      },
    );
    expect(await read("log.txt")).toBe("first\nNew log entry\n");
    await call({ tool: "append_file", path: "fresh.txt", content: "a" });
    expect(await read("fresh.txt")).toBe("a");
  });

  it("limits the total size after appending to 32 KB", async () => {
    const { call, read } = await setup({ "log.txt": "x".repeat(KB32 - 2) });
    expect((await call({ tool: "append_file", path: "log.txt", content: "ab" })).result?.size).toBe(KB32);
    expect((await call({ tool: "append_file", path: "log.txt", content: "c" })).error).toMatchObject({
      type: "size_limit_exceeded",
      details: { limit: "max_file_size" },
    });
    expect((await read("log.txt")).length).toBe(KB32);
  });
});

describe("read_file", () => {
  it("reads a file, as in the spec's example", async () => {
    const { call } = await setup({ "config.json": '{"debug": true}\n' });
    expect((await call({ tool: "read_file", path: "config.json" })).result).toEqual({
      path: "config.json",
      content: '{"debug": true}\n',
      size: 16,
    });
  });

  it("refuses files over 32 KB and binary files", async () => {
    const { call, sandbox } = await setup({ "big.txt": "x".repeat(KB32 + 1) });
    expect((await call({ tool: "read_file", path: "big.txt" })).error?.type).toBe("size_limit_exceeded");
    await sandbox.writeFile("/workspace/b.bin", new Uint8Array([0, 1, 2]));
    expect((await call({ tool: "read_file", path: "b.bin" })).error?.type).toBe("binary_file");
  });
});

describe("text_replace", () => {
  it("replaces every occurrence and counts the hits, as in the spec's example", async () => {
    const { call, read } = await setup({ "config.txt": "key=old_value\nother=old_value\n" });
    expect(
      await call({ tool: "text_replace", file: "config.txt", search: "old_value", replace: "new_value" }),
    ).toEqual({
      success: true,
      tool: "text_replace",
      result: { file: "config.txt", hits: 2, size: 30 },
    });
    expect(await read("config.txt")).toBe("key=new_value\nother=new_value\n");
  });

  it("searches literal text; no hit changes nothing", async () => {
    const { call, read } = await setup({ "a.txt": "a.b axb\n" });
    expect(
      (await call({ tool: "text_replace", file: "a.txt", search: "a.b", replace: "X" })).result?.hits,
    ).toBe(1);
    expect(await read("a.txt")).toBe("X axb\n");
    expect(
      (await call({ tool: "text_replace", file: "a.txt", search: "zzz", replace: "X" })).result?.hits,
    ).toBe(0);
  });

  it("allows 1,000 replacements and refuses more, changing nothing", async () => {
    const { call, read } = await setup({ "ok.txt": "x ".repeat(1000), "over.txt": "x ".repeat(1001) });
    expect(
      (await call({ tool: "text_replace", file: "ok.txt", search: "x", replace: "y" })).result?.hits,
    ).toBe(1000);
    expect(
      (await call({ tool: "text_replace", file: "over.txt", search: "x", replace: "y" })).error,
    ).toMatchObject({
      type: "replacement_limit_exceeded",
      message: expect.stringContaining("(max_replacements)"),
      details: { limit: "max_replacements", max_replacements: 1000, hits: 1001 },
    });
    expect(await read("over.txt")).toBe("x ".repeat(1001));
  });

  it("keeps the file within 32 KB before and after", async () => {
    const { call, read } = await setup({
      "big.txt": "x".repeat(KB32 + 1),
      "grow.txt": `${"a".repeat(KB32 - 10)}XX`,
    });
    expect(
      (await call({ tool: "text_replace", file: "big.txt", search: "x", replace: "y" })).error?.type,
    ).toBe("size_limit_exceeded");
    expect(
      (await call({ tool: "text_replace", file: "grow.txt", search: "XX", replace: "Y".repeat(20) })).error
        ?.type,
    ).toBe("size_limit_exceeded");
    expect((await read("grow.txt")).endsWith("XX")).toBe(true);
  });
});

describe("security notes", () => {
  it("1-2. confines every file operation: traversal and paths outside are refused", async () => {
    const { call } = await setup({ "a.txt": "x" });
    const attempts: Record<string, unknown>[] = [
      { tool: "read_file", path: "../etc/passwd" },
      { tool: "read_file", path: "/etc/passwd" },
      { tool: "read_file", path: "sub/../../x" },
      { tool: "read_file", path: "sub/../a.txt" },
      { tool: "write_file", path: "../x", content: "y" },
      { tool: "append_file", path: "/tmp/x", content: "y" },
      { tool: "text_replace", file: "../a.txt", search: "x", replace: "y" },
      { tool: "grep", pattern: "x", file: "../a.txt" },
      { tool: "sed", expression: "p", file: "../../a.txt" },
      { tool: "awk", script: "{ print }", file: "/workspace/../a.txt" },
      { tool: "jq", filter: ".", input: "../a.json" },
    ];
    for (const attempt of attempts) {
      expect((await call(attempt)).error?.type, JSON.stringify(attempt)).toBe("path_traversal");
    }
  });

  it("3. symlinks pointing outside are rejected; those inside are followed", async () => {
    const { call, sandbox } = await setup({ "real.txt": "inside\n" });
    await sandbox.writeFile("/tmp/secret.txt", "outside\n");
    await sandbox.symlink("/tmp/secret.txt", "/workspace/leak.txt");
    await sandbox.symlink("/tmp", "/workspace/tmpdir");
    await sandbox.symlink("real.txt", "/workspace/alias.txt");
    expect((await call({ tool: "read_file", path: "leak.txt" })).error?.type).toBe("symlink_outside_sandbox");
    expect((await call({ tool: "grep", pattern: "o", file: "tmpdir/secret.txt" })).error?.type).toBe(
      "symlink_outside_sandbox",
    );
    expect((await call({ tool: "write_file", path: "tmpdir/new.txt", content: "x" })).error?.type).toBe(
      "symlink_outside_sandbox",
    );
    expect((await call({ tool: "read_file", path: "alias.txt" })).result?.content).toBe("inside\n");
  });

  it("4. limits are reported with the specific limit", async () => {
    const { call } = await setup({ "big.txt": "x".repeat(KB32 + 1) });
    const result = await call({ tool: "read_file", path: "big.txt" });
    expect(result.error?.message).toContain("32 KB");
    expect(result.error?.details).toMatchObject({ limit: "max_file_size", limit_bytes: KB32 });
  });

  it("5. every operation has a deadline: 10 s for text and files, 60 s for the network", () => {
    const deadlines = Object.fromEntries(sandboxed.tools.map((tool) => [tool.name, tool.deadlineMs]));
    expect(deadlines).toEqual({
      jq: 10_000,
      grep: 10_000,
      sed: 10_000,
      awk: 10_000,
      curl: 60_000,
      download_file: 60_000,
      write_file: 10_000,
      append_file: 10_000,
      read_file: 10_000,
      text_replace: 10_000,
    });
  });

  it("path violations are blocked and logged in the event log", async () => {
    const { call, runtime } = await setup();
    await call({ tool: "read_file", path: "../../etc/shadow" });
    const finished = runtime.events.all().find((event) => event.type === "tool_call_finished");
    expect(finished).toMatchObject({
      status: "error",
      tool: "read_file",
      data: { envelope: { error: { type: "path_traversal" } } },
    });
  });
});
