import { expect, type Page, test } from "@playwright/test";
import { focusPlace, openApp, tabWalk } from "./helpers.ts";

test.describe("a Tab walk with every pane open", () => {
  test("in a lesson, with the Agent tab shown: Tab reaches the files, the lesson, editor, terminal, log and the agent's controls, then the top bar again, every stop ringed", async ({
    page,
  }) => {
    await openApp(page, "/", { tab: "agent" });
    await page.getByTestId("lesson-menu").locator("summary").click();
    await page.getByTestId("lesson-menu").locator('[data-lesson="reading-and-searching"]').click();
    await expect(page.getByTestId("lesson-panel")).toBeVisible({ timeout: 20_000 });
    await page.getByTestId("tab-agent").click();
    await expect(page.getByTestId("agent-pane")).toBeVisible();
    const { visited, unringed, reached } = await tabWalk(page, {
      track: ['[data-testid="agent-pane"]', '[data-testid="lesson-check"]', ".lesson-body"],
    });
    for (const pane of ["files", "lesson", "editor", "terminal", "log", "tools"])
      expect(visited).toContain(pane);
    expect(visited.slice(visited.indexOf("tools"))).toContain("top");
    // Inside the panes, not only their headers: the lesson's text and buttons, the agent's form.
    expect(reached.sort()).toEqual(
      [".lesson-body", '[data-testid="agent-pane"]', '[data-testid="lesson-check"]'].sort(),
    );
    expect(unringed).toEqual([]);
  });

  test("in a replay, with the console shown: Tab reaches the replay's playhead and buttons and the console's Run, then the top bar again", async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId("sessions-menu").locator("summary").click();
    await page.getByTestId("sessions-menu").locator('[data-demo="fix-failing-test"]').click();
    await expect(page.getByTestId("replay-panel")).toBeVisible();
    await page.getByTestId("replay-pause").click();
    const { visited, unringed, reached } = await tabWalk(page, {
      track: [
        '[data-testid="replay-playhead"]',
        '[data-testid="replay-play"]',
        '[data-testid="console-run"]',
      ],
    });
    for (const pane of ["files", "lesson", "editor", "terminal", "log", "tools"])
      expect(visited).toContain(pane);
    expect(visited.slice(visited.indexOf("tools"))).toContain("top");
    expect(reached).toHaveLength(3);
    expect(unringed).toEqual([]);
  });
});

/** Whether focus is on a control of the page outside the dialog (the browser's own UI, past the last stop, is not). */
const behind = (page: Page, dialog: string) =>
  page.evaluate((selector) => {
    const active = document.activeElement;
    return active !== null && active !== document.body && active.closest(selector) === null;
  }, dialog);

test.describe("dialogs keep focus until closed", () => {
  test("the lesson author: focus starts in it, Tab and F6 stay in it, Ctrl+Enter runs nothing behind it, Escape closes it and focus goes back", async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId("lesson-menu").locator("summary").click();
    const opener = page.getByTestId("lesson-author");
    await opener.click();
    await expect(page.getByTestId("author-title")).toBeFocused();
    let inside = 0;
    for (let press = 0; press < 80; press++) {
      await page.keyboard.press(press < 60 ? "Tab" : "Shift+Tab");
      expect(await behind(page, "form.dialog")).toBe(false);
      if ((await focusPlace(page)).place !== "body") {
        inside++;
        expect((await focusPlace(page)).ring).toBe(true);
      }
    }
    expect(inside).toBeGreaterThan(40);
    await page.getByTestId("author-title").focus();
    await page.keyboard.press("F6");
    await page.keyboard.press("Alt+3");
    await expect(page.getByTestId("author-title")).toBeFocused();
    const calls = () =>
      page.evaluate(
        () =>
          (
            window as unknown as { toolroom: { model: { events: { type: string }[] } } }
          ).toolroom.model.events.filter((event) => event.type === "tool_call_started").length,
      );
    const before = await calls();
    await page.getByTestId("author-title").fill("Draft");
    await page.keyboard.press("ControlOrMeta+Enter");
    await page.waitForTimeout(1000);
    expect(await calls()).toBe(before);

    await page.keyboard.press("Escape");
    await expect(page.locator("form.dialog")).toHaveCount(0);
    await expect(opener).toBeFocused();
    // What was written is still there when it opens again.
    await opener.click();
    await expect(page.getByTestId("author-title")).toHaveValue("Draft");
  });

  test("an approval: Tab stays on its buttons; once answered, focus is back on Run", async ({ page }) => {
    await openApp(page);
    await page.getByTestId("console-tool").selectOption("run");
    await page.getByTestId("console-approval").selectOption("ask");
    await page.getByTestId("param-command").fill("echo asked");
    await page.getByTestId("console-run").focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByTestId("approval-dialog");
    await expect(dialog).toBeVisible();
    for (let press = 0; press < 8; press++) {
      await page.keyboard.press("Tab");
      expect(await behind(page, '[data-testid="approval-dialog"]')).toBe(false);
    }
    await page.keyboard.press("n");
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId("console-run")).toBeFocused();
    await expect(page.getByTestId("console-status")).toHaveText("error");
  });
});
