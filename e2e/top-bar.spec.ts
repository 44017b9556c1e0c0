import { expect, test } from "@playwright/test";
import { openApp } from "./helpers.ts";

const LONG = "A workspace with a very long name that would wrap the bar onto two rows ".repeat(2).trim();

for (const viewport of [
  { width: 1024, height: 720 },
  { width: 1280, height: 720 },
]) {
  test.describe(`top bar at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test("with a long workspace name the bar keeps one row, and every menu it opens lies inside the window with its buttons whole or shortened", async ({
      page,
    }) => {
      await openApp(page);
      const bar = page.locator(".top-bar");
      const height = (await bar.boundingBox())!.height;
      await page.getByText("Workspace actions").click();
      await page.getByRole("button", { name: /^Rename “/u }).click();
      await page.getByLabel("New name").fill(LONG);
      await page.locator(".workspace-menu").getByRole("button", { name: "Rename", exact: true }).click();
      await expect(page.getByTestId("workspace-select")).toHaveAttribute("title", LONG);
      expect((await bar.boundingBox())!.height).toBe(height);
      // The bar's own controls all fit: nothing hidden past its right edge.
      const barRight = await bar.evaluate((element) =>
        Math.max(...[...element.children].map((child) => child.getBoundingClientRect().right)),
      );
      expect(barRight).toBeLessThanOrEqual(viewport.width);

      const menus = bar.locator("details.menu");
      const count = await menus.count();
      expect(count).toBeGreaterThanOrEqual(4);
      for (let at = 0; at < count; at++) {
        const menu = menus.nth(at);
        await menu.locator("summary").click();
        const body = menu.locator(".menu-body").first();
        await expect(body).toBeVisible();
        const placed = await body.evaluate((element) => {
          const box = element.getBoundingClientRect();
          // Controls narrower than the menu (a long name is cut with an ellipsis, not spilling out).
          const spilled = [...element.querySelectorAll<HTMLElement>("button")]
            .filter((button) => button.getClientRects().length > 0)
            .filter((button) => button.getBoundingClientRect().right > box.right + 0.5)
            .map((button) => button.textContent);
          return {
            left: box.left,
            right: box.right,
            spilled,
            menu: element.parentElement?.textContent?.slice(0, 30),
          };
        });
        expect(placed.left, placed.menu).toBeGreaterThanOrEqual(0);
        expect(placed.right, placed.menu).toBeLessThanOrEqual(viewport.width);
        expect(placed.spilled, placed.menu).toEqual([]);
        await menu.locator("summary").click();
        await expect(body).toBeHidden();
      }
      // The long name is in the menu, shortened, and its full text is its accessible name.
      await page.getByText("Workspace actions").click();
      await expect(page.getByRole("button", { name: `Rename “${LONG}”…` })).toBeVisible();
    });
  });
}
