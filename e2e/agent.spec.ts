import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { type ScriptedServer, startScriptedServer } from "../src/agent/testing/scripted-server.ts";
import { readingAndSearching } from "../src/lessons/builtin/reading-and-searching.ts";
import { FIX_FAILING_TEST } from "../src/session/demos/scenarios.ts";
import { decodeFragmentText } from "../src/session/share.ts";
import { PRICING_FIX_PATCH } from "../src/test-support/lesson-fixtures.ts";
import { openApp, runTool, waitReady, workspaceText } from "./helpers.ts";

const KEY = "sk-e2e-secret-0123456789abcdefghij";

async function connect(page: Page, server: ScriptedServer, format: "openai" | "anthropic", key = KEY) {
  const form = page.getByTestId("provider-form");
  await form.getByTestId("provider-preset").selectOption("custom");
  await form.getByTestId("provider-kind").selectOption(format);
  await form.getByTestId("provider-url").fill(server.baseUrl);
  await form.getByTestId("provider-model").fill("scripted-model");
  await form.getByTestId("provider-key").fill(key);
  await form.getByTestId("provider-connect").click();
  await expect(page.getByTestId("agent-connected")).toContainText("scripted-model");
}

async function giveTask(page: Page, task: string) {
  await page.getByTestId("agent-task").fill(task);
  await page.getByTestId("agent-send").click();
}

const servers: ScriptedServer[] = [];
test.afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

