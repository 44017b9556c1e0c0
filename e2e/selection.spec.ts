import { expect, test } from "@playwright/test";
import { editorText, openApp, runTool, treeRow, waitReady } from "./helpers.ts";

test.describe("one selection", () => {
  test("a folder picked in the tree never renames the editor over a file's text, and a restore in that state shows the restored text", async ({
    page,
  }) => {
    await openApp(page);
    await runTool(page, "run", { command: "echo v1 > notes.txt" }, { expectStatus: "success" });
    await treeRow(page, "notes.txt").click();
    await expect.poll(() => editorText(page)).toContain("v1");
    await runTool(
      page,
      "run",
      { command: "echo v2 > notes.txt" },
      { requestId: "second", expectStatus: "success" },
    );
    await expect.poll(() => editorText(page)).toContain("v2");
    await treeRow(page, "src").click();
    await expect(treeRow(page, "src")).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("editor-path")).toHaveText("notes.txt");
    await page
      .getByTestId("event-log")
      .locator('[data-type="tool_call_finished"][data-request="second"]')
      .click();
    await page.getByRole("button", { name: "Restore to before this call" }).click();
    await expect.poll(() => editorText(page)).toContain("v1");
    await expect(page.getByTestId("editor-path")).toHaveText("notes.txt");
  });

  test("another workspace starts with no event details, console result or open file of the first", async ({
    page,
  }) => {
    await openApp(page);
    await runTool(
      page,
      "run",
      { command: "echo here > here.txt" },
      { requestId: "mine", expectStatus: "success" },
    );
    await treeRow(page, "README.md").click();
    await expect(page.getByTestId("editor-path")).toHaveText("README.md");
    await page
      .getByTestId("event-log")
      .locator('[data-type="tool_call_finished"][data-request="mine"]')
      .click();
    await expect(page.getByTestId("event-details")).toBeVisible();
    await expect(page.getByTestId("console-result")).toBeVisible();

    await page.getByText("Workspace actions").click();
    await page.getByTestId("new-workspace").click();
    await page.getByTestId("create-workspace").click();
    await expect(page.getByTestId("workspace-select").locator("option")).toHaveCount(2);
    await expect(page.getByTestId("event-details")).toHaveCount(0);
    await page.getByTestId("tab-console").click();
    await expect(page.getByTestId("console-result")).toHaveCount(0);
    await expect(page.getByTestId("editor-path")).toHaveCount(0);
    await expect(treeRow(page, "here.txt")).toHaveCount(0);
  });

  test("after a reload the open file comes back, scrolled where it was", async ({ page }) => {
    await openApp(page);
    await runTool(page, "run", { command: "seq 1 400 > long.txt" }, { expectStatus: "success" });
    await treeRow(page, "long.txt").click();
    const editor = page.getByTestId("monaco-editor");
    await expect(editor.locator(".view-lines")).toBeVisible();
    await editor.locator(".view-lines").click();
    await page.keyboard.press("ControlOrMeta+End");
    const firstLine = async () =>
      Math.min(...(await editor.locator(".line-numbers").allInnerTexts()).map((text) => Number(text.trim())));
    await expect.poll(firstLine).toBeGreaterThan(100);
    const before = await firstLine();
    await page.waitForTimeout(500);

    await page.reload();
    await waitReady(page);
    await expect(page.getByTestId("editor-path")).toHaveText("long.txt");
    await expect(editor.locator(".view-lines")).toBeVisible();
    await expect.poll(firstLine).toBeGreaterThan(before - 5);
  });
});
