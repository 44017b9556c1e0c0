import { describe, expect, it } from "vitest";
import { normalizeCall } from "../core/calls.ts";
import { MIDDLE_OUT_MARKER } from "../core/truncate.ts";
import { createEmbeddedRuntime } from "../host/create-runtime.ts";
import { writeBmp, writePng } from "../test-support/images.ts";
import { decodePng } from "../tools/image-raster.ts";
import { baseagent } from "./baseagent.ts";

/** Conformance with ../shared/specs/004_0bd30b74edec11f0.txt, section by section. */

type Result = { success: boolean; output: string; inject_content: unknown };

async function setup(files: Record<string, string> = {}) {
  const runtime = await createEmbeddedRuntime({ files, session: "test" });
  /** Sends the dialect's own {name, arguments} call. */
  const call = async (name: string, args: Record<string, unknown> | string) =>
    (await runtime.call("baseagent", normalizeCall(baseagent, { name, arguments: args }))) as Result;
  const read = async (path: string) =>
    new TextDecoder().decode(await runtime.sandbox.readFile(`/workspace/${path}`));
  return { runtime, call, read, sandbox: runtime.sandbox };
}

const tool = (name: string) => baseagent.tools.find((candidate) => candidate.name === name)!;

describe("tool summary", () => {
  it("has the eight tools, each with the parameters, requirements and defaults of the spec's tables", () => {
    const table = Object.fromEntries(
      baseagent.tools.map((spec) => [
        spec.name,
        Object.fromEntries(
          Object.entries(spec.inputSchema.properties ?? {}).map(([name, property]) => [
            name,
            {
              required: (spec.inputSchema.required ?? []).includes(name),
              ...(property.default !== undefined ? { default: property.default } : {}),
            },
          ]),
        ),
      ]),
    );
    expect(table).toEqual({
      shell_command: {
        command: { required: true },
        workdir: { required: false },
        timeout_ms: { required: false, default: 60000 },
      },
      read_file: {
        file_path: { required: true },
        offset: { required: false, default: 1 },
        limit: { required: false, default: 2000 },
      },
      write_file: { file_path: { required: true }, content: { required: true } },
      apply_patch: { patch: { required: true } },
      grep_files: {
        pattern: { required: true },
        include: { required: false },
        path: { required: false },
        limit: { required: false, default: 100 },
      },
      list_dir: {
        dir_path: { required: true },
        offset: { required: false, default: 1 },
        limit: { required: false, default: 50 },
        depth: { required: false, default: 2 },
      },
      view_image: { path: { required: true } },
      update_plan: { steps: { required: true }, explanation: { required: false } },
    });
  });

  it("takes {name, arguments} calls, arguments as an object or as a chat API's JSON string", async () => {
    const { call, runtime } = await setup({ "a.txt": "x\n" });
    expect(await call("read_file", { file_path: "a.txt" })).toEqual({
      success: true,
      output: "L1: x",
      inject_content: null,
    });
    expect((await call("read_file", '{"file_path": "a.txt"}')).output).toBe("L1: x");
    expect(() => normalizeCall(baseagent, { name: "read_file", arguments: "{nope" })).toThrow(
      /not valid JSON/u,
    );
    expect(normalizeCall(baseagent, { name: "x", arguments: {}, id: "call_1" })).toEqual({
      tool: "x",
      params: {},
      request_id: "call_1",
    });
    expect(
      await runtime.call("baseagent", { tool: "read_file", params: { file_path: "a.txt" } }),
    ).toMatchObject({
      success: true,
    });
  });

  it("validates arguments and reports failures as success false with the reason", async () => {
    const { call } = await setup();
    expect(await call("read_file", {})).toEqual({
      success: false,
      output: expect.stringContaining("missing required parameter 'file_path'"),
      inject_content: null,
    });
    expect((await call("read_file", { path: "a.txt" })).output).toContain("unknown parameter 'path'");
    expect((await call("read_file", { file_path: "a", offset: 0 })).success).toBe(false);
    expect((await call("nope", {})).output).toContain("Unknown tool");
  });
});

