import { describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";

/** Conformance with ../shared/specs/000_ff84b711f219dac3.txt, section by section. */

type Envelope = {
  request_id: string;
  tool: string;
  status: "success" | "error";
  started_at: string;
  ended_at: string;
  duration_sec: number;
  data: Record<string, unknown> | null;
  error: { error_type: string; message: string; details: Record<string, unknown> | null } | null;
  exit_code: number | null;
  stdout_path: string | null;
  stderr_path: string | null;
};

async function setup(files: Record<string, string> = {}) {
  const runtime = await createEmbeddedRuntime({ files, session: "test" });
  let n = 0;
  const call = async (tool: string, params: Record<string, unknown>) =>
    (await runtime.call("agentbench", { tool, params, request_id: `r${++n}` })) as Envelope;
  return { runtime, call, sandbox: runtime.sandbox };
}

const PROJECT = {
  "src/main.py": "def main():\n    # Entry point\n    print('hello')\n\ndef helper():\n    return 1\n",
  "src/utils.py": "def add(a, b):\n    return a - b\n",
  "src/deep/nested/module.py": "X = 1\n",
  "README.md": "# Project\nSee src/main.py\n",
  ".git/config": "[core]\n",
  ".git/HEAD": "ref: refs/heads/main\n",
};

describe("envelopes", () => {
  it("wraps a success in a ToolResult with timestamps and null run fields", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("list_files", { root: "src" });
    expect(result.request_id).toBe("r1");
    expect(result.tool).toBe("list_files");
    expect(result.status).toBe("success");
    expect(result.error).toBeNull();
    expect(result.exit_code).toBeNull();
    expect(result.stdout_path).toBeNull();
    expect(result.stderr_path).toBeNull();
    expect(Date.parse(result.started_at)).not.toBeNaN();
    expect(Date.parse(result.ended_at)).toBeGreaterThanOrEqual(Date.parse(result.started_at));
    expect(result.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/u);
    expect(result.duration_sec).toBeGreaterThanOrEqual(0);
    expect(Object.keys(result).sort()).toEqual(
      [
        "data",
        "duration_sec",
        "ended_at",
        "error",
        "exit_code",
        "request_id",
        "started_at",
        "status",
        "stderr_path",
        "stdout_path",
        "tool",
      ].sort(),
    );
  });

  it("wraps a failure in a ToolError with error_type, message and details", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("read_file", { path: "../etc/passwd" });
    expect(result.status).toBe("error");
    expect(result.data).toBeNull();
    expect(result.error?.error_type).toBe("path_escape");
    expect(result.error?.message).toMatch(/outside the workspace/u);
    expect(result.error?.details).toMatchObject({ path: "../etc/passwd" });
  });

  it("refuses an unknown tool and bad params in the same envelope", async () => {
    const { call } = await setup(PROJECT);
    const unknown = await call("delete_everything", {});
    expect(unknown.error?.error_type).toBe("unknown_tool");
    expect(unknown.error?.message).toContain(
      "list_files, read_file, search, apply_patch, run".split(", ")[0],
    );
    const missing = await call("read_file", {});
    expect(missing.error?.error_type).toBe("invalid_params");
    expect(missing.error?.message).toContain("missing required parameter 'path'");
    const wrongType = await call("search", { query: "x", max_results: "ten" });
    expect(wrongType.error?.error_type).toBe("invalid_params");
    expect(wrongType.error?.message).toContain("max_results");
    const outOfRange = await call("search", { query: "x", context_lines: 11 });
    expect(outOfRange.error?.error_type).toBe("invalid_params");
  });
});

