/**
 * What can go wrong talking to a model, classified so the person reads what happened and what to
 * do next, with the provider's own words kept beside it.
 */
export type ProviderErrorKind =
  /** 401/403: the key is wrong, revoked, or not allowed this model. */
  | "auth"
  /** 429: too many requests or tokens per minute; retryAfterSec when the server said. */
  | "rate_limit"
  /** The account has no credit left (OpenAI's 429 insufficient_quota, 402). */
  | "quota"
  /** The conversation no longer fits the model's context window. */
  | "context_length"
  /** 404: wrong base URL or model name. */
  | "not_found"
  /** Any other 4xx: the provider refused the request; its message says why. */
  | "bad_request"
  /** 5xx, Anthropic's 529 overloaded, an error event mid-stream. */
  | "server"
  /** The request never got an answer: offline, wrong host, or blocked by CORS. */
  | "network"
  /** The answer came but was not what the API promises (not a stream, cut short). */
  | "bad_response"
  /** The person pressed stop. */
  | "stopped";

export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  message: string;
  status?: number;
  providerMessage?: string;
  retryAfterSec?: number;
  /** Text the model had streamed before the failure, so nothing said is lost. */
  partialText?: string;
}

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  readonly providerMessage: string | undefined;
  readonly retryAfterSec: number | undefined;
  partialText: string | undefined;

  constructor(init: ProviderErrorInit) {
    super(init.message);
    this.name = "ProviderError";
    this.kind = init.kind;
    this.status = init.status;
    this.providerMessage = init.providerMessage;
    this.retryAfterSec = init.retryAfterSec;
    this.partialText = init.partialText;
  }

  /** A plain record for events and the UI (an Error does not survive JSON or structured clone whole). */
  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      message: this.message,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.providerMessage !== undefined ? { provider_message: this.providerMessage } : {}),
      ...(this.retryAfterSec !== undefined ? { retry_after_sec: this.retryAfterSec } : {}),
    };
  }
}

export function isProviderError(error: unknown): error is ProviderError {
  return error instanceof ProviderError || (error as { name?: unknown } | null)?.name === "ProviderError";
}

