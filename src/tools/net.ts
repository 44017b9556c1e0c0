import { asToolFailure, isToolFailure, ToolFailure } from "../core/errors.ts";
import type { ToolContext } from "../core/profile.ts";
import { formatBytes } from "./write-text.ts";

/** The sandboxed system's download limit, enforced while the body streams in. */
export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;
/** Redirects followed at most, each one checked again; curl's and fetch's own limits are higher. */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface HttpGetOptions {
  /** Refuse (limit_exceeded) a body larger than this, declared or streamed. */
  maxBytes: number;
  maxRedirects?: number;
  /** Gives up with a timeout failure after this long; default: the call's deadline. */
  timeoutMs?: number;
  /** The limit's name in failures ("max_download_size"). */
  limitName?: string;
}

export interface HttpResponse {
  /** The URL asked for, and the one that answered after redirects. */
  url: string;
  finalUrl: string;
  redirects: string[];
  status: number;
  statusText: string;
  contentType: string | null;
  body: Uint8Array;
}

/**
 * Checks a URL before any request: http and https only, and its prefix must be on the runtime's
 * allow-list (context.settings.networkAllowList), which is empty, so the network off, by default.
 */
export function checkUrl(context: ToolContext, input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new ToolFailure("invalid_params", `"${input}" is not a valid URL; give an absolute http(s) URL.`, {
      url: input,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolFailure(
      "network_denied",
      `${url.protocol.slice(0, -1)}: URLs are refused; only http and https downloads are allowed.`,
      { url: input, reason: "scheme", scheme: url.protocol.slice(0, -1) },
    );
  }
  const allowList = context.settings.networkAllowList;
  if (allowList.length === 0) {
    throw new ToolFailure(
      "network_denied",
      `Network access is off, so ${url.href} cannot be fetched. The user can allow URL prefixes in the settings.`,
      { url: input, reason: "network_off" },
    );
  }
  if (!allowList.some((prefix) => matchesPrefix(url, prefix))) {
    throw new ToolFailure(
      "network_denied",
      `${url.href} is not on the network allow-list (${allowList.join(", ")}).`,
      { url: input, reason: "not_allowed", allow_list: allowList },
    );
  }
  return url;
}

/**
 * A URL matches an allow-list prefix when scheme, host and port are the same and its path starts
 * with the prefix's path: "https://example.com" never lets "https://example.com.evil.org" through.
 */
export function matchesPrefix(url: URL, prefix: string): boolean {
  let allowed: URL;
  try {
    allowed = new URL(prefix);
  } catch {
    return false;
  }
  if (allowed.protocol !== url.protocol || allowed.host !== url.host) return false;
  return `${url.pathname}${url.search}`.startsWith(`${allowed.pathname}${allowed.search}`);
}

/**
 * HTTP(S) GET through context.fetch only. Redirects are followed by hand, each hop checked again
 * against the scheme and the allow-list; the size limit is checked against Content-Length and then
 * enforced while the body streams (a missing or lying length cannot get past it).
 */
export async function httpGet(
  context: ToolContext,
  input: string,
  options: HttpGetOptions,
): Promise<HttpResponse> {
  const first = checkUrl(context, input);
  const fetch = context.fetch;
  if (!fetch) {
    throw new ToolFailure("tool_unavailable", "This runtime was started without network access (no fetch).", {
      url: input,
    });
  }
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  const limitName = options.limitName ?? "max_download_size";
  const timeoutMs = options.timeoutMs ?? context.deadlineMs;
  const controller = new AbortController();
  const abortWithCall = () => controller.abort();
  context.signal.addEventListener("abort", abortWithCall, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);

  const redirects: string[] = [];
  let url = first;
  try {
    for (;;) {
      let response = await fetch(url.href, {
        method: "GET",
        redirect: "manual",
        credentials: "omit",
        signal: controller.signal,
      });
      if (response.type === "opaqueredirect") {
        // Browsers hide a manual redirect's target; follow it, then check where it ended before reading.
        response = await fetch(url.href, { method: "GET", credentials: "omit", signal: controller.signal });
        if (response.redirected && response.url) {
          redirects.push(response.url);
          await refuseUnlessAllowed(context, response, response.url);
        }
      } else if (REDIRECT_STATUSES.has(response.status) && response.headers.has("location")) {
        await response.body?.cancel().catch(() => undefined);
        if (redirects.length >= maxRedirects) {
          throw new ToolFailure("network_error", `${input} redirected more than ${maxRedirects} times.`, {
            url: input,
            redirects,
          });
        }
        const location = response.headers.get("location")!;
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ToolFailure("network_error", `${url.href} redirected to an invalid URL: ${location}`, {
            url: input,
            location,
          });
        }
        redirects.push(next.href);
        try {
          checkUrl(context, next.href);
        } catch (error) {
          throw redirectRefused(error, url.href, next.href, redirects);
        }
        url = next;
        continue;
      }
      const body = await readCapped(response, options.maxBytes, limitName, response.url || url.href);
      return {
        url: first.href,
        finalUrl: response.url || url.href,
        redirects,
        status: response.status,
        statusText: response.statusText,
        contentType: response.headers.get("content-type"),
        body,
      };
    }
  } catch (error) {
    if (isToolFailure(error)) throw error;
    if (timedOut) {
      throw new ToolFailure("timeout", `${url.href} did not answer within ${timeoutMs / 1000} s.`, {
        url: url.href,
        timeout_sec: timeoutMs / 1000,
      });
    }
    const cause = (error as { cause?: { message?: string } } | null)?.cause?.message;
    const failure = asToolFailure(error);
    throw new ToolFailure(
      "network_error",
      `Could not fetch ${url.href}: ${failure.message.replace(/^Unexpected error: /u, "")}${cause ? ` (${cause})` : ""}.`,
      { url: url.href },
    );
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", abortWithCall);
    controller.abort();
  }
}

async function refuseUnlessAllowed(
  context: ToolContext,
  response: Response,
  finalUrl: string,
): Promise<void> {
  try {
    checkUrl(context, finalUrl);
  } catch (error) {
    await response.body?.cancel().catch(() => undefined);
    throw redirectRefused(error, response.url, finalUrl, [finalUrl]);
  }
}

function redirectRefused(error: unknown, from: string, to: string, redirects: string[]): ToolFailure {
  const failure = asToolFailure(error);
  return new ToolFailure(failure.code, `${from} redirected to ${to}, which is refused: ${failure.message}`, {
    ...failure.details,
    redirected_from: from,
    redirects,
  });
}

/** Reads a body, refusing it as soon as it is known to pass `maxBytes`. */
async function readCapped(
  response: Response,
  maxBytes: number,
  limitName: string,
  url: string,
): Promise<Uint8Array> {
  const tooLarge = (size: string) =>
    new ToolFailure(
      "limit_exceeded",
      `${url} is ${size}, over the ${formatBytes(maxBytes)} download limit (${limitName}); nothing was kept.`,
      { url, limit: limitName, limit_bytes: maxBytes },
    );
  const declared = Number(response.headers.get("content-length"));
  // A compressed body's length says nothing about its decoded size, so only an honest plain one is trusted here.
  if (Number.isFinite(declared) && declared > maxBytes && !response.headers.has("content-encoding")) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(`${declared} bytes (Content-Length)`);
  }
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`more than ${formatBytes(maxBytes)} (cut off while downloading)`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}
