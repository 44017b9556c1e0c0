import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContext } from "../core/profile.ts";
import { createToolContext } from "../core/tool-context.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { startTestHttpServer, type TestHttpServer } from "../test-support/http-server.ts";
import { checkUrl, httpGet, MAX_DOWNLOAD_BYTES, matchesPrefix } from "./net.ts";

let server: TestHttpServer;
beforeAll(async () => {
  server = await startTestHttpServer();
});
afterAll(async () => {
  await server.close();
});

async function context(allow: string[] = [`${server.origin}/`], overrides: Partial<ToolContext> = {}) {
  const sandbox = await EmbeddedSandbox.create();
  return createToolContext(sandbox, {
    fetch: (input, init) => globalThis.fetch(input, init),
    settings: { networkAllowList: allow },
    ...overrides,
  });
}

const get = async (url: string, allow?: string[], maxBytes = MAX_DOWNLOAD_BYTES) =>
  httpGet(await context(allow), url, { maxBytes });

describe("httpGet", () => {
  it("downloads an allowed URL", async () => {
    const response = await get(`${server.origin}/hello.txt`);
    expect(new TextDecoder().decode(response.body)).toBe("hello from the test server\n");
    expect(response).toMatchObject({ status: 200, contentType: "text/plain; charset=utf-8", redirects: [] });
  });

  it("returns a 404 as a response, for the tool to judge", async () => {
    const response = await get(`${server.origin}/missing`);
    expect(response.status).toBe(404);
  });

  it("is off by default: an empty allow-list denies every URL", async () => {
    await expect(get(`${server.origin}/hello.txt`, [])).rejects.toMatchObject({
      code: "network_denied",
      details: { reason: "network_off" },
    });
  });

  it("denies URLs outside the allow-list's prefixes", async () => {
    await expect(get(`${server.otherOrigin}/hello.txt`)).rejects.toMatchObject({
      code: "network_denied",
      details: { reason: "not_allowed" },
    });
    await expect(get(`${server.origin}/hello.txt`, [`${server.origin}/api/`])).rejects.toMatchObject({
      code: "network_denied",
    });
  });

  it("refuses every scheme but http and https, before looking at the allow-list", async () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://127.0.0.1/x",
      "data:text/plain,hi",
      "javascript:alert(1)",
    ]) {
      await expect(
        get(url, ["file:///", "ftp://127.0.0.1/", "data:", "javascript:"]),
        url,
      ).rejects.toMatchObject({
        code: "network_denied",
        details: { reason: "scheme" },
      });
    }
    await expect(get("not a url")).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("accepts a body of exactly the limit", async () => {
    const response = await get(`${server.origin}/exactly-10mb`);
    expect(response.body.length).toBe(MAX_DOWNLOAD_BYTES);
  });

  it("refuses a body whose Content-Length is over the limit without reading it", async () => {
    await expect(get(`${server.origin}/big-declared`)).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("10 MB download limit (max_download_size)"),
      details: { limit: "max_download_size", limit_bytes: MAX_DOWNLOAD_BYTES },
    });
  });

  it("cuts off a chunked body (no Content-Length) while it streams", async () => {
    await expect(get(`${server.origin}/big-chunked`)).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("cut off while downloading"),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.finished.get("/big-chunked")).toBe(false);
  });

  it("cuts off a close-delimited body with no length at all", async () => {
    await expect(get(`${server.rawOrigin}/`, [`${server.rawOrigin}/`])).rejects.toMatchObject({
      code: "limit_exceeded",
    });
  });

  it("cuts off a body whose Content-Length lies (2 KB of gzip that decodes to 20 MB)", async () => {
    await expect(get(`${server.origin}/gzip-bomb`)).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("cut off while downloading"),
    });
  });

  it("uses the limit it is given", async () => {
    await expect(get(`${server.origin}/hello.txt`, undefined, 5)).rejects.toMatchObject({
      code: "limit_exceeded",
    });
  });

  it("follows redirects by hand, listing each hop", async () => {
    const response = await get(`${server.origin}/redirect-chain`);
    expect(new TextDecoder().decode(response.body)).toBe("hello from the test server\n");
    expect(response.redirects).toEqual([`${server.origin}/redirect`, `${server.origin}/hello.txt`]);
    expect(response.finalUrl).toBe(`${server.origin}/hello.txt`);
  });

  it("checks every hop: a redirect to a host off the allow-list is refused", async () => {
    await expect(get(`${server.origin}/redirect-other-host`)).rejects.toMatchObject({
      code: "network_denied",
      message: expect.stringContaining(`redirected to ${server.otherOrigin}/hello.txt`),
    });
  });

  it("checks every hop's scheme: redirects to file: and ftp: are refused", async () => {
    for (const path of ["/redirect-file", "/redirect-ftp"]) {
      await expect(get(`${server.origin}${path}`)).rejects.toMatchObject({
        code: "network_denied",
        details: { reason: "scheme" },
      });
    }
  });

  it("stops after too many redirects", async () => {
    await expect(get(`${server.origin}/redirect-loop`)).rejects.toMatchObject({
      code: "network_error",
      message: expect.stringContaining("redirected more than 10 times"),
    });
  });

  it("times out gracefully", async () => {
    const ctx = await context();
    await expect(
      httpGet(ctx, `${server.origin}/slow`, { maxBytes: MAX_DOWNLOAD_BYTES, timeoutMs: 200 }),
    ).rejects.toMatchObject({
      code: "timeout",
      message: expect.stringContaining("did not answer within 0.2 s"),
    });
  });

  it("reports a connection failure as network_error", async () => {
    const closed = "http://127.0.0.1:1/";
    await expect(get(closed, [closed])).rejects.toMatchObject({ code: "network_error" });
  });

  it("says so when the runtime has no fetch", async () => {
    const ctx = await context(undefined, { fetch: undefined });
    await expect(httpGet(ctx, `${server.origin}/hello.txt`, { maxBytes: 10 })).rejects.toMatchObject({
      code: "tool_unavailable",
    });
  });

  it("in a browser, where a manual redirect is opaque, checks where the followed request ended", async () => {
    const calls: RequestInit[] = [];
    const browserLike = async (_input: string, init?: RequestInit): Promise<Response> => {
      calls.push(init ?? {});
      if (init?.redirect === "manual") return { type: "opaqueredirect", status: 0 } as Response;
      const response = new Response("secret", { status: 200 });
      Object.defineProperty(response, "url", { value: `${server.otherOrigin}/hello.txt` });
      Object.defineProperty(response, "redirected", { value: true });
      return response;
    };
    const ctx = await context(undefined, { fetch: browserLike });
    await expect(
      httpGet(ctx, `${server.origin}/redirect-other-host`, { maxBytes: 100 }),
    ).rejects.toMatchObject({
      code: "network_denied",
    });
    expect(calls.map((init) => init.redirect ?? "follow")).toEqual(["manual", "follow"]);
  });
});

