import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "../core/runtime.ts";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { toolrouter } from "./toolrouter.ts";

/** Conformance with ../shared/specs/001_f8d14e6aa97545e5.txt, section by section. */

type Result = Record<string, unknown> & { error?: { type: string; message: string; code: string } };

async function setup(files: Record<string, string> = {}, approve: ApprovalDecision = "allow") {
  const asked: string[] = [];
  const runtime = await createEmbeddedRuntime({
    files,
    session: "test",
    approver: async (request) => {
      asked.push(request.tool);
      return approve;
    },
  });
  const call = async (tool: string, params: Record<string, unknown>) =>
    (await runtime.call("toolrouter", { tool, params })) as Result;
  return { runtime, call, sandbox: runtime.sandbox, asked };
}

const PROJECT = {
  "README.md": "# Project\n",
  "pyproject.toml": "[project]\n",
  "src/main.py": "def hello():\n    return 'hi'\n\n\ndef other():\n    pass\n",
  "src/utils/helpers.py": "import os\n\n\n\n\n\n\n\n\n\n\n\n\n# TODO refine error handling\n",
  "src/utils/more.py": "x = 1  # TODO one\ny = 2\nz = 3  # TODO two\n",
  "docs/guide.md": "TODO: write\n",
};

const schema = (name: string) => toolrouter.tools.find((tool) => tool.name === name)!;

