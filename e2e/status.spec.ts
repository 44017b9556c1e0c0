import { expect, test } from "@playwright/test";
import { openApp, runTool } from "./helpers.ts";

test.describe("honest status", () => {
  test("the console's status is the dialect's: baseagent's success:false is an error, in the console and the log", async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId("console-profile").selectOption("baseagent");
    const failed = await runTool(page, "shell_command", { command: "echo partial; exit 3" });
    expect(failed).toMatchObject({ success: false });
    await expect(page.getByTestId("console-status")).toHaveText("error");
    const passed = await runTool(page, "shell_command", { command: "echo fine" });
    expect(passed).toMatchObject({ success: true });
    await expect(page.getByTestId("console-status")).toHaveText("success");
    await page.getByTestId("filter-status").selectOption("error");
    const rows = page.getByTestId("event-log").locator(".event-row");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("shell_command");
  });

  test("a call's duration leaves out the time the person took to approve it, which is shown apart", async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId("console-tool").selectOption("run");
    await page.getByTestId("console-approval").selectOption("ask");
    await page.getByTestId("param-command").fill("echo waited");
    await page.getByTestId("console-run").click();
    await expect(page.getByTestId("approval-dialog")).toBeVisible();
    await page.waitForTimeout(2500);
    await page.keyboard.press("y");
    await expect(page.getByTestId("console-status")).toHaveText("success");
    const wait = await page.getByTestId("console-approval-wait").textContent();
    const waited = Number(/([\d.]+) s waiting/u.exec(wait ?? "")?.[1]);
    expect(waited).toBeGreaterThanOrEqual(2.4);
    const ran = Number.parseFloat((await page.getByTestId("console-duration").textContent()) ?? "");
    expect(ran).toBeLessThan(waited);
    // The log keeps the two apart too.
    const finished = page.getByTestId("event-log").locator('[data-type="tool_call_finished"]').last();
    await expect(finished.locator(".duration")).toHaveAttribute("title", /waited [\d.]+ s for approval/u);
  });

  test("write_stdin's chars is multi-line: newlines are sent as typed, and an empty chars polls", async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId("console-profile").selectOption("toolrouter");
    // ToolRouter asks before commands by default; here the person has said "run without asking".
    for (const tool of ["exec_command", "write_stdin"]) {
      await page.getByTestId("console-tool").selectOption(tool);
      await page.getByTestId("console-approval").selectOption("auto");
    }
    await runTool(page, "exec_command", { session_id: "s1", cmd: "bash", workdir: "null" });
    await page.getByTestId("console-tool").selectOption("write_stdin");
    await expect(page.getByTestId("param-chars")).toHaveJSProperty("tagName", "TEXTAREA");
    const typed = await runTool(page, "write_stdin", {
      session_id: "s1",
      chars: "echo first-line\necho second-line\n",
    });
    expect(JSON.stringify(typed)).toContain("first-line");
    expect(JSON.stringify(typed)).toContain("second-line");
    await expect(page.getByTestId("console-status")).toHaveText("success");
    // An empty chars is a poll, not a missing field.
    await page.getByTestId("param-chars").fill("");
    await page.getByTestId("console-run").click();
    await expect(page.getByTestId("console-run")).toHaveText("Run");
    await expect(page.locator(".field-error")).toHaveCount(0);
    await expect(page.getByTestId("console-status")).toHaveText("success");
    await expect(page.getByTestId("event-log").locator('[data-type="tool_call_finished"]')).toHaveCount(3);
  });
});
