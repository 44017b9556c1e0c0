import { expect, test } from "@playwright/test";
import { focusPlace, openApp, runTool, tabWalk, treeRow, waitReady } from "./helpers.ts";

test.describe("keyboard", () => {
  test("Tab walks through every pane and back to the top bar, leaving the terminal and editor with Escape then Tab, always with a visible focus ring", async ({
    page,
  }) => {
    await openApp(page);
    await treeRow(page, "README.md").click();
    await expect(page.getByTestId("monaco-editor").locator(".view-lines")).toBeVisible();
    const { visited, unringed } = await tabWalk(page);
    for (const pane of ["files", "editor", "terminal", "log", "tools"]) expect(visited).toContain(pane);
    // No trap: after the last pane, focus comes round to the top bar again.
    expect(visited.slice(visited.indexOf("tools"))).toContain("top");
    expect(visited.indexOf("files")).toBeLessThan(visited.indexOf("terminal"));
    expect(visited.indexOf("terminal")).toBeLessThan(visited.indexOf("log"));
    expect(unringed).toEqual([]);
    await expect(page.getByTestId("terminal-keys")).toBeVisible();
  });

  test("Alt+digit jumps to a pane and F6 moves to the next one, from inside the terminal too; a collapsed pane opens", async ({
    page,
  }) => {
    await openApp(page);
    // xterm is loaded after the page is ready; a click before it lands on an empty host.
    await expect(page.getByTestId("terminal").locator(".xterm-rows")).toBeVisible();
    await page.getByTestId("terminal").click();
    await expect.poll(async () => (await focusPlace(page)).place).toBe("terminal");
    await page.keyboard.press("Alt+4");
    await expect.poll(async () => (await focusPlace(page)).place).toBe("log");
    await page.keyboard.press("F6");
    await expect.poll(async () => (await focusPlace(page)).place).toBe("tools");
    await page.keyboard.press("Shift+F6");
    await expect.poll(async () => (await focusPlace(page)).place).toBe("log");
    await page.keyboard.press("Alt+1");
    await expect.poll(async () => (await focusPlace(page)).place).toBe("files");
    await expect(page.getByTestId("file-tree")).toBeFocused();
    // Collapsed, the terminal opens again when its shortcut is pressed.
    await page.getByTestId("toggle-terminal").click();
    await expect(page.getByTestId("toggle-terminal")).toHaveAttribute("aria-expanded", "false");
    await page.keyboard.press("Alt+3");
    await expect(page.getByTestId("toggle-terminal")).toHaveAttribute("aria-expanded", "true");
    await expect.poll(async () => (await focusPlace(page)).place).toBe("terminal");
  });
});

