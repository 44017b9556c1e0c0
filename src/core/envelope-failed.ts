/** Reads one field of an envelope, whatever its shape. */
function field(envelope: unknown, key: string): unknown {
  return typeof envelope === "object" && envelope !== null
    ? (envelope as Record<string, unknown>)[key]
    : undefined;
}

/** A dialect that says failure with a boolean field set to false (`success`, `ok`). */
export const failedWhenFalse =
  (key: string) =>
  (envelope: unknown): boolean =>
    field(envelope, key) === false;

/** A dialect that says failure with an `error` field (ToolRouter's `{error: {type, message}}`). */
export function failedWhenError(envelope: unknown): boolean {
  const error = field(envelope, "error");
  return error !== undefined && error !== null;
}

/** A dialect that says failure with `status: "error"` (AgentBench's ToolResult). */
export function failedWhenStatusError(envelope: unknown): boolean {
  return field(envelope, "status") === "error";
}
