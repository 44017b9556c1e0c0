import type { SessionFile } from "./format.ts";
import { type Redaction, Redactor } from "./redact.ts";

export { KEY_PATTERNS, MIN_SECRET_LENGTH, REDACTED, type Redaction, Redactor } from "./redact.ts";

export interface RedactedText {
  text: string;
  redactions: Redaction[];
}

/**
 * Replaces each given secret (in any encoding) and every key-shaped string in `text` with
 * [REDACTED], and says what it replaced. For a session use exportSession, which searches each
 * field's decoded text.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): RedactedText {
  const redactor = new Redactor(secrets);
  return { text: redactor.text(text), redactions: redactor.redactions };
}

export interface ExportOptions {
  /** The keys in use (the provider's, any other): searched for and blanked out. */
  secrets?: readonly (string | undefined)[];
  /** Indented JSON (for a file a person may read); compact by default. */
  pretty?: boolean;
}

/**
 * The session as JSON text, with the last line of defence applied: any secret or key-shaped
 * string in any field (file contents decoded from base64 included) is replaced before the text
 * leaves this function. `redactions` says what was found.
 */
export function exportSession(session: SessionFile, options: ExportOptions = {}): RedactedText {
  const redactor = new Redactor(options.secrets);
  const redacted = redactor.value(session);
  return {
    text: JSON.stringify(redacted, null, options.pretty ? 2 : undefined),
    redactions: redactor.redactions,
  };
}

/** A file name for the download: the title in lowercase words and the date. */
export function sessionFileName(session: SessionFile): string {
  const slug =
    session.meta.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/gu, "-")
      .replace(/^-+|-+$/gu, "")
      .slice(0, 48) || "session";
  const date = session.meta.createdAt.slice(0, 10);
  return `${slug}-${date}.toolroom.json`;
}
