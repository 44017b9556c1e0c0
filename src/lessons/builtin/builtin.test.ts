import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../host/create-runtime.ts";
import { registerNodeAssets } from "../../host/node-assets.ts";
import { pythonRunner } from "../../sandbox/embedded/python/index.ts";
import { PRICING_FIX_PATCH } from "../../test-support/lesson-fixtures.ts";
import { checkLesson, type Lesson } from "../lesson.ts";
import { LessonRun } from "../lesson-run.ts";
import { compareDialects } from "./compare-dialects.ts";
import { gitBasics } from "./git-basics.ts";
import { BUILTIN_LESSONS } from "./index.ts";
import { ptySession } from "./pty-session.ts";
import { pythonOnePatch, SLUGIFY_FIX } from "./python-one-patch.ts";
import { readingAndSearching } from "./reading-and-searching.ts";
import { testsAndFailures } from "./tests-and-failures.ts";
import { twoPatchFormats } from "./two-patch-formats.ts";

async function open(lesson: Lesson) {
  const run = await LessonRun.open(lesson, await createEmbeddedRuntime({ approver: async () => "allow" }));

  const call = (tool: string, params: Record<string, unknown>, profile = lesson.profiles[0]!.profile) =>
    run.call(profile, { tool, params });
  const failing = async () =>
    (await run.check()).filter((result) => !result.passed).map((result) => result.id);
  return { run, call, failing };
}

describe("built-in lessons", () => {
  it("are valid lesson files with unique ids", () => {
    for (const lesson of BUILTIN_LESSONS)
      expect(checkLesson(JSON.parse(JSON.stringify(lesson)))).toEqual(lesson);
    expect(new Set(BUILTIN_LESSONS.map((lesson) => lesson.id)).size).toBe(BUILTIN_LESSONS.length);
  });

  it("start with their content checks failing", async () => {
    for (const lesson of BUILTIN_LESSONS) {
      const { failing } = await open(lesson);
      expect((await failing()).length, lesson.id).toBeGreaterThan(0);
    }
  }, 120_000);
});

describe(readingAndSearching.title, () => {
  it("is solved by search, a ranged read and one patch", async () => {
    const { call, failing } = await open(readingAndSearching);
    expect((await call("search", { query: "discount must be" })).status).toBe("success");
    expect((await call("read_file", { path: "src/pricing.js", start_line: 6, end_line: 11 })).status).toBe(
      "success",
    );
    expect((await call("apply_patch", { unified_diff: PRICING_FIX_PATCH })).status).toBe("success");
    expect(await failing()).toEqual([]);
  });

  it("fails when the learner reads whole files instead of searching, and patches the wrong bound", async () => {
    const { call, failing } = await open(readingAndSearching);
    await call("list_files", {});
    await call("read_file", { path: "src/pricing.js" });
    await call("apply_patch", {
      unified_diff: PRICING_FIX_PATCH.replace("percent > 100)", "percent > 200)"),
    });
    expect(await failing()).toEqual(["searched", "read-a-range", "bound-fixed"]);
  });

  it("refuses a change to the read-only README", async () => {
    const { call } = await open(readingAndSearching);
    const outcome = await call("apply_patch", {
      unified_diff: "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# Shop\n+# Free shop\n",
    });
    expect(outcome.failure?.code).toBe("read_only_path");
  });
});

describe(twoPatchFormats.title, () => {
  const UNIFIED =
    "--- a/src/units.js\n+++ b/src/units.js\n@@ -1,3 +1,3 @@\n export function toFahrenheit(celsius) {\n-  return (celsius * 9) / 5 + 23;\n+  return (celsius * 9) / 5 + 32;\n }\n";
  const ENVELOPE =
    '*** Begin Patch\n*** Update File: src/greet.js\n@@ export function greet(name) {\n-  return "Helo, " + name + "!";\n+  return "Hello, " + name + "!";\n*** End Patch\n';

  it("is solved with one patch in each format", async () => {
    const { call, failing } = await open(twoPatchFormats);
    await call("read_file", { path: "src/units.js" });
    expect((await call("apply_patch_json", { patch: UNIFIED })).status).toBe("success");
    expect((await call("apply_patch_freeform", { patch: ENVELOPE })).status).toBe("success");
    expect(await failing()).toEqual([]);
  });

  it("fails when both fixes go through the same tool", async () => {
    const { call, failing } = await open(twoPatchFormats);
    await call("read_file", { path: "src/units.js" });
    await call("apply_patch_json", { patch: UNIFIED });
    await call("apply_patch_json", { patch: ENVELOPE });
    expect(await failing()).toEqual(["greet-by-envelope"]);
  });
});

