import { hmac } from "@noble/hashes/hmac.js";
import { md5, ripemd160, sha1 } from "@noble/hashes/legacy.js";
import { sha224, sha256, sha384, sha512, sha512_224, sha512_256 } from "@noble/hashes/sha2.js";
import { sha3_224, sha3_256, sha3_384, sha3_512 } from "@noble/hashes/sha3.js";

/** The digests of the embedded node's crypto.createHash / createHmac, by Node's (OpenSSL's) names. */
const DIGESTS = {
  md5,
  sha1,
  ripemd160,
  rmd160: ripemd160,
  sha224,
  sha256,
  sha384,
  sha512,
  "sha512-224": sha512_224,
  "sha512-256": sha512_256,
  "sha3-224": sha3_224,
  "sha3-256": sha3_256,
  "sha3-384": sha3_384,
  "sha3-512": sha3_512,
} as const;

export type DigestName = keyof typeof DIGESTS;

/** What crypto.getHashes() answers. */
export const DIGEST_NAMES = Object.keys(DIGESTS) as DigestName[];

/** Whether the embedded node can compute this digest (names compared as Node does, ignoring case). */
export function isDigest(name: string): name is DigestName {
  return Object.hasOwn(DIGESTS, name.toLowerCase());
}

/** The digest of `data`, or its HMAC when `key` is given. */
export function digest(name: string, data: Uint8Array, key?: Uint8Array): Uint8Array {
  const lower = name.toLowerCase();
  if (!isDigest(lower)) throw new Error(`Digest method not supported: ${name}`);
  const hash = DIGESTS[lower];
  return key ? hmac(hash, key, data) : hash(data);
}
