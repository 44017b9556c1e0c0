import type { Profile, ToolSpec } from "./profile.ts";
import type { JsonSchema } from "./schema.ts";

export type SchemaFormat = "jsonschema" | "openai" | "anthropic" | "mcp";
export const SCHEMA_FORMATS: readonly SchemaFormat[] = ["jsonschema", "openai", "anthropic", "mcp"];

/** Keywords OpenAI's strict mode takes; `default` is moved into the description, anything else keeps a schema out. */
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

/**
 * The schema as OpenAI's strict mode takes it, or null when it cannot be: strict mode wants every
 * node typed, every property required and no extras, all the way down, and refuses `default` (said
 * in the description instead). A schema that already is so (toolrouter's are) is sent as strict;
 * the others go without `strict`, which OpenAI takes as they are.
 */
function strictSchema(schema: JsonSchema, depth = 0): JsonSchema | null {
  if (depth > 10) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "default") continue;
    if (!STRICT_KEYWORDS.has(key)) return null;
    out[key] = value;
  }
  if ("default" in schema) {
    const said = `Default: ${JSON.stringify(schema.default)}.`;
    out.description = schema.description ? `${schema.description} ${said}` : said;
  }
  if (schema.anyOf) {
    const branches = schema.anyOf.map((branch) => strictSchema(branch, depth + 1));
    if (branches.some((branch) => branch === null)) return null;
    out.anyOf = branches;
    return out as JsonSchema;
  }
  if (schema.type === undefined) return null;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("object")) {
    if (schema.additionalProperties !== false) return null;
    const properties: Record<string, JsonSchema> = {};
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (!(schema.required ?? []).includes(name)) return null;
      const strict = strictSchema(property, depth + 1);
      if (!strict) return null;
      properties[name] = strict;
    }
    out.properties = properties;
  }
  if (types.includes("array")) {
    if (!schema.items) return null;
    const items = strictSchema(schema.items, depth + 1);
    if (!items) return null;
    out.items = items;
  }
  return out as JsonSchema;
}

const ANY_JSON = ["string", "number", "integer", "boolean", "null", "object", "array"];

/**
 * OpenAI refuses a property schema without "type" and an array without "items", even outside strict
 * mode: a node that takes any JSON value (state_set's `value`) is spelled out as every JSON type.
 */
function typedForOpenAi(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => [name, typedForOpenAi(property)]),
    );
  }
  if (schema.items) out.items = typedForOpenAi(schema.items);
  if (schema.anyOf) out.anyOf = schema.anyOf.map(typedForOpenAi);
  const untyped = out.type === undefined && !out.anyOf && !out.enum && !("const" in out) && !("$ref" in out);
  if (untyped) {
    out.type = ANY_JSON;
    out.items = { type: ANY_JSON.filter((type) => type !== "array") };
  } else if (
    (out.type === "array" || (Array.isArray(out.type) && out.type.includes("array"))) &&
    !out.items
  ) {
    out.items = { type: ANY_JSON.filter((type) => type !== "array") };
  }
  return out;
}

function toolSchema(tool: ToolSpec<unknown>, format: SchemaFormat): unknown {
  switch (format) {
    case "jsonschema":
      return {
        name: tool.name,
        description: tool.description,
        kind: tool.kind,
        input_schema: tool.inputSchema,
      };
    case "openai": {
      const strict = tool.inputSchema.type === "object" ? strictSchema(tool.inputSchema) : null;
      return {
        type: "function",
        function: {
          name: tool.name,
          description: tool.description,
          parameters: strict ?? typedForOpenAi(tool.inputSchema),
          ...(strict ? { strict: true } : {}),
        },
      };
    }
    case "anthropic":
      return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
    case "mcp":
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: {
          readOnlyHint: tool.kind === "read" && !tool.changesSession,
          destructiveHint: tool.kind !== "read",
          openWorldHint: tool.openWorld === true,
        },
      };
  }
}

/** A profile's tools in the format a provider (or MCP client) expects. */
export function providerSchemas(profile: Profile, format: SchemaFormat): unknown[] {
  return profile.tools.map((tool) => toolSchema(tool as ToolSpec<unknown>, format));
}
