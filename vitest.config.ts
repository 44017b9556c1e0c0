import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "bin/**/*.test.ts"],
    testTimeout: 30_000,
    pool: "forks",
    globalSetup: ["src/test-support/build-cli-setup.ts"],
  },
});