describe("list_files", () => {
  it("lists files sorted, relative to root, recursively, .git excluded", async () => {
    const { call } = await setup(PROJECT);
    expect((await call("list_files", {})).data!.files).toEqual([
      "README.md",
      "src/deep/nested/module.py",
      "src/main.py",
      "src/utils.py",
    ]);
    expect((await call("list_files", { root: "src" })).data!.files).toEqual([
      "deep/nested/module.py",
      "main.py",
      "utils.py",
    ]);
  });

  it("filters with a glob as in the spec's example", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("list_files", { root: "src", glob: "**/*.py" });
    expect(result.data!.files).toEqual(["deep/nested/module.py", "main.py", "utils.py"]);
    expect((await call("list_files", { glob: "*.md" })).data!.files).toEqual(["README.md"]);
    expect((await call("list_files", { root: "src", glob: "deep/**" })).data!.files).toEqual([
      "deep/nested/module.py",
    ]);
  });

  it("excludes symlinks", async () => {
    const { call, sandbox } = await setup(PROJECT);
    await sandbox.symlink("main.py", "/workspace/src/link.py");
    expect((await call("list_files", { root: "src" })).data!.files).not.toContain("link.py");
  });

  it("returns at most 1000 files and says so", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1005; i++) files[`f/${String(i).padStart(4, "0")}.txt`] = "x";
    const { call } = await setup(files);
    const result = await call("list_files", { root: "f" });
    expect((result.data!.files as string[]).length).toBe(1000);
    expect(result.data!.truncated).toBe(true);
    expect(result.data!.total_files).toBe(1005);
    expect((result.data!.files as string[])[999]).toBe("0999.txt");
  });

  it("rejects escapes and symlinked roots", async () => {
    const { call, sandbox } = await setup(PROJECT);
    expect((await call("list_files", { root: ".." })).error?.error_type).toBe("path_escape");
    expect((await call("list_files", { root: "/etc" })).error?.error_type).toBe("path_escape");
    await sandbox.symlink("/etc", "/workspace/etc");
    expect((await call("list_files", { root: "etc" })).error?.error_type).toBe("symlink_blocked");
  });

  it("says when the root does not exist", async () => {
    const { call } = await setup(PROJECT);
    expect((await call("list_files", { root: "nope" })).error?.error_type).toBe("file_not_found");
  });
});