describe(ptySession.title, () => {
  it("is solved in one shell session whose folder carries over", async () => {
    const { call, failing } = await open(ptySession);
    expect((await call("exec_command", { session_id: "s1", cmd: "bash" })).status).toBe("success");
    await call("write_stdin", { session_id: "s1", chars: "cd logs\n" });
    const found = await call("write_stdin", { session_id: "s1", chars: "grep -l ERROR *.log\n" });
    expect(JSON.stringify(found.envelope)).toContain("b.log");
    await call("write_stdin", { session_id: "s1", chars: "grep -l ERROR *.log > ../answer.txt\n" });
    expect(await failing()).toEqual([]);
  });

  it("fails when each step starts a new session, so the cd is lost", async () => {
    const { call, failing } = await open(ptySession);
    await call("exec_command", { session_id: "s1", cmd: "bash" });
    await call("write_stdin", { session_id: "s1", chars: "cd logs\n" });
    await call("exec_command", { session_id: "s2", cmd: "bash" });
    await call("write_stdin", { session_id: "s2", chars: "grep -l ERROR *.log > answer.txt\n" });
    expect(await failing()).toEqual(["started", "answer"]);
  });

  it("refuses commands the lesson does not allow", async () => {
    const { call } = await open(ptySession);
    await call("exec_command", { session_id: "s1", cmd: "bash" });
    expect((await call("write_stdin", { session_id: "s1", chars: "rm -r logs\n" })).failure?.code).toBe(
      "command_blocked",
    );
    expect((await call("exec_command", { session_id: "s2", cmd: "python3" })).failure?.code).toBe(
      "command_blocked",
    );
  });
});

describe(compareDialects.title, () => {
  const ENVELOPE =
    "*** Begin Patch\n*** Update File: baseagent/app.conf\n name = shop\n-timeout = 5\n+timeout = 30\n retries = 3\n*** End Patch\n";

  it("is solved with text_replace in one dialect and apply_patch in the other", async () => {
    const { call, failing } = await open(compareDialects);
    await call("read_file", { path: "sandboxed/app.conf" }, "sandboxed");
    expect(
      (
        await call(
          "text_replace",
          { file: "sandboxed/app.conf", search: "timeout = 5", replace: "timeout = 30" },
          "sandboxed",
        )
      ).status,
    ).toBe("success");
    await call("read_file", { file_path: "baseagent/app.conf" }, "baseagent");
    expect((await call("apply_patch", { patch: ENVELOPE }, "baseagent")).status).toBe("success");
    expect(await failing()).toEqual([]);
  });

  it("fails when one dialect does both", async () => {
    const { call, failing } = await open(compareDialects);
    await call("read_file", { path: "sandboxed/app.conf" }, "sandboxed");
    await call(
      "text_replace",
      { file: "sandboxed/app.conf", search: "timeout = 5", replace: "timeout = 30" },
      "sandboxed",
    );
    await call(
      "text_replace",
      { file: "baseagent/app.conf", search: "timeout = 5", replace: "timeout = 30" },
      "sandboxed",
    );
    expect(await failing()).toEqual(["baseagent-tool", "read-baseagent"]);
  });
});

