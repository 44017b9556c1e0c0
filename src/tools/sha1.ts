import { sha1 } from "@noble/hashes/legacy.js";

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (let index = 0; index < bytes.length; index++) hex += HEX[bytes[index]!];
  return hex;
}

export function sha1Hex(bytes: Uint8Array): string {
  return toHex(sha1(bytes));
}

const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;

/**
 * SHA-1 of many byte arrays (content ids for git objects and parse caches). WebCrypto runs natively
 * and in parallel where the page has it (a secure context, or Node); a plain-HTTP page has no
 * crypto.subtle and hashes in JavaScript.
 */
export async function sha1All(list: Uint8Array[]): Promise<string[]> {
  if (!subtle || list.length < 4) return list.map(sha1Hex);
  const digests = await Promise.all(list.map((bytes) => subtle.digest("SHA-1", bytes as BufferSource)));
  return digests.map((digest) => toHex(new Uint8Array(digest)));
}
