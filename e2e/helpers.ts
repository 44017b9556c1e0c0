import { expect, type Page } from "@playwright/test";

/**
 * Opens the app with StackBlitz unreachable, as on a machine without internet (here it is
 * unreachable anyway; routing makes the test mean the same thing on a connected machine).
 */
export async function openApp(
  page: Page,
  path = "/",
  options: { tab?: "agent" | "console" } = {},
): Promise<number> {
  await page.route(/stackblitz\.com|staticblitz\.com|webcontainer/iu, (route) =>
    route.abort("internetdisconnected"),
  );
  const started = Date.now();
  await page.goto(path);

  await waitReady(page);
  const elapsed = Date.now() - started;
  // The agent's tab is what a visitor sees first; most tests here drive the console.
  await page.getByTestId(`tab-${options.tab ?? "console"}`).click();
  return elapsed;
}

export async function waitReady(page: Page): Promise<void> {
  await expect(page.getByTestId("app")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
}

/** Runs one tool from the console with the given form values; returns the envelope shown. */
export async function runTool(
  page: Page,
  tool: string,
  params: Record<string, string>,
  options: { requestId?: string; expectStatus?: "success" | "error"; timeout?: number } = {},
): Promise<Record<string, unknown>> {
  await page.getByTestId("console-tool").selectOption(tool);
  for (const [name, value] of Object.entries(params)) await page.getByTestId(`param-${name}`).fill(value);
  if (options.requestId) await page.getByLabel("request_id").fill(options.requestId);
  // textContent() waits for the element; before the first run there is none.
  const shown = page.getByTestId("console-envelope");
  const previous = (await shown.count()) > 0 ? await shown.textContent() : null;

  await page.getByTestId("console-run").click();
  const envelope = page.getByTestId("console-envelope");
  await expect(envelope).not.toHaveText(previous ?? "", { timeout: options.timeout ?? 20_000 });
  await expect(page.getByTestId("console-run")).toHaveText("Run", { timeout: options.timeout ?? 20_000 });
  if (options.expectStatus) await expect(page.getByTestId("console-status")).toHaveText(options.expectStatus);
  return JSON.parse((await envelope.textContent()) ?? "null") as Record<string, unknown>;
}

/** The text Monaco shows (its spaces are non-breaking in the DOM). */
export async function editorText(page: Page): Promise<string> {
  const lines = page.getByTestId("monaco-editor").locator(".view-lines");
  await expect(lines).toBeVisible();
  return ((await lines.innerText()) ?? "").replaceAll("\u00a0", " ");
}

export function treeRow(page: Page, path: string) {
  return page.getByTestId("file-tree").locator(`[data-path="${path}"]`);
}

/** A workspace file's text, read through the worker API the page exposes as window.toolroom. */
export async function workspaceText(page: Page, path: string): Promise<string> {
  return page.evaluate(
    async (file) =>
      (
        await (
          window as unknown as {
            toolroom: { host: { api: { readFile(path: string): Promise<{ text: string }> } } };
          }
        ).toolroom.host.api.readFile(file)
      ).text,
    path,
  );
}

/** Where focus is: the pane holding it, or the top bar / status bar. */
export function focusPlace(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { place: "body", keeper: false, ring: true };
    const pane = element.closest<HTMLElement>("[data-pane]")?.dataset.pane;
    const place =
      pane ?? (element.closest(".top-bar") ? "top" : element.closest(".status-bar") ? "status" : "other");
    const keeper = element.closest(".xterm, .monaco-editor") !== null;
    // A visible focus ring: on the element itself, or around the widget that draws its own caret.
    const ringed = element.closest<HTMLElement>(".terminal-host, .monaco-host") ?? element;
    const ring = getComputedStyle(ringed).outlineStyle !== "none";
    return { place, keeper, ring, what: `${element.tagName}.${element.className}` };
  });
}

/**
 * Presses Tab from the top of the page until focus has been through the last pane and come back to
 * the top bar, leaving a widget that keeps Tab (the terminal, Monaco) the documented way: Escape, then Tab.
 * Gives the places focus went through, in order, and the stops drawn without a focus ring.
 */
export async function tabWalk(
  page: Page,
  options: { last?: string; track?: string[] } = {},
): Promise<{ visited: string[]; unringed: string[]; reached: string[] }> {
  const last = options.last ?? "tools";
  const reached = new Set<string>();
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const visited: string[] = [];
  const unringed: string[] = [];
  for (let press = 0; press < 300; press++) {
    const before = await focusPlace(page);
    if (before.keeper) await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
    const now = await focusPlace(page);
    if (!now.ring) unringed.push(now.what ?? now.place);
    if (visited.at(-1) !== now.place) visited.push(now.place);
    for (const selector of await page.evaluate(
      (selectors) => selectors.filter((selector) => document.activeElement?.closest(selector)),
      options.track ?? [],
    ))
      reached.add(selector);
    if (visited.includes(last) && now.place === "top") break;
  }
  return { visited, unringed, reached: [...reached] };
}