describe("allow-list prefixes", () => {
  it("match on scheme, host, port and path prefix, never on a longer host name", () => {
    const url = (text: string) => new URL(text);
    expect(matchesPrefix(url("https://example.com/a/b"), "https://example.com")).toBe(true);
    expect(matchesPrefix(url("https://example.com/a/b"), "https://example.com/a/")).toBe(true);
    expect(matchesPrefix(url("https://example.com/b"), "https://example.com/a/")).toBe(false);
    expect(matchesPrefix(url("https://example.com.evil.org/"), "https://example.com")).toBe(false);
    expect(matchesPrefix(url("https://evil.org/?https://example.com"), "https://example.com")).toBe(false);
    expect(matchesPrefix(url("https://example.com@evil.org/"), "https://example.com")).toBe(false);
    expect(matchesPrefix(url("http://example.com/"), "https://example.com")).toBe(false);
    expect(matchesPrefix(url("https://example.com:8443/"), "https://example.com")).toBe(false);
    expect(matchesPrefix(url("https://example.com:443/x"), "https://example.com/")).toBe(true);
    expect(matchesPrefix(url("https://example.com/"), "not a url")).toBe(false);
  });

  it("checkUrl returns the parsed URL when allowed", async () => {
    const ctx = await context(["https://example.com/"]);
    expect(checkUrl(ctx, "https://example.com/x").href).toBe("https://example.com/x");
  });
});
