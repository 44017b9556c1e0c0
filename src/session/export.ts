import type { SessionFile } from "./format.ts";

/**
 * Key shapes providers hand out. A session never holds a key by construction; these catch the
 * one a model echoed, a person pasted into a file, or a bug let through.
 */
export const KEY_PATTERNS: readonly { name: string; pattern: RegExp }[] = [
  { name: "Anthropic key", pattern: /(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{16,}/gu },
  { name: "OpenAI-style key (sk-…)", pattern: /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}/gu },
  { name: "Google API key", pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}/gu },
  { name: "Groq key", pattern: /(?<![A-Za-z0-9])gsk_[A-Za-z0-9]{20,}/gu },
  { name: "Hugging Face token", pattern: /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}/gu },
  { name: "xAI key", pattern: /(?<![A-Za-z0-9])xai-[A-Za-z0-9]{20,}/gu },
  { name: "bearer token", pattern: /(?<=Bearer )[A-Za-z0-9._~+/-]{20,}=*/gu },
];

export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not searched for: "ollama" or "none" would blank out ordinary words. */
export const MIN_SECRET_LENGTH = 8;

export interface Redaction {
  /** What was found: "the API key in use" or a key shape's name. */
  what: string;
  count: number;
}

export interface RedactedText {
  text: string;
  redactions: Redaction[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
}

/**
 * Replaces each given secret (as written, and as JSON escapes it) and every key-shaped string with
 * [REDACTED], and says what it replaced.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): RedactedText {
  let out = text;
  const redactions: Redaction[] = [];
  const replace = (what: string, pattern: RegExp) => {
    let count = 0;
    out = out.replace(pattern, () => {
      count++;
      return REDACTED;
    });
    if (count > 0) {
      const known = redactions.find((redaction) => redaction.what === what);
      if (known) known.count += count;
      else redactions.push({ what, count });
    }
  };
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    const forms = new Set([secret, JSON.stringify(secret).slice(1, -1)]);
    for (const form of forms) replace("the API key in use", new RegExp(escapeRegExp(form), "gu"));
  }
  for (const { name, pattern } of KEY_PATTERNS) replace(name, new RegExp(pattern.source, pattern.flags));
  return { text: out, redactions };
}

export interface ExportOptions {
  /** The keys in use (the provider's, any other): searched for and blanked out. */
  secrets?: readonly (string | undefined)[];
  /** Indented JSON (for a file a person may read); compact by default. */
  pretty?: boolean;
}

/**
 * The session as JSON text, with the last line of defence applied: any secret or key-shaped
 * string in it is replaced before the text leaves this function. `redactions` says what was found.
 */
export function exportSession(session: SessionFile, options: ExportOptions = {}): RedactedText {
  const json = JSON.stringify(session, null, options.pretty ? 2 : undefined);
  return redactSecrets(json, options.secrets);
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
