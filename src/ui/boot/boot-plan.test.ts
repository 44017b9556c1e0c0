import { describe, expect, it } from "vitest";
import { planBoot } from "./boot-plan.ts";
import { describeSupport, detectBrowserSupport } from "./browser-support.ts";

const page = (overrides: Record<string, unknown> = {}) =>
  detectBrowserSupport({
    crossOriginIsolated: true,
    SharedArrayBuffer: () => undefined,
    indexedDB: {},
    Worker: () => undefined,
    navigator: { onLine: true },
    ...overrides,
  });

describe("boot plan", () => {
  it("tries a WebContainer in auto mode on an isolated, online page", () => {
    expect(planBoot("auto", page())).toEqual({ tryWebContainer: true });
    expect(planBoot("webcontainer", page())).toEqual({ tryWebContainer: true });
  });

  it("skips it, saying why, when the page is not isolated, offline, or the embedded sandbox is chosen", () => {
    expect(planBoot("auto", page({ crossOriginIsolated: false }))).toMatchObject({
      tryWebContainer: false,
      reason: expect.stringMatching(/cross-origin isolated/u),
    });
    expect(planBoot("webcontainer", page({ navigator: { onLine: false } }))).toMatchObject({
      reason: expect.stringMatching(/offline/u),
    });
    expect(planBoot("embedded", page())).toMatchObject({ reason: expect.stringMatching(/Settings/u) });
  });

  it("explains what a missing feature means for the page", () => {
    const lines = describeSupport(page({ showDirectoryPicker: undefined, indexedDB: undefined }));
    expect(lines.find((line) => line.key === "fileSystemAccess")).toMatchObject({ ok: false });
    expect(lines.find((line) => line.key === "indexedDb")?.meaning).toMatch(/reload/u);
  });
});
