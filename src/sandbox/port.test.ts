import { expose, proxy, wrap } from "comlink";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "./embedded/embedded-sandbox.ts";
import { createNodeCommands } from "./embedded/node/index.ts";
import { RemoteSandbox, type SandboxPort, sandboxPort } from "./port.ts";
import { describeSandboxContract } from "./sandbox-contract.ts";
import { isSandboxError } from "./types.ts";

const channels: MessageChannel[] = [];
afterAll(() => {
  for (const channel of channels) {
    channel.port1.close();
    channel.port2.close();
  }
});

/** The embedded sandbox on one end of a MessageChannel, the worker's RemoteSandbox on the other. */
async function connected(): Promise<RemoteSandbox> {
  const channel = new MessageChannel();
  channels.push(channel);
  // With node, as the app builds it: the contract runs node programs in live sessions.
  expose(proxy(sandboxPort(await EmbeddedSandbox.create({ commands: createNodeCommands() }))), channel.port1);
  return RemoteSandbox.connect(wrap<SandboxPort>(channel.port2));
}

// The same contract, across a thread boundary: error codes, bytes, cancellation and PTYs survive comlink.
describeSandboxContract("any sandbox through the comlink port", connected);

describe("sandbox port", () => {
  it("keeps a SandboxError's code and path across the boundary", async () => {
    const sandbox = await connected();
    const error = await sandbox.readFile("/workspace/missing.txt").catch((caught: unknown) => caught);
    expect(isSandboxError(error, "ENOENT")).toBe(true);
    expect((error as { path: string }).path).toBe("/workspace/missing.txt");
  });
});
