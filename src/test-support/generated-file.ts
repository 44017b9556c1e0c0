import { readFileSync, writeFileSync } from "node:fs";
import { expect } from "vitest";

/**
 * A file made ahead from the project's own sources and kept in the repository: rewritten when the
 * test runs with UPDATE_GENERATED=1, else the test fails unless the file holds exactly `text`.
 */
export function expectCurrent(file: URL, text: string, test: string): void {
  if (process.env.UPDATE_GENERATED) writeFileSync(file, text);
  else
    expect(
      readFileSync(file, "utf8"),
      `${file.pathname} is out of date: run UPDATE_GENERATED=1 npx vitest run ${test}`,
    ).toBe(text);
}
