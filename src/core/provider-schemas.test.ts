/**
 * `toolroom schemas --format openai` for every profile, checked against OpenAI's function-calling
 * rules as its API enforces them (written here from OpenAI's Structured Outputs "supported schemas"
 * and the 400 errors it answers with, independently of the exporter): a request carrying a tool it
 * rejects fails whole, so one bad schema breaks every call of a profile.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROFILES } from "../profiles/index.ts";

const BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");

type Schema = Record<string, unknown>;

/** Keywords strict mode accepts; anything else (`default`, `minLength`, `oneOf`, …) is "not permitted". */
const STRICT_KEYWORDS = new Set([
  "type",
  "description",
  "title",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/** Problems OpenAI reports for a schema in strict mode, with where they are. */
function strictProblems(schema: Schema, where: string, depth = 0): string[] {
  const problems: string[] = [];
  if (depth > 10) problems.push(`${where}: nested deeper than 10 levels`);
  for (const key of Object.keys(schema)) {
    if (!STRICT_KEYWORDS.has(key)) problems.push(`${where}: '${key}' is not permitted`);
  }
  if (Array.isArray(schema.anyOf)) {
    (schema.anyOf as Schema[]).forEach((branch, k) => {
      problems.push(...strictProblems(branch, `${where}.anyOf[${k}]`, depth + 1));
    });
    return problems;
  }
  if (schema.$ref !== undefined) return problems;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (schema.type === undefined) return [...problems, `${where}: schema must have a 'type' key`];
  for (const type of types) if (!TYPES.has(type)) problems.push(`${where}: unknown type ${type}`);
  if (types.includes("object")) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (schema.additionalProperties !== false)
      problems.push(`${where}: 'additionalProperties' is required to be supplied and to be false`);
    const required = (schema.required ?? []) as string[];
    for (const name of Object.keys(properties)) {
      if (!required.includes(name))
        problems.push(`${where}: 'required' must include every property (${name})`);
      problems.push(...strictProblems(properties[name]!, `${where}.${name}`, depth + 1));
    }
  }
  if (types.includes("array")) {
    if (!schema.items) problems.push(`${where}: array schema missing items`);
    else problems.push(...strictProblems(schema.items as Schema, `${where}[]`, depth + 1));
  }
  return problems;
}

/** Problems OpenAI reports for any function's parameters, strict or not. */
function basicProblems(schema: Schema, where: string): string[] {
  const problems: string[] = [];
  if (Array.isArray(schema.anyOf)) {
    (schema.anyOf as Schema[]).forEach((branch, k) => {
      problems.push(...basicProblems(branch, `${where}.anyOf[${k}]`));
    });
    return problems;
  }
  if (schema.type === undefined && schema.$ref === undefined && schema.enum === undefined)
    problems.push(`${where}: schema must have a 'type' key`);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("array") && !schema.items) problems.push(`${where}: array schema missing items`);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    problems.push(...basicProblems(property, `${where}.${name}`));
  }
  if (schema.items) problems.push(...basicProblems(schema.items as Schema, `${where}[]`));
  return problems;
}

interface OpenAiTool {
  type: string;
  function: { name: string; description: string; parameters: Schema; strict?: boolean };
}

describe("toolroom schemas --format openai", () => {
  for (const profile of PROFILES) {
    it(`${profile.name}: every tool is one OpenAI accepts, strict ones by strict mode's rules`, () => {
      const run = spawnSync(BIN, ["schemas", "--profile", profile.name, "--format", "openai"], {
        encoding: "utf8",
      });
      expect(run.status, run.stderr).toBe(0);
      const tools = JSON.parse(run.stdout) as OpenAiTool[];
      expect(tools.map((tool) => tool.function.name)).toEqual(profile.tools.map((tool) => tool.name));
      for (const tool of tools) {
        const { name, parameters, strict } = tool.function;
        expect(tool.type).toBe("function");
        expect(parameters.type, name).toBe("object");
        expect(basicProblems(parameters, name), name).toEqual([]);
        if (strict === true) expect(strictProblems(parameters, name), name).toEqual([]);
      }
      // The spec's own strict schemas (every field required, no extras) go out strict.
      if (profile.name === "toolrouter")
        expect(tools.every((tool) => tool.function.strict === true)).toBe(true);
    });
  }

  it("the checker catches what OpenAI refuses", () => {
    expect(
      strictProblems(
        { type: "object", properties: { value: {} }, required: ["value"], additionalProperties: false },
        "t",
      ),
    ).toEqual(["t.value: schema must have a 'type' key"]);
    expect(
      strictProblems(
        {
          type: "object",
          properties: { n: { type: "integer", default: 1 } },
          required: [],
          additionalProperties: false,
        },
        "t",
      ),
    ).toEqual(["t: 'required' must include every property (n)", "t.n: 'default' is not permitted"]);
    expect(basicProblems({ type: "object", properties: { list: { type: "array" } } }, "t")).toEqual([
      "t.list: array schema missing items",
    ]);
  });
});
