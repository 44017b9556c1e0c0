import { classifyFetchFailure, classifyHttpError, ProviderError } from "./errors.ts";
import type { FetchLike } from "./provider.ts";

export interface Where {
  provider: string;
  baseUrl: string;
  model: string;
}

/**
 * POSTs a JSON request and returns the response once its status says it worked; any failure
 * becomes a ProviderError that says what to do next.
 */
export async function postJson(
  fetch: FetchLike,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal | undefined,
  where: Where,
): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    throw classifyFetchFailure(error, where, signal);
  }
  if (!response.ok) {
    let text = "";
    try {
      text = await response.text();
    } catch (error) {
      throw classifyFetchFailure(error, where, signal);
    }
    throw classifyHttpError(response.status, text, response.headers, where);
  }
  return response;
}

/** Whether a response is a plain JSON document rather than a stream (a server that ignores stream). */
export function isJsonResponse(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").includes("application/json");
}

/** The body as a stream, or a clear error when a server sent none. */
export function bodyOf(response: Response, where: Where): ReadableStream<Uint8Array> {
  if (!response.body) {
    throw new ProviderError({
      kind: "bad_response",
      message: `${where.provider} answered without a body; check that ${where.baseUrl} is an API endpoint.`,
    });
  }
  return response.body;
}

export function parseJsonEvent(data: string, where: Where, partialText: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ProviderError({
      kind: "bad_response",
      partialText,
      message: `${where.provider} sent a stream event that is not JSON (“${data.slice(0, 120)}”): is ${where.baseUrl} the right endpoint for this kind of provider?`,
    });
  }
}

/** A short unique id for tool calls a server left without one. */
export function generatedCallId(): string {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return `call_${[...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** The arguments as an object when they are one; undefined for malformed JSON or non-objects. */
export function argumentsObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export const IMAGES_WITHHELD = " (this model is set to take no images, so the image was not sent)";
