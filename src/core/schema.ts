import type Ajv from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import { ToolFailure } from "./errors.ts";
import { TOOL_VALIDATORS } from "./tool-validators.generated.ts";

/** A JSON Schema object, as the dialects print them. */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  [keyword: string]: unknown;
};

/** Ajv's options for tools' schemas: every problem at once, defaults filled in. */
export const TOOL_VALIDATION = { allErrors: true, useDefaults: true, strict: false } as const;

/**
 * Ajv, for a schema with no validator made ahead (see tool-validators.generated.ts): loaded and
 * made on first use. The tools' schemas are checked against JSON Schema's meta-schema by the tests
 * (profiles/schemas.test.ts), so the runtime skips compiling the meta-schema.
 */
let ajv: Promise<Ajv> | undefined;

export function loadValidator(): Promise<Ajv> {
  ajv ??= import("ajv").then(
    ({ default: Ajv }) => new Ajv({ ...TOOL_VALIDATION, meta: false, validateSchema: false }),
  );
  return ajv;
}

/**
 * What names a schema's validator made ahead: the SHA-256 of its JSON. A tool's schema is the same
 * object every call, so this is worked out once per schema.
 */
export async function schemaKey(schema: JsonSchema): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(schema)));
  return `h${[...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * The schema the runtime validates with: the printed one, except that a parameter with a
 * default may be left out (strict-mode schemas list every property as required; the models
 * behind them fill in the default, and so do we).
 */
export function validationSchema(schema: JsonSchema): JsonSchema {
  const properties = schema.properties ?? {};
  const required = (schema.required ?? []).filter((name) => properties[name]?.default === undefined);
  return { ...schema, required };
}

/**
 * A tool's validator: the one made ahead from the same schema by Ajv's standalone code (no Ajv,
 * no code compiled at run time on the way to a first answer), else Ajv's own compile.
 */
async function validatorFor(schema: JsonSchema): Promise<ValidateFunction> {
  let validate = compiled.get(schema);
  if (!validate) {
    const wanted = validationSchema(schema);
    // crypto.subtle exists only in secure contexts: a page served over plain http on a LAN compiles with Ajv.
    const made = globalThis.crypto?.subtle ? TOOL_VALIDATORS[await schemaKey(wanted)] : undefined;
    validate = made ?? (await loadValidator()).compile(wanted);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * Validates params against a tool's schema and fills in defaults. Returns a fresh object;
 * throws invalid_params with every problem in one message, phrased for the model to fix.
 */
export async function validateParams(schema: JsonSchema, params: unknown): Promise<Record<string, unknown>> {
  const validate = await validatorFor(schema);
  if (params === undefined || params === null) params = {};
  if (typeof params !== "object" || Array.isArray(params)) {
    throw new ToolFailure("invalid_params", "params must be a JSON object of named parameters.", {
      errors: [{ path: "", message: "must be an object" }],
    });
  }
  const copy = structuredClone(params) as Record<string, unknown>;
  if (validate(copy)) return copy;
  const problems = (validate.errors ?? []).map((error) => describeProblem(error, schema));
  const unique = [...new Set(problems)];
  throw new ToolFailure("invalid_params", `Invalid parameters: ${unique.join("; ")}.`, {
    errors: (validate.errors ?? []).map((error) => ({
      path: error.instancePath,
      message: error.message,
      params: error.params,
    })),
  });
}

/** The sub-schema holding the keyword at an error's schemaPath ("#/properties/steps/items/additionalProperties"). */
function schemaAt(schema: JsonSchema, schemaPath: string): JsonSchema | undefined {
  const segments = schemaPath.replace(/^#\/?/u, "").split("/").slice(0, -1);
  let node: unknown = schema;
  for (const raw of segments) {
    const segment = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return typeof node === "object" && node !== null ? (node as JsonSchema) : undefined;
}

function describeProblem(error: ErrorObject, schema: JsonSchema): string {
  const where = error.instancePath === "" ? "" : error.instancePath.slice(1).replace(/\//gu, ".");
  switch (error.keyword) {
    case "required": {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      if (where !== "") return `'${where}' is missing its required field '${missing}'`;
      return `missing required parameter '${missing}'`;
    }
    case "additionalProperties": {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      // The object the field was found in: a step of an array, say, not the top-level parameters.
      const owner = schemaAt(schema, error.schemaPath) ?? schema;
      const allowed = Object.keys(owner.properties ?? {}).join(", ");
      if (where !== "") return `'${where}' has an unknown field '${extra}' (allowed: ${allowed})`;
      return `unknown parameter '${extra}' (allowed: ${allowed})`;
    }
    case "enum": {
      const values = (error.params as { allowedValues: unknown[] }).allowedValues;
      return `'${where}' must be one of ${values.map((value) => String(value)).join(", ")}`;
    }
    case "type":
      return `'${where}' must be ${(error.params as { type: string }).type}`;
    case "anyOf":
      return `'${where}' does not match any allowed type`;
    default:
      return `'${where}' ${error.message ?? "is invalid"}`;
  }
}
