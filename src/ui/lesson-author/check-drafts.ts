import type { LessonCheck } from "../../lessons/lesson.ts";

export type CheckKind = LessonCheck["kind"];

/** How one of a check's fields is edited in the author's form. */
export type CheckFieldType = "path" | "text" | "multiline" | "count" | "tool" | "tools" | "status" | "list";

export interface CheckField {
  name: string;
  label: string;
  type: CheckFieldType;
  required: boolean;
  help?: string;
}

/** Each kind of check in the teacher's words, with the fields it needs. */
export const CHECK_KINDS: Record<CheckKind, { label: string; fields: CheckField[] }> = {
  file_contains: {
    label: "A file contains text",
    fields: [
      { name: "path", label: "File", type: "path", required: true },
      { name: "text", label: "Text it contains", type: "multiline", required: true },
    ],
  },
  file_matches: {
    label: "A file matches a pattern",
    fields: [
      { name: "path", label: "File", type: "path", required: true },
      {
        name: "pattern",
        label: "Regular expression",
        type: "text",
        required: true,
        help: "JavaScript syntax; ^ and $ match at each line.",
      },
    ],
  },
  file_equals: {
    label: "A file's whole text is",
    fields: [
      { name: "path", label: "File", type: "path", required: true },
      {
        name: "content",
        label: "Its text",
        type: "multiline",
        required: false,
        help: "Empty: an empty file.",
      },
    ],
  },
  file_unchanged: {
    label: "A file is left as it started",
    fields: [{ name: "path", label: "File", type: "path", required: true }],
  },
  file_absent: {
    label: "A file is gone",
    fields: [{ name: "path", label: "File", type: "path", required: true }],
  },
  command_succeeds: {
    label: "A command succeeds",
    fields: [
      { name: "command", label: "Command", type: "text", required: true, help: "Run in the workspace." },
      { name: "stdoutContains", label: "Its output contains", type: "text", required: false },
      { name: "stdoutEquals", label: "Its output is exactly", type: "multiline", required: false },
    ],
  },
  tool_used: {
    label: "A tool was used",
    fields: [
      { name: "tool", label: "Tool", type: "tool", required: true },
      { name: "status", label: "Ending in", type: "status", required: false },
      { name: "min", label: "At least (times)", type: "count", required: false, help: "Empty: once." },
      { name: "max", label: "At most (times)", type: "count", required: false, help: "Empty: no limit." },
      {
        name: "withParams",
        label: "Only calls that set",
        type: "list",
        required: false,
        help: "Parameter names, comma-separated (start_line: a read with a line range).",
      },
    ],
  },
  changed_with: {
    label: "A file was changed only with certain tools",
    fields: [
      { name: "path", label: "File", type: "path", required: true },
      { name: "tools", label: "Tools", type: "tools", required: true },
    ],
  },
  call_count: {
    label: "At most this many calls",
    fields: [{ name: "max", label: "Calls", type: "count", required: true }],
  },
};

/** A check as the form holds it: every value as typed; what the form has no field for is kept as it was. */
export interface CheckDraft {
  /** Empty until the teacher's JSON names one; then made from the title. */
  id: string;
  title: string;
  kind: CheckKind;
  values: Record<string, string>;
  extra: Record<string, unknown>;
}

export function emptyDraft(kind: CheckKind = "file_contains"): CheckDraft {
  return { id: "", title: "", kind, values: {}, extra: {} };
}

export const listOf = (text: string): string[] =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/gu, "-")
    .replace(/^-+|-+$/gu, "") || "check";

function uniqueId(wanted: string, taken: Set<string>): string {
  let id = wanted;
  for (let n = 2; taken.has(id); n++) id = `${wanted}-${n}`;
  taken.add(id);
  return id;
}

/**
 * The form's checks as the lesson's checks; the error names the check and the field to fix. With
 * `allowed`, a check naming a tool the learner may not use (one that could never pass) is refused.
 */
