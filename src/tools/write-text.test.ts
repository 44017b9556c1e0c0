import { describe, expect, it } from "vitest";
import { createToolContext } from "../core/tool-context.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { replaceText } from "./replace-text.ts";
import { writeTextFile } from "./write-text.ts";

async function setup() {
  const sandbox = await EmbeddedSandbox.create();
  return { sandbox, context: createToolContext(sandbox) };
}

describe("writeTextFile", () => {
  it("writes bytes as they are, creating parents", async () => {
    const { sandbox, context } = await setup();
    const bytes = new Uint8Array([0, 159, 146, 150, 255]);
    const written = await writeTextFile(context, "downloads/blob.bin", bytes);
    expect(written).toMatchObject({ bytesWritten: 5, size: 5, created: true, dirsCreated: ["downloads"] });
    expect(Array.from(await sandbox.readFile("/workspace/downloads/blob.bin"))).toEqual(Array.from(bytes));
  });

  it("names the limit when the file would be too large", async () => {
    const { context } = await setup();
    await writeTextFile(context, "log.txt", "12345");
    await expect(
      writeTextFile(context, "log.txt", "678", { append: true, maxBytes: 7 }),
    ).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining(
        "over the 7 bytes file size limit (max_file_size); nothing was written",
      ),
    });
  });
});

describe("replaceText", () => {
  it("with allowNoMatch, reports zero hits and writes nothing", async () => {
    const { sandbox, context } = await setup();
    await writeTextFile(context, "a.txt", "abc");
    const result = await replaceText(context, "a.txt", "zzz", "y", { mode: "all", allowNoMatch: true });
    expect(result).toMatchObject({ hits: 0, before: "abc", after: "abc" });
    expect(new TextDecoder().decode(await sandbox.readFile("/workspace/a.txt"))).toBe("abc");
    await expect(replaceText(context, "a.txt", "zzz", "y", { mode: "all" })).rejects.toMatchObject({
      code: "match_not_found",
    });
  });

  it("names the replacement limit", async () => {
    const { context } = await setup();
    await writeTextFile(context, "a.txt", "x x x");
    await expect(
      replaceText(context, "a.txt", "x", "y", { mode: "all", maxReplacements: 2 }),
    ).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("over the limit of 2 (max_replacements)"),
    });
  });
});
