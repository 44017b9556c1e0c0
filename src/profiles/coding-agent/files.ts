import { ToolFailure } from "../../core/errors.ts";
import { deleteEntry, moveEntry } from "../../tools/file-ops.ts";
import { sliceLines } from "../../tools/read-lines.ts";
import { readTextFile } from "../../tools/read-text.ts";
import { countOccurrences, replaceText } from "../../tools/replace-text.ts";
import { buildTree } from "../../tools/tree.ts";
import { writeTextFile } from "../../tools/write-text.ts";
import { type AnyTool, plural, report } from "./result.ts";

/** A read returns at most this much text; past it the window ends early and a warning says where. */
export const READ_MAX_BYTES = 256 * 1024;
/** file_list stops adding nodes here, so a huge tree cannot flood the context. */
export const TREE_MAX_NODES = 2000;

const fileRead: AnyTool = {
  name: "file_read",
  description: "Read file contents with optional line range control.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace root." },
      offset: {
        type: "integer",
        minimum: 0,
        default: 0,
        description:
          "Number of lines to skip from the start (0-based line index of the first line returned).",
      },
      limit: {
        type: "integer",
        minimum: 0,
        description: "Maximum number of lines to return. Default: the whole file from offset.",
      },
      char_offset: {
        type: "integer",
        minimum: 0,
        default: 0,
        description:
          "Characters of line `offset` already read: for a line longer than the 256 KB read cap, which is returned in pieces (data.next_char_offset says where the next piece starts).",
      },
    },
    required: ["path"],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params: { path: string; offset: number; limit?: number; char_offset: number }, context) {
    const file = await readTextFile(context, params.path);
    const window = sliceLines(file.text, params.offset, params.limit);
    const first = sliceLines(file.text, params.offset, 1).content;
    if (params.char_offset > 0 || new TextEncoder().encode(first).length > READ_MAX_BYTES) {
      return readLongLine(file.path.relative, first, params.offset, params.char_offset, window.totalLines);
    }
    const warnings: string[] = [];
    let content = window.content;
    let returned = window.returnedLines;
    if (new TextEncoder().encode(content).length > READ_MAX_BYTES) {
      const cut = sliceWithin(content, READ_MAX_BYTES);
      content = cut.content;
      returned = cut.lines;
      warnings.push(
        `Output limited to ${READ_MAX_BYTES / 1024} KB: returned ${returned} lines. Continue with offset=${params.offset + returned}.`,
      );
    }
    if (params.offset > 0 && params.offset >= window.totalLines) {
      warnings.push(`offset ${params.offset} is past the end of the file (${window.totalLines} lines).`);
    }
    return report(
      {
        path: file.path.relative,
        content,
        total_lines: window.totalLines,
        returned_lines: returned,
        offset: params.offset,
      },
      {
        message:
          returned === window.totalLines
            ? `Read ${file.path.relative} (${plural(returned, "line")}).`
            : `Read lines ${params.offset + 1}-${params.offset + returned} of ${window.totalLines} from ${file.path.relative}.`,
        warnings,
      },
    );
  },
};

/**
 * A piece of one line too long for a read, by characters from `charOffset`: as much as fits in
 * the cap (never half a character); the line counts as returned once its last piece is.
 */
function readLongLine(path: string, line: string, offset: number, charOffset: number, totalLines: number) {
  if (charOffset > line.length) {
    throw new ToolFailure(
      "invalid_params",
      `char_offset ${charOffset} is past the end of line ${offset + 1}, which has ${line.length} characters.`,
      { char_offset: charOffset, line_length: line.length },
    );
  }
  const encoder = new TextEncoder();
  let end = charOffset;
  let bytes = 0;
  while (end < line.length) {
    const code = line.codePointAt(end)!;
    const width = code > 0xffff ? 2 : 1;
    const size = encoder.encode(line.slice(end, end + width)).length;
    if (bytes + size > READ_MAX_BYTES) break;
    bytes += size;
    end += width;
  }
  const done = end >= line.length;
  const content = line.slice(charOffset, end);
  const where = `line ${offset + 1} (${line.length} characters) from character ${charOffset}`;
  return report(
    {
      path,
      content,
      total_lines: totalLines,
      returned_lines: done ? 1 : 0,
      offset,
      char_offset: charOffset,
      ...(done ? {} : { next_char_offset: end }),
    },
    {
      message: `Read ${where} of ${path}: ${content.length} characters.`,
      warnings: [
        done
          ? `Line ${offset + 1} is longer than the ${READ_MAX_BYTES / 1024} KB read cap; this was its last piece. Continue with offset=${offset + 1}.`
          : `Line ${offset + 1} is longer than the ${READ_MAX_BYTES / 1024} KB read cap: returned characters ${charOffset}-${end}. Continue with offset=${offset}, char_offset=${end}.`,
      ],
    },
  );
}

/** The longest run of whole lines of `text` within `maxBytes`. */
function sliceWithin(text: string, maxBytes: number): { content: string; lines: number } {
  const encoder = new TextEncoder();
  let bytes = 0;
  let end = 0;
  let lines = 0;
  for (const line of text.match(/[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$/gu) ?? []) {
    const size = encoder.encode(line).length;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += line.length;
    lines++;
  }
  return { content: text.slice(0, end), lines };
}

const fileWrite: AnyTool = {
  name: "file_write",
  description: "Create or overwrite a file. Intermediate directories are created automatically.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace root." },
      content: { type: "string", description: "The complete new content of the file." },
      overwrite: {
        type: "boolean",
        default: true,
        description: "Replace the file if it exists. With false, an existing file fails with ALREADY_EXISTS.",
      },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params: { path: string; content: string; overwrite: boolean }, context) {
    const written = await writeTextFile(context, params.path, params.content, {
      noOverwrite: !params.overwrite,
    });
    return report(
      {
        path: written.path.relative,
        bytes_written: written.bytesWritten,
        created: written.created,
        overwritten: !written.created,
      },
      {
        message: `${written.created ? "Created" : "Overwrote"} ${written.path.relative} (${plural(written.bytesWritten, "byte")}).`,
        warnings:
          written.dirsCreated.length > 0
            ? [`Created ${plural(written.dirsCreated.length, "folder")}: ${written.dirsCreated.join(", ")}.`]
            : [],
      },
    );
  },
};