test.describe("agents and sessions", () => {
  test("an OpenAI-compatible model fixes the Node starter's failing test; the run exports without the key, imports and replays with no divergence, and its link replays in a fresh browser", async ({
    page,
    browser,
  }) => {
    const server = await startScriptedServer({
      format: "openai",
      script: FIX_FAILING_TEST.replies,
      requireKey: KEY,
    });
    servers.push(server);
    await openApp(page, "/", { tab: "agent" });
    await connect(page, server, "openai");
    await giveTask(page, FIX_FAILING_TEST.task);

    // The run streams into the pane, each call lands in the log, and it ends on its own.
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "done", { timeout: 60_000 });
    const results = page.getByTestId("agent-result");
    await expect(results).toHaveCount(4);
    await expect(results.last()).toHaveAttribute("data-error", "false");
    expect(await workspaceText(page, "src/cart.js")).toContain("item.priceCents * item.quantity");
    await expect(page.getByTestId("agent-tokens")).not.toContainText("0 in · 0 out");
    // What the model was told is there to read, folded.
    await expect(page.getByTestId("agent-system")).toContainText("AgentBench");
    // The profile's tools went out in OpenAI's format, with the key only in the Authorization header.
    const first = server.requests[0]!;
    expect(first.headers.authorization).toBe(`Bearer ${KEY}`);
    expect((first.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(["list_files", "read_file", "search", "apply_patch", "run"]),
    );
    expect(JSON.stringify(first.body)).not.toContain(KEY);
    // The key is nowhere in the page's storage (it was not asked to be remembered).
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(stored).not.toContain(KEY);

    // Export: a session file with no key in it.
    await page.getByTestId("sessions-menu").locator("summary").click();
    const downloading = page.waitForEvent("download");
    await page.getByTestId("session-export").click();
    const file = await (await downloading).path();
    const exported = await readFile(file, "utf8");
    expect(exported).not.toContain(KEY);
    expect(JSON.parse(exported)).toMatchObject({ format: "toolroom-session", profile: "agentbench" });

    // Import it again: a workspace of the initial files, replayed call by call.
    await page.getByTestId("sessions-menu").locator("summary").click();
    await page.getByTestId("session-file").setInputFiles(file);
    await expect(page.getByTestId("replay-panel")).toBeVisible();
    await expect(page.getByTestId("replay-step")).toHaveCount(4);
    expect(await workspaceText(page, "src/cart.js")).not.toContain("* item.quantity");
    await page.getByTestId("replay-step-button").click();
    await expect(page.getByTestId("replay-step").first()).toHaveAttribute("data-verdict", "match");
    await page.getByTestId("replay-play").click();
    await expect(page.getByTestId("replay-summary")).toHaveText(
      "All 4 replayed steps matched the recording.",
    );
    expect(await workspaceText(page, "src/cart.js")).toContain("item.priceCents * item.quantity");

    // Share the original run: back in its workspace, copy the link, open it in a fresh browser context.
    await page.getByTestId("workspace-select").selectOption({ label: "Node starter" });

    await expect(page.getByTestId("agent-result")).toHaveCount(4);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByTestId("sessions-menu").locator("summary").click();
    await page.getByTestId("session-share").click();
    await expect(page.getByTestId("notices")).toContainText("share link was copied");
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link).toMatch(/#s=/u);
    expect(decodeFragmentText(link.slice(link.indexOf("#s=") + 3))).not.toContain(KEY);

    const fresh = await browser.newContext();
    try {
      const other = await fresh.newPage();
      await openApp(other, link.slice(link.indexOf("/", "http://".length)), { tab: "agent" });
      await expect(other.getByTestId("replay-panel")).toBeVisible();
      await other.getByTestId("replay-play").click();
      await expect(other.getByTestId("replay-summary")).toHaveText(
        "All 4 replayed steps matched the recording.",
      );
      expect(await workspaceText(other, "src/cart.js")).toContain("item.priceCents * item.quantity");
    } finally {
      await fresh.close();
    }
  });

  test("an Anthropic-format model: a refused key is shown plainly, and after a new key Continue finishes the task; Stop ends a run that hangs", async ({
    page,
  }) => {
    const replies = [{ hang: true as const, text: "Thinking about" }, ...FIX_FAILING_TEST.replies];
    const server = await startScriptedServer({
      format: "anthropic",
      // The first request (with the wrong key) is refused by the server before the script is read.
      script: (_request, index) => replies[index - 1] ?? { text: "Done." },
      requireKey: KEY,
    });
    servers.push(server);
    await openApp(page, "/", { tab: "agent" });
    await connect(page, server, "anthropic", "sk-wrong-key-000000000000000000");
    await giveTask(page, FIX_FAILING_TEST.task);
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "error");
    await expect(page.getByTestId("agent-end")).toContainText(/key/iu);

    await page.getByRole("button", { name: "Change model" }).click();
    await connect(page, server, "anthropic");
    // The next answer hangs mid-sentence: Stop cuts it, and the partial text is kept.
    await page.getByTestId("agent-continue").click();
    await expect(page.getByTestId("agent-live")).toContainText("Thinking about");
    await page.getByTestId("agent-stop").click();
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "stopped");

    await page.getByTestId("agent-continue").click();
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "done", { timeout: 60_000 });
    expect(await workspaceText(page, "src/cart.js")).toContain("item.priceCents * item.quantity");
    expect(server.requests.at(-1)?.headers["x-api-key"]).toBe(KEY);
    expect(server.openStreams()).toBe(0);
  });

  test("a first-time visitor plays a demo session with one click, from the agent pane or the Sessions menu", async ({
    page,
  }) => {
    await openApp(page, "/", { tab: "agent" });
    // The two tabs work from the keyboard: arrows move between them.
    await page.getByTestId("tab-agent").focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("console-tool")).toBeVisible();
    await expect(page.getByTestId("tab-console")).toBeFocused();
    await page.keyboard.press("ArrowLeft");
    await expect(page.getByTestId("agent-pane")).toBeVisible();
    await page.getByTestId("agent-pane").locator('[data-demo="fix-failing-test"]').click();
    await expect(page.getByTestId("replay-summary")).toHaveText(
      /All \d+ replayed steps matched the recording\./u,
      { timeout: 60_000 },
    );
    await expect(page.getByTestId("replay-panel")).toContainText("Fix a failing test");
    expect(await workspaceText(page, "src/cart.js")).toContain("item.priceCents * item.quantity");

    await page.getByTestId("sessions-menu").locator("summary").click();
    await page.getByTestId("sessions-menu").locator('[data-demo="change-a-setting"]').click();
    await expect(page.getByTestId("replay-panel")).toContainText("Change a setting");
    await expect(page.getByTestId("replay-summary")).toHaveText(
      /All \d+ replayed steps matched the recording\./u,
      { timeout: 60_000 },
    );
    await expect(page.getByTestId("replay-step")).not.toHaveCount(0);
  });

  test("a learner hands a lesson to the model and compares its calls with their own", async ({ page }) => {
    const server = await startScriptedServer({
      format: "openai",
      script: [
        { toolCalls: [{ name: "search", arguments: { query: "percent > 1000" } }] },
        {
          toolCalls: [
            { name: "read_file", arguments: { path: "src/pricing.js", start_line: 5, end_line: 9 } },
          ],
        },
        { toolCalls: [{ name: "apply_patch", arguments: { unified_diff: PRICING_FIX_PATCH } }] },
        { text: "The upper bound was 1000; it is 100 now." },
      ],
    });
    servers.push(server);
    await openApp(page, "/", { tab: "agent" });
    await connect(page, server, "openai");
    await page.getByTestId("lesson-menu").locator("summary").click();
    await page.locator(`[data-lesson="${readingAndSearching.id}"]`).click();
    await expect(page.getByTestId("lesson-panel")).toBeVisible();

    await page.getByTestId("lesson-hand-to-agent").click();
    await expect(page.getByTestId("lesson-panel")).toContainText("the model's attempt");
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "done", { timeout: 60_000 });
    const comparison = page.getByTestId("lesson-comparison");
    await expect(comparison.locator('[data-by="agent"] li')).toHaveText([
      /^search/u,
      /^read_file/u,
      /^apply_patch/u,
    ]);
    await expect(comparison.locator('[data-by="learner"]')).toContainText("No calls yet.");
    await expect(page.getByTestId("lesson-panel").locator('[data-check="bound-fixed"]')).toHaveAttribute(
      "data-state",
      "passed",
    );
    // The model only ever saw the lesson's four tools.
    const offered = (server.requests[0]!.body.tools as { function: { name: string } }[]).map(
      (tool) => tool.function.name,
    );
    expect(offered.sort()).toEqual(["apply_patch", "list_files", "read_file", "search"]);
  });

  test("a runaway command the model starts is cut off by the watchdog; the conversation survives the restart and Continue goes on", async ({
    page,
  }) => {
    const server = await startScriptedServer({
      format: "openai",
      script: [
        {
          text: "Running the loop.",
          toolCalls: [
            {
              name: "run",
              // A back-reference keeps the shell grep on JavaScript's backtracking regex, which
              // cannot be interrupted mid-line (without one, grep's engine is linear).
              arguments: {
                command:
                  "printf aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab > r.txt; grep -E '(a+)+\\1$' r.txt",
                timeout_sec: 2,
              },
              id: "loop",
            },
          ],
        },
        { text: "That command never ends; I will not run it again." },
      ],
    });
    servers.push(server);
    await openApp(page, "/", { tab: "agent" });
    await connect(page, server, "openai");
    await giveTask(page, "Run the loop.");
    await expect(page.getByTestId("notices")).toContainText("worker was restarted", { timeout: 30_000 });
    await expect(page.getByTestId("notices")).toContainText("press Continue");
    // The cut-off call is in the log with its timeout envelope, and the task is still in the pane.
    await expect(
      page.getByTestId("event-log").locator('[data-type="tool_call_finished"]').filter({ hasText: "run" }),
    ).toHaveCount(1);
    await expect(page.getByTestId("agent-transcript")).toContainText("Run the loop.");
    // The model will read what really happened: the dialect's timeout envelope, not a bare "interrupted".
    const cutOff = page.getByTestId("agent-result").first();
    await expect(cutOff).toHaveAttribute("data-error", "true");
    await expect(cutOff).toContainText('"error_type":"timeout"');
    // The key was handed to the new worker: Continue works without connecting again.
    await page.getByTestId("agent-continue").click();
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "done", { timeout: 30_000 });
    await expect(page.getByTestId("agent-transcript")).toContainText("I will not run it again");
  });

  test("a remembered key survives a reload; without it, the refused key is what the next run says", async ({
    page,
  }) => {
    const server = await startScriptedServer({
      format: "openai",
      script: () => ({ text: "Hello." }),
      requireKey: KEY,
    });
    servers.push(server);
    await openApp(page, "/", { tab: "agent" });
    await page.getByLabel("Remember the key on this device").check();
    await connect(page, server, "openai");
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).toContain(KEY);

    await page.reload();
    await waitReady(page);
    await expect(page.getByTestId("agent-connected")).toContainText("scripted-model");
    await giveTask(page, "Say hello.");
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "done");

    // Forgotten: the page still reaches the local server after a reload, but without a key.
    await page.getByRole("button", { name: "Change model" }).click();
    await page.getByRole("button", { name: "Forget the remembered key" }).click();
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(KEY);
    await page.reload();
    await waitReady(page);
    await giveTask(page, "Say hello again.");
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "error");
    await expect(page.getByTestId("agent-end")).toContainText(/key/iu);
  });

  test("with changes set to ask, the model's command waits for the person; N refuses it and the model is told", async ({
    page,
  }) => {
    const server = await startScriptedServer({
      format: "openai",
      script: [
        { toolCalls: [{ name: "run", arguments: { command: "echo changed > changed.txt" } }] },
        { text: "It was refused, so I left the files alone." },
      ],
    });
    servers.push(server);
    await openApp(page, "/", { tab: "agent" });
    await connect(page, server, "openai");
    await page.getByTestId("agent-approvals").selectOption("ask");
    await giveTask(page, "Write changed.txt");
    await expect(page.getByTestId("approval-dialog")).toBeVisible();
    await expect(page.getByTestId("approval-dialog")).toContainText("echo changed");
    await page.keyboard.press("n");
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "done");
    await expect(page.getByTestId("agent-result").first()).toHaveAttribute("data-error", "true");
    await expect(page.getByTestId("agent-result").first()).toContainText("approval_denied");
    const files = await page.evaluate(() =>
      (
        window as unknown as { toolroom: { host: { api: { listFiles(): Promise<{ path: string }[]> } } } }
      ).toolroom.host.api.listFiles(),
    );
    expect(files.map((file) => file.path)).not.toContain("changed.txt");
    // The choice is the console's too: the run tool now asks there as well.
    await page.getByTestId("tab-console").click();
    await page.getByTestId("console-tool").selectOption("run");
    await expect(page.getByTestId("console-approval")).toHaveValue("ask");
  });

  test("a person's own calls, recorded from the Sessions menu, replay from a link in a fresh browser", async ({
    page,
    browser,
  }) => {
    await openApp(page);
    await runTool(page, "list_files", {}, { expectStatus: "success" });
    await page.getByTestId("sessions-menu").locator("summary").click();
    await page.getByTestId("recording-start").click();
    await expect(page.getByTestId("recording")).toContainText("0 calls");
    await page.getByTestId("sessions-menu").locator("summary").click();
    await runTool(page, "run", { command: "npm test" }, { expectStatus: "error" });
    await runTool(page, "search", { query: "priceCents" }, { expectStatus: "success" });
    await page.getByTestId("sessions-menu").locator("summary").click();
    await expect(page.getByTestId("recording")).toContainText("2 calls");
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByTestId("recording-share").click();
    await expect(page.getByTestId("notices")).toContainText("share link was copied");
    const link = await page.evaluate(() => navigator.clipboard.readText());

    const fresh = await browser.newContext();
    try {
      const other = await fresh.newPage();
      await openApp(other, link.slice(link.indexOf("/", "http://".length)), { tab: "agent" });
      await expect(other.getByTestId("replay-panel")).toContainText("Calls by hand in Node starter");
      await expect(other.getByTestId("replay-step")).toHaveCount(2);
      await other.getByTestId("replay-play").click();
      await expect(other.getByTestId("replay-summary")).toHaveText(
        "All 2 replayed steps matched the recording.",
      );
    } finally {
      await fresh.close();
    }
  });

  test("a page opened with ?session=URL fetches the session and replays it; a broken address says what is wrong", async ({
    page,
  }) => {
    const demo = await readFile("src/session/demos/change-a-setting.json", "utf8");
    const server = createServer((request, response) => {
      const headers = { "access-control-allow-origin": "*", "content-type": "application/json" };
      if (request.url === "/session.json") response.writeHead(200, headers).end(demo);
      else response.writeHead(404, headers).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await openApp(page, `/?session=${encodeURIComponent(`http://127.0.0.1:${port}/session.json`)}`, {
        tab: "agent",
      });
      await expect(page.getByTestId("replay-panel")).toContainText("Change a setting everywhere");
      await page.getByTestId("replay-play").click();
      await expect(page.getByTestId("replay-summary")).toHaveText(/All \d+ replayed steps matched/u);

      await openApp(page, `/?session=${encodeURIComponent(`http://127.0.0.1:${port}/missing.json`)}`, {
        tab: "agent",
      });
      await expect(page.getByTestId("notices")).toContainText("answered 404");
    } finally {
      server.close();
    }
  });

  test("the model's answer is shown as Markdown, and any HTML or script link in it stays inert", async ({
    page,
  }) => {
    const server = await startScriptedServer({
      format: "openai",
      script: () => ({
        text: 'Done: **bold** and `code`.\n\n<img src=x onerror="window.pwned = 1"><script>window.pwned = 2</script>\n\n[click](javascript:window.pwned=3) [docs](https://example.com/)',
      }),
    });
    servers.push(server);
    await openApp(page, "/", { tab: "agent" });
    await connect(page, server, "openai");
    await giveTask(page, "Say something.");
    await expect(page.getByTestId("agent-end")).toHaveAttribute("data-stop", "done");
    const turn = page.getByTestId("agent-turn").last();
    await expect(turn.locator("strong")).toHaveText("bold");
    await expect(turn.locator("code")).toHaveText("code");
    await expect(turn.locator("img, script")).toHaveCount(0);
    await expect(turn.getByRole("link", { name: "docs" })).toHaveAttribute("href", "https://example.com/");
    const click = turn.getByText("click");
    expect(await click.getAttribute("href")).not.toMatch(/javascript/iu);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  });
});
