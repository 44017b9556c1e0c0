/** A window of a text's lines, each kept with its own line ending so the slice is exact text. */
export interface LineWindow {
  content: string;
  totalLines: number;
  returnedLines: number;
}

/** Lines [offset, offset + limit) of a text (0-based); "\n", "\r\n" and "\r" end lines. */
export function sliceLines(text: string, offset: number, limit: number | undefined): LineWindow {
  const pieces = text.match(/[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$/gu) ?? [];
  const end = limit === undefined ? pieces.length : Math.min(pieces.length, offset + limit);
  const selected = offset >= pieces.length ? [] : pieces.slice(offset, end);
  return { content: selected.join(""), totalLines: pieces.length, returnedLines: selected.length };
}