describe("schemas, exactly as printed", () => {
  it("list_dir", () => {
    expect(schema("list_dir").inputSchema).toEqual({
      properties: {
        path: { default: ".", description: "Root directory to list from.", title: "Path", type: "string" },
        depth: {
          default: 2,
          description: "Maximum depth to traverse (BFS).",
          minimum: 0,
          title: "Depth",
          type: "integer",
        },
        offset: {
          default: 0,
          description: "Number of entries to skip from the start.",
          minimum: 0,
          title: "Offset",
          type: "integer",
        },
        limit: {
          default: 200,
          description: "Maximum number of entries to return.",
          minimum: 1,
          title: "Limit",
          type: "integer",
        },
      },
      title: "ListDirInput",
      type: "object",
      required: ["path", "depth", "offset", "limit"],
      additionalProperties: false,
    });
  });

  it("read_file", () => {
    expect(schema("read_file").inputSchema).toEqual({
      properties: {
        path: { description: "File path to read.", title: "Path", type: "string" },
        offset: {
          default: 0,
          description: "Starting line (0-indexed).",
          minimum: 0,
          title: "Offset",
          type: "integer",
        },
        limit: {
          default: 400,
          description: "Maximum number of lines to return.",
          minimum: 1,
          title: "Limit",
          type: "integer",
        },
        mode: {
          default: "slice",
          description: "Either 'slice' or 'indentation'.",
          title: "Mode",
          type: "string",
        },
        indent: {
          default: "    ",
          description: "Indentation prefix when mode='indentation'.",
          title: "Indent",
          type: "string",
        },
      },
      required: ["path", "offset", "limit", "mode", "indent"],
      title: "ReadFileInput",
      type: "object",
      additionalProperties: false,
    });
  });

  it("grep_files", () => {
    expect(schema("grep_files").inputSchema).toEqual({
      properties: {
        pattern: { description: "Regex pattern to search for.", title: "Pattern", type: "string" },
        path: { default: ".", description: "Root directory to search under.", title: "Path", type: "string" },
        include: {
          anyOf: [{ items: { type: "string" }, type: "array" }, { type: "null" }],
          default: null,
          description: "Optional glob filters to include.",
          title: "Include",
        },
        limit: {
          default: 200,
          description: "Maximum matches to return.",
          minimum: 1,
          title: "Limit",
          type: "integer",
        },
      },
      required: ["pattern", "path", "include", "limit"],
      title: "GrepFilesInput",
      type: "object",
      additionalProperties: false,
    });
  });

  it("apply_patch_json and apply_patch_freeform", () => {
    const printed = {
      properties: {
        patch: {
          description: "Unified diff text or freeform apply_patch envelope.",
          title: "Patch",
          type: "string",
        },
      },
      required: ["patch"],
      title: "ApplyPatchInput",
      type: "object",
      additionalProperties: false,
    };
    expect(schema("apply_patch_json").inputSchema).toEqual(printed);
    expect(schema("apply_patch_freeform").inputSchema).toEqual(printed);
  });

  it("shell", () => {
    expect(schema("shell").inputSchema).toEqual({
      properties: {
        command: { description: "Shell command to run.", title: "Command", type: "string" },
        workdir: {
          anyOf: [{ type: "string" }, { type: "null" }],
          default: null,
          description: "Working directory (optional).",
          title: "Workdir",
        },
        timeout_ms: {
          default: 60000,
          description: "Timeout in milliseconds.",
          minimum: 1,
          title: "Timeout Ms",
          type: "integer",
        },
      },
      required: ["command", "workdir", "timeout_ms"],
      title: "ShellInput",
      type: "object",
      additionalProperties: false,
    });
  });

  it("exec_command and write_stdin", () => {
    expect(schema("exec_command").inputSchema).toEqual({
      properties: {
        session_id: { description: "Opaque PTY session identifier.", title: "Session Id", type: "string" },
        cmd: { description: "Command to execute in PTY.", title: "Cmd", type: "string" },
        workdir: {
          anyOf: [{ type: "string" }, { type: "null" }],
          default: null,
          description: "Working directory (optional).",
          title: "Workdir",
        },
      },
      required: ["session_id", "cmd", "workdir"],
      title: "ExecCommandInput",
      type: "object",
      additionalProperties: false,
    });
    expect(schema("write_stdin").inputSchema).toEqual({
      properties: {
        session_id: { description: "Existing PTY session id.", title: "Session Id", type: "string" },
        chars: { description: "Characters to write to stdin.", title: "Chars", type: "string" },
      },
      required: ["session_id", "chars"],
      title: "WriteStdinInput",
      type: "object",
      additionalProperties: false,
    });
  });

  it("names the eight tools in order, each description opening with the spec's", () => {
    const descriptions: Record<string, string> = {
      list_dir: "List directory entries breadth-first up to a depth.",
      read_file: "Read a slice of a file with optional indentation formatting.",
      grep_files: "Recursive regex search with optional include globs.",
      apply_patch_json: "Apply a unified diff.",
      apply_patch_freeform: "Apply a patch using the apply_patch freeform envelope (Begin/End Patch).",
      shell: "Run a shell command with truncation and timeout protections.",
      exec_command: "Start a PTY-backed long-running command.",
      write_stdin: "Send input to an existing PTY session created by `exec_command`.",
    };
    expect(toolrouter.tools.map((tool) => tool.name)).toEqual(Object.keys(descriptions));
    for (const tool of toolrouter.tools)
      expect(tool.description.startsWith(descriptions[tool.name]!)).toBe(true);
  });

  it("rejects unknown keys and values under a minimum, as Pydantic would", async () => {
    const { call } = await setup(PROJECT);
    const unknown = await call("list_dir", { path: ".", recursive: true });
    expect(unknown.error).toMatchObject({ type: "ValidationError", code: "invalid_params" });
    expect(unknown.error?.message).toContain("unknown parameter 'recursive'");
    for (const [tool, params] of [
      ["list_dir", { depth: -1 }],
      ["list_dir", { offset: -1 }],
      ["list_dir", { limit: 0 }],
      ["read_file", { path: "README.md", limit: 0 }],
      ["grep_files", { pattern: "x", limit: 0 }],
      ["shell", { command: "true", timeout_ms: 0 }],
      ["grep_files", { pattern: "x", include: "*.py" }],
    ] as const) {
      expect((await call(tool, params)).error?.type, `${tool} ${JSON.stringify(params)}`).toBe(
        "ValidationError",
      );
    }
    expect((await call("read_file", {})).error?.message).toContain("missing required parameter 'path'");
  });
});

