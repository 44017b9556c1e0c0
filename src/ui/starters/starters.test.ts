import { describe, expect, it } from "vitest";
import { createEmbeddedSandbox } from "../../host/create-runtime.ts";
import { deserializeWorkspace } from "../../sandbox/snapshot.ts";
import { seedFromStarter } from "./index.ts";

describe("starters", () => {
  it("the Node starter is the embedded node's fixture, and its test fails on the embedded sandbox", async () => {
    const seed = seedFromStarter("node");
    expect(Object.keys(seed.files.files).sort()).toEqual([
      "README.md",
      "package.json",
      "src/cart.js",
      "src/main.js",
      "test/cart.test.js",
    ]);
    const sandbox = await createEmbeddedSandbox();
    await sandbox.restore(deserializeWorkspace(seed.files));
    const result = await sandbox.exec("npm test", { timeoutMs: 60_000 });
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toMatch(/counts quantities in the total/u);
  });
});