/** Lines a string spans as an editor counts them ("a\nb" is 2, "a\n" is 1, "" is 0). */
function lineCount(text: string): number {
  if (text === "") return 0;
  const breaks = countOccurrences(text.replace(/\r\n/gu, "\n"), "\n");
  return text.endsWith("\n") ? breaks : breaks + 1;
}

const fileEdit: AnyTool = {
  name: "file_edit",
  description:
    "Replace an exact substring in a file. The match must occur exactly once: MATCH_NOT_FOUND when it does not occur, AMBIGUOUS_MATCH when it occurs more than once (add surrounding lines to make it unique).",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace root." },
      old_str: {
        type: "string",
        description: "The exact text to replace, whitespace included; must occur exactly once.",
      },
      new_str: { type: "string", description: "The text to put in its place (may be empty to delete)." },
    },
    required: ["path", "old_str", "new_str"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params: { path: string; old_str: string; new_str: string }, context) {
    const edited = await replaceText(context, params.path, params.old_str, params.new_str, {
      mode: "exactly_one",
    });
    const oldLines = lineCount(params.old_str);
    const newLines = lineCount(params.new_str);
    return report(
      { path: edited.path, old_lines: oldLines, new_lines: newLines, net_line_change: newLines - oldLines },
      {
        message: `Edited ${edited.path}: replaced ${plural(oldLines, "line")} with ${plural(newLines, "line")}.`,
      },
    );
  },
};

const fileList: AnyTool = {
  name: "file_list",
  description:
    "Return a directory tree as structured JSON. .git and .gitignore'd entries are left out; folders at the last level have no children listed.",
  inputSchema: {
    type: "object",
    properties: {
      path: {
        type: "string",
        default: ".",
        description: "Folder to list, relative to the workspace root. Default: the root.",
      },
      depth: {
        type: "integer",
        minimum: 0,
        default: 2,
        description: "How many levels below the folder to list.",
      },
      include_hidden: { type: "boolean", default: false, description: "Include names starting with '.'." },
      include_files: { type: "boolean", default: true, description: "Include files." },
      include_dirs: {
        type: "boolean",
        default: true,
        description: "Include folders. With false, files within depth are listed flat under the root.",
      },
    },
    required: [],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 30_000,
  pathParams: ["path"],
  async run(
    params: {
      path: string;
      depth: number;
      include_hidden: boolean;
      include_files: boolean;
      include_dirs: boolean;
    },
    context,
  ) {
    const listed = await buildTree(context, {
      path: params.path,
      depth: params.depth,
      includeHidden: params.include_hidden,
      includeFiles: params.include_files,
      includeDirs: params.include_dirs,
      maxNodes: TREE_MAX_NODES,
    });
    return report(
      { tree: listed.tree },
      {
        message: `Listed ${plural(listed.nodes, "entry", "entries")} under ${listed.tree.path}, ${params.depth} level${params.depth === 1 ? "" : "s"} deep.`,
        warnings:
          listed.omitted > 0
            ? [
                `Stopped at ${TREE_MAX_NODES} entries; ${listed.omitted} more left out. List a subfolder or lower depth.`,
              ]
            : [],
      },
    );
  },
};

const fileMove: AnyTool = {
  name: "file_move",
  description:
    "Move or rename a file or directory within the workspace. Missing destination folders are created.",
  inputSchema: {
    type: "object",
    properties: {
      src: { type: "string", description: "Current path, relative to the workspace root." },
      dst: { type: "string", description: "New path, relative to the workspace root." },
      overwrite: {
        type: "boolean",
        default: false,
        description:
          "Replace an existing destination. With false, an existing destination fails with ALREADY_EXISTS.",
      },
    },
    required: ["src", "dst"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 10_000,
  pathParams: ["src", "dst"],
  async run(params: { src: string; dst: string; overwrite: boolean }, context) {
    const moved = await moveEntry(context, params.src, params.dst, { overwrite: params.overwrite });
    return report(
      { moved_from: moved.from, moved_to: moved.to, dirs_created: moved.dirsCreated },
      { message: `Moved ${moved.from} to ${moved.to}.` },
    );
  },
};

const fileDelete: AnyTool = {
  name: "file_delete",
  description:
    "Delete a file or directory. Directories require recursive=true (RECURSIVE_REQUIRED otherwise).",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path to delete, relative to the workspace root." },
      recursive: {
        type: "boolean",
        default: false,
        description: "Required to delete a directory and everything in it.",
      },
    },
    required: ["path"],
    additionalProperties: false,
  },
  kind: "write",
  deadlineMs: 10_000,
  pathParams: ["path"],
  async run(params: { path: string; recursive: boolean }, context) {
    const deleted = await deleteEntry(context, params.path, { recursive: params.recursive });
    return report(
      { deleted: deleted.path, was_directory: deleted.wasDirectory },
      { message: `Deleted ${deleted.wasDirectory ? "the folder" : ""} ${deleted.path}.`.replace("  ", " ") },
    );
  },
};

export const FILE_TOOLS: AnyTool[] = [fileRead, fileWrite, fileEdit, fileList, fileMove, fileDelete];
