import { expect, type Page, test } from "@playwright/test";
import { readingAndSearching } from "../src/lessons/builtin/reading-and-searching.ts";
import { lessonLink } from "../src/lessons/share.ts";
import { PRICING_FIX_PATCH } from "../src/test-support/lesson-fixtures.ts";
import { openApp, runTool, waitReady, workspaceText } from "./helpers.ts";

const checkState = (page: Page, id: string) =>
  page.getByTestId("lesson-panel").locator(`[data-check="${id}"]`);

async function check(page: Page): Promise<void> {
  await page.getByTestId("lesson-check").click();
  await expect(checkState(page, "searched")).not.toHaveAttribute("data-state", "unknown");
}

test.describe("lessons", () => {
  test("a lesson opened from a link is completed by hand, each check going from failing to passing; Reset restores; progress survives a reload", async ({
    page,
    baseURL,
  }) => {
    const link = lessonLink(readingAndSearching, `${baseURL}/`)!;
    expect(link).not.toBeNull();
    await openApp(page, link.slice(link.indexOf("/", "http://".length)));
    const panel = page.getByTestId("lesson-panel");
    await expect(panel).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("lesson-instructions")).toContainText("150% discount");
    // Markdown is rendered as elements, never as HTML from the file: the heading is a heading.
    await expect(page.getByTestId("lesson-instructions").locator("h1")).toHaveText(
      "Reading and searching a codebase",
    );

    await check(page);
    for (const id of ["searched", "read-a-range", "bound-fixed", "patched"]) {
      await expect(checkState(page, id)).toHaveAttribute("data-state", "failed");
    }
    // The console offers the lesson's dialect and tools only.
    await expect(page.getByTestId("console-tool").locator("option")).toHaveText([
      "list_files",
      "read_file",
      "search",
      "apply_patch",
    ]);

    await runTool(page, "search", { query: "discount must be" }, { expectStatus: "success" });
    await check(page);
    await expect(checkState(page, "searched")).toHaveAttribute("data-state", "passed");
    await expect(checkState(page, "read-a-range")).toHaveAttribute("data-state", "failed");

    await runTool(
      page,
      "read_file",
      { path: "src/pricing.js", start_line: "6", end_line: "11" },
      { expectStatus: "success" },
    );
    await check(page);
    await expect(checkState(page, "read-a-range")).toHaveAttribute("data-state", "passed");

    await page.getByTestId("lesson-hint").click();
    await expect(page.getByTestId("lesson-hints")).toContainText("Search for the word discount");

    await runTool(page, "apply_patch", { unified_diff: PRICING_FIX_PATCH }, { expectStatus: "success" });
    await check(page);
    for (const id of [
      "searched",
      "read-a-range",
      "bound-fixed",
      "patched",
      "one-patch",
      "readme-untouched",
      "few-calls",
    ]) {
      await expect(checkState(page, id)).toHaveAttribute("data-state", "passed");
    }
    await expect(page.getByTestId("lesson-progress")).toHaveText("complete ✓");

    // Reset puts the starting files back and the checks fail again.
    await page.getByTestId("lesson-reset").click();
    await expect.poll(() => workspaceText(page, "src/pricing.js")).toContain("percent > 1000");
    await check(page);
    await expect(checkState(page, "bound-fixed")).toHaveAttribute("data-state", "failed");

    // Progress is the learner's, kept in this browser: a reload brings the lesson and its progress back.
    await runTool(page, "search", { query: "discount" }, { expectStatus: "success" });
    await check(page);
    await page.reload();
    await waitReady(page);
    await expect(panel).toBeVisible();
    await expect(checkState(page, "searched")).toHaveAttribute("data-state", "passed");
    await expect(page.getByTestId("lesson-progress")).toHaveText("complete ✓");
    await page.getByTestId("lesson-menu").locator("summary").click();
    await expect(page.getByTestId("lesson-menu")).toContainText("complete ✓");
  });

  test("the teacher's controls are enforced by the runtime, not only hidden", async ({ page }) => {
    await openApp(page);
    await page.getByTestId("lesson-menu").locator("summary").click();
    await page.getByTestId("lesson-menu").locator('[data-lesson="reading-and-searching"]').click();
    await expect(page.getByTestId("lesson-panel")).toBeVisible();
    const refused = await page.evaluate(async () => {
      const api = (
        window as unknown as {
          toolroom: {
            host: { api: { call(p: string, r: unknown): Promise<{ failure?: { code: string } }> } };
          };
        }
      ).toolroom.host.api;
      return (await api.call("agentbench", { tool: "run", params: { command: "cat README.md" } })).failure
        ?.code;
    });
    expect(refused).toBe("tool_not_allowed");
  });
});
