import { ToolFailure } from "../core/errors.ts";
import type { Services } from "../core/profile.ts";

/** Keys are short names an agent can repeat: letters, digits and . _ : / - (1–128 characters). */
const KEY = /^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}$/u;
/** One value's JSON text at most; state is for notes between calls, not for files. */
export const MAX_STATE_VALUE_BYTES = 1024 * 1024;

/** Per-runtime session state: JSON values by key, in memory, gone when the runtime is. */
export class SessionState {
  private readonly values = new Map<string, string>();

  set(key: unknown, value: unknown): { key: string; bytes: number } {
    const name = checkKey(key);
    const text = toJson(value);
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > MAX_STATE_VALUE_BYTES) {
      throw new ToolFailure(
        "limit_exceeded",
        `The value is ${bytes} bytes of JSON, over the ${MAX_STATE_VALUE_BYTES} byte limit; store a summary or write a file.`,
        { key: name, bytes, limit_bytes: MAX_STATE_VALUE_BYTES },
      );
    }
    this.values.set(name, text);
    return { key: name, bytes };
  }

  /**
   * A fresh copy of the stored value, so callers cannot change what is stored. Any string is a key
   * to look up: one state_set would refuse was never stored, so it is simply not found.
   */
  get(key: unknown): { key: string; found: boolean; value: unknown } {
    const name = typeof key === "string" ? key : checkKey(key);
    const text = this.values.get(name);
    return text === undefined
      ? { key: name, found: false, value: null }
      : { key: name, found: true, value: JSON.parse(text) };
  }

  keys(): string[] {
    return [...this.values.keys()].sort();
  }
}

export function sessionState(services: Services): SessionState {
  return services.get("state", () => new SessionState());
}

function checkKey(key: unknown): string {
  if (typeof key !== "string" || !KEY.test(key)) {
    throw new ToolFailure(
      "invalid_key",
      `Invalid key ${JSON.stringify(key)}: use 1–128 characters of letters, digits and . _ : / -, not starting with a punctuation mark (e.g. "plan.step3").`,
      { key },
    );
  }
  return key;
}

/** JSON text of a value, refusing what JSON cannot carry instead of silently changing it. */
function toJson(value: unknown): string {
  const problem = unserializable(value, "value", new Set());
  if (problem) {
    throw new ToolFailure("not_serializable", `The value is not JSON-serializable: ${problem}.`, {
      problem,
    });
  }
  return JSON.stringify(value);
}

function unserializable(value: unknown, where: string, seen: Set<object>): string | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : `${where} is ${value}`;
  if (value === undefined) return `${where} is undefined`;
  if (typeof value !== "object") return `${where} is a ${typeof value}`;
  if (seen.has(value)) return `${where} refers back to itself`;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = unserializable(value[i], `${where}[${i}]`, seen);
      if (problem) return problem;
    }
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      return `${where} is a ${(value as { constructor?: { name?: string } }).constructor?.name ?? "non-plain"} object`;
    }
    for (const [key, item] of Object.entries(value)) {
      const problem = unserializable(item, `${where}.${key}`, seen);
      if (problem) return problem;
    }
  }
  seen.delete(value);
  return null;
}
