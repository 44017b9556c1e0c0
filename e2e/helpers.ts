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
