import { ToolFailure } from "./errors.ts";
import type { Profile, ToolCall } from "./profile.ts";

/**
 * Turns one request, in any shape the profile accepts, into a ToolCall. `{tool, params,
 * request_id}` works for every profile; a dialect's own shape (baseagent's {name, arguments},
 * sandboxed's flat {tool, ...params}) goes through its parseCall.
 */
export function normalizeCall(profile: Profile, raw: unknown): ToolCall {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ToolFailure(
      "invalid_params",
      'A request must be a JSON object such as {"tool": "…", "params": {…}, "request_id": "…"}.',
    );
  }
  const record = raw as Record<string, unknown>;
  const extraKeys = Object.keys(record).filter(
    (key) => key !== "tool" && key !== "params" && key !== "request_id",
  );
  const isGeneric = typeof record.tool === "string" && ("params" in record || extraKeys.length === 0);
  if (!isGeneric) {
    const parsed = profile.parseCall?.(record);
    if (parsed) return parsed;
  }
  if (typeof record.tool !== "string") {
    throw new ToolFailure(
      "invalid_params",
      `A request needs a "tool" name (a string). Tools: ${profile.tools.map((t) => t.name).join(", ")}.`,
    );
  }
  if (
    record.params !== undefined &&
    (typeof record.params !== "object" || record.params === null || Array.isArray(record.params))
  ) {
    throw new ToolFailure("invalid_params", '"params" must be a JSON object of named parameters.');
  }
  if (
    record.request_id !== undefined &&
    typeof record.request_id !== "string" &&
    typeof record.request_id !== "number"
  ) {
    throw new ToolFailure("invalid_params", '"request_id" must be a string.');
  }
  return {
    tool: record.tool,
    params: (record.params as Record<string, unknown> | undefined) ?? {},
    ...(record.request_id !== undefined ? { request_id: String(record.request_id) } : {}),
  };
}