describe("read_file", () => {
  it("reads a whole file with its metadata", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("read_file", { path: "src/utils.py" });
    expect(result.data).toEqual({
      content: "def add(a, b):\n    return a - b",
      truncated: false,
      total_lines: 2,
      start_line: 1,
      end_line: 2,
    });
  });

  it("reads a 1-indexed inclusive range", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("read_file", { path: "src/main.py", start_line: 2, end_line: 3 });
    expect(result.data).toEqual({
      content: "    # Entry point\n    print('hello')",
      truncated: false,
      total_lines: 6,
      start_line: 2,
      end_line: 3,
    });
    const open = await call("read_file", { path: "src/main.py", start_line: 5 });
    expect(open.data).toMatchObject({ content: "def helper():\n    return 1", start_line: 5, end_line: 6 });
    const clamped = await call("read_file", { path: "src/main.py", end_line: 100 });
    expect(clamped.data).toMatchObject({ end_line: 6 });
  });

  it("rejects a range past the end or reversed", async () => {
    const { call } = await setup(PROJECT);
    const past = await call("read_file", { path: "src/main.py", start_line: 50 });
    expect(past.error?.error_type).toBe("invalid_params");
    expect(past.error?.message).toContain("6 lines");
    expect(
      (await call("read_file", { path: "src/main.py", start_line: 4, end_line: 2 })).error?.error_type,
    ).toBe("invalid_params");
    expect((await call("read_file", { path: "src/main.py", start_line: 0 })).error?.error_type).toBe(
      "invalid_params",
    );
  });

  it("truncates files over 10,000 lines to the first and last 5,000", async () => {
    const lines = Array.from({ length: 12_000 }, (_, i) => `line ${i + 1}`);
    const { call } = await setup({ "big.txt": `${lines.join("\n")}\n` });
    const result = await call("read_file", { path: "big.txt" });
    const content = (result.data!.content as string).split("\n");
    expect(result.data!.truncated).toBe(true);
    expect(result.data!.total_lines).toBe(12_000);
    expect(content.length).toBe(10_000);
    expect(content[4999]).toBe("line 5000");
    expect(content[5000]).toBe("line 7001");
    expect(content[9999]).toBe("line 12000");
    expect(result.data).toMatchObject({
      omitted_start_line: 5001,
      omitted_end_line: 7000,
      omitted_lines: 2000,
    });
  });

  it("does not truncate exactly 10,000 lines", async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `l${i}`);
    const { call } = await setup({ "edge.txt": lines.join("\n") });
    const result = await call("read_file", { path: "edge.txt" });
    expect(result.data!.truncated).toBe(false);
    expect(result.data!.total_lines).toBe(10_000);
  });

  it("reports file_not_found, binary_file and path_escape", async () => {
    const { call, sandbox } = await setup(PROJECT);
    const missing = await call("read_file", { path: "src/nope.py" });
    expect(missing.error?.error_type).toBe("file_not_found");
    expect(missing.error?.message).toContain("src/nope.py");
    await sandbox.writeFile("/workspace/image.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    expect((await call("read_file", { path: "image.png" })).error?.error_type).toBe("binary_file");
    await sandbox.writeFile("/workspace/latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    expect((await call("read_file", { path: "latin1.txt" })).error?.error_type).toBe("binary_file");
    expect((await call("read_file", { path: "/etc/passwd" })).error?.error_type).toBe("path_escape");
    expect((await call("read_file", { path: "src/../../etc/passwd" })).error?.error_type).toBe("path_escape");
    // Percent-encoding is not decoded: that is a (missing) folder literally named "%2e%2e".
    const literal = await call("read_file", { path: "src/%2e%2e/%2e%2e/etc/passwd" });
    expect(literal.error?.error_type).toBe("file_not_found");
    expect(literal.error?.message).not.toMatch(/outside/u);
  });

  it("reads an empty file as empty content (every empty __init__.py)", async () => {
    const { call } = await setup({ "pkg/__init__.py": "" });
    const result = await call("read_file", { path: "pkg/__init__.py" });
    expect(result.status).toBe("success");
    expect(result.data).toEqual({
      content: "",
      truncated: false,
      total_lines: 0,
      start_line: 1,
      end_line: 0,
    });
    expect((await call("read_file", { path: "pkg/__init__.py", start_line: 1, end_line: 10 })).status).toBe(
      "success",
    );
    expect((await call("read_file", { path: "pkg/__init__.py", start_line: 2 })).error?.message).toMatch(
      /past the end of the file, which has 0 lines/u,
    );
  });

  it("content joins lines with \\n: CRLF and CR become \\n, a BOM and the final newline are dropped", async () => {
    const { call, sandbox } = await setup();
    await sandbox.writeFile("/workspace/w.txt", "\ufeffone\r\ntwo\rthree\n");
    const result = await call("read_file", { path: "w.txt" });
    expect(result.data).toMatchObject({ content: "one\ntwo\nthree", total_lines: 3 });
  });

  it("resolves '..' that stays inside, and reads names made of dots or percent signs", async () => {
    const { call, sandbox } = await setup(PROJECT);
    await sandbox.writeFile("/workspace/...", "three dots\n");
    await sandbox.writeFile("/workspace/%2e%2e", "percent\n");
    for (const [path, content] of [
      ["src/../README.md", "# Project\nSee src/main.py"],
      ["src/deep/../utils.py", "def add(a, b):\n    return a - b"],
      ["src/../src/../README.md", "# Project\nSee src/main.py"],
      ["...", "three dots"],
      ["%2e%2e", "percent"],
    ]) {
      const result = await call("read_file", { path });
      expect(result.status, path).toBe("success");
      expect(result.data?.content, path).toBe(content);
    }
    const listed = await call("list_files", { root: "src/.." });
    expect(listed.status).toBe("success");
    const escaped = await call("read_file", { path: "src/../../x" });
    expect(escaped.error?.message).toMatch(
      /outside the workspace: its '\.\.' climbs above the workspace root/u,
    );
  });

  it("refuses to read through a symlink", async () => {
    const { call, sandbox } = await setup(PROJECT);
    await sandbox.symlink("src/main.py", "/workspace/main-link.py");
    const result = await call("read_file", { path: "main-link.py" });
    expect(result.error?.error_type).toBe("symlink_blocked");
  });
});