test.describe("layout at 1280×720", () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test("with a result in the console, Run stays in view and uncovered; log rows never collide and durations are whole", async ({
    page,
  }) => {
    await openApp(page);
    await runTool(page, "run", { command: "npm test" });
    await runTool(page, "list_files", {}, { expectStatus: "success" });
    const run = page.getByTestId("console-run");
    await expect(run).toBeInViewport({ ratio: 1 });
    const box = (await run.boundingBox())!;
    const hit = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x!, y!)?.closest("[data-testid]")?.getAttribute("data-testid"),
      [box.x + box.width / 2, box.y + box.height / 2],
    );
    expect(hit).toBe("console-run");
    // Every visible row: its cells side by side, none cut (a cut cell is wider inside than shown).
    const rows = await page
      .getByTestId("event-log")
      .locator(".event-row")
      .evaluateAll((elements) =>
        elements.map((row) => {
          const cells = [...row.querySelectorAll<HTMLElement>("span")].filter(
            (cell) => cell.getClientRects().length > 0,
          );
          const boxes = cells.map((cell) => cell.getBoundingClientRect());
          const overlaps = boxes.some((box, at) => at > 0 && box.left < boxes[at - 1]!.right - 0.5);
          const duration = row.querySelector<HTMLElement>(".duration")!;
          return {
            overlaps,
            durationCut: duration.scrollWidth > duration.clientWidth + 1,
            typeCut: (() => {
              const type = row.querySelector<HTMLElement>(".type")!;
              return type.scrollWidth > type.clientWidth + 1;
            })(),
          };
        }),
      );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.filter((row) => row.overlaps)).toEqual([]);
    expect(rows.filter((row) => row.durationCut)).toEqual([]);
    expect(rows.filter((row) => row.typeCut)).toEqual([]);
  });

  test("panes resize with the keyboard and collapse; the layout is remembered per workspace, across a reload", async ({
    page,
  }) => {
    await openApp(page);
    const terminal = page.locator('[data-pane="terminal"]');
    const heightOf = async () => (await terminal.boundingBox())!.height;
    const before = await heightOf();
    const separator = page.getByRole("separator", { name: "Resize the editor and the terminal" });
    await separator.focus();
    for (let step = 0; step < 5; step++) await page.keyboard.press("ArrowUp");
    await expect.poll(heightOf).toBeGreaterThan(before + 20);
    const resized = await heightOf();
    await page.getByTestId("toggle-log").click();
    await expect(page.getByTestId("toggle-log")).toHaveAttribute("aria-expanded", "false");
    await page.waitForTimeout(300);

    await page.reload();
    await waitReady(page);
    await expect.poll(heightOf).toBeCloseTo(resized, -1);
    await expect(page.getByTestId("toggle-log")).toHaveAttribute("aria-expanded", "false");

    // Another workspace has its own layout (here the first one's default), and the first keeps its own.
    await page.getByText("Workspace actions").click();
    await page.getByTestId("new-workspace").click();
    await page.getByTestId("create-workspace").click();
    await expect(page.getByTestId("workspace-select").locator("option")).toHaveCount(2);
    await expect(page.getByTestId("toggle-log")).toHaveAttribute("aria-expanded", "true");
    await expect.poll(heightOf).toBeCloseTo(before, -1);
    const first = await page.getByTestId("workspace-select").locator("option").first().getAttribute("value");
    await page.getByTestId("workspace-select").selectOption(first!);
    await expect(page.getByTestId("toggle-log")).toHaveAttribute("aria-expanded", "false");
    await expect.poll(heightOf).toBeCloseTo(resized, -1);
  });

  test("the top bar keeps one row with a long workspace name, shortened with the full name as its title", async ({
    page,
  }) => {
    await openApp(page);
    const bar = page.locator(".top-bar");
    const height = (await bar.boundingBox())!.height;
    const long = "A workspace with a very long name that would wrap the bar onto two rows ".repeat(2).trim();
    await page.getByText("Workspace actions").click();
    await page.getByRole("button", { name: /^Rename “/u }).click();
    await page.getByLabel("New name").fill(long);
    await page.locator(".workspace-menu").getByRole("button", { name: "Rename", exact: true }).click();
    await expect(page.getByTestId("workspace-select")).toHaveAttribute("title", long);
    expect((await bar.boundingBox())!.height).toBe(height);
    const overflow = await bar.evaluate((element) => element.scrollWidth - element.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  test("messages sit in the status bar, never over a pane; information goes by itself, an error stays until dismissed", async ({
    page,
  }) => {
    await openApp(page);
    await page.evaluate(() => {
      const { model } = (
        window as unknown as { toolroom: { model: { notify(tone: string, text: string): void } } }
      ).toolroom;
      model.notify("error", "Something failed: do this next.");
      model.notify("ok", "Saved.");
    });
    const notices = page.getByTestId("notice");
    await expect(notices).toHaveCount(2);
    const bar = (await page.getByTestId("status-bar").boundingBox())!;
    const workbench = (await page.getByTestId("workbench").boundingBox())!;
    expect(bar.y).toBeGreaterThanOrEqual(workbench.y + workbench.height - 1);
    await expect(notices).toHaveCount(1, { timeout: 10_000 });
    await expect(notices.first()).toContainText("Something failed");
    await page.waitForTimeout(1000);
    await expect(notices).toHaveCount(1);
    await notices.first().getByRole("button", { name: "Dismiss" }).click();
    await expect(notices).toHaveCount(0);
    // What went by can be read again.
    await page.getByTestId("notice-history").locator("summary").click();
    await expect(page.getByTestId("notice-history")).toContainText("Saved.");
  });

  test("the Lessons menu lists each lesson on its own line, titles aligned at one edge", async ({ page }) => {
    await openApp(page);
    await page.getByTestId("lesson-menu").locator("summary").click();
    const lefts = await page
      .getByTestId("lesson-menu")
      .locator("[data-lesson]")
      .evaluateAll((buttons) => buttons.map((button) => Math.round(button.getBoundingClientRect().left)));
    expect(lefts.length).toBeGreaterThan(3);
    expect(new Set(lefts).size).toBe(1);
  });
});
