import type { JsonSchema } from "../../core/schema.ts";

/** How a parameter is edited: a widget per simple type, JSON text for everything else. */
export type FieldKind = "string" | "text" | "number" | "integer" | "boolean" | "enum" | "lines" | "json";

export interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  description: string;
  defaultValue: unknown;
  hasDefault: boolean;
  options: string[];
  /** A short hint of the accepted JSON ("integer or null") for the JSON fallback. */
  hint: string;
}

/** A form value: text for every widget except a checkbox. */
export type FieldValue = string | boolean;

/** Params typed over several lines (and where newlines are part of the value, as write_stdin's chars). */
const LONG_TEXT = /content|patch|command|text|diff|code|script|body|input|old|new|message|chars/iu;

export function fieldsOf(schema: JsonSchema): Field[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const kind = kindOf(name, property);
    return {
      name,
      kind,
      required: required.has(name) && property.default === undefined,
      description: property.description ?? property.title ?? "",
      defaultValue: property.default,
      hasDefault: "default" in property,
      options: kind === "enum" ? (property.enum ?? []).map(String) : [],
      hint: kind === "json" ? describeType(property) : "",
    };
  });
}

function kindOf(name: string, property: JsonSchema): FieldKind {
  if (Array.isArray(property.enum) && property.enum.every((value) => typeof value === "string"))
    return "enum";
  switch (property.type) {
    case "string":
      return LONG_TEXT.test(name) ? "text" : "string";
    case "integer":
      return "integer";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array": {
      const item = property.items?.type;
      return item === "string" || item === "number" || item === "integer" ? "lines" : "json";
    }
    default:
      return "json";
  }
}

function describeType(property: JsonSchema): string {
  const types = property.anyOf?.map((option) => option.type ?? "value") ?? [
    property.type ?? "any JSON value",
  ];
  return types.flat().join(" or ");
}

/** The form's starting values: defaults filled in, everything else empty. */
export function initialValues(fields: readonly Field[]): Record<string, FieldValue> {
  const values: Record<string, FieldValue> = {};
  for (const field of fields) {
    const value = field.defaultValue;
    switch (field.kind) {
      case "boolean":
        values[field.name] = value === true;
        break;
      case "json":
        values[field.name] = field.hasDefault ? JSON.stringify(value) : "";
        break;
      case "lines":
        values[field.name] = Array.isArray(value) ? value.join("\n") : "";
        break;
      default:
        values[field.name] = value === undefined || value === null ? "" : String(value);
    }
  }
  return values;
}

export type BuiltParams =
  | { ok: true; params: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> };

/**
 * The params object a dialect's client would send. Empty optional fields are left out (the
 * runtime fills defaults); values the runtime would reject are still sent, so that its own
 * invalid_params envelope shows. Only text that is not a value at all is refused here. Text
 * fields are sent as typed: newlines stay newlines, and a required one left empty is sent as "".
 */
export function buildParams(fields: readonly Field[], values: Record<string, FieldValue>): BuiltParams {
  const params: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === "boolean") {
      params[field.name] = value === true;
      continue;
    }
    const text = typeof value === "string" ? value : "";
    if (text.trim() === "" && field.kind !== "string" && field.kind !== "text") {
      if (field.required) errors[field.name] = `${field.name} is required.`;
      continue;
    }
    if (text === "" && field.kind === "string") {
      if (field.required) errors[field.name] = `${field.name} is required.`;
      continue;
    }
    // An empty multi-line value is a value: write_stdin's "" polls, a file's "" content empties it.
    if (text === "" && field.kind === "text" && !field.required) continue;
    switch (field.kind) {
      case "integer":
      case "number": {
        const number = Number(text);
        if (!Number.isFinite(number)) errors[field.name] = `${field.name} must be a number.`;
        else params[field.name] = number;
        break;
      }
      case "lines":
        params[field.name] = text.split("\n").filter((line) => line !== "");
        break;
      case "json":
        try {
          params[field.name] = JSON.parse(text);
        } catch {
          errors[field.name] =
            `${field.name} is not valid JSON (${field.hint}); e.g. null, 5, "text" or {"key": "value"}.`;
        }
        break;
      default:
        params[field.name] = text;
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, params };
}
