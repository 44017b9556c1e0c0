import { afterAll, describe, expect, it } from "vitest";
import { describeSandboxContract } from "../sandbox-contract.ts";
import { NodeContainer } from "./node-container.ts";
import { FrameReader } from "./runner.ts";
import { WebContainerSandbox } from "./webcontainer-sandbox.ts";

const created: { container: NodeContainer; sandbox: WebContainerSandbox }[] = [];
function create(): WebContainerSandbox {
  const container = NodeContainer.create();
  const sandbox = new WebContainerSandbox(container);
  created.push({ container, sandbox });
  return sandbox;
}
afterAll(async () => {
  for (const { container, sandbox } of created) {
    await sandbox.dispose();
    await container.destroy();
  }
});

// StackBlitz cannot be reached here: the backend runs its whole contract on a Node stand-in with
// WebContainer's shape (merged output stream, no stat in the fs API, a terminal for jsh).
describeSandboxContract("webcontainer backend on a Node stand-in", async () => create());

describe("webcontainer runner frames", () => {
  it("finds frames split across chunks and ignores what the terminal prints around them", () => {
    const reader = new FrameReader();
    const stream = "echoed input\r\n@@TR:out:0:aGk=:RT@@\r\nnoise @@TR:res:12:e30=:RT@@\n";
    const frames = [];
    for (let i = 0; i < stream.length; i += 5) frames.push(...reader.push(stream.slice(i, i + 5)));
    expect(frames.map((frame) => [frame.kind, frame.id, new TextDecoder().decode(frame.data)])).toEqual([
      ["out", "0", "hi"],
      ["res", "12", "{}"],
    ]);
  });

  it("keeps a multi-byte character that a chunk boundary splits", async () => {
    const sandbox = create();
    const result = await sandbox.exec(`node -e "process.stdout.write(Buffer.from('é'.repeat(70000)))"`);
    expect(result.stdout).toBe("é".repeat(70000));
  });
});
