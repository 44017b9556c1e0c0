/**
 * Indentation-aware reading: the block of code around a line, found by indentation alone (so it
 * works for Python, YAML and brace languages alike), and re-rendered with a chosen indent string.
 */

export interface IndentationBlock {
  /** 0-based, `end` exclusive: the lines returned. */
  start: number;
  end: number;
  /** The line the block was built around (the requested one, or the next non-blank line). */
  anchor: number;
  /** The whole block was longer than the limit, so only part of it is returned. */
  truncated: boolean;
  /** Columns per indentation level found in the file; a tab counts as one level. */
  unit: number;
}

const CLOSER = /^\s*(?:[}\])]|end\b|fi\b|done\b|esac\b|endif\b|endfor\b|endwhile\b|until\b)/u;
const LEAD_IN = /^\s*(?:@|#|\/\/|\/\*|\*|--|;|<!--)/u;

const blank = (line: string) => line.trim() === "";

/**
 * The indentation unit of a file: the most common step by which indentation grows from one
 * non-blank line to the next (ties go to the smaller), 4 when nothing is indented with spaces.
 */
export function detectIndentUnit(lines: readonly string[]): number {
  const counts = new Map<number, number>();
  let previous = 0;
  for (const line of lines) {
    if (blank(line)) continue;
    const leading = /^[ ]*/u.exec(line)![0].length;
    if (line[leading] === "\t") continue;
    if (leading > previous) counts.set(leading - previous, (counts.get(leading - previous) ?? 0) + 1);
    previous = leading;
  }
  let unit = 4;
  let best = 0;
  for (const [step, count] of counts) {
    if (count > best || (count === best && step < unit)) {
      unit = step;
      best = count;
    }
  }
  return unit;
}

/** Leading whitespace in columns, a tab being one level (`unit` columns). */
function width(line: string, unit: number): number {
  let columns = 0;
  for (const char of line) {
    if (char === " ") columns++;
    else if (char === "\t") columns += unit;
    else break;
  }
  return columns;
}

/**
 * The block around line `anchor` (0-based), at most `limit` lines:
 * - if the anchor opens a block (the next non-blank line is indented deeper), that block: the
 *   anchor and every line after it indented deeper, blank lines inside included;
 * - otherwise the innermost block containing it: from the nearest line above indented less (its
 *   header) to the end of that header's body;
 * - at the top level with no header, the paragraph around it: the lines next to it at its
 *   indentation, up to a blank line.
 * A block also takes the closing line right after its body at the header's indentation (`}`, `]`,
 * `)`, `end`, `fi`, `done`, …) and the decorators and comments directly above its header. When it
 * is longer than `limit`, the window starts at the block's first line, or is centred on the anchor
 * if that would leave the anchor out.
 */
export function indentationBlock(
  lines: readonly string[],
  anchorLine: number,
  limit: number,
): IndentationBlock {
  const unit = detectIndentUnit(lines);
  const n = lines.length;
  let anchor = anchorLine;
  while (anchor < n && blank(lines[anchor]!)) anchor++;
  if (anchor >= n) {
    anchor = anchorLine;
    while (anchor > 0 && blank(lines[anchor]!)) anchor--;
  }
  if (n === 0 || blank(lines[anchor] ?? "")) {
    return {
      start: anchorLine,
      end: Math.min(n, anchorLine + 1),
      anchor: anchorLine,
      truncated: false,
      unit,
    };
  }
  const w = (index: number) => width(lines[index]!, unit);
  const nextNonBlank = (from: number) => {
    for (let j = from; j < n; j++) if (!blank(lines[j]!)) return j;
    return -1;
  };

  let header: number | null = null;
  const next = nextNonBlank(anchor + 1);
  if (next !== -1 && w(next) > w(anchor)) header = anchor;
  else {
    for (let i = anchor - 1; i >= 0; i--) {
      if (!blank(lines[i]!) && w(i) < w(anchor)) {
        header = i;
        break;
      }
    }
  }

  let start: number;
  let end: number;
  if (header === null) {
    // Neighbours indented deeper belong to a block of their own, not to this paragraph.
    const level = w(anchor);
    start = anchor;
    while (start > 0 && !blank(lines[start - 1]!) && w(start - 1) === level) start--;
    end = anchor + 1;
    while (end < n && !blank(lines[end]!) && w(end) === level) end++;
  } else {
    const headerWidth = w(header);
    let last = header;
    for (let j = header + 1; j < n; j++) {
      if (blank(lines[j]!)) continue;
      if (w(j) <= headerWidth) break;
      last = j;
    }
    end = last + 1;
    const closing = nextNonBlank(end);
    if (closing !== -1 && w(closing) === headerWidth && CLOSER.test(lines[closing]!)) end = closing + 1;
    start = header;
    while (start > 0 && !blank(lines[start - 1]!) && LEAD_IN.test(lines[start - 1]!)) {
      const above = w(start - 1);
      // JSDoc's " * " lines sit one column right of the comment that opens them.
      if (above !== headerWidth && !(above === headerWidth + 1 && /^\s*\*/u.test(lines[start - 1]!))) break;
      start--;
    }
  }

  if (end - start <= limit) return { start, end, anchor, truncated: false, unit };
  let windowStart = anchor - start < limit ? start : Math.max(start, anchor - Math.floor(limit / 2));
  windowStart = Math.min(windowStart, end - limit);
  return { start: windowStart, end: windowStart + limit, anchor, truncated: true, unit };
}

/**
 * Re-renders lines' leading whitespace as one `indent` per level (`unit` columns or a tab), with
 * leftover columns (alignment) kept as spaces; blank lines become empty.
 */
export function renderIndentation(lines: readonly string[], indent: string, unit: number): string[] {
  return lines.map((line) => {
    if (blank(line)) return "";
    const columns = width(line, unit);
    const body = line.replace(/^[ \t]*/u, "");
    return indent.repeat(Math.floor(columns / unit)) + " ".repeat(columns % unit) + body;
  });
}
