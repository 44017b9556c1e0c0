import { expect, test } from "@playwright/test";
import { openApp, workspaceText } from "./helpers.ts";

test.describe("replay a viewer can watch", () => {
  test("plays at the chosen pace, pauses, steps, plays again, and follows the playhead back and forth", async ({
    page,
  }) => {
    await openApp(page);
    await page.getByTestId("sessions-menu").locator("summary").click();
    // A demo plays as it opens; the viewer pauses it at once.
    await page.getByTestId("sessions-menu").locator('[data-demo="fix-failing-test"]').click();
    await expect(page.getByTestId("replay-panel")).toBeVisible();
    await page.getByTestId("replay-pause").click();
    await expect(page.getByTestId("replay-play")).toBeVisible();
    const playhead = page.getByTestId("replay-playhead");
    const done = async () => Number(await playhead.inputValue());
    const paused = await done();
    expect(paused).toBeLessThan(4);
    await page.waitForTimeout(1200);
    expect(await done()).toBe(paused);

    // The slowest pace: one step every two seconds, so a step shows before the next.
    await page.getByTestId("replay-pace").selectOption("0.5");
    await page.getByTestId("replay-play").click();
    await expect(page.getByTestId("replay-pause")).toBeVisible();
    await expect.poll(done).toBeGreaterThan(paused);
    await page.getByTestId("replay-pause").click();
    const later = await done();
    if (later < 4) {
      await page.getByTestId("replay-step-button").click();
      await expect.poll(done).toBe(later + 1);
    }
    // To the end with the playhead, then back to the start: the workspace goes back with it.
    await playhead.focus();
    await page.keyboard.press("End");
    await expect.poll(done).toBe(4);
    await expect(page.getByTestId("replay-summary")).toContainText("matched");
    await expect.poll(() => workspaceText(page, "src/cart.js")).toContain("item.priceCents * item.quantity");
    await page.keyboard.press("Home");
    await expect(page.getByTestId("replay-step").first()).toHaveAttribute("data-verdict", "pending");
    await expect.poll(() => workspaceText(page, "src/cart.js")).not.toContain("* item.quantity");

    // Fast, to the end, then Play again from the first step.
    await page.getByTestId("replay-pace").selectOption("0");
    await page.getByTestId("replay-play").click();
    await expect(page.getByTestId("replay-play")).toHaveText("Play again");
    await expect(page.getByTestId("replay-progress")).toContainText("4/4 · 4 matched");
    await page.getByTestId("replay-play").click();
    await expect(page.getByTestId("replay-play")).toHaveText("Play again");
    await expect(page.getByTestId("replay-progress")).toContainText("4/4 · 4 matched · 0 diverged");
  });
});
