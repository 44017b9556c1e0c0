import { expect, test } from "@playwright/test";
import { openApp, runTool, treeRow } from "./helpers.ts";

test("switching back to a workspace shows its own open file, and none of the other's event details or console result", async ({
  page,
}) => {
  await openApp(page);
  await treeRow(page, "README.md").click();
  await expect(page.getByTestId("editor-path")).toHaveText("README.md");
  const first = await page.getByTestId("workspace-select").inputValue();

  await page.getByText("Workspace actions").click();
  await page.getByTestId("new-workspace").click();
  await page.getByTestId("create-workspace").click();
  await expect(page.getByTestId("workspace-select").locator("option")).toHaveCount(2);
  await page.getByTestId("tab-console").click();
  await runTool(page, "run", { command: "echo b > b.txt" }, { requestId: "in-b", expectStatus: "success" });
  await treeRow(page, "b.txt").click();
  await expect(page.getByTestId("editor-path")).toHaveText("b.txt");
  await page
    .getByTestId("event-log")
    .locator('[data-type="tool_call_finished"][data-request="in-b"]')
    .click();
  await expect(page.getByTestId("event-details")).toBeVisible();
  await expect(page.getByTestId("console-result")).toBeVisible();

  await page.getByTestId("workspace-select").selectOption(first);
  await expect(treeRow(page, "b.txt")).toHaveCount(0);
  await expect(page.getByTestId("editor-path")).toHaveText("README.md");
  await expect(treeRow(page, "README.md")).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("event-details")).toHaveCount(0);
  await page.getByTestId("tab-console").click();
  await expect(page.getByTestId("console-result")).toHaveCount(0);
  await expect(page.getByTestId("event-log").locator('[data-request="in-b"]')).toHaveCount(0);
});

test("a workspace switch keeps the console's dialect and tool (what the person is doing), not its result", async ({
  page,
}) => {
  await openApp(page);
  await page.getByTestId("tab-console").click();
  await page.getByTestId("console-profile").selectOption("coding-agent");
  await runTool(page, "shell", { command: "echo kept" }, { expectStatus: "success" });
  await expect(page.getByTestId("console-result")).toBeVisible();

  await page.getByText("Workspace actions").click();
  await page.getByTestId("new-workspace").click();
  await page.getByTestId("create-workspace").click();
  await expect(page.getByTestId("workspace-select").locator("option")).toHaveCount(2);
  await page.getByTestId("tab-console").click();
  await expect(page.getByTestId("console-profile")).toHaveValue("coding-agent");
  await expect(page.getByTestId("console-tool")).toHaveValue("shell");
  await expect(page.getByTestId("console-result")).toHaveCount(0);
});
