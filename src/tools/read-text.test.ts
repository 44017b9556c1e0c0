import { describe, expect, it } from "vitest";
import { createToolContext } from "../core/tool-context.ts";
import { loadFiles } from "../host/create-runtime.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { lineSlice, readTextFile } from "./read-text.ts";

async function setup(files: Record<string, string>) {
  const sandbox = await EmbeddedSandbox.create();
  await loadFiles(sandbox, files);
  return createToolContext(sandbox);
}

describe("readTextFile", () => {
  it("refuses a file over maxBytes before reading it, naming the limit", async () => {
    const context = await setup({ "big.txt": "x".repeat(101), "ok.txt": "x".repeat(100) });
    await expect(readTextFile(context, "big.txt", { maxBytes: 100 })).rejects.toMatchObject({
      code: "limit_exceeded",
      message: "big.txt is 101 bytes, over the 100 bytes file size limit (max_file_size).",
      details: { limit: "max_file_size", limit_bytes: 100, size_bytes: 101 },
    });
    expect((await readTextFile(context, "ok.txt", { maxBytes: 100 })).bytes).toBe(100);
    await expect(
      readTextFile(context, "big.txt", { maxBytes: 100, limitName: "max_input" }),
    ).rejects.toMatchObject({
      details: { limit: "max_input" },
    });
  });

  it("still takes the parameter name as a string", async () => {
    const context = await setup({});
    await expect(readTextFile(context, "../x", "file")).rejects.toMatchObject({
      message: expect.stringMatching(/^file /u),
    });
  });
});

describe("lineSlice", () => {
  it("slices 0-based with line endings normalised, keeping a missing final newline", async () => {
    const context = await setup({ "a.txt": "a\r\nb\nc", "empty.txt": "" });
    const file = await readTextFile(context, "a.txt");
    expect(lineSlice(file, 0, 2)).toEqual({ text: "a\nb\n", truncated: true });
    expect(lineSlice(file, 1, 5)).toEqual({ text: "b\nc", truncated: false });
    expect(() => lineSlice(file, 3, 1)).toThrow(/offset 3 is past the end of a\.txt, which has 3 lines/u);
    expect(lineSlice(await readTextFile(context, "empty.txt"), 0, 10)).toEqual({
      text: "",
      truncated: false,
    });
  });
});
