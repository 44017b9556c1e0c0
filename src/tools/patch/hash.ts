import { ToolFailure } from "../../core/errors.ts";

/** Hex SHA-256 of bytes, with WebCrypto (present in browser workers and in Node 20). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A file_hash as sent (any case, optional "sha256:" prefix) in the form sha256Hex returns; invalid_params if it is not one. */
export function normalizeFileHash(hash: string): string {
  const hex = hash
    .trim()
    .replace(/^sha-?256:/iu, "")
    .toLowerCase();
  if (!/^[0-9a-f]{64}$/u.test(hex)) {
    throw new ToolFailure(
      "invalid_params",
      `file_hash must be the hex SHA-256 of the file (64 hex digits); got ${JSON.stringify(hash)}.`,
      { file_hash: hash },
    );
  }
  return hex;
}