export function checksFromDrafts(drafts: readonly CheckDraft[], allowed?: readonly string[]): LessonCheck[] {
  if (drafts.length === 0) throw new Error("Add at least one check: it is how the lesson knows it is done.");
  const taken = new Set(drafts.map((draft) => draft.id).filter(Boolean));
  return drafts.map((draft, index) => {
    const name = `Check ${index + 1}${draft.title.trim() ? ` (“${draft.title.trim()}”)` : ""}`;
    if (!draft.title.trim()) throw new Error(`${name} needs a title: it is what the learner reads.`);
    const check: Record<string, unknown> = {
      ...draft.extra,
      id: draft.id || uniqueId(slug(draft.title), taken),
      title: draft.title.trim(),
      kind: draft.kind,
    };
    for (const field of CHECK_KINDS[draft.kind].fields) {
      const typed = draft.values[field.name] ?? "";
      const blank = field.type === "multiline" ? typed === "" : typed.trim() === "";
      if (blank) {
        if (field.required) throw new Error(`${name}: ${field.label} is needed.`);
        // An exact output or whole text that is empty is a real expectation only for file_equals.
        if (draft.kind === "file_equals" && field.name === "content") check[field.name] = "";
        continue;
      }
      check[field.name] = typedValue(field, typed, name);
    }
    const named = [check.tool, ...((check.tools as string[] | undefined) ?? [])].filter(
      (tool): tool is string => typeof tool === "string",
    );
    const missing = allowed && named.find((tool) => !allowed.includes(tool));
    if (missing)
      throw new Error(
        `${name} names ${missing}, which the learner may not use: tick it under “Tools the learner may use”, or pick another.`,
      );
    const { min, max } = check as { min?: number; max?: number };
    if (min !== undefined && max !== undefined && min > max)
      throw new Error(`${name}: at least ${min} is more than at most ${max}.`);
    return check as LessonCheck;
  });
}

function typedValue(field: CheckField, typed: string, name: string): unknown {
  switch (field.type) {
    case "count": {
      if (!/^\s*\d+\s*$/u.test(typed)) throw new Error(`${name}: ${field.label} must be a whole number.`);
      return Number(typed);
    }
    case "tools":
    case "list": {
      const items = listOf(typed);
      if (field.required && items.length === 0) throw new Error(`${name}: ${field.label} is needed.`);
      return items;
    }
    case "text":
      if (field.name === "pattern") {
        try {
          new RegExp(typed, "mu");
        } catch (error) {
          throw new Error(`${name}: the regular expression is not valid (${(error as Error).message}).`);
        }
      }
      return field.name === "pattern" ? typed : typed.trim();
    case "path":
    case "tool":
    case "status":
      return typed.trim();
    case "multiline":
      return typed;
  }
}

/** Checks as JSON text, for the JSON view (as strict as the form when they are read back). */
export function draftsToJson(drafts: readonly CheckDraft[]): string {
  const taken = new Set(drafts.map((draft) => draft.id).filter(Boolean));
  const checks = drafts.map((draft) => {
    const check: Record<string, unknown> = {
      ...draft.extra,
      id: draft.id || uniqueId(slug(draft.title), taken),
      title: draft.title,
      kind: draft.kind,
    };
    for (const field of CHECK_KINDS[draft.kind].fields) {
      const typed = draft.values[field.name];
      if (
        typed === undefined ||
        (typed === "" && !(draft.kind === "file_equals" && field.name === "content"))
      )
        continue;
      check[field.name] =
        field.type === "count" && /^\s*\d+\s*$/u.test(typed)
          ? Number(typed)
          : field.type === "tools" || field.type === "list"
            ? listOf(typed)
            : typed;
    }
    return check;
  });
  return JSON.stringify(checks, null, 2);
}

/** JSON text as the form's checks; the error says what the form cannot show. */
export function draftsFromJson(text: string): CheckDraft[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The checks are not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new Error("The checks must be a JSON array, one object per check.");
  return value.map((item, index) => {
    if (typeof item !== "object" || item === null || Array.isArray(item))
      throw new Error(`Check ${index + 1} is not an object.`);
    const { id, title, kind, ...rest } = item as Record<string, unknown>;
    if (typeof kind !== "string" || !(kind in CHECK_KINDS))
      throw new Error(
        `Check ${index + 1} has kind ${JSON.stringify(kind ?? null)}; it must be one of ${Object.keys(CHECK_KINDS).join(", ")}.`,
      );
    const fields = CHECK_KINDS[kind as CheckKind].fields;
    const values: Record<string, string> = {};
    const extra: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(rest)) {
      const known = fields.find((candidate) => candidate.name === key);
      if (!known) {
        extra[key] = field;
        continue;
      }
      if (Array.isArray(field) && field.every((entry) => typeof entry === "string"))
        values[key] = field.join(", ");
      else if (typeof field === "string" || typeof field === "number") values[key] = String(field);
      else
        throw new Error(
          `Check ${index + 1}: ${key} must be ${known.type === "count" ? "a number" : "text"}.`,
        );
    }
    return {
      id: typeof id === "string" ? id : "",
      title: typeof title === "string" ? title : "",
      kind: kind as CheckKind,
      values,
      extra,
    };
  });
}
