import { deflateSync, inflateSync, strFromU8, strToU8 } from "fflate";
import type { FetchLike } from "../core/profile.ts";
import { base64ToBytes, bytesToBase64 } from "../sandbox/snapshot.ts";
import { type ExportOptions, exportSession, type Redaction } from "./export.ts";
import { parseSession, type SessionFile, SessionFormatError } from "./format.ts";

/**
 * The longest share link we make: 16 KiB of URL. Browsers take far longer ones, but chat apps,
 * mail clients and issue trackers cut or refuse long URLs; past this a session travels as a file.
 */
export const SHARE_LINK_LIMIT = 16 * 1024;
/** The largest session fetched from ?session=…: a runaway download should not freeze the tab. */
export const SESSION_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

export type ShareResult =
  | { kind: "link"; url: string; redactions: Redaction[] }
  /** Too long for a link: offer `text` as a file (and say why). */
  | { kind: "file"; reason: string; text: string; redactions: Redaction[] };

function toBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/gu, "-").replace(/\//gu, "_").replace(/=+$/u, "");
}

function fromBase64Url(text: string): Uint8Array {
  const base64 = text.replace(/-/gu, "+").replace(/_/gu, "/");
  return base64ToBytes(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
}

/** The `s=` value of a share link for this JSON text: base64url of its raw deflate. */
export function encodeShareFragment(json: string): string {
  return toBase64Url(deflateSync(strToU8(json), { level: 9 }));
}

/** The JSON text of a share fragment's value; throws when it does not decompress. */
export function decodeFragmentText(value: string): string {
  return strFromU8(inflateSync(fromBase64Url(value)));
}

/**
 * A link that opens the session
, or its JSON as a file when the link would pass SHARE_LINK_LIMIT.
 * Either way the text went through the exporter's redaction.
 */
export function shareSession(
  session: SessionFile,
  pageUrl: string,
  options: ExportOptions & { limit?: number } = {},
): ShareResult {
  const limit = options.limit ?? SHARE_LINK_LIMIT;
  const { text, redactions } = exportSession(session, options);
  const base = pageUrl.replace(/#.*$/u, "");
  const url = `${base}#s=${encodeShareFragment(text)}`;
  if (url.length <= limit) return { kind: "link", url, redactions };
  const kb = (n: number) => `${Math.ceil(n / 1024)} KB`;
  return {
    kind: "file",
    reason: `This session would make a ${kb(url.length)} link; links stop at ${kb(limit)} (chat apps and mail cut longer ones). Share the file instead: anyone can open it with Import, or from a URL with ?session=https://….`,
    // A file is for people too: indented, through the same redaction.
    text: exportSession(session, { ...options, pretty: true }).text,
    redactions,
  };
}

/** Reads the session of a `#s=…` fragment (with or without the #); SessionFormatError when broken. */
export function decodeShareFragment(
  value: string,
  options: { profiles?: readonly string[] } = {},
): SessionFile {
  let json: string;
  try {
    json = decodeFragmentText(value);
  } catch {
    throw new SessionFormatError(
      [
        "The link's session data is damaged (it did not decompress): the link was probably cut short when it was copied.",
      ],
      "This share link cannot be opened:",
    );
  }
  return parseSession(json, options);
}

export type SessionSource = { kind: "fragment" } | { kind: "url"; url: string };

/** Where a page URL says a session is: a #s= fragment, a ?session=https://… address, or nowhere. */
export function sessionSourceOf(pageUrl: string): SessionSource | null {
  const url = new URL(pageUrl);
  const fragment = new URLSearchParams(url.hash.replace(/^#/u, ""));
  if (fragment.get("s")) return { kind: "fragment" };
  const remote = url.searchParams.get("session");
  return remote ? { kind: "url", url: remote } : null;
}

/**
 * The session a page URL points at: from its #s= fragment, or fetched from ?session=https://…
 * with the given fetch. Null when the URL names no session; a SessionFormatError saying what went
 * wrong otherwise.
 */
export async function loadSessionFromUrl(
  pageUrl: string,
  options: { fetch?: FetchLike; profiles?: readonly string[]; maxBytes?: number } = {},
): Promise<SessionFile | null> {
  const url = new URL(pageUrl);
  const source = sessionSourceOf(pageUrl);
  if (!source) return null;
  if (source.kind === "fragment") {
    return decodeShareFragment(new URLSearchParams(url.hash.replace(/^#/u, "")).get("s")!, options);
  }
  const lead = `The session at ${source.url} cannot be opened:`;
  let remote: URL;
  try {
    remote = new URL(source.url);
  } catch {
    throw new SessionFormatError(
      [`"${source.url}" is not a URL (?session= takes an https:// address).`],
      lead,
    );
  }
  if (remote.protocol !== "https:" && remote.protocol !== "http:") {
    throw new SessionFormatError([`Only http(s) addresses can be loaded, not ${remote.protocol}.`], lead);
  }
  // Called unbound: a browser's fetch throws "Illegal invocation" when called as another object's method.
  const fetch = options.fetch;
  if (!fetch) throw new SessionFormatError(["This page cannot fetch sessions."], lead);
  let response: Response;
  try {
    response = await fetch(remote.href);
  } catch (error) {
    throw new SessionFormatError(
      [
        `It could not be downloaded (${error instanceof Error ? error.message : String(error)}): check the address, and that its server allows other sites to fetch it (CORS).`,
      ],
      lead,
    );
  }
  if (!response.ok) {
    throw new SessionFormatError(
      [`Its server answered ${response.status} ${response.statusText}.`.trim()],
      lead,
    );
  }
  const maxBytes = options.maxBytes ?? SESSION_DOWNLOAD_LIMIT;
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    throw new SessionFormatError(
      [`It is ${Math.ceil(declared / 1024 / 1024)} MB; sessions are at most ${maxBytes / 1024 / 1024} MB.`],
      lead,
    );
  }
  const text = await response.text();
  if (text.length > maxBytes) {
    throw new SessionFormatError(
      [`It is larger than ${maxBytes / 1024 / 1024} MB, the most a session may be.`],
      lead,
    );
  }
  try {
    return parseSession(text, options);
  } catch (error) {
    if (error instanceof SessionFormatError) throw new SessionFormatError(error.problems, lead);
    throw error;
  }
}
