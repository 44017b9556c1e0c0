import { expect, test } from "@playwright/test";
import { ptySession } from "../src/lessons/builtin/pty-session.ts";
import { openApp, runTool, treeRow, workspaceText } from "./helpers.ts";

test.describe("live processes", () => {
  test("Ctrl-C in the terminal stops a busy bash loop and a busy node loop at once, with no worker restart", async ({
    page,
  }) => {
    await openApp(page);
    const screen = page.getByTestId("terminal").locator(".xterm-rows");
    await expect(screen).toContainText("$");
    await page.getByTestId("terminal").click();

    await page.keyboard.type("while true; do :; done\r");
    await page.waitForTimeout(1000);
    let started = Date.now();
    await page.keyboard.press("Control+C");
    await page.keyboard.type("echo alive-one\r");
    await expect(screen).toContainText(/alive-one\s*\n?.*alive-one/su, { timeout: 10_000 });
    expect(Date.now() - started).toBeLessThan(5000);

    // A node loop never yields to the worker's event loop: the stop goes through shared memory.
    await page.keyboard.type('node -e "for (;;) {}"\r');
    await page.waitForTimeout(1500);
    started = Date.now();
    await page.keyboard.press("Control+C");
    await page.keyboard.type("echo alive-two\r");
    await expect(screen).toContainText(/alive-two\s*\n?.*alive-two/su, { timeout: 10_000 });
    expect(Date.now() - started).toBeLessThan(5000);

    await expect(page.getByTestId("notices")).not.toContainText("worker was restarted");
  });

  test("the console's Cancel stops a running command at once, keeping what it printed", async ({ page }) => {
    await openApp(page);
    await page.getByTestId("console-tool").selectOption("run");
    await page.getByTestId("param-command").fill("echo printed-before; while true; do :; done");
    await page.getByTestId("param-timeout_sec").fill("120");
    await page.getByTestId("console-run").click();
    await expect(page.getByTestId("console-cancel")).toBeVisible();
    await page.waitForTimeout(1000);
    const started = Date.now();
    await page.getByTestId("console-cancel").click();
    await expect(page.getByTestId("console-run")).toHaveText("Run", { timeout: 10_000 });
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(page.getByTestId("console-status")).toHaveText("error");
    await expect(page.getByTestId("console-envelope")).toContainText("printed-before");
    await expect(page.getByTestId("notices")).not.toContainText("worker was restarted");
    await runTool(page, "run", { command: "echo next", timeout_sec: "10" }, { expectStatus: "success" });
  });

  test("the PTY lesson is solved by hand from the console, newline included", async ({ page }) => {
    await openApp(page);
    await page.getByTestId("lesson-menu").locator("summary").click();
    await page.getByTestId("lesson-menu").locator(`[data-lesson="${ptySession.id}"]`).click();
    await expect(page.getByTestId("lesson-panel")).toBeVisible();
    // Command tools ask first in this dialect; the learner allows them for the lesson.
    for (const tool of ["exec_command", "write_stdin"]) {
      await page.getByTestId("console-tool").selectOption(tool);
      await page.getByTestId("console-approval").selectOption("auto");
    }
    await runTool(page, "exec_command", { session_id: "s1", cmd: "bash" }, { expectStatus: "success" });
    await runTool(page, "write_stdin", { session_id: "s1", chars: "cd logs\n" }, { expectStatus: "success" });
    const found = await runTool(
      page,
      "write_stdin",
      { session_id: "s1", chars: "grep -l ERROR *.log\n" },
      { expectStatus: "success" },
    );
    expect(JSON.stringify(found)).toContain("b.log");
    await runTool(
      page,
      "write_stdin",
      { session_id: "s1", chars: "grep -l ERROR *.log > ../answer.txt\n" },
      { expectStatus: "success" },
    );
    await expect(treeRow(page, "answer.txt")).toBeVisible();
    expect(await workspaceText(page, "answer.txt")).toBe("b.log\n");
    await page.getByTestId("lesson-check").click();
    await expect(page.getByTestId("lesson-progress")).toHaveText("complete ✓", { timeout: 15_000 });
  });
});
