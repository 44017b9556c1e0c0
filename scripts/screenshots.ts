/**
 * Screenshots of the main screens at 1280×720 and 1440×900 for the README, taken in Debian's
 * Chromium against the built app: `npm run build && npx tsx scripts/screenshots.ts [outDir]`.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { chromium, type Page } from "playwright-core";

const PORT = 4399;
const BASE = `http://127.0.0.1:${PORT}`;
const out = process.argv[2] ?? "docs/screenshots";
const only = process.argv[3];

async function main(): Promise<void> {
  const server = spawn(
    "npx",
    ["vite", "preview", "--port", String(PORT), "--strictPort", "--host", "127.0.0.1"],
    {
      stdio: "ignore",
    },
  );
  try {
    await waitForServer();
    await mkdir(out, { recursive: true });
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
    for (const [width, height] of [
      [1280, 720],
      [1440, 900],
    ] as const) {
      for (const [name, setUp] of Object.entries(SCREENS)) {
        if (only && name !== only) continue;
        const context = await browser.newContext({ viewport: { width, height } });
        const page = await context.newPage();
        await page.route(/stackblitz\.com|staticblitz\.com|webcontainer/iu, (route) =>
          route.abort("internetdisconnected"),
        );
        await setUp(page);
        await page.mouse.move(0, 0);
        await page.screenshot({ path: `${out}/${name}-${width}x${height}.png` });
        await context.close();
        console.log(`${out}/${name}-${width}x${height}.png`);
      }
    }
    await browser.close();
  } finally {
    server.kill();
  }
}

async function ready(page: Page, path = "/"): Promise<void> {
  await page.goto(`${BASE}${path}`);
  await page.locator('[data-ready="true"]').waitFor({ timeout: 30_000 });
}

async function runInConsole(page: Page, tool: string, params: Record<string, string>): Promise<void> {
  await page.getByTestId("tab-console").click();
  await page.getByTestId("console-tool").selectOption(tool);
  for (const [name, value] of Object.entries(params)) await page.getByTestId(`param-${name}`).fill(value);
  await page.getByTestId("console-run").click();
  await page.getByTestId("console-status").waitFor();
  await page.getByTestId("console-run").filter({ hasText: /^Run$/u }).waitFor();
}

const SCREENS: Record<string, (page: Page) => Promise<void>> = {
  boot: async (page) => ready(page),
  "open-file": async (page) => {
    await ready(page);
    await page.getByTestId("file-tree").locator('[data-path="src"]').click();
    await page.getByTestId("file-tree").locator('[data-path="src/cart.js"]').click();
    await page.locator(".monaco-editor .view-lines").waitFor();
    await page.waitForTimeout(300);
  },
  console: async (page) => {
    await ready(page);
    await runInConsole(page, "run", { command: "npm test" });
    await page.waitForTimeout(200);
  },
  replay: async (page) => {
    await ready(page);
    await page.getByTestId("sessions-menu").locator("summary").click();
    await page.getByTestId("sessions-menu").locator("[data-demo]").first().click();
    await page.getByTestId("replay-summary").waitFor({ timeout: 60_000 });
  },
  lesson: async (page) => {
    await ready(page);
    await page.getByTestId("lesson-menu").locator("summary").click();
    await page.getByTestId("lesson-menu").locator("[data-lesson]").first().click();
    await page.getByTestId("lesson-panel").waitFor();
    await page.getByTestId("lesson-check").click();
    await page.waitForTimeout(300);
  },
};

async function waitForServer(): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(BASE)).ok) return;
    } catch {
      // Not up yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`vite preview did not answer on ${BASE}`);
}

await main();