describe("search", () => {
  it("returns matches with context as in the spec's example", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("search", { query: "def main", glob: "**/*.py", max_results: 10 });
    expect(result.data).toEqual({
      matches: [
        {
          file: "src/main.py",
          line: 1,
          content: "def main():",
          context_before: [],
          context_after: ["    # Entry point", "    print('hello')"],
        },
      ],
      truncated: false,
      total_matches: 1,
    });
  });

  it("is case-insensitive by default and literal unless is_regex", async () => {
    const { call } = await setup({ "a.txt": "Hello\nhello\nh.llo\n" });
    const literal = await call("search", { query: "H.LLO", context_lines: 0 });
    expect((literal.data!.matches as { line: number }[]).map((m) => m.line)).toEqual([3]);
    const regex = await call("search", { query: "H.LLO", is_regex: true, context_lines: 0 });
    expect((regex.data!.matches as { line: number }[]).map((m) => m.line)).toEqual([1, 2, 3]);
  });

  it("orders by file path, then line, and truncates at max_results", async () => {
    const { call } = await setup({ "b.txt": "x\nx\n", "a.txt": "x\n", "c/d.txt": "x\n" });
    const result = await call("search", { query: "x", max_results: 3, context_lines: 0 });
    expect(
      (result.data!.matches as { file: string; line: number }[]).map((m) => `${m.file}:${m.line}`),
    ).toEqual(["a.txt:1", "b.txt:1", "b.txt:2"]);
    expect(result.data!.truncated).toBe(true);
    expect(result.data!.total_matches).toBe(4);
  });

  it("gives fewer context lines at the edges of a file", async () => {
    const { call } = await setup({ "a.txt": "1\n2\nmatch\n4\n" });
    const result = await call("search", { query: "match", context_lines: 5 });
    expect(result.data!.matches).toEqual([
      { file: "a.txt", line: 3, content: "match", context_before: ["1", "2"], context_after: ["4"] },
    ]);
  });

  it("skips binary files, .git, hidden and gitignored files like ripgrep", async () => {
    const { call, sandbox } = await setup({
      "a.txt": "needle\n",
      ".hidden.txt": "needle\n",
      ".gitignore": "build/\n",
      "build/out.txt": "needle\n",
      ".git/needle": "needle\n",
    });
    await sandbox.writeFile("/workspace/bin.dat", new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1]));
    const result = await call("search", { query: "needle", context_lines: 0 });
    expect((result.data!.matches as { file: string }[]).map((m) => m.file)).toEqual(["a.txt"]);
  });

  it("sees every change between searches: an edit of the same size, a new file, a removed one", async () => {
    const { call, sandbox } = await setup({
      "a.txt": "needle one\n",
      "b.txt": "nothing\n",
      "c.txt": "needle\n",
    });
    const files = async () =>
      (
        (await call("search", { query: "needle", context_lines: 0 })).data!.matches as {
          file: string;
          content: string;
        }[]
      ).map((m) => `${m.file}:${m.content}`);
    expect(await files()).toEqual(["a.txt:needle one", "c.txt:needle"]);
    await sandbox.writeFile("/workspace/a.txt", "needle two\n");
    await sandbox.writeFile("/workspace/b.txt", "needle!\n");
    await sandbox.rm("/workspace/c.txt");
    await sandbox.writeFile("/workspace/d.txt", "a needle\n");
    expect(await files()).toEqual(["a.txt:needle two", "b.txt:needle!", "d.txt:a needle"]);
    expect(await sandbox.exec("printf 'NEEDLE\\n' > b.txt && rm d.txt")).toMatchObject({ exitCode: 0 });
    expect(await files()).toEqual(["a.txt:needle two", "b.txt:NEEDLE"]);
  });

  it("filters with a glob ripgrep-style (a bare *.py matches at any depth)", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("search", { query: "X = 1", glob: "*.py" });
    expect((result.data!.matches as { file: string }[]).map((m) => m.file)).toEqual([
      "src/deep/nested/module.py",
    ]);
  });

  it("reports an invalid regex as ripgrep_error", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("search", { query: "(unclosed", is_regex: true });
    expect(result.error?.error_type).toBe("ripgrep_error");
    expect(result.error?.message).toMatch(/not a valid regular expression/u);
  });

  it("returns no matches as a success", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("search", { query: "zzz-not-here" });
    expect(result.status).toBe("success");
    expect(result.data).toEqual({ matches: [], truncated: false, total_matches: 0 });
  });
});

