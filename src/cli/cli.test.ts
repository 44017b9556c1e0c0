import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePng } from "../test-support/images.ts";
import { folderWith, runToolroom } from "../test-support/toolroom-cli.ts";

const toolroom = runToolroom;
const workspace = (files: Record<string, string>) => folderWith(files, "toolroom-cli-");

const lines = (calls: unknown[]) => `${calls.map((call) => JSON.stringify(call)).join("\n")}\n`;
const parse = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

describe("toolroom batch", () => {
  it("commits as the user's own git config says when the repository names nobody", async () => {
    const dir = workspace({ "a.txt": "a\n" });
    const home = mkdtempSync(join(tmpdir(), "toolroom-home-"));
    writeFileSync(
      join(home, ".gitconfig"),
      '[core]\n\tx = 1\n[user]\n\tname = "Ada Lovelace" # the user\n\temail = ada@example.com\n',
    );
    const { stdout } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "coding-agent"],
      lines([
        { tool: "shell", params: { command: "git init -q" } },
        { tool: "git_commit", params: { message: "a", confirmed: true, paths: ["a.txt"], signoff: true } },
      ]),
      { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "none") },
    );
    const commit = parse(stdout)[1];
    expect(commit.ok, commit.message).toBe(true);
    expect(commit.data.message).toContain("Signed-off-by: Ada Lovelace <ada@example.com>");
  });

  it("keeps the folder's modification times: baseagent grep_files lists the newest file first", async () => {
    const dir = workspace({ "a.py": "token = 1\n", "b.py": "token = 2\n", "c.py": "token = 3\n" });
    // b is the newest, then c, then a: neither name order nor load order.
    for (const [name, seconds] of [
      ["a.py", 1_000_000],
      ["b.py", 3_000_000],
      ["c.py", 2_000_000],
    ] as const) {
      utimesSync(join(dir, name), seconds, seconds);
    }
    const { stdout } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "baseagent"],
      lines([{ name: "grep_files", arguments: { pattern: "token" } }]),
    );
    expect(parse(stdout)[0].output).toBe("b.py\nc.py\na.py");
  });

  it("answers every line in order with the profile's envelope, and exits 0 even when tools fail", async () => {
    const dir = workspace({ "src/utils.py": "def add(a, b):\n    return a - b\n" });
    const { code, stdout } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench"],
      lines([
        { tool: "list_files", params: {}, request_id: "a" },
        { tool: "read_file", params: { path: "missing.py" }, request_id: "b" },
        { tool: "read_file", params: { path: "src/utils.py", start_line: 2 }, request_id: "c" },
      ]),
    );
    expect(code).toBe(0);
    const out = parse(stdout);
    expect(out.map((envelope) => [envelope.request_id, envelope.status])).toEqual([
      ["a", "success"],
      ["b", "error"],
      ["c", "success"],
    ]);
    expect(out[0].data.files).toEqual(["src/utils.py"]);
    expect(out[1].error.error_type).toBe("file_not_found");
    expect(out[2].data.content).toBe("    return a - b");
  });

  it("answers a malformed line with an error envelope and goes on", async () => {
    const dir = workspace({ "a.txt": "x\n" });
    const { code, stdout } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench"],
      `{"tool": "list_files", "params": {}, "request_id": "1"}\nthis is not json\n{"params": {}}\n\n{"tool":"read_file","params":{"path":"a.txt"},"request_id":"4"}\n`,
    );
    expect(code).toBe(0);
    const out = parse(stdout);
    // Every line gets one answer, the blank one too, so answers stay in step with requests.
    expect(out).toHaveLength(5);
    expect(out[1].error.error_type).toBe("invalid_params");
    expect(out[1].error.message).toContain("Line 2 is not valid JSON");
    expect(out[2].error.message).toContain('needs a "tool"');
    expect(out[3].error.message).toContain("Line 4 is empty");
    expect(out[4].data.content).toBe("x");
  });

  it("runs node and npm test in the workspace", async () => {
    const dir = workspace({
      "package.json": JSON.stringify({ name: "w", version: "1.0.0", scripts: { test: "node --test" } }),
      "sum.test.js": "require('node:test')('sums', () => require('node:assert').strictEqual(1 + 1, 2));\n",
    });
    const { stdout } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench"],
      lines([
        { tool: "run", params: { command: "node -p 6*7" }, request_id: "1" },
        { tool: "run", params: { command: "npm test" }, request_id: "2" },
      ]),
    );
    const out = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(JSON.stringify(out[0])).toContain("42");
    expect(JSON.stringify(out[1])).toContain("# pass 1");
  });

  it("runs python3: prints, and a script's writes are seen by the next tool and written back", async () => {
    const dir = workspace({ "make.py": "open('made.txt', 'w').write('from python\\n')\n" });
    const { code, stdout } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "coding-agent", "--write-back"],
      lines([
        { tool: "shell", params: { command: "python3 -c 'print(1+2)'" }, request_id: "1" },
        { tool: "shell", params: { command: "python3 make.py" }, request_id: "2" },
        { tool: "file_read", params: { path: "made.txt" }, request_id: "3" },
      ]),
    );
    expect(code).toBe(0);
    const [printed, made, read] = parse(stdout);
    expect(printed.data).toMatchObject({ exit_code: 0, stdout: "3\n" });
    expect(made.data).toMatchObject({ exit_code: 0 });
    expect(read.data.content).toBe("from python\n");
    expect(readFileSync(join(dir, "made.txt"), "utf8")).toBe("from python\n");
  }, 120_000);

  it("leaves the folder alone without --write-back", async () => {
    const dir = workspace({ "a.txt": "original\n" });
    await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench"],
      lines([
        { tool: "run", params: { command: "echo changed > a.txt; echo new > b.txt" }, request_id: "1" },
      ]),
    );
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(dir, "b.txt"))).toBe(false);
  });

  it("writes changes, new folders and deletions back with --write-back", async () => {
    const dir = workspace({
      "keep.txt": "keep\n",
      "gone.txt": "bye\n",
      "old/inner.txt": "x\n",
      "edit.txt": "v1\n",
    });
    const { code } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench", "--write-back"],
      lines([
        {
          tool: "run",
          params: {
            command:
              "rm gone.txt; rm -r old; mkdir -p new/deep; echo hi > new/deep/file.txt; echo v2 > edit.txt",
          },
          request_id: "1",
        },
      ]),
    );
    expect(code).toBe(0);
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("keep\n");
    expect(readFileSync(join(dir, "edit.txt"), "utf8")).toBe("v2\n");
    expect(readFileSync(join(dir, "new/deep/file.txt"), "utf8")).toBe("hi\n");
    expect(existsSync(join(dir, "gone.txt"))).toBe(false);
    expect(existsSync(join(dir, "old"))).toBe(false);
  });

  it("never writes through a symlink on disk and never creates one that points outside", async () => {
    const outside = workspace({ "secret.txt": "do not touch\n" });
    const dir = workspace({ "a.txt": "a\n" });
    symlinkSync(join(outside, "secret.txt"), join(dir, "link.txt"));
    const { stderr } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench", "--write-back"],
      lines([
        {
          tool: "run",
          params: { command: "rm link.txt; echo mine > link.txt; ln -s /etc/passwd evil" },
          request_id: "1",
        },
      ]),
    );
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("do not touch\n");
    expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dir, "link.txt"), "utf8")).toBe("mine\n");
    expect(existsSync(join(dir, "evil"))).toBe(false);
    expect(stderr).toContain("points outside the workspace");
  });

  it("keeps a symlink that stays inside the workspace", async () => {
    const dir = workspace({ "target.txt": "t\n" });
    await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench", "--write-back"],
      lines([{ tool: "run", params: { command: "ln -s target.txt inside" }, request_id: "1" }]),
    );
    expect(readlinkSync(join(dir, "inside"))).toBe("target.txt");
  });

  it("writes events.jsonl and artifacts", async () => {
    const dir = workspace({ "a.txt": "x\n" });
    const run = mkdtempSync(join(tmpdir(), "toolroom-run-"));
    await toolroom(
      [
        "batch",
        "--workspace",
        dir,
        "--profile",
        "agentbench",
        "--events",
        join(run, "events.jsonl"),
        "--artifacts",
        run,
      ],
      lines([
        { tool: "read_file", params: { path: "a.txt" }, request_id: "1" },
        { tool: "run", params: { command: "echo out; echo err >&2" }, request_id: "2" },
      ]),
    );
    const events = readFileSync(join(run, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((event) => event.type)).toEqual([
      "tool_call_started",
      "tool_call_finished",
      "tool_call_started",
      "tool_call_finished",
    ]);
    expect(events[0]).toMatchObject({
      seq: 1,
      request_id: "1",
      tool: "read_file",
      params: { path: "a.txt" },
    });
    expect(events[3]).toMatchObject({ request_id: "2", status: "success" });
    expect(readFileSync(join(run, "logs/tool_step_0002_stdout.txt"), "utf8")).toBe("out\n");
    expect(readFileSync(join(run, "logs/tool_step_0002_stderr.txt"), "utf8")).toBe("err\n");
  });

  it("covers each agentbench tool's error types through the command line", async () => {
    const dir = workspace({ "a.txt": "hello\n" });
    writeFileSync(join(dir, "bin.dat"), Buffer.from([0, 1, 2, 3]));
    symlinkSync("a.txt", join(dir, "link"));
    const { stdout } = await toolroom(
      ["batch", "--workspace", dir, "--profile", "agentbench"],
      lines([
        { tool: "list_files", params: { root: "../" }, request_id: "escape" },
        { tool: "list_files", params: { root: "link" }, request_id: "symlink" },
        { tool: "read_file", params: { path: "nope" }, request_id: "missing" },
        { tool: "read_file", params: { path: "bin.dat" }, request_id: "binary" },
        { tool: "search", params: { query: "[", is_regex: true }, request_id: "regex" },
        { tool: "apply_patch", params: { unified_diff: "garbage" }, request_id: "parse" },
        {
          tool: "apply_patch",
          params: { unified_diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-nope\n+x\n" },
          request_id: "hunk",
        },
        {
          tool: "apply_patch",
          params: { unified_diff: "--- a/zz.txt\n+++ b/zz.txt\n@@ -1 +1 @@\n-a\n+b\n" },
          request_id: "nofile",
        },
        {
          tool: "apply_patch",
          params: { unified_diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+bye\n" },
          request_id: "patched",
        },
        { tool: "run", params: { command: "exit 3" }, request_id: "exit" },
        { tool: "run", params: { command: "sleep 5", timeout_sec: 1 }, request_id: "timeout" },
      ]),
    );
    const byId = Object.fromEntries(parse(stdout).map((envelope) => [envelope.request_id, envelope]));
    expect(byId.escape?.error?.error_type, JSON.stringify(byId.escape)).toBe("path_escape");
    expect(byId.symlink?.error?.error_type, JSON.stringify(byId.symlink)).toBe("symlink_blocked");
    expect(byId.missing?.error?.error_type, JSON.stringify(byId.missing)).toBe("file_not_found");
    expect(byId.binary?.error?.error_type, JSON.stringify(byId.binary)).toBe("binary_file");
    expect(byId.regex?.error?.error_type, JSON.stringify(byId.regex)).toBe("ripgrep_error");
    expect(byId.parse?.error?.error_type, JSON.stringify(byId.parse)).toBe("patch_parse_error");
    expect(byId.hunk?.error?.error_type, JSON.stringify(byId.hunk)).toBe("patch_hunk_fail");
    expect(byId.nofile?.error?.error_type, JSON.stringify(byId.nofile)).toBe("file_not_found");
    expect(byId.patched?.data?.changed_files).toEqual(["a.txt"]);
    expect(byId.exit?.error?.error_type, JSON.stringify(byId.exit)).toBe("abnormal_exit");
    expect(byId.exit.exit_code).toBe(3);
    expect(byId.timeout?.error?.error_type, JSON.stringify(byId.timeout)).toBe("timeout");
  });

  it("refuses bad usage with exit code 2", async () => {
    expect((await toolroom(["batch", "--profile", "agentbench"])).code).toBe(2);
    expect((await toolroom(["batch", "--workspace", "/tmp", "--profile", "nope"])).code).toBe(2);
    const unknown = await toolroom(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });
});

describe("toolroom schemas", () => {
  it("prints each format", async () => {
    const json = JSON.parse(
      (await toolroom(["schemas", "--profile", "agentbench", "--format", "jsonschema"])).stdout,
    );
    expect(json.map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(["list_files", "read_file", "search", "run"]),
    );
    const openai = JSON.parse(
      (await toolroom(["schemas", "--profile", "agentbench", "--format", "openai"])).stdout,
    );
    expect(openai[0]).toMatchObject({ type: "function", function: { name: "list_files" } });
    expect(openai[0].function.parameters.properties.root.default).toBe(".");
    const anthropic = JSON.parse(
      (await toolroom(["schemas", "--profile", "agentbench", "--format", "anthropic"])).stdout,
    );
    expect(anthropic[1]).toMatchObject({ name: "read_file", input_schema: { required: ["path"] } });
    const mcp = JSON.parse(
      (await toolroom(["schemas", "--profile", "agentbench", "--format", "mcp"])).stdout,
    );
    expect(mcp[0]).toMatchObject({ name: "list_files", annotations: { readOnlyHint: true } });
  });

  it("refuses an unknown format", async () => {
    const result = await toolroom(["schemas", "--profile", "agentbench", "--format", "xml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--format must be one of");
  });
});

describe("toolroom replay", () => {
  const demo = readFileSync(
    join(import.meta.dirname, "..", "session", "demos", "fix-failing-test.json"),
    "utf8",
  );
  const file = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), "toolroom-replay-")), "session.json");
    writeFileSync(path, text);
    return path;
  };

  it("replays a session file and exits 0 when every call matches", async () => {
    const { code, stdout } = await toolroom(["replay", file(demo)]);
    expect(code).toBe(0);
    expect(stdout).toContain("✓ 3 apply_patch req-3");
    expect(stdout).toContain("All 4 replayed steps matched the recording.");
  });

  it("exits 1 and prints where a replay diverged", async () => {
    const session = JSON.parse(demo);
    session.workspace.files["src/cart.js"] = "module.exports = {};\n";
    const { code, stdout } = await toolroom(["replay", "--json", file(JSON.stringify(session))]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.diverged).toBeGreaterThan(0);
    expect(report.steps[0]).toMatchObject({ tool: "run", verdict: "diverged" });
    expect(report.steps[0].divergences.join("\n")).toContain("not ok");
  });

  it("replays a share link", async () => {
    const { shareSession } = await import("../session/share.ts");
    const shared = shareSession(JSON.parse(demo), "https://toolroom.example/");
    if (shared.kind !== "link") throw new Error("the demo should fit in a link");
    const { code, stdout } = await toolroom(["replay", shared.url]);
    expect(code).toBe(0);
    expect(stdout).toContain("All 4 replayed steps matched");
  });

  it("exits 2 on a missing or broken session, saying why", async () => {
    const missing = await toolroom(["replay", "/no/such/session.json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read /no/such/session.json");
    const broken = await toolroom(["replay", file('{"format": "toolroom-session"}')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("This session file cannot be opened");
    expect((await toolroom(["replay"])).code).toBe(2);
    const noSession = await toolroom(["replay", "https://toolroom.example/"]);
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toContain("It holds no session");
  });
});

describe("toolroom mcp", () => {
  const rpc = (id: number | undefined, method: string, params?: unknown) =>
    JSON.stringify({
      jsonrpc: "2.0",
      ...(id !== undefined ? { id } : {}),
      method,
      ...(params ? { params } : {}),
    });

  it("serves the profile's tools over MCP: initialize, tools/list, tools/call with the dialect's envelope", async () => {
    const dir = workspace({ "src/app.js": "console.log('hello');\n" });
    const input = [
      rpc(1, "initialize", {
        protocolVersion: "2025-03-26",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      }),
      rpc(undefined, "notifications/initialized"),
      rpc(2, "tools/list"),
      rpc(3, "tools/call", { name: "search", arguments: { query: "hello" } }),
      rpc(4, "tools/call", { name: "read_file", arguments: { path: "../outside.txt" } }),
      rpc(5, "tools/call", { name: "file_read", arguments: {} }),
      rpc(6, "resources/list"),
      "not json",
    ].join("\n");
    const { code, stdout } = await toolroom(["mcp", "--workspace", dir, "--profile", "agentbench"], input);
    expect(code).toBe(0);
    // The notification gets no answer; every request does, as soon as it is ready (ids pair them).
    const replies = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .sort((a, b) => (a.id ?? Number.POSITIVE_INFINITY) - (b.id ?? Number.POSITIVE_INFINITY));
    expect(replies.map((reply) => reply.id)).toEqual([1, 2, 3, 4, 5, 6, null]);
    expect(replies[0].result).toMatchObject({ protocolVersion: "2025-03-26", capabilities: { tools: {} } });
    expect(replies[1].result.tools.map((tool: { name: string }) => tool.name)).toEqual([
      "list_files",
      "read_file",
      "search",
      "apply_patch",
      "run",
    ]);
    expect(replies[2].result.isError).toBe(false);
    expect(JSON.parse(replies[2].result.content[0].text)).toMatchObject({
      tool: "search",
      status: "success",
    });
    expect(replies[3].result.isError).toBe(true);
    expect(replies[3].result.structuredContent.error.error_type).toBe("path_escape");
    expect(replies[4].error).toMatchObject({ code: -32602 });
    expect(replies[5].error).toMatchObject({ code: -32601 });
    expect(replies[6].error).toMatchObject({ code: -32700 });
  });

  it("marks read-only and open-world tools as MCP clients read them", async () => {
    const dir = workspace({ "a.txt": "x\n" });
    const list = rpc(1, "tools/list");
    const annotations = async (profile: string) => {
      const { stdout } = await toolroom(["mcp", "--workspace", dir, "--profile", profile], list);
      const tools = JSON.parse(stdout).result.tools as {
        name: string;
        annotations: Record<string, boolean>;
      }[];
      return Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    };
    const coding = await annotations("coding-agent");
    expect(coding.file_read).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(coding.state_get).toMatchObject({ readOnlyHint: true });
    // Storing a value or a plan changes the session: not read-only, though it touches no file.
    expect(coding.state_set).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(coding.file_write).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect((await annotations("baseagent")).update_plan).toMatchObject({ readOnlyHint: false });
    const sandboxed = await annotations("sandboxed");
    expect(sandboxed.curl).toMatchObject({ openWorldHint: true, readOnlyHint: true });
    expect(sandboxed.download_file).toMatchObject({ openWorldHint: true });
    expect(sandboxed.jq).toMatchObject({ openWorldHint: false });
  });

  it("answers view_image with an MCP image block, takes absolute paths inside the folder, flags failed commands", async () => {
    const dir = workspace({ "src/app.js": "console.log('hello');\n" });
    writeFileSync(
      join(dir, "shot.png"),
      writePng({ width: 2, height: 2, colorType: 2, depth: 8, samples: new Array(12).fill(90) }),
    );
    const input = [
      rpc(1, "tools/call", { name: "view_image", arguments: { path: "shot.png" } }),
      rpc(2, "tools/call", { name: "read_file", arguments: { file_path: join(dir, "src", "app.js") } }),
      rpc(3, "tools/call", { name: "shell_command", arguments: { command: "exit 3" } }),
      rpc(4, "tools/call", { name: "read_file", arguments: { file_path: `${dir}2/x` } }),
    ].join("\n");
    const { stdout } = await toolroom(["mcp", "--workspace", dir, "--profile", "baseagent"], input);
    const [image, absolute, failed, sibling] = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).result);
    expect(image.isError).toBe(false);
    expect(image.content[1]).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(Buffer.from(image.content[1].data, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(image.content[0].text).not.toContain("data:image");
    expect(JSON.stringify(image.structuredContent)).not.toContain("base64,");
    expect(absolute).toMatchObject({
      isError: false,
      structuredContent: { output: "L1: console.log('hello');" },
    });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent.output).toContain("[exit code: 3]");
    expect(sibling.isError).toBe(true);
  });

  it("writes the session's changes back only with --write-back", async () => {
    const dir = workspace({ "README.md": "# x\n" });
    const call = rpc(1, "tools/call", { name: "run", arguments: { command: "echo made > made.txt" } });
    await toolroom(["mcp", "--workspace", dir, "--profile", "agentbench"], call);
    expect(existsSync(join(dir, "made.txt"))).toBe(false);
    const { stdout } = await toolroom(
      ["mcp", "--workspace", dir, "--profile", "agentbench", "--write-back"],
      call,
    );
    expect(JSON.parse(stdout).result.isError).toBe(false);
    expect(readFileSync(join(dir, "made.txt"), "utf8")).toBe("made\n");
  });
});
