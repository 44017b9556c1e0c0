import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { validationSchema } from "../core/schema.ts";
import { editorProfile } from "../worker/editor-profile.ts";
import { PROFILES } from "./index.ts";

/**
 * The runtime compiles tool schemas without checking them against JSON Schema's meta-schema (that
 * compile cost more than the rest of the worker's start); here every one of them is checked.
 */
describe("every tool's schema is valid JSON Schema", () => {
  const ajv = new Ajv({ strict: false });
  for (const profile of [...PROFILES, editorProfile]) {
    it(`${profile.name}`, () => {
      const invalid: string[] = [];
      for (const tool of profile.tools) {
        for (const schema of [tool.inputSchema, validationSchema(tool.inputSchema)]) {
          if (!ajv.validateSchema(schema)) invalid.push(`${tool.name}: ${ajv.errorsText(ajv.errors)}`);
        }
      }
      expect(invalid).toEqual([]);
      expect(profile.tools.length).toBeGreaterThan(0);
    });
  }

  it("a schema that breaks the meta-schema is caught here", () => {
    expect(ajv.validateSchema({ type: "object", properties: { x: { type: "strnig" } } })).toBe(false);
  });
});
