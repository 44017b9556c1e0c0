import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { openApp, runTool, treeRow } from "./helpers.ts";

/** Serious and critical WCAG A/AA violations on the page as it is now, named for the report. */
async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    // Monaco and xterm draw their own widgets; their insides are theirs, their hosts are ours.
    .exclude(".monaco-editor .view-lines")
    .exclude(".xterm-rows")
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(" "))
          .join(" | ")}`,
    );
}

test.describe("accessibility (axe-core, WCAG A/AA)", () => {
  test("boot screen", async ({ page }) => {
    await openApp(page);
    expect(await violations(page)).toEqual([]);
  });

  test("an open file", async ({ page }) => {
    await openApp(page);
    await treeRow(page, "README.md").click();
    await expect(page.getByTestId("monaco-editor").locator(".view-lines")).toBeVisible();
    expect(await violations(page)).toEqual([]);
  });

  test("the console with a result", async ({ page }) => {
    await openApp(page);
    await runTool(page, "run", { command: "npm test" });
    expect(await violations(page)).toEqual([]);
  });

  test("a replay", async ({ page }) => {
    await openApp(page);
    await page.getByTestId("sessions-menu").locator("summary").click();
    await page.getByTestId("sessions-menu").locator('[data-demo="fix-failing-test"]').click();
    await expect(page.getByTestId("replay-summary")).toBeVisible({ timeout: 30_000 });
    expect(await violations(page)).toEqual([]);
  });

  test("a lesson", async ({ page }) => {
    await openApp(page);
    await page.getByTestId("lesson-menu").locator("summary").click();
    await page.getByTestId("lesson-menu").locator('[data-lesson="reading-and-searching"]').click();
    await expect(page.getByTestId("lesson-panel")).toBeVisible();
    await page.getByTestId("lesson-check").click();
    await expect(page.getByTestId("lesson-progress")).not.toHaveText("not checked yet");
    expect(await violations(page)).toEqual([]);
  });
});