describe("list_dir", () => {
  it("matches the spec's example: entries relative to path, directories with a trailing /", async () => {
    const { call } = await setup({ "src/a.py": "", "README.md": "", "pyproject.toml": "" });
    expect(await call("list_dir", { path: ".", depth: 0 })).toEqual({
      entries: ["src/", "README.md", "pyproject.toml"],
    });
  });

  it("goes breadth-first: every entry of a level before the next level, to depth 2 by default", async () => {
    const { call } = await setup({ ...PROJECT, "src/utils/deeper/x/y.py": "" });
    expect(await call("list_dir", {})).toEqual({
      entries: [
        "docs/",
        "src/",
        "README.md",
        "pyproject.toml",
        "docs/guide.md",
        "src/utils/",
        "src/main.py",
        "src/utils/deeper/",
        "src/utils/helpers.py",
        "src/utils/more.py",
      ],
    });
    expect(await call("list_dir", { path: "src", depth: 1 })).toEqual({
      entries: ["utils/", "main.py", "utils/deeper/", "utils/helpers.py", "utils/more.py"],
    });
  });

  it("pages with offset and limit", async () => {
    const { call } = await setup(PROJECT);
    expect(await call("list_dir", { offset: 2, limit: 3 })).toEqual({
      entries: ["README.md", "pyproject.toml", "docs/guide.md"],
    });
    expect(await call("list_dir", { offset: 100 })).toEqual({ entries: [] });
  });

  it("errors: missing folder, a file, paths outside the boundary", async () => {
    const { call } = await setup(PROJECT);
    expect((await call("list_dir", { path: "nope" })).error?.type).toBe("FileNotFoundError");
    expect((await call("list_dir", { path: "README.md" })).error?.type).toBe("NotADirectoryError");
    expect((await call("list_dir", { path: "../.." })).error).toMatchObject({
      type: "FsBoundaryError",
      code: "path_escape",
    });
    expect((await call("list_dir", { path: "/etc" })).error?.type).toBe("FsBoundaryError");
  });
});

describe("read_file", () => {
  it("matches the spec's example in slice mode", async () => {
    const { call } = await setup(PROJECT);
    expect(
      await call("read_file", { path: "src/main.py", offset: 0, limit: 2, mode: "slice", indent: "    " }),
    ).toEqual({
      text: "def hello():\n    return 'hi'\n",
      truncated: true,
    });
  });

  it("reads 0-indexed slices; truncated says whether the file goes on", async () => {
    const { call } = await setup({ "a.txt": "l0\nl1\nl2\nl3" });
    expect(await call("read_file", { path: "a.txt" })).toEqual({ text: "l0\nl1\nl2\nl3", truncated: false });
    expect(await call("read_file", { path: "a.txt", offset: 1, limit: 2 })).toEqual({
      text: "l1\nl2\n",
      truncated: true,
    });
    expect(await call("read_file", { path: "a.txt", offset: 3 })).toEqual({ text: "l3", truncated: false });
    expect(await call("read_file", { path: "a.txt", offset: 2, limit: 2 })).toEqual({
      text: "l2\nl3",
      truncated: false,
    });
  });

  it("reads text as Python's text mode does: CRLF becomes LF", async () => {
    const { call } = await setup({ "win.txt": "a\r\nb\r\n" });
    expect(await call("read_file", { path: "win.txt" })).toEqual({ text: "a\nb\n", truncated: false });
  });

  it("defaults to 400 lines", async () => {
    const { call } = await setup({ "long.txt": Array.from({ length: 450 }, (_, i) => `${i}\n`).join("") });
    const result = await call("read_file", { path: "long.txt" });
    expect((result.text as string).split("\n").length - 1).toBe(400);
    expect(result.truncated).toBe(true);
  });

  it("indentation mode returns the block around the line, rendered with the indent prefix", async () => {
    const source = [
      "class Greeter:",
      "  @staticmethod",
      "  def hello():",
      "    if True:",
      "      return 'hi'",
      "    return 'no'",
      "",
      "  def bye():",
      "    pass",
      "",
    ].join("\n");
    const { call } = await setup({ "greet.py": source });
    expect(await call("read_file", { path: "greet.py", offset: 2, mode: "indentation" })).toEqual({
      text: "    @staticmethod\n    def hello():\n        if True:\n            return 'hi'\n        return 'no'\n",
      truncated: false,
    });
    expect(
      await call("read_file", { path: "greet.py", offset: 4, mode: "indentation", indent: "\t" }),
    ).toEqual({
      text: "\t\tif True:\n\t\t\treturn 'hi'\n",
      truncated: false,
    });
    expect(
      await call("read_file", { path: "greet.py", offset: 0, limit: 3, mode: "indentation", indent: "  " }),
    ).toEqual({
      text: "class Greeter:\n  @staticmethod\n  def hello():\n",
      truncated: true,
    });
  });

  it("errors: unknown mode, offset past the end, missing file, binary file, outside the boundary", async () => {
    const { call, sandbox } = await setup(PROJECT);
    expect((await call("read_file", { path: "README.md", mode: "lines" })).error).toMatchObject({
      type: "ValidationError",
      message: expect.stringContaining("'slice' or 'indentation'"),
    });
    const past = await call("read_file", { path: "README.md", offset: 5 });
    expect(past.error).toMatchObject({
      type: "ValidationError",
      message: expect.stringContaining("which has 1 lines"),
    });
    expect((await call("read_file", { path: "README.md", offset: 5, mode: "indentation" })).error?.type).toBe(
      "ValidationError",
    );
    expect((await call("read_file", { path: "nope.py" })).error?.type).toBe("FileNotFoundError");
    expect((await call("read_file", { path: "src" })).error?.type).toBe("IsADirectoryError");
    await sandbox.writeFile("/workspace/blob.bin", new Uint8Array([0, 1, 2, 0xff]));
    expect((await call("read_file", { path: "blob.bin" })).error?.type).toBe("UnicodeDecodeError");
    expect((await call("read_file", { path: "../secret" })).error?.type).toBe("FsBoundaryError");
  });
});

