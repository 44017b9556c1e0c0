import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../core/schema.ts";
import { buildParams, type FieldValue, fieldsOf, initialValues } from "./schema-form.ts";

const schema: JsonSchema = {
  type: "object",
  properties: {
    command: { type: "string", description: "Shell command to execute" },
    root: { type: "string", default: "." },
    path: { type: "string" },
    timeout_sec: { anyOf: [{ type: "integer" }, { type: "null" }], default: null },
    max_results: { type: "integer", default: 50 },
    is_regex: { type: "boolean", default: false },
    mode: { type: "string", enum: ["fast", "full"] },
    paths: { type: "array", items: { type: "string" } },
    env: { type: "object" },
  },
  required: ["command", "root", "path"],
};

describe("schema form", () => {
  it("picks a widget per type, with JSON text for anyOf and objects", () => {
    expect(fieldsOf(schema).map((field) => [field.name, field.kind, field.required])).toEqual([
      ["command", "text", true],
      ["root", "string", false],
      ["path", "string", true],
      ["timeout_sec", "json", false],
      ["max_results", "integer", false],
      ["is_regex", "boolean", false],
      ["mode", "enum", false],
      ["paths", "lines", false],
      ["env", "json", false],
    ]);
    expect(fieldsOf(schema).find((field) => field.name === "timeout_sec")?.hint).toBe("integer or null");
  });

  it("fills defaults and builds params, leaving empty optional fields out", () => {
    const fields = fieldsOf(schema);
    const values: Record<string, FieldValue> = {
      ...initialValues(fields),
      command: "ls",
      path: "a.txt",
      paths: "a\nb\n",
      env: "",
    };
    expect(values.timeout_sec).toBe("null");
    expect(buildParams(fields, values)).toEqual({
      ok: true,
      params: {
        command: "ls",
        root: ".",
        path: "a.txt",
        timeout_sec: null,
        max_results: 50,
        is_regex: false,
        paths: ["a", "b"],
      },
    });
  });

  it("says which field is wrong and what would do", () => {
    const fields = fieldsOf(schema);
    const result = buildParams(fields, { ...initialValues(fields), path: "", env: "{nope" });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.path).toMatch(/required/u);
      expect(result.errors.env).toMatch(/not valid JSON/u);
    }
  });

  it('sends multi-line text as typed, and a required one left empty as "" (write_stdin polls with it)', () => {
    const stdin = fieldsOf({
      type: "object",
      properties: { session_id: { type: "string" }, chars: { type: "string" } },
      required: ["session_id", "chars"],
    });
    expect(stdin.find((field) => field.name === "chars")?.kind).toBe("text");
    expect(buildParams(stdin, { session_id: "1", chars: "" })).toEqual({
      ok: true,
      params: { session_id: "1", chars: "" },
    });
    expect(buildParams(stdin, { session_id: "1", chars: "echo a\necho b\n" })).toEqual({
      ok: true,
      params: { session_id: "1", chars: "echo a\necho b\n" },
    });
  });
});