describe("shell_command", () => {
  it("returns what the command printed, as in the spec's example", async () => {
    const { call } = await setup({ "agent.py": "", "src/x": "" });
    expect(await call("shell_command", { command: "ls", workdir: "/workspace", timeout_ms: 30000 })).toEqual({
      success: true,
      output: "agent.py\nsrc\n",
      inject_content: null,
    });
  });

  it("runs in workdir (the workspace by default), stdout then stderr", async () => {
    const { call } = await setup({ "src/x": "" });
    expect((await call("shell_command", { command: "pwd", workdir: "src" })).output).toBe("/workspace/src\n");
    expect((await call("shell_command", { command: "pwd" })).output).toBe("/workspace\n");
    expect((await call("shell_command", { command: "echo out; echo err >&2" })).output).toBe("out\nerr\n");
    expect((await call("shell_command", { command: "pwd", workdir: "../.." })).success).toBe(false);
  });

  it("marks a non-zero exit and a timeout unsuccessful, saying so on the last line", async () => {
    const { call } = await setup();
    expect(await call("shell_command", { command: "echo partial; exit 3" })).toEqual({
      success: false,
      output: "partial\n[exit code: 3]",
      inject_content: null,
    });
    // The runtime's status is the dialect's: success false is a failed call in the log and the console.
    const { runtime } = await setup();
    const outcome = await runtime.invoke("baseagent", {
      tool: "shell_command",
      params: { command: "exit 1" },
    });
    expect(outcome.status).toBe("error");
    expect(baseagent.envelope.failed(outcome.envelope)).toBe(true);
    const slow = await call("shell_command", { command: "echo started; sleep 5", timeout_ms: 300 });
    expect(slow).toMatchObject({
      success: false,
      output: expect.stringMatching(/^started\n\[command timed out after 300 ms\]$/u),
    });
  });
});

describe("number parameters", () => {
  it("take non-integers where the spec types them as number", async () => {
    const { call } = await setup({ "a.txt": "one\ntwo\nthree\n" });
    const ran = await call("shell_command", { command: "echo ok", timeout_ms: 1500.5 });
    expect(ran).toMatchObject({ success: true, output: "ok\n" });
    expect((await call("read_file", { file_path: "a.txt", offset: 2.7, limit: 1.2 })).output).toBe("L2: two");
    expect((await call("list_dir", { dir_path: ".", depth: 1.5, limit: 10.9 })).success).toBe(true);
    expect((await call("grep_files", { pattern: "two", limit: 3.5 })).output).toBe("a.txt");
    expect((await call("read_file", { file_path: "a.txt", offset: 0.5 })).success).toBe(false);
  });
});

describe("read_file", () => {
  const LOOP =
    '"""\nMain agent loop - the heart of the SuperAgent system.\n"""\n\nfrom __future__ import annotations\nimport time\n';

  it("numbers lines L1:, as in the spec's output format", async () => {
    const { call } = await setup({ "src/core/loop.py": LOOP });
    expect((await call("read_file", { file_path: "src/core/loop.py", offset: 1, limit: 100 })).output).toBe(
      [
        'L1: """',
        "L2: Main agent loop - the heart of the SuperAgent system.",
        'L3: """',
        "L4: ",
        "L5: from __future__ import annotations",
        "L6: import time",
      ].join("\n"),
    );
  });

  it("reads from a 1-indexed offset, at most limit lines, 2000 by default", async () => {
    const long = Array.from({ length: 2100 }, (_, i) => `line ${i + 1}`).join("\n");
    const { call } = await setup({ "long.txt": long, "crlf.txt": "a\r\nb\r\n" });
    expect((await call("read_file", { file_path: "long.txt", offset: 3, limit: 2 })).output).toBe(
      "L3: line 3\nL4: line 4",
    );
    const whole = await call("read_file", { file_path: "long.txt" });
    expect(whole.output.startsWith("L1: line 1\n")).toBe(true);
    // 2000 lines are more than 2,500 tokens: the middle goes, the last line read stays.
    expect(whole.output).toContain(MIDDLE_OUT_MARKER);
    expect(whole.output.endsWith("L2000: line 2000")).toBe(true);
    expect((await call("read_file", { file_path: "crlf.txt" })).output).toBe("L1: a\nL2: b");
  });

  it("errors: offset past the end, missing file, a folder, a binary file", async () => {
    const { call, sandbox } = await setup({ "a.txt": "one\n", "empty.txt": "", "dir/x": "" });
    expect(await call("read_file", { file_path: "a.txt", offset: 5 })).toMatchObject({
      success: false,
      output: expect.stringContaining("a.txt has 1 lines"),
    });
    expect((await call("read_file", { file_path: "empty.txt" })).output).toBe("");
    expect((await call("read_file", { file_path: "missing.txt" })).output).toMatch(/^Error: File not found/u);
    expect((await call("read_file", { file_path: "dir" })).success).toBe(false);
    await sandbox.writeFile("/workspace/b.bin", new Uint8Array([0, 1]));
    expect((await call("read_file", { file_path: "b.bin" })).output).toContain("binary");
  });
});

