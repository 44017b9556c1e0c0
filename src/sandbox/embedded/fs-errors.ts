import { SandboxError, type SandboxErrorCode } from "../types.ts";

const KNOWN: readonly SandboxErrorCode[] = [
  "ENOENT",
  "EEXIST",
  "ENOTDIR",
  "EISDIR",
  "ENOTEMPTY",
  "EINVAL",
  "ELOOP",
  "EACCES",
  "ENOSPC",
];

/** just-bash throws plain `Error("ENOENT: …")` with no `.code`; this recovers the code from the message. */
export function toSandboxError(error: unknown, path: string): SandboxError {
  if (error instanceof SandboxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = KNOWN.find(
    (candidate) => message.startsWith(`${candidate}:`) || message.includes(` ${candidate}:`),
  );
  // The filesystem's quota says how large it is: "ENOSPC: in-memory filesystem byte limit exceeded (N bytes)".
  if (code === "ENOSPC")
    return new SandboxError(code, path, `ENOSPC: ${path}: ${message.replace(/^ENOSPC: /u, "")}`);
  return new SandboxError(code ?? "EIO", path, code ? `${code}: ${path}` : `EIO: ${path}: ${message}`);
}

/** Runs a just-bash fs call and rethrows its failure as a SandboxError with a code. */
export async function withFsErrors<T>(path: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toSandboxError(error, path);
  }
}
