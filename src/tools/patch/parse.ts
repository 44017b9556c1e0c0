import { envelopeStart, parseEnvelope } from "./envelope.ts";
import { parseError } from "./failures.ts";
import type { ParsedPatch, TextPatchFormat } from "./types.ts";
import { parseUnified, patchLines, startsFileSection } from "./unified.ts";

/**
 * Reads a patch text in whichever of the allowed formats it is written in. When both are allowed,
 * the format whose first marker comes first wins (`*** Begin Patch` or a file header for the
 * envelope, `diff --git` or a `---`/`+++` pair for unified), so a diff that patches a file which
 * mentions the other format's markers is still read as what it is.
 */
export function parsePatchText(
  text: string,
  options: {
    strip?: number;
    formats?: readonly TextPatchFormat[];
    keepCarriageReturns?: boolean;
    asWrittenFallback?: boolean;
  } = {},
): ParsedPatch {
  const formats = options.formats && options.formats.length > 0 ? options.formats : ["unified", "envelope"];
  const allowUnified = formats.includes("unified");
  const allowEnvelope = formats.includes("envelope");
  const lines = patchLines(text);
  const envelopeAt = allowEnvelope ? envelopeStart(lines) : -1;
  // A stray @@ line counts too, so that a diff without file headers gets the unified parser's message.
  const unifiedAt = allowUnified
    ? lines.findIndex((line, i) => startsFileSection(lines, i) || line.startsWith("@@ -"))
    : -1;
  const strip = {
    ...(options.strip === undefined ? {} : { strip: options.strip }),
    ...(options.keepCarriageReturns ? { keepCarriageReturns: true } : {}),
    ...(options.asWrittenFallback ? { asWrittenFallback: true } : {}),
  };
  if (envelopeAt !== -1 && (unifiedAt === -1 || envelopeAt < unifiedAt)) return parseEnvelope(text);
  if (unifiedAt !== -1) return parseUnified(text, strip);
  // A JSON argv array keeps its envelope on one line; let the envelope parser unwrap it.
  if (allowEnvelope && text.includes("*** Begin Patch")) return parseEnvelope(text);
  if (allowUnified && !allowEnvelope) return parseUnified(text, strip);
  if (allowEnvelope && !allowUnified) return parseEnvelope(text);
  throw parseError(
    1,
    "a unified diff ('--- a/path', '+++ b/path', then '@@ -l,n +l,n @@' hunks) or an apply_patch envelope ('*** Begin Patch' … '*** End Patch')",
    lines.find((line) => line.trim() !== ""),
  );
}