describe("write_file", () => {
  it("writes the content exactly, creating parent directories", async () => {
    const { call, read } = await setup();
    expect(await call("write_file", { file_path: "hello.txt", content: "Hello, World!\n" })).toEqual({
      success: true,
      output: "Created hello.txt (14 bytes).",
      inject_content: null,
    });
    expect(await read("hello.txt")).toBe("Hello, World!\n");
    expect((await call("write_file", { file_path: "a/b/c.txt", content: "x" })).success).toBe(true);
    expect(await read("a/b/c.txt")).toBe("x");
    expect((await call("write_file", { file_path: "hello.txt", content: "again" })).output).toBe(
      "Wrote hello.txt (5 bytes).",
    );
    expect((await call("write_file", { file_path: "../out.txt", content: "x" })).success).toBe(false);
  });
});

describe("apply_patch", () => {
  it("applies the spec's example", async () => {
    const { call, read } = await setup({ "src/utils.py": "def calculate(x):\n    return x\n" });
    const result = await call("apply_patch", {
      patch:
        "*** Begin Patch\n*** Update File: src/utils.py\n@@ def calculate(x):\n-    return x\n+    return x * 2\n*** End Patch",
    });
    expect(result).toEqual({
      success: true,
      output: "Success. Updated the following files:\nM src/utils.py",
      inject_content: null,
    });
    expect(await read("src/utils.py")).toBe("def calculate(x):\n    return x * 2\n");
  });

  it("adds, updates and deletes files in one envelope", async () => {
    const { call, read, sandbox } = await setup({ "old.py": "x = 1\n", "keep.py": "a = 1\n" });
    const result = await call("apply_patch", {
      patch: [
        "*** Begin Patch",
        "*** Add File: path/to/new/file.py",
        "+line 1",
        "+line 2",
        "*** Update File: keep.py",
        "@@",
        "-a = 1",
        "+a = 2",
        "*** Delete File: old.py",
        "*** End Patch",
      ].join("\n"),
    });
    expect(result.output).toBe(
      "Success. Updated the following files:\nA path/to/new/file.py\nM keep.py\nD old.py",
    );
    expect(await read("path/to/new/file.py")).toBe("line 1\nline 2\n");
    await expect(sandbox.stat("/workspace/old.py")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("changes nothing when the patch does not apply, and takes only the envelope", async () => {
    const { call, read } = await setup({ "a.py": "x = 1\n" });
    const failed = await call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 99\n+x = 2\n*** End Patch",
    });
    expect(failed).toMatchObject({ success: false, output: expect.stringContaining("did not apply") });
    expect(await read("a.py")).toBe("x = 1\n");
    const unified = await call("apply_patch", {
      patch: "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
    });
    expect(unified.success).toBe(false);
    const absolute = await call("apply_patch", {
      patch: "*** Begin Patch\n*** Add File: /etc/evil\n+x\n*** End Patch",
    });
    expect(absolute.success).toBe(false);
  });

  it("refuses absolute paths, even inside the workspace (the format says never absolute)", async () => {
    const { call, read } = await setup({ "abc.txt": "x = 1\n" });
    for (const header of ["*** Update File: /workspace/abc.txt", "*** Add File: /workspace/new.txt"]) {
      const result = await call("apply_patch", {
        patch: `*** Begin Patch\n${header}\n-x = 1\n+x = 2\n*** End Patch`.replace(
          "*** Add File: /workspace/new.txt\n-x = 1\n",
          "*** Add File: /workspace/new.txt\n",
        ),
      });
      expect(result.success).toBe(false);
      expect(result.output).toMatch(/relative to the workspace, never absolute/u);
      expect(result.output).not.toMatch(/outside/u);
    }
    const moved = await call("apply_patch", {
      patch:
        "*** Begin Patch\n*** Update File: abc.txt\n*** Move to: /workspace/b.txt\n-x = 1\n+x = 2\n*** End Patch",
    });
    expect(moved.output).toMatch(/never absolute; found "\/workspace\/b.txt"/u);
    expect(await read("abc.txt")).toBe("x = 1\n");
    await expect(read("new.txt")).rejects.toBeDefined();
  });
});

describe("grep_files", () => {
  it("lists matching files only, most recently modified first", async () => {
    const { call, sandbox } = await setup();
    // Written in this order, a second apart in mtime, so the newest is the last one.
    for (const [index, path] of [
      "src/utils/truncate.py",
      "src/core/compaction.py",
      "src/llm/client.py",
    ].entries()) {
      await sandbox.mkdir(`/workspace/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
      await sandbox.writeFile(`/workspace/${path}`, `def get_token():\n    pass  # ${index}\n`);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await sandbox.writeFile("/workspace/src/other.py", "nothing here\n");
    expect(
      await call("grep_files", { pattern: "def.*token", include: "*.py", path: "src/", limit: 50 }),
    ).toEqual({
      success: true,
      output: "src/llm/client.py\nsrc/core/compaction.py\nsrc/utils/truncate.py",
      inject_content: null,
    });
    expect((await call("grep_files", { pattern: "def.*token", limit: 1 })).output).toBe("src/llm/client.py");
  });

  it("filters with include, searches the workspace by default, and says when nothing matches", async () => {
    const { call } = await setup({ "a.py": "needle\n", "b.md": "needle\n", ".hidden.py": "needle\n" });
    expect((await call("grep_files", { pattern: "needle", include: "*.py" })).output).toBe("a.py");
    expect(await call("grep_files", { pattern: "haystack" })).toEqual({
      success: true,
      output: "No matches found.",
      inject_content: null,
    });
    expect((await call("grep_files", { pattern: "(" })).success).toBe(false);
    expect((await call("grep_files", { pattern: "x", path: "nope" })).success).toBe(false);
  });

  it("defaults to at most 100 files", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 120 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, "hit\n"]),
    );
    const { call } = await setup(files);
    expect((await call("grep_files", { pattern: "hit" })).output.split("\n")).toHaveLength(100);
  });
});