describe("grep_files", () => {
  it("matches the spec's example: grouped by file relative to path, with line numbers", async () => {
    const { call } = await setup(PROJECT);
    expect(
      await call("grep_files", { pattern: "TODO refine", path: "src", include: ["*.py"], limit: 50 }),
    ).toEqual({
      results: [
        { file: "utils/helpers.py", matches: [{ line_num: 14, line: "# TODO refine error handling" }] },
      ],
    });
  });

  it("searches recursively, files in order, lines ascending, and keeps to the limit", async () => {
    const { call } = await setup(PROJECT);
    expect(await call("grep_files", { pattern: "TODO" })).toEqual({
      results: [
        { file: "docs/guide.md", matches: [{ line_num: 1, line: "TODO: write" }] },
        { file: "src/utils/helpers.py", matches: [{ line_num: 14, line: "# TODO refine error handling" }] },
        {
          file: "src/utils/more.py",
          matches: [
            { line_num: 1, line: "x = 1  # TODO one" },
            { line_num: 3, line: "z = 3  # TODO two" },
          ],
        },
      ],
    });
    const limited = await call("grep_files", { pattern: "TODO", limit: 2 });
    expect((limited.results as unknown[]).length).toBe(2);
  });

  it("takes a regex, case-sensitively, and several include globs", async () => {
    const { call } = await setup(PROJECT);
    const regex = await call("grep_files", { pattern: "^[xz] = \\d", include: ["*.py", "*.md"] });
    expect(regex).toEqual({
      results: [
        {
          file: "src/utils/more.py",
          matches: [
            { line_num: 1, line: "x = 1  # TODO one" },
            { line_num: 3, line: "z = 3  # TODO two" },
          ],
        },
      ],
    });
    expect(await call("grep_files", { pattern: "todo" })).toEqual({ results: [] });
    expect((await call("grep_files", { pattern: "(?i)todo", include: ["docs/*"] })).results).toEqual([
      { file: "docs/guide.md", matches: [{ line_num: 1, line: "TODO: write" }] },
    ]);
  });

  it("searches a single file when path names one", async () => {
    const { call } = await setup(PROJECT);
    expect(await call("grep_files", { pattern: "TODO", path: "src/utils/more.py", limit: 1 })).toEqual({
      results: [{ file: "more.py", matches: [{ line_num: 1, line: "x = 1  # TODO one" }] }],
    });
  });

  it("errors: a bad regex, a missing path, outside the boundary", async () => {
    const { call } = await setup(PROJECT);
    expect((await call("grep_files", { pattern: "(" })).error).toMatchObject({
      type: "PatternError",
      code: "invalid_pattern",
    });
    expect((await call("grep_files", { pattern: "x", path: "nope" })).error?.type).toBe("FileNotFoundError");
    expect((await call("grep_files", { pattern: "x", path: "../" })).error?.type).toBe("FsBoundaryError");
  });
});

