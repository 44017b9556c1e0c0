import { expect, test } from "@playwright/test";
import { openApp, tabWalk } from "./helpers.ts";

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
