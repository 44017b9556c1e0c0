import { createServer } from "node:net";
import { defineConfig } from "@playwright/test";

/** A port nobody listens on: several checkouts (or CI jobs) can run the suite at once. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 4317));
    });
  });
}

// Chosen once in the runner; its workers inherit the environment and so agree on it.
process.env.TOOLROOM_E2E_PORT ??= String(await freePort());
const PORT = Number(process.env.TOOLROOM_E2E_PORT);

/** End-to-end tests against the built app (`vite build` runs first, in npm run test:e2e), in Debian's headless Chromium. */
export default defineConfig({
  testDir: "e2e",
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    screenshot: "only-on-failure",
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
      ],
    },
  },
  webServer: {
    command: `npx vite preview --port ${PORT} --strictPort --host 127.0.0.1`,
    url: `http://127.0.0.1:${PORT}`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
