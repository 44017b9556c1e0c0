import type { Profile, ToolSpec } from "./profile.ts";
import type { JsonSchema } from "./schema.ts";

export type SchemaFormat = "jsonschema" | "openai" | "anthropic" | "mcp";
export const SCHEMA_FORMATS: readonly SchemaFormat[] = ["jsonschema", "openai", "anthropic", "mcp"];

/**
 * OpenAI's strict mode wants every property required and no extras, all the way down;
 * a schema that already is so (toolrouter's are) is sent as strict.
 */
function isStrictReady(schema: JsonSchema): boolean {
  if (schema.type === "object" || schema.properties) {
    const properties = Object.keys(schema.properties ?? {});
    if (schema.additionalProperties !== false) return false;
    if (properties.some((name) => !(schema.required ?? []).includes(name))) return false;
    return Object.values(schema.properties ?? {}).every(isStrictReady);
  }
  if (schema.anyOf) return schema.anyOf.every(isStrictReady);
  if (schema.items) return isStrictReady(schema.items);
  return true;
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
    case "openai":
      return {
        type: "function",
        function: {
          name: tool.name,
          description: tool.description,
          parameters: tool.inputSchema,
          ...(isStrictReady(tool.inputSchema) ? { strict: true } : {}),
        },
      };
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