const CONTEXT_PATTERN =
  /context[ _-]?(length|window)|too long|too many tokens|maximum.{0,40}tokens|token limit|reduce the length|prompt is too long|exceeds? the (model's )?(maximum|max)/iu;

/** The provider's own message from an error body, in any of the shapes servers use. */
export function providerMessageOf(body: string): string | undefined {
  const text = body.trim();
  if (text === "") return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    const record = (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, unknown> | null;
    const error = record?.error;
    if (typeof error === "string") return error;
    if (error && typeof error === "object") {
      const message = (error as Record<string, unknown>).message;
      if (typeof message === "string") return message;
    }
    if (typeof record?.message === "string") return record.message;
    if (typeof record?.detail === "string") return record.detail;
  } catch {
    // Not JSON: a proxy's HTML page or plain text; show its start.
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function errorCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; type?: unknown } };
    const code = parsed.error?.code ?? parsed.error?.type;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds to wait from a retry-after header: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Turns a non-2xx answer into a ProviderError whose message says what to do next. */
export function classifyHttpError(
  status: number,
  body: string,
  headers: Headers,
  where: { provider: string; baseUrl: string; model: string },
): ProviderError {
  const providerMessage = providerMessageOf(body);
  const said = providerMessage ? ` The provider said: “${providerMessage}”` : "";
  const code = errorCode(body);
  if (status === 401) {
    return new ProviderError({
      kind: "auth",
      status,
      providerMessage,
      message: `The API key was refused (401). Check the key in the agent settings: it may be mistyped, revoked, or for another provider.${said}`,
    });
  }
  if (status === 403) {
    return new ProviderError({
      kind: "auth",
      status,
      providerMessage,
      message: `The key is not allowed to do this (403): it may lack access to ${where.model} or to this endpoint.${said}`,
    });
  }
  if (status === 402 || code === "insufficient_quota") {
    return new ProviderError({
      kind: "quota",
      status,
      providerMessage,
      message: `The account behind this key has no credit left (${status}). Add credit with ${where.provider}, or use another key.${said}`,
    });
  }
  if (status === 429) {
    const retryAfterSec =
      parseRetryAfter(headers.get("retry-after")) ??
      parseRetryAfter(headers.get("x-ratelimit-reset-requests"));
    const wait = retryAfterSec !== undefined ? `wait ${retryAfterSec} s` : "wait a minute";
    return new ProviderError({
      kind: "rate_limit",
      status,
      providerMessage,
      ...(retryAfterSec !== undefined ? { retryAfterSec } : {}),
      message: `Rate limited by ${where.provider} (429): ${wait}, then press Continue; nothing was lost.${said}`,
    });
  }
  if (status === 413 || ((status === 400 || status === 422) && CONTEXT_PATTERN.test(providerMessage ?? ""))) {
    return new ProviderError({
      kind: "context_length",
      status,
      providerMessage,
      message: `The conversation is longer than ${where.model} can read (${status}). Start a new task, or pick a model with a longer context window.${said}`,
    });
  }
  if (status === 404) {
    return new ProviderError({
      kind: "not_found",
      status,
      providerMessage,
      message: `Not found (404) at ${where.baseUrl}: check the base URL (it usually ends in /v1) and the model name “${where.model}”.${said}`,
    });
  }
  if (status >= 500) {
    return new ProviderError({
      kind: "server",
      status,
      providerMessage,
      message: `${where.provider} had a server error (${status}${status === 529 ? ", overloaded" : ""}). Try again in a moment; nothing was lost.${said}`,
    });
  }
  return new ProviderError({
    kind: "bad_request",
    status,
    providerMessage,
    message: `${where.provider} refused the request (${status}).${said || " It gave no reason."}`,
  });
}

/** An error object a provider sent inside the stream (OpenRouter's {error}, Anthropic's error event). */
export function classifyStreamError(
  error: unknown,
  where: { provider: string; model: string },
  partialText: string,
): ProviderError {
  const record = (error ?? {}) as { type?: unknown; code?: unknown; message?: unknown };
  const type = String(record.type ?? record.code ?? "");
  const providerMessage = typeof record.message === "string" ? record.message : JSON.stringify(error);
  const said = ` The provider said: “${providerMessage}”`;
  const base = { providerMessage, partialText };
  if (type === "rate_limit_error" || type === "429") {
    return new ProviderError({
      ...base,
      kind: "rate_limit",
      message: `Rate limited by ${where.provider}: wait a minute, then press Continue; nothing was lost.${said}`,
    });
  }
  if (CONTEXT_PATTERN.test(providerMessage)) {
    return new ProviderError({
      ...base,
      kind: "context_length",
      message: `The conversation is longer than ${where.model} can read. Start a new task, or pick a model with a longer context window.${said}`,
    });
  }
  if (type === "authentication_error" || type === "permission_error") {
    return new ProviderError({
      ...base,
      kind: "auth",
      message: `The API key was refused. Check the key in the agent settings.${said}`,
    });
  }
  return new ProviderError({
    ...base,
    kind: "server",
    message: `${where.provider} stopped the answer with an error${type ? ` (${type})` : ""}. Try again in a moment; nothing was lost.${said}`,
  });
}

/**
 * A fetch that threw: the person stopped it, or the request never got an answer. Browsers give
 * the same bare TypeError for offline, unknown host and CORS, so the message names all three.
 */
export function classifyFetchFailure(
  error: unknown,
  where: { provider: string; baseUrl: string },
  signal: AbortSignal | undefined,
  partialText = "",
): ProviderError {
  if (signal?.aborted || (error as { name?: unknown } | null)?.name === "AbortError") {
    return new ProviderError({ kind: "stopped", message: "Stopped.", partialText });
  }
  const detail = describeCause(error);
  const origin = originOf(where.baseUrl);
  const local = /^https?:\/\/(localhost|127\.|0\.0\.0\.0|\[::1\])/iu.test(where.baseUrl);
  const cors = local
    ? " If the server is running, it must allow calls from this page (CORS): start Ollama with OLLAMA_ORIGINS set to this page's origin, or turn on CORS in LM Studio's server settings."
    : " If you are online, the provider may not accept calls from a browser page (CORS); an OpenAI-compatible proxy that does (OpenRouter) works.";
  return new ProviderError({
    kind: "network",
    providerMessage: detail,
    partialText,
    message:
      partialText === ""
        ? `Could not reach ${origin} (${detail}). Check that you are online and the base URL is right.${cors}`
        : `The connection to ${origin} broke in the middle of the answer (${detail}). Press Continue to try again; the text so far is kept.`,
  });
}

function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 3; depth++) {
    const record = current as { message?: unknown; code?: unknown; cause?: unknown };
    const text = typeof record.code === "string" ? record.code : String(record.message ?? current);
    if (text && !parts.includes(text)) parts.push(text);
    current = record.cause;
  }
  return parts.join(": ") || "no answer";
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
