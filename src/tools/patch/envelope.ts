/**
 * The apply_patch envelope (`*** Begin Patch` … `*** End Patch`), read the way agents send it:
 * bare, in a heredoc (`apply_patch <<'EOF'` … `EOF`), inside `bash -lc '…'`, as a JSON argv array,
 * with or without the final newline, and without `*** End Patch` when nothing follows.
 */
import { parseError } from "./failures.ts";
import type { FileOperation, HunkLine, ParsedHunk, ParsedPatch } from "./types.ts";
import { patchLines } from "./unified.ts";

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File:/u;

/** Index of the first line of an envelope (its Begin line, else its first file header), or -1. */
export function envelopeStart(lines: readonly string[]): number {
  const begin = lines.findIndex((line) => line.trim() === BEGIN);
  if (begin !== -1) return begin;
  return lines.findIndex((line) => FILE_HEADER.test(line));
}

interface Wrapper {
  /** The heredoc's delimiter word, if the envelope sits in one. */
  delimiter?: string;
  /** The quote of a `bash -lc '…'` around it, whose escapes must be undone. */
  quote?: "'" | '"';
}

/** Parses an envelope; line numbers in errors count from the first line of `text`. */
export function parseEnvelope(text: string): ParsedPatch {
  const lines = patchLines(argvScript(text));
  const operations: FileOperation[] = [];
  const first = envelopeStart(lines);
  let at = first;
  if (at === -1) {
    throw parseError(
      1,
      `'${BEGIN}' followed by '*** Add File:', '*** Update File:' or '*** Delete File:'`,
      lines[0],
    );
  }
  while (at !== -1 && at < lines.length) {
    const wrapper = detectWrapper(lines.slice(0, at));
    const bodyStart = lines[at]!.trim() === BEGIN ? at + 1 : at;
    let end = lines.findIndex((line, k) => k >= bodyStart && line.trim() === END);
    const closed = end !== -1;
    if (!closed) end = trimWrapperTail(lines, bodyStart, wrapper);
    const body = lines.slice(bodyStart, end).map((line) => unescapeShell(line, wrapper.quote));
    operations.push(...new EnvelopeParser(body, bodyStart + 1).parse());
    if (!closed) break;
    const next = lines.findIndex((line, k) => k > end && line.trim() === BEGIN);
    at = next;
  }
  if (operations.length === 0) {
    throw parseError(
      first + 2,
      "'*** Add File:', '*** Update File:' or '*** Delete File:' in the envelope",
      lines[first + 1],
    );
  }
  return { format: "envelope", operations };
}

/** `["bash", "-lc", "apply_patch <<'EOF'…"]` or `["apply_patch", "*** Begin Patch…"]`: the element holding the patch. */
function argvScript(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith("[")) return text;
  try {
    const argv: unknown = JSON.parse(trimmed);
    if (Array.isArray(argv) && argv.every((item) => typeof item === "string")) {
      const script = (argv as string[]).find((item) => item.includes(BEGIN) || FILE_HEADER.test(item));
      if (script !== undefined) return script;
    }
  } catch {
    // Not JSON: a patch that happens to start with "[".
  }
  return text;
}