describe("list_dir", () => {
  const TREE = {
    "src/core/loop.py": "",
    "src/core/compaction.py": "",
    "src/llm/client.py": "",
    "src/tools/shell.py": "",
    "src/tools/read_file.py": "",
    "src/tools/deep/x.py": "",
  };

  it("prints an indented tree with / for directories, as in the spec's output format", async () => {
    const { call } = await setup(TREE);
    expect((await call("list_dir", { dir_path: "src/", depth: 3, limit: 100 })).output).toBe(
      [
        "src/",
        "  core/",
        "    compaction.py",
        "    loop.py",
        "  llm/",
        "    client.py",
        "  tools/",
        "    deep/",
        "      x.py",
        "    read_file.py",
        "    shell.py",
      ].join("\n"),
    );
  });

  it("marks symbolic links with @ and does not follow them", async () => {
    const { call, sandbox } = await setup(TREE);
    await sandbox.symlink("core", "/workspace/src/link");
    const output = (await call("list_dir", { dir_path: "src", depth: 1 })).output;
    expect(output).toBe("src/\n  core/\n  link@\n  llm/\n  tools/");
  });

  it("goes depth levels deep, 2 by default", async () => {
    const { call } = await setup(TREE);
    const output = (await call("list_dir", { dir_path: "src" })).output;
    expect(output).toContain("    loop.py");
    expect(output).not.toContain("x.py");
    expect(output).toContain("    deep/");
  });

  it("pages with a 1-indexed offset and limit, and says how to see the rest", async () => {
    const { call } = await setup(TREE);
    expect((await call("list_dir", { dir_path: "src", offset: 2, limit: 3, depth: 3 })).output).toBe(
      [
        "src/",
        "    compaction.py",
        "    loop.py",
        "  llm/",
        "[6 more entries; use offset=5 to see them]",
      ].join("\n"),
    );
    const files = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`d/f${String(i).padStart(2, "0")}`, ""]),
    );
    const paged = await setup(files);
    const output = (await paged.call("list_dir", { dir_path: "d" })).output.split("\n");
    expect(output).toHaveLength(52);
    expect(output.at(-1)).toBe("[10 more entries; use offset=51 to see them]");
  });

  it("shows a symlinked folder under the link's own name", async () => {
    const { call, sandbox } = await setup(TREE);
    await sandbox.symlink("src/core", "/workspace/core-link");
    expect((await call("list_dir", { dir_path: "core-link", depth: 1 })).output).toBe(
      "core-link/\n  compaction.py\n  loop.py",
    );
  });

  it("errors: a missing directory, a file, outside the workspace", async () => {
    const { call } = await setup(TREE);
    expect((await call("list_dir", { dir_path: "nope" })).success).toBe(false);
    expect((await call("list_dir", { dir_path: "src/llm/client.py" })).success).toBe(false);
    expect((await call("list_dir", { dir_path: "/" })).output).toContain("outside the workspace");
  });
});

