import { describe, expect, it } from "vitest";
import type { FetchLike } from "../core/profile.ts";
import { DEMO_SESSIONS } from "./demos/index.ts";
import { exportSession } from "./export.ts";
import { SessionFormatError } from "./format.ts";
import {
  decodeShareFragment,
  encodeShareFragment,
  loadSessionFromUrl,
  SHARE_LINK_LIMIT,
  sessionSourceOf,
  shareSession,
} from "./share.ts";

const PAGE = "https://toolroom.test/app/?profile=agentbench#old";
const demo = DEMO_SESSIONS[0]!.session;

function servedBy(text: string, status = 200, headers: Record<string, string> = {}) {
  const asked: string[] = [];
  const fetch: FetchLike = async (url) => {
    asked.push(url);
    return new Response(text, { status, headers });
  };
  return { fetch, asked };
}

describe("share links", () => {
  it("round-trips a session through #s= (base64url of deflate), replacing any old fragment", async () => {
    const shared = shareSession(demo, PAGE);
    expect(shared.kind).toBe("link");
    if (shared.kind !== "link") return;
    expect(shared.url.startsWith("https://toolroom.test/app/?profile=agentbench#s=")).toBe(true);
    expect(shared.url).toMatch(/#s=[A-Za-z0-9_-]+$/u);
    expect(shared.url.length).toBeLessThanOrEqual(SHARE_LINK_LIMIT);
    // Compressed well below the JSON it carries.
    expect(shared.url.length).toBeLessThan(exportSession(demo).text.length / 2);
    expect(sessionSourceOf(shared.url)).toEqual({ kind: "fragment" });
    expect(await loadSessionFromUrl(shared.url)).toEqual(demo);
  });

  it("offers a file instead when the link would pass the limit, and says why", () => {
    const shared = shareSession(demo, PAGE, { limit: 1000 });
    expect(shared.kind).toBe("file");
    if (shared.kind !== "file") return;
    expect(shared.reason).toMatch(/would make a \d+ KB link; links stop at 1 KB/u);
    expect(JSON.parse(shared.text)).toEqual(demo);
  });

  it("redacts the key in links and files alike", async () => {
    const key = "sk-live-share-test-0123456789abcdef";
    const leaky = structuredClone(demo);
    leaky.transcript.push({ role: "user", text: `my key is ${key}` });
    const link = shareSession(leaky, PAGE, { secrets: [key] });
    expect(link.redactions).toEqual([{ what: "the API key in use", count: 1 }]);
    if (link.kind !== "link") throw new Error("expected a link");
    const opened = await loadSessionFromUrl(link.url);
    expect(JSON.stringify(opened)).not.toContain(key);
    const file = shareSession(leaky, PAGE, { secrets: [key], limit: 10 });
    expect(file.kind === "file" && file.text).not.toContain(key);
  });

  it("says plainly when a link was cut short", () => {
    const fragment = encodeShareFragment(JSON.stringify(demo));
    expect(() => decodeShareFragment(fragment.slice(0, fragment.length / 2))).toThrow(
      /This share link cannot be opened: The link's session data is damaged/u,
    );
    expect(() => decodeShareFragment(encodeShareFragment('{"format":"other"}'))).toThrow(SessionFormatError);
  });
});

describe("?session=https://…", () => {
  it("fetches the session with the fetch it is given", async () => {
    const served = servedBy(exportSession(demo).text);
    const url = "https://toolroom.test/?session=https%3A%2F%2Fgist.test%2Fdemo.json";
    expect(sessionSourceOf(url)).toEqual({ kind: "url", url: "https://gist.test/demo.json" });
    expect(await loadSessionFromUrl(url, { fetch: served.fetch })).toEqual(demo);
    expect(served.asked).toEqual(["https://gist.test/demo.json"]);
  });

  it("calls fetch unbound, as a browser's window.fetch requires", async () => {
    const text = exportSession(demo).text;
    // Like window.fetch: "Illegal invocation" when called as a method of another object.
    const strict = function (this: unknown) {
      if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
      return Promise.resolve(new Response(text));
    } as unknown as FetchLike;
    const url = "https://toolroom.test/?session=https://gist.test/demo.json";
    expect(await loadSessionFromUrl(url, { fetch: strict })).toEqual(demo);
  });

  it("returns null for a page URL that names no session", async () => {
    expect(await loadSessionFromUrl("https://toolroom.test/#tab=files")).toBeNull();
  });

  it("reports a failed download, a bad address, a wrong file and a too-large file, naming the address", async () => {
    const at = (remote: string) => `https://toolroom.test/?session=${encodeURIComponent(remote)}`;
    await expect(loadSessionFromUrl(at("https://x.test/s.json"), servedBy("nope", 404))).rejects.toThrow(
      "The session at https://x.test/s.json cannot be opened: Its server answered 404",
    );
    await expect(loadSessionFromUrl(at("file:///etc/passwd"), servedBy(""))).rejects.toThrow(
      /Only http\(s\) addresses can be loaded, not file:/u,
    );
    await expect(loadSessionFromUrl(at("https://x.test/s.json"), servedBy("<html></html>"))).rejects.toThrow(
      /cannot be opened: It is not JSON/u,
    );
    await expect(
      loadSessionFromUrl(at("https://x.test/s.json"), { ...servedBy("{}"), maxBytes: 1 }),
    ).rejects.toThrow(/larger than/u);
    const offline: FetchLike = async () => {
      throw new TypeError("Failed to fetch");
    };
    await expect(loadSessionFromUrl(at("https://x.test/s.json"), { fetch: offline })).rejects.toThrow(
      /could not be downloaded \(Failed to fetch\).*CORS/u,
    );
    const newer = JSON.stringify({ ...demo, version: 9 });
    await expect(loadSessionFromUrl(at("https://x.test/s.json"), servedBy(newer))).rejects.toThrow(
      /saved by a newer Toolroom/u,
    );
  });
});
