import { buildCli } from "../../scripts/build-cli.mjs";

/**
 * vitest's global set-up: the CLI tests run bin/toolroom, which runs the bundle when it is built from
 * these sources. A source that does not build fails cli-bundle.test.ts, not every other test file
 * (bin/toolroom then runs from source).
 */
export async function setup(): Promise<void> {
  try {
    await buildCli();
  } catch (error) {
    console.error(`toolroom: could not build the CLI bundle: ${(error as Error).message}`);
  }
}