describe("view_image", () => {
  it("puts the image in inject_content as base64 with its MIME type", async () => {
    const png = writePng({ width: 4, height: 3, colorType: 2, depth: 8, samples: new Array(36).fill(200) });
    const { call, sandbox } = await setup();
    await sandbox.mkdir("/workspace/screenshots");
    await sandbox.writeFile("/workspace/screenshots/error.png", png);
    const result = await call("view_image", { path: "screenshots/error.png" });
    expect(result.success).toBe(true);
    expect(result.output).toBe(
      "Image loaded: screenshots/error.png (PNG, 4x3, 110 bytes).".replace("110", String(png.length)),
    );
    expect(result.inject_content).toEqual([
      {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}` },
      },
    ]);
  });

  it("resizes large images automatically", async () => {
    const png = writePng({
      width: 2500,
      height: 100,
      colorType: 0,
      depth: 8,
      samples: new Array(250_000).fill(9),
      filters: [0],
    });
    const { call, sandbox } = await setup();
    await sandbox.writeFile("/workspace/wide.png", png);
    const result = await call("view_image", { path: "wide.png" });
    expect(result.output).toContain("Resized to 2048x82 PNG.");
    const url = (result.inject_content as { image_url: { url: string } }[])[0]!.image_url.url;
    const decoded = decodePng(
      new Uint8Array(Buffer.from(url.slice("data:image/png;base64,".length), "base64")),
    );
    expect([decoded.width, decoded.height]).toEqual([2048, 82]);
  });

  it("converts BMP to PNG and refuses what is not an image", async () => {
    const { call, sandbox } = await setup({ "notes.txt": "text" });
    await sandbox.writeFile(
      "/workspace/a.bmp",
      writeBmp({ width: 1, height: 1, bitCount: 24, rgba: [1, 2, 3, 255] }),
    );
    const bmp = await call("view_image", { path: "a.bmp" });
    expect(bmp.output).toContain("Converted to PNG.");
    expect(JSON.stringify(bmp.inject_content)).toContain("data:image/png;base64,");
    expect(await call("view_image", { path: "notes.txt" })).toMatchObject({
      success: false,
      inject_content: null,
    });
  });
});

describe("update_plan", () => {
  it("sets the plan, as in the spec's example, and emits plan_updated for the UI", async () => {
    const { call, runtime } = await setup();
    const result = await call("update_plan", {
      steps: [
        { description: "Read existing code", status: "completed" },
        { description: "Create helper module", status: "in_progress" },
        { description: "Write unit tests", status: "pending" },
        { description: "Update documentation", status: "pending" },
      ],
      explanation: "Starting implementation after code review",
    });
    expect(result).toEqual({
      success: true,
      output:
        "Plan updated:\n[x] Read existing code\n[~] Create helper module\n[ ] Write unit tests\n[ ] Update documentation",
      inject_content: null,
    });
    const event = runtime.events.all().find((candidate) => candidate.type === "plan_updated");
    expect(event).toMatchObject({
      tool: "update_plan",
      data: { explanation: "Starting implementation after code review", completed: 1, total: 4 },
    });
  });

  it("allows at most one step in progress, and only the three statuses", async () => {
    const { call } = await setup();
    const two = await call("update_plan", {
      steps: [
        { description: "a", status: "in_progress" },
        { description: "b", status: "in_progress" },
      ],
    });
    expect(two).toMatchObject({ success: false, output: expect.stringContaining("at most one step") });
    expect((await call("update_plan", { steps: [{ description: "a", status: "done" }] })).success).toBe(
      false,
    );
    expect((await call("update_plan", { steps: [{ description: "a" }] })).success).toBe(false);
  });

  it("names the step and the field when a step is wrong", async () => {
    const { call } = await setup();
    const missing = await call("update_plan", {
      steps: [{ description: "a", status: "pending" }, { description: "b" }],
    });
    expect(missing.output).toMatch(/steps\.1.*'status'/u);
    expect(missing.output).not.toMatch(/allowed: steps, explanation/u);
    const extra = await call("update_plan", {
      steps: [{ description: "a", status: "pending", owner: "me" }],
    });
    expect(extra.output).toMatch(/'steps\.0' has an unknown field 'owner' \(allowed: description, status\)/u);
    const wrong = await call("update_plan", { steps: [{ description: "a", status: "done" }] });
    expect(wrong.output).toMatch(/'steps\.0\.status' must be one of pending, in_progress, completed/u);
  });
});

describe("tool output limits", () => {
  it("cuts every output over 2,500 tokens middle-out, keeping start and end around the marker", async () => {
    const { call } = await setup();
    const result = await call("shell_command", { command: "for i in $(seq 1 3000); do echo line $i; done" });
    expect(result.output.length).toBeLessThanOrEqual(2500 * 4 + 2);
    expect(result.output.startsWith("line 1\n")).toBe(true);
    expect(result.output.endsWith("line 3000\n")).toBe(true);
    expect(result.output).toContain(`\n${MIDDLE_OUT_MARKER}\n`);
  });

  it("cuts error outputs too, and leaves short ones alone", async () => {
    const { call } = await setup();
    const failing = await call("shell_command", {
      command: "for i in $(seq 1 3000); do echo line $i; done; exit 1",
    });
    expect(failing.success).toBe(false);
    expect(failing.output).toContain(MIDDLE_OUT_MARKER);
    expect(failing.output.endsWith("[exit code: 1]")).toBe(true);
    expect((await call("shell_command", { command: "echo short" })).output).toBe("short\n");
  });

  it("never cuts the image in inject_content", async () => {
    const { call, sandbox } = await setup();
    let seed = 1;
    const noise = Array.from({ length: 200 * 200 * 3 }, () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    });
    const png = writePng({ width: 200, height: 200, colorType: 2, depth: 8, samples: noise, filters: [0] });
    await sandbox.writeFile("/workspace/noise.png", png);
    const result = await call("view_image", { path: "noise.png" });
    const url = (result.inject_content as { image_url: { url: string } }[])[0]!.image_url.url;
    expect(url.length).toBeGreaterThan(2500 * 4);
    expect(Buffer.from(url.split(",")[1]!, "base64").length).toBe(png.length);
  });
});

describe("schemas", () => {
  it("describe update_plan's steps with the three statuses", () => {
    const steps = tool("update_plan").inputSchema.properties?.steps;
    expect(steps?.items?.properties?.status?.enum).toEqual(["pending", "in_progress", "completed"]);
    expect(steps?.items?.required).toEqual(["description", "status"]);
  });
});
