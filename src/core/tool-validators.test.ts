import Ajv from "ajv";
import { describe, expect, it, vi } from "vitest";
import { PROFILES } from "../profiles/index.ts";
import { expectCurrent } from "../test-support/generated-file.ts";
import { validatorModule } from "../test-support/validators-made-ahead.ts";
import { editorProfile } from "../worker/editor-profile.ts";
import { schemaKey, TOOL_VALIDATION, validateParams, validationSchema } from "./schema.ts";
import { TOOL_VALIDATORS } from "./tool-validators.generated.ts";

const FILE = new URL("./tool-validators.generated.ts", import.meta.url);
const UPDATE = "src/core/tool-validators.test.ts";
const TOOLS = [...PROFILES, editorProfile].flatMap((profile) =>
  profile.tools.map((tool) => ({ name: `${profile.name}/${tool.name}`, schema: tool.inputSchema })),
);

describe("tools' validators made ahead", () => {
  it("are Ajv's standalone code for every tool's schema of every dialect (the file is current)", async () => {
    const ajv = new Ajv({ ...TOOL_VALIDATION, code: { source: true, esm: true } });
    const ids: string[] = [];
    for (const { schema } of TOOLS) {
      const id = await schemaKey(validationSchema(schema));
      if (ids.includes(id)) continue;
      ajv.addSchema(validationSchema(schema), id);
      ids.push(id);
    }
    expectCurrent(
      FILE,
      validatorModule(ajv, ids, "TOOL_VALIDATORS", "src/core/tool-validators.test.ts"),
      UPDATE,
    );
  });

  it("answer as Ajv compiling the schema at run time does: defaults, every problem, the same errors", async () => {
    const ajv = new Ajv({ ...TOOL_VALIDATION });
    const samples: unknown[] = [
      {},
      { path: "a.txt" },
      { path: 3, extra: true },
      { command: ["ls"] },
      { limit: -1 },
    ];
    let compared = 0;
    for (const { name, schema } of TOOLS) {
      const made = (TOOL_VALIDATORS as Record<string, (data: unknown) => boolean>)[
        await schemaKey(validationSchema(schema))
      ];
      expect(made, name).toBeTypeOf("function");
      const compiled = ajv.compile(validationSchema(schema));
      for (const sample of samples) {
        const [mine, theirs] = [structuredClone(sample), structuredClone(sample)];
        const ok = made!(mine);
        expect([ok, mine, (made as unknown as { errors: unknown }).errors ?? null], name).toEqual([
          compiled(theirs),
          theirs,
          compiled.errors ?? null,
        ]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it("without crypto.subtle (a page on plain http, not a secure context) tools' params are validated all the same", async () => {
    vi.stubGlobal("crypto", {
      getRandomValues: (bytes: Uint8Array) => globalThis.crypto.getRandomValues(bytes),
    });
    try {
      expect(globalThis.crypto.subtle).toBeUndefined();
      // A copy: the same schema object would be answered from the validators already made.
      const schema = structuredClone(TOOLS.find(({ name }) => name === "agentbench/list_files")!.schema);
      await expect(validateParams(schema, {})).resolves.toEqual({ root: ".", glob: null });
      await expect(validateParams(schema, { root: 3 })).rejects.toThrow(/root/u);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("a schema with none made ahead is still validated, by Ajv compiling it", async () => {
    const schema = { type: "object", properties: { n: { type: "integer", minimum: 2 } }, required: ["n"] };
    await expect(validateParams(schema, { n: 1 })).rejects.toThrow(/'n' must be >= 2|n.*>= 2/u);
    await expect(validateParams(schema, { n: 3 })).resolves.toEqual({ n: 3 });
  });
});