function detectWrapper(before: readonly string[]): Wrapper {
  const wrapper: Wrapper = {};
  const preamble = before.join("\n");
  const heredoc = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/u.exec(preamble);
  if (heredoc) wrapper.delimiter = heredoc[2]!;
  const shell = /\b(?:ba|z|da)?sh\s+-[a-z]*c\s+(['"])/u.exec(preamble);
  if (shell) wrapper.quote = shell[1] as "'" | '"';
  return wrapper;
}

/**
 * Without `*** End Patch` the envelope runs to the end of the text, less what closes its wrapper:
 * the heredoc delimiter, a closing quote or parenthesis, a ``` fence, blank lines.
 */
function trimWrapperTail(lines: readonly string[], from: number, wrapper: Wrapper): number {
  let end = lines.length;
  const closers = new Set(["EOF", "PATCH", "```", "'", '"', ")", "')", '")']);
  if (wrapper.delimiter) closers.add(wrapper.delimiter);
  while (end > from) {
    const line = lines[end - 1]!.trim();
    const bare = line.replace(/['")\s;]+$/u, "");
    if (line === "" || closers.has(line) || (bare !== "" && closers.has(bare) && bare !== line)) {
      end--;
    } else {
      break;
    }
  }
  return end;
}

/** Undoes the escaping a shell quote forced on the patch text. */
function unescapeShell(line: string, quote: Wrapper["quote"]): string {
  if (quote === "'") return line.replaceAll(`'\\''`, "'").replaceAll(`'"'"'`, "'");
  if (quote === '"') return line.replace(/\\([\\"$`])/gu, "$1");
  return line;
}

class EnvelopeParser {
  private readonly operations: FileOperation[] = [];
  private current: FileOperation | undefined;
  private chunk: ParsedHunk | undefined;
  /** Blank lines seen in Add File content, kept only if more content follows. */
  private pendingBlank = 0;

  constructor(
    private readonly lines: readonly string[],
    private readonly firstLine: number,
  ) {}

  parse(): FileOperation[] {
    this.lines.forEach((line, k) => {
      this.line(line, this.firstLine + k);
    });
    this.closeOperation(this.firstLine + this.lines.length);
    return this.operations;
  }

  private line(raw: string, number: number): void {
    // A header may be indented (Codex trims it), except inside an Update, where " ***" is context.
    const indentedHeader = this.current?.kind !== "update" && /^\s+\*\*\* /u.test(raw);
    const line = indentedHeader ? raw.trim() : raw.trimEnd();
    if (line.startsWith("*** ")) {
      this.header(line, number);
      return;
    }
    const op = this.current;
    if (!op) {
      if (line.trim() === "") return;
      throw parseError(
        number,
        "'*** Add File: path', '*** Update File: path' or '*** Delete File: path'",
        raw,
      );
    }
    if (op.kind === "add") {
      if (raw.startsWith("+")) {
        const hunk = op.hunks[0]!;
        for (; this.pendingBlank > 0; this.pendingBlank--) hunk.lines.push({ kind: "+", text: "" });
        hunk.lines.push({ kind: "+", text: raw.slice(1) });
      } else if (line === "") {
        this.pendingBlank++;
      } else {
        throw parseError(
          number,
          `a line starting with '+' (the content of new file ${op.paths[0]}) or the next '*** ' header`,
          raw,
        );
      }
      return;
    }
    if (op.kind === "delete") {
      if (line === "") return;
      throw parseError(number, `the next '*** ' header (Delete File ${op.paths[0]} takes no lines)`, raw);
    }
    if (raw.startsWith("@@")) {
      const anchor = raw
        .slice(2)
        .trim()
        .replace(/\s*@@$/u, "");
      if (!this.chunk || this.chunk.lines.length > 0 || this.chunk.atEndOfFile) this.openChunk(number);
      // A numbered unified-style header says nothing an envelope can use; its heading may.
      const heading = anchor.replace(/^-\d+(,\d+)?\s+\+\d+(,\d+)?\s*@@\s*/u, "");
      if (heading !== "" && !/^-\d+(,\d+)?\s+\+\d+(,\d+)?$/u.test(heading)) this.chunk!.anchors.push(heading);
      return;
    }
    if (raw.startsWith("\\")) return; // "\ No newline at end of file" borrowed from unified diffs
    if (!this.chunk || this.chunk.atEndOfFile) this.openChunk(number);
    this.chunk!.lines.push(hunkLine(raw));
  }

  private header(line: string, number: number): void {
    const header = /^\*\*\* (Add File|Update File|Delete File|Move to):\s*(.*)$/u.exec(line);
    if (header) {
      const [, kind, rawPath] = header;
      // Models sometimes quote a path as they would in prose or a shell.
      const path = rawPath!.trim().replace(/^(["'`])(.+)\1$/u, "$2");
      if (path === "") throw parseError(number, `a path after '*** ${kind}:'`, line);
      if (kind === "Move to") {
        const op = this.current;
        if (op?.kind !== "update" || op.hunks.length > 0 || op.moveTo !== undefined) {
          throw parseError(number, "'*** Move to:' right after its '*** Update File:' line", line);
        }
        op.moveTo = path;
        return;
      }
      this.closeOperation(number);
      const op: FileOperation = {
        kind: kind === "Add File" ? "add" : kind === "Update File" ? "update" : "delete",
        paths: [path],
        hunks: [],
        patchLine: number,
      };
      if (op.kind === "add") op.hunks.push(emptyHunk(number));
      this.current = op;
      return;
    }
    if (line.trim() === "*** End of File") {
      if (this.current?.kind !== "update" || !this.chunk || this.chunk.lines.length === 0) {
        throw parseError(number, "'*** End of File' after the lines of an Update File hunk", line);
      }
      this.chunk.atEndOfFile = true;
      return;
    }
    if (line.trim() === BEGIN) return; // a repeated Begin line is harmless
    throw parseError(
      number,
      "'*** Add File:', '*** Update File:', '*** Delete File:', '*** Move to:', '*** End of File' or '*** End Patch'",
      line,
    );
  }

  private openChunk(number: number): void {
    this.chunk = emptyHunk(number);
    this.current!.hunks.push(this.chunk);
  }

  private closeOperation(number: number): void {
    const op = this.current;
    if (!op) return;
    if (op.kind === "update") {
      // Blank lines between sections open a chunk of nothing but blank context: not a change.
      op.hunks = op.hunks.filter(
        (hunk) =>
          hunk.anchors.length > 0 || hunk.lines.some((line) => line.kind !== " " || line.text.trim() !== ""),
      );
      const empty = op.hunks.find((hunk) => hunk.lines.length === 0);
      if (empty) {
        throw parseError(
          empty.patchLine + 1,
          "lines starting with ' ', '-' or '+' after the @@ line",
          undefined,
        );
      }
      if (op.hunks.length === 0 && op.moveTo === undefined) {
        throw parseError(
          number,
          `changes for ${op.paths[0]}: '@@' then lines starting with ' ', '-' or '+' (or '*** Move to:')`,
          undefined,
        );
      }
    }
    if (op.kind === "add" && op.hunks[0]!.lines.length === 0) op.hunks = [];
    this.operations.push(op);
    this.current = undefined;
    this.chunk = undefined;
    this.pendingBlank = 0;
  }
}

function emptyHunk(patchLine: number): ParsedHunk {
  return {
    patchLine,
    countsRepaired: false,
    anchors: [],
    lines: [],
    atEndOfFile: false,
    oldNoNewline: false,
    newNoNewline: false,
  };
}

/** A line of an Update File hunk; a blank line is empty context, an unprefixed one is context too (it must match). */
function hunkLine(raw: string): HunkLine {
  const first = raw[0];
  if (first === " " || first === "-" || first === "+") return { kind: first, text: raw.slice(1) };
  return { kind: " ", text: raw };
}