describe(testsAndFailures.title, () => {
  it("is solved by running the tests, fixing the code and running them again", async () => {
    const { call, failing } = await open(testsAndFailures);
    const first = await call("run_tests", {});
    const data = (
      first.envelope as { data: { passed: boolean; failures: { test: string; reason: string }[] } }
    ).data;
    expect(data.passed).toBe(false);
    expect(data.failures[0]?.test).toContain("an invoice adds tax");
    await call("file_read", { path: "src/invoice.js" });
    expect(
      (
        await call("file_edit", {
          path: "src/invoice.js",
          old_str: "net * taxRate / 100 * 0",
          new_str: "net * taxRate / 100",
        })
      ).status,
    ).toBe("success");
    const second = await call("run_tests", {});
    expect((second.envelope as { data: { passed: boolean } }).data.passed).toBe(true);
    expect(await failing()).toEqual([]);
  });

  it("undoes a 'fix' that edits the test, and fails without a second run", async () => {
    const { call, failing } = await open(testsAndFailures);
    await call("run_tests", {});
    const cheat = await call("file_edit", { path: "test/invoice.test.js", old_str: "2400", new_str: "2000" });
    expect(cheat.failure?.code).toBe("read_only_path");
    expect(await failing()).toEqual(["ran-twice", "passing", "fixed-code"]);
  });
});

describe(gitBasics.title, () => {
  it("is solved by status, diff and a confirmed commit of the version only", async () => {
    const { call, failing } = await open(gitBasics);
    const status = await call("git_status", {});
    expect(JSON.stringify(status.envelope)).toContain("notes.txt");
    await call("git_diff", {});
    expect(
      (await call("git_commit", { message: "Release 1.1.0", confirmed: true, paths: ["src/version.js"] }))
        .status,
    ).toBe("success");
    expect(await failing()).toEqual([]);
  });

  it("fails when the commit is not confirmed, then when everything is committed blindly", async () => {
    const { call, failing, run } = await open(gitBasics);
    expect(
      (await call("git_commit", { message: "stuff", confirmed: false, paths: ["."] })).failure?.code,
    ).toBe("confirmation_required");
    expect(await failing()).toEqual(["looked", "diffed", "committed", "message", "only-version"]);
    await call("git_commit", { message: "stuff", confirmed: true, paths: ["."] });
    expect(await failing()).toEqual(["looked", "diffed", "message", "only-version"]);
    await run.reset();
    expect(await failing()).toEqual(["looked", "diffed", "committed", "message", "only-version"]);
  });
});

describe(pythonOnePatch.title, () => {
  beforeAll(() => registerNodeAssets());
  afterAll(() => pythonRunner()?.dispose());
  const step = (before: string, after: string) =>
    `--- a/slugs.py\n+++ b/slugs.py\n@@ -6 +6 @@\n-    words = re.findall(r"[a-z0-9]+", ${before})\n+    words = re.findall(r"[a-z0-9]+", ${after})\n`;

  it("is solved on the embedded CPython by running the tests, one patch and running them again", async () => {
    const { call, failing } = await open(pythonOnePatch);
    const first = await call("run_tests", {});
    const data = (first.envelope as { data: { passed: boolean; failures: { test: string; line: number }[] } })
      .data;
    expect(data.passed).toBe(false);
    expect(data.failures.map((failure) => [failure.test, failure.line])).toEqual([
      ["SlugifyTest.test_capitals_are_kept_as_lower_case", 11],
      ["SlugifyTest.test_numbers_stay", 14],
    ]);
    await call("file_read", { path: "slugs.py" });
    expect((await call("file_patch", { diff_text: SLUGIFY_FIX })).status).toBe("success");
    expect(((await call("run_tests", {})).envelope as { data: { passed: boolean } }).data.passed).toBe(true);
    expect(await failing()).toEqual([]);
  }, 120_000);

  it("fails when it took two patches, even though the tests pass", async () => {
    const { call, failing } = await open(pythonOnePatch);
    await call("run_tests", {});
    for (const patch of [step("title", "title.strip()"), step("title.strip()", "title.strip().lower()")])
      expect((await call("file_patch", { diff_text: patch })).status).toBe("success");
    await call("run_tests", {});
    expect(await failing()).toEqual(["one-patch"]);
  }, 120_000);
});
