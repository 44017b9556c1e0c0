import { createEmbeddedSandbox } from "../../host/create-runtime.ts";
import { registerNodeAssets } from "../../host/node-assets.ts";
import type { EmbeddedSandbox } from "../embedded/embedded-sandbox.ts";

/**
 * An embedded sandbox whose python3 has run once: the first run starts the Python worker and
 * compiles CPython (tens of seconds on a loaded machine), which no test's own timing should hold.
 * For a suite's beforeAll, with a timeout of 180 s.
 */
export async function pythonReadySandbox(): Promise<EmbeddedSandbox> {
  registerNodeAssets();
  const box = await createEmbeddedSandbox();
  await box.exec("python3 -c pass", { timeoutMs: 120_000 });
  return box;
}