describe("apply_patch_json", () => {
  it("matches the spec's example", async () => {
    const { call, sandbox } = await setup({ "file.txt": "old\n" });
    const result = await call("apply_patch_json", {
      patch: "--- a/file.txt\n+++ b/file.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n",
    });
    expect(result).toEqual({ results: [{ path: "file.txt", bytes_written: 4, created: false }] });
    expect(new TextDecoder().decode(await sandbox.readFile("/workspace/file.txt"))).toBe("new\n");
  });

  it("creates and deletes files, and takes the envelope too", async () => {
    const { call, sandbox } = await setup({ "gone.txt": "bye\n" });
    const created = await call("apply_patch_json", {
      patch: "--- /dev/null\n+++ b/new/file.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n",
    });
    expect(created).toEqual({ results: [{ path: "new/file.txt", bytes_written: 8, created: true }] });
    const deleted = await call("apply_patch_json", {
      patch: "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n",
    });
    expect(deleted).toEqual({ results: [{ path: "gone.txt", bytes_written: 0, created: false }] });
    await expect(sandbox.stat("/workspace/gone.txt")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("changes nothing when a hunk does not apply", async () => {
    const { call, sandbox } = await setup({ "a.txt": "one\n", "b.txt": "two\n" });
    const result = await call("apply_patch_json", {
      patch:
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-zzz\n+TWO\n",
    });
    expect(result.error).toMatchObject({ type: "PatchApplyError", code: "patch_hunk_fail" });
    expect(new TextDecoder().decode(await sandbox.readFile("/workspace/a.txt"))).toBe("one\n");
    expect((await call("apply_patch_json", { patch: "not a patch" })).error?.type).toBe("PatchParseError");
    expect(
      (await call("apply_patch_json", { patch: "--- a/../x\n+++ b/../x\n@@ -0,0 +1 @@\n+x\n" })).error?.type,
    ).toBe("FsBoundaryError");
  });
});

describe("apply_patch_freeform", () => {
  it("applies the Begin/End Patch envelope", async () => {
    const { call, sandbox } = await setup({ "src/app.py": "def f():\n    return 1\n" });
    const result = await call("apply_patch_freeform", {
      patch:
        "*** Begin Patch\n*** Update File: src/app.py\n@@ def f():\n-    return 1\n+    return 2\n*** Add File: src/new.py\n+x = 1\n*** End Patch",
    });
    expect(result).toEqual({
      results: [
        { path: "src/app.py", bytes_written: 22, created: false },
        { path: "src/new.py", bytes_written: 6, created: true },
      ],
    });
    expect(new TextDecoder().decode(await sandbox.readFile("/workspace/src/app.py"))).toBe(
      "def f():\n    return 2\n",
    );
  });
});

describe("shell", () => {
  it("matches the spec's example", async () => {
    const { call } = await setup();
    expect(await call("shell", { command: "echo hi", workdir: ".", timeout_ms: 60000 })).toEqual({
      stdout: "hi\n",
      stderr: "",
      returncode: 0,
      stdout_truncated: false,
      stderr_truncated: false,
      timeout: false,
      message: null,
    });
  });

  it("runs in workdir, keeps stderr apart and returns a non-zero code as a result", async () => {
    const { call } = await setup(PROJECT);
    expect(await call("shell", { command: "pwd; ls; echo oops >&2; exit 3", workdir: "src" })).toMatchObject({
      stdout: "/workspace/src\nmain.py\nutils\n",
      stderr: "oops\n",
      returncode: 3,
    });
    expect((await call("shell", { command: "pwd", workdir: null })).stdout).toBe("/workspace\n");
    expect((await call("shell", { command: "pwd", workdir: "../" })).error?.type).toBe("FsBoundaryError");
    expect((await call("shell", { command: "pwd", workdir: "nope" })).error?.type).toBe("FileNotFoundError");
  });

  it("stops a command at timeout_ms and says so", async () => {
    const { call } = await setup();
    const started = Date.now();
    const result = await call("shell", { command: "echo started; sleep 10", timeout_ms: 300 });
    expect(result).toMatchObject({
      // What it printed before the timeout is kept.
      stdout: "started\n",
      timeout: true,
      returncode: null,
      message: expect.stringContaining("300 ms"),
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("truncates each stream to 64 KB with its flag and a message", async () => {
    const { call } = await setup({ "big.txt": `${"x".repeat(100_000)}\nEND\n` });
    const result = await call("shell", { command: "cat big.txt; echo small >&2" });
    expect(result).toMatchObject({ stdout_truncated: true, stderr_truncated: false, stderr: "small\n" });
    expect(new TextEncoder().encode(result.stdout as string).length).toBeLessThanOrEqual(64 * 1024);
    expect((result.stdout as string).endsWith("END\n")).toBe(true);
    expect(result.message).toContain("stdout was 100005 bytes");
  });
});

describe("exec_command and write_stdin", () => {
  it("match the spec's examples", async () => {
    const { call } = await setup();
    expect(await call("exec_command", { session_id: "sess-1", cmd: "bash", workdir: "." })).toEqual({
      output: "",
      truncated: false,
    });
    expect(await call("write_stdin", { session_id: "sess-1", chars: "echo hi\n" })).toEqual({
      output: "echo hi\nhi\n",
      truncated: false,
    });
  });

  it("give a running command what is written, as it arrives", async () => {
    const { call } = await setup({
      "double.js":
        'require("readline").createInterface({ input: process.stdin }).on("line", (l) => console.log("double", l * 2));\n',
    });
    expect(await call("exec_command", { session_id: "cat", cmd: "cat", workdir: null })).toEqual({
      output: "",
      truncated: false,
    });
    expect(await call("write_stdin", { session_id: "cat", chars: "hello\n" })).toEqual({
      output: "hello\nhello\n",
      truncated: false,
    });
    expect(await call("write_stdin", { session_id: "cat", chars: "\u0004" })).toEqual({
      output: "[process exited with code 0]\n",
      truncated: false,
    });
    await call("exec_command", { session_id: "node", cmd: "node double.js", workdir: null });
    expect((await call("write_stdin", { session_id: "node", chars: "21\n" })).output).toBe("21\ndouble 42\n");
    expect((await call("write_stdin", { session_id: "node", chars: "4\n" })).output).toBe("4\ndouble 8\n");
  });

  it("answer at the yield with what was printed so far, and the rest on a later empty write", async () => {
    const { call } = await setup();
    expect(await call("exec_command", { session_id: "s", cmd: "echo start; sleep 2; echo end" })).toEqual({
      output: "start\n",
      truncated: false,
    });
    let rest = "";
    for (let i = 0; i < 10 && !rest.includes("[process exited"); i++) {
      rest += (await call("write_stdin", { session_id: "s", chars: "" })).output;
    }
    expect(rest).toBe("end\n[process exited with code 0]\n");
  });

  it("answer while an endless loop prints, and stop it on Ctrl-C", async () => {
    const { call } = await setup();
    const started = Date.now();
    const first = await call("exec_command", { session_id: "y", cmd: "while true; do echo y; done" });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(first.output).toMatch(/^(?:y\n)+$/u);
    const stopped = await call("write_stdin", { session_id: "y", chars: "\u0003" });
    expect(stopped.output).toMatch(/\^C\n\[process exited with code 130\]\n$/u);
  });

  it("refuse a session past the limit of running ones, and take one again once one ends", async () => {
    const { call } = await setup();
    for (let i = 0; i < 16; i++) await call("exec_command", { session_id: `s${i}`, cmd: "cat" });
    const refused = await call("exec_command", { session_id: "one-more", cmd: "cat" });
    expect(refused.error).toMatchObject({ type: "ValueError", code: "limit_exceeded" });
    expect(refused.error?.message).toContain("16 sessions are running");
    await call("write_stdin", { session_id: "s0", chars: "\u0004" });
    expect((await call("exec_command", { session_id: "one-more", cmd: "cat" })).error).toBeUndefined();
  });

  it("keep a session's state over 100 write_stdin calls", async () => {
    const { call } = await setup({ "sub/f.txt": "" });
    await call("exec_command", { session_id: "s", cmd: "bash" });
    await call("write_stdin", { session_id: "s", chars: "count=0; cd sub\n" });
    for (let i = 0; i < 100; i++) {
      const step = await call("write_stdin", { session_id: "s", chars: "count=$((count+1))\n" });
      expect(step.error).toBeUndefined();
    }
    expect(await call("write_stdin", { session_id: "s", chars: "echo $count $(ls)\n" })).toEqual({
      output: "echo $count $(ls)\n100 f.txt\n",
      truncated: false,
    });
  });

  it("return output since the last read; empty chars just collects", async () => {
    const { call } = await setup();
    await call("exec_command", { session_id: "s", cmd: "bash" });
    await call("write_stdin", { session_id: "s", chars: "sleep 1.5; echo late\n" });
    const later = await call("write_stdin", { session_id: "s", chars: "" });
    expect(later.output).toBe("late\n");
  });

  it("report the exit; a write to an exited session is an error", async () => {
    const { call } = await setup();
    expect(await call("exec_command", { session_id: "one", cmd: "echo done; exit 2" })).toEqual({
      output: "done\n[process exited with code 2]\n",
      truncated: false,
    });
    await call("exec_command", { session_id: "sh", cmd: "bash" });
    expect(await call("write_stdin", { session_id: "sh", chars: "exit 5\n" })).toEqual({
      output: "exit 5\n[process exited with code 5]\n",
      truncated: false,
    });
    expect((await call("write_stdin", { session_id: "sh", chars: "echo\n" })).error).toMatchObject({
      type: "SessionExitedError",
      message: expect.stringContaining("exited with code 5"),
    });
  });

  it("refuse a duplicate session id and an unknown one clearly", async () => {
    const { call } = await setup();
    await call("exec_command", { session_id: "dup", cmd: "bash" });
    expect((await call("exec_command", { session_id: "dup", cmd: "bash" })).error).toMatchObject({
      type: "SessionExistsError",
      message: expect.stringContaining('"dup" is already running'),
    });
    expect((await call("write_stdin", { session_id: "ghost", chars: "x" })).error).toMatchObject({
      type: "SessionNotFoundError",
      message: expect.stringContaining('No session with id "ghost". Sessions: dup.'),
    });
  });

  it("cap one read at 64 KB and flag it", async () => {
    const { call } = await setup();
    await call("exec_command", { session_id: "s", cmd: "bash" });
    const result = await call("write_stdin", {
      session_id: "s",
      chars: "seq 1 20000\n",
    });
    expect(result.truncated).toBe(true);
    expect(new TextEncoder().encode(result.output as string).length).toBeLessThanOrEqual(64 * 1024);
  });

  it("keep a read that ends the session within 64 KB, the exit line included", async () => {
    const { call } = await setup();
    const result = await call("exec_command", { session_id: "big", cmd: "seq 1 40000" });
    expect(result.truncated).toBe(true);
    expect(result.output as string).toMatch(/\[process exited with code 0\]\n$/u);
    expect(new TextEncoder().encode(result.output as string).length).toBeLessThanOrEqual(64 * 1024);
  });

  it("start in workdir, under the boundary", async () => {
    const { call } = await setup({ "sub/x": "" });
    await call("exec_command", { session_id: "s", cmd: "bash", workdir: "sub" });
    expect((await call("write_stdin", { session_id: "s", chars: "pwd\n" })).output).toBe(
      "pwd\n/workspace/sub\n",
    );
    expect((await call("exec_command", { session_id: "t", cmd: "bash", workdir: "/tmp" })).error?.type).toBe(
      "FsBoundaryError",
    );
  });

  it("are closed when the runtime is disposed", async () => {
    const { call, runtime } = await setup();
    await call("exec_command", { session_id: "s", cmd: "bash" });
    await runtime.dispose();
    expect((await call("write_stdin", { session_id: "s", chars: "echo\n" })).error?.type).toBe(
      "SessionNotFoundError",
    );
  });
});

describe("shared behaviour", () => {
  it("FsBoundary: a symlink that stays inside is followed, one that points outside is refused", async () => {
    const { call, sandbox } = await setup(PROJECT);
    await sandbox.symlink("src/main.py", "/workspace/main-link.py");
    await sandbox.symlink("/etc", "/workspace/etc-link");
    expect((await call("read_file", { path: "main-link.py", limit: 1 })).text).toBe("def hello():\n");
    expect((await call("list_dir", { path: "etc-link" })).error).toMatchObject({
      type: "FsBoundaryError",
      code: "symlink_blocked",
    });
  });

  it("approval: apply_patch_*, shell, exec_command and write_stdin ask; the read tools do not", async () => {
    const { call, asked } = await setup({ "f.txt": "a\n" });
    await call("list_dir", {});
    await call("read_file", { path: "f.txt" });
    await call("grep_files", { pattern: "a" });
    await call("apply_patch_json", { patch: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n" });
    await call("apply_patch_freeform", { patch: "*** Begin Patch\n*** Add File: g.txt\n+g\n*** End Patch" });
    await call("shell", { command: "true" });
    await call("exec_command", { session_id: "s", cmd: "bash" });
    await call("write_stdin", { session_id: "s", chars: "" });
    expect(asked).toEqual([
      "apply_patch_json",
      "apply_patch_freeform",
      "shell",
      "exec_command",
      "write_stdin",
    ]);
  });

  it("approval: a denied call runs nothing and says so", async () => {
    const { call, sandbox, runtime } = await setup({ "f.txt": "a\n" }, "deny");
    expect(await call("shell", { command: "echo x > f.txt" })).toEqual({
      error: {
        type: "ApprovalDenied",
        message: expect.stringContaining("denied shell"),
        code: "approval_denied",
      },
    });
    expect(new TextDecoder().decode(await sandbox.readFile("/workspace/f.txt"))).toBe("a\n");
    expect(runtime.events.all().map((event) => event.type)).toContain("approval_denied");
  });

  it("approval mode is ask by default, so a runtime with no approver denies", async () => {
    const runtime = await createEmbeddedRuntime();
    expect(runtime.approvalMode(toolrouter, schema("shell"))).toBe("ask");
    expect(runtime.approvalMode(toolrouter, schema("apply_patch_json"))).toBe("ask");
    const result = (await runtime.call("toolrouter", {
      tool: "shell",
      params: { command: "true" },
    })) as Result;
    expect(result.error?.type).toBe("ApprovalDenied");
  });

  it("logging: each request (at INFO) and its response (at DEBUG) go to the session's event log", async () => {
    const { call, runtime } = await setup(PROJECT);
    await call("read_file", { path: "README.md" });
    const [started, finished] = runtime.events.all().filter((event) => event.type.startsWith("tool_call"));
    expect(started).toMatchObject({
      type: "tool_call_started",
      level: "INFO",
      tool: "read_file",
      params: { path: "README.md" },
    });
    expect(finished).toMatchObject({
      type: "tool_call_finished",
      level: "DEBUG",
      status: "success",
      data: { envelope: { text: "# Project\n", truncated: false } },
    });
    // Other dialects' specs name no levels: their events carry none.
    await runtime.call("agentbench", { tool: "list_files", params: {} });
    expect(runtime.events.all().filter((event) => event.level === undefined).length).toBeGreaterThan(1);
  });

  it("errors are {error: {type, message, code}} and nothing else", async () => {
    const { call } = await setup();
    const result = await call("read_file", { path: "missing.txt" });
    expect(Object.keys(result)).toEqual(["error"]);
    expect(Object.keys(result.error!).sort()).toEqual(["code", "message", "type"]);
    expect((await call("rm_rf", {})).error?.type).toBe("UnknownToolError");
  });
});