describe("apply_patch", () => {
  const SPEC_EXAMPLE = `--- a/src/main.py
+++ b/src/main.py
@@ -1,4 +1,4 @@
 def add(a, b):
-    return a - b
+    return a + b
`;

  it("applies the spec's example (whose @@ counts are off) and returns the changed files", async () => {
    const { call, sandbox } = await setup({ "src/main.py": "def add(a, b):\n    return a - b\n" });
    const result = await call("apply_patch", { unified_diff: SPEC_EXAMPLE });
    expect(result.status).toBe("success");
    expect(result.data).toMatchObject({
      changed_files: ["src/main.py"],
      patch_size_bytes: new TextEncoder().encode(SPEC_EXAMPLE).length,
    });
    expect(text(await sandbox.readFile("/workspace/src/main.py"))).toBe("def add(a, b):\n    return a + b\n");
  });

  it("saves diffs/step_NNNN.patch and emits PATCH_APPLIED with the diff of what changed", async () => {
    const { call, runtime } = await setup({ "src/main.py": "def add(a, b):\n    return a - b\n" });
    await call("list_files", {});
    await call("apply_patch", { unified_diff: SPEC_EXAMPLE });
    const artifact = text(runtime.artifacts.get("diffs/step_0002.patch"));
    expect(artifact).toContain("-    return a - b\n+    return a + b");
    const event = runtime.events.all().find((candidate) => candidate.type === "PATCH_APPLIED");
    expect(event).toMatchObject({ request_id: "r2", tool: "apply_patch" });
    expect(event?.data).toMatchObject({
      changed_files: ["src/main.py"],
      patch_path: "diffs/step_0002.patch",
    });
    expect(
      runtime.events
        .all()
        .filter((candidate) => candidate.type === "file_changed")
        .map((e) => e.data?.path),
    ).toEqual(["src/main.py"]);
  });

  it("creates and deletes files through /dev/null", async () => {
    const { call, sandbox } = await setup({ "old.txt": "bye\n" });
    const diff =
      "--- /dev/null\n+++ b/new/file.txt\n@@ -0,0 +1 @@\n+hello\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
    const result = await call("apply_patch", { unified_diff: diff });
    expect(result.data!.changed_files).toEqual(["new/file.txt", "old.txt"]);
    expect(text(await sandbox.readFile("/workspace/new/file.txt"))).toBe("hello\n");
    await expect(sandbox.stat("/workspace/old.txt")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("changes nothing when one hunk of one file fails (patch_hunk_fail)", async () => {
    const files = { "a.txt": "one\ntwo\n", "b.txt": "three\nfour\n" };
    const { call, sandbox } = await setup(files);
    const diff =
      "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-not there\n+x\n four\n";
    const result = await call("apply_patch", { unified_diff: diff });
    expect(result.error?.error_type).toBe("patch_hunk_fail");
    expect(result.error?.message).toContain("b.txt");
    expect(result.error?.details).toMatchObject({ rejected_hunks: [{ file: "b.txt", hunk: 1 }] });
    expect(text(await sandbox.readFile("/workspace/a.txt"))).toBe("one\ntwo\n");
    expect(text(await sandbox.readFile("/workspace/b.txt"))).toBe("three\nfour\n");
  });

  it("reports patch_parse_error, file_not_found and path_escape", async () => {
    const { call } = await setup({ "a.txt": "x\n" });
    expect((await call("apply_patch", { unified_diff: "this is not a diff" })).error?.error_type).toBe(
      "patch_parse_error",
    );
    const missing = await call("apply_patch", {
      unified_diff: "--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-x\n+y\n",
    });
    expect(missing.error?.error_type).toBe("file_not_found");
    expect(missing.error?.message).toContain("nope.txt");
    const outside = await call("apply_patch", {
      unified_diff: "--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-x\n+y\n",
    });
    expect(outside.error?.error_type).toBe("path_escape");
  });
});

describe("run", () => {
  it("returns the exit code and the log paths, saving stdout and stderr as artifacts", async () => {
    const { call, runtime } = await setup(PROJECT);
    await call("list_files", {});
    const result = await call("run", { command: "echo out; echo err >&2" });
    expect(result.status).toBe("success");
    expect(result.exit_code).toBe(0);
    expect(result.stdout_path).toBe("logs/tool_step_0002_stdout.txt");
    expect(result.stderr_path).toBe("logs/tool_step_0002_stderr.txt");
    expect(result.data).toMatchObject({
      exit_code: 0,
      stdout_path: "logs/tool_step_0002_stdout.txt",
      stdout: "out\n",
    });
    expect(text(runtime.artifacts.get("logs/tool_step_0002_stdout.txt"))).toBe("out\n");
    expect(text(runtime.artifacts.get("logs/tool_step_0002_stderr.txt"))).toBe("err\n");
  });

  it("reports a non-zero exit as abnormal_exit, keeping the output", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("run", { command: "echo failing; exit 2" });
    expect(result.status).toBe("error");
    expect(result.error?.error_type).toBe("abnormal_exit");
    expect(result.exit_code).toBe(2);
    expect(result.stdout_path).toBe("logs/tool_step_0001_stdout.txt");
    expect(result.data).toMatchObject({ stdout: "failing\n", exit_code: 2 });
  });

  it("passes extra environment variables and runs in the workspace", async () => {
    const { call } = await setup(PROJECT);
    const result = await call("run", { command: "echo $GREETING; ls src", env: { GREETING: "hi" } });
    expect(result.data!.stdout).toBe("hi\ndeep\nmain.py\nutils.py\n");
  });

  it("stops a command at timeout_sec with a timeout error", async () => {
    const { call } = await setup(PROJECT);
    const started = Date.now();
    const result = await call("run", { command: "echo started; while true; do :; done", timeout_sec: 1 });
    expect(result.error?.error_type).toBe("timeout");
    expect(result.error?.details).toMatchObject({ stdout: "started\n" });
    expect(result.exit_code).toBeNull();
    expect(result.stdout_path).toBe("logs/tool_step_0001_stdout.txt");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await call("run", { command: "echo still works" })).data!.stdout).toBe("still works\n");
  });

  it("truncates output over 100 KB, keeping head and tail", async () => {
    const { call, runtime } = await setup({ "big.txt": `${"0123456789".repeat(30_000)}\nEND\n` });
    const result = await call("run", { command: "cat big.txt" });
    const stdout = result.data!.stdout as string;
    expect(new TextEncoder().encode(stdout).length).toBeLessThanOrEqual(100 * 1024);
    expect(stdout.startsWith("0123456789")).toBe(true);
    expect(stdout.endsWith("END\n")).toBe(true);
    expect(stdout).toMatch(/\[\.\.\. \d+ bytes truncated \.\.\.\]/u);
    expect(result.data!.stdout_truncated).toBe(true);
    expect(runtime.artifacts.get("logs/tool_step_0001_stdout.txt")?.length).toBeLessThanOrEqual(100 * 1024);
  });
});

describe("event logging", () => {
  it("emits tool_call_started and tool_call_finished for every call", async () => {
    const { call, runtime } = await setup(PROJECT);
    await call("read_file", { path: "README.md" });
    await call("read_file", { path: "missing" });
    const events = runtime.events.all().filter((event) => event.type.startsWith("tool_call"));
    expect(events.map((event) => [event.type, event.request_id, event.status ?? null])).toEqual([
      ["tool_call_started", "r1", null],
      ["tool_call_finished", "r1", "success"],
      ["tool_call_started", "r2", null],
      ["tool_call_finished", "r2", "error"],
    ]);
    expect(events[0]).toMatchObject({ tool: "read_file", params: { path: "README.md" }, session: "test" });
    expect(typeof events[1]?.duration_sec).toBe("number");
    expect(events.map((event) => event.seq)).toEqual(
      [...events.map((event) => event.seq)].sort((a, b) => a - b),
    );
    expect(
      runtime.events
        .toJsonl()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).type),
    ).toContain("tool_call_finished");
  });
});

function text(bytes: Uint8Array | undefined): string {
  return new TextDecoder().decode(bytes);
}
