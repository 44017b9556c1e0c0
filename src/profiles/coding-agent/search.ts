import { ripgrepGlob } from "../../tools/glob.ts";
import { listFiles } from "../../tools/list-files.ts";
import { searchText } from "../../tools/search-text.ts";
import { type AnyTool, plural, report } from "./result.ts";

/** The engine grep reports in parser_used: a JavaScript RegExp over the sandbox's files. */
export const GREP_ENGINE = "js-regex";

const glob: AnyTool = {
  name: "glob",
  description:
    "Find files matching a glob pattern (pathlib style: '*.py' matches in base_path only, '**/*.py' at any depth). Paths are relative to the workspace root, sorted; .git and .gitignore'd files are left out.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: {
        type: "string",
        description: "Glob pattern, matched against paths relative to base_path, e.g. 'src/**/*.ts'.",
      },
      base_path: {
        type: "string",
        default: ".",
        description: "Folder to search from. Default: the workspace root.",
      },
      include_hidden: {
        type: "boolean",
        default: false,
        description: "Also match files and folders whose names start with '.'.",
      },
      max_results: {
        type: "integer",
        minimum: 1,
        default: 500,
        description: "Maximum number of paths returned.",
      },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 30_000,
  pathParams: ["base_path"],
  async run(
    params: { pattern: string; base_path: string; include_hidden: boolean; max_results: number },
    context,
  ) {
    const base = await context.resolve(params.base_path, { param: "base_path" });
    const listed = await listFiles(context, {
      root: params.base_path,
      glob: params.pattern,
      limit: params.max_results,
      gitignore: true,
      skipHidden: !params.include_hidden,
    });
    const matches = listed.files.map((path) => (base.relative === "" ? path : `${base.relative}/${path}`));
    return report(
      {
        pattern: params.pattern,
        base_path: base.relative === "" ? "." : base.relative,
        matches,
        count: matches.length,
        truncated: listed.truncated,
      },
      {
        message: listed.truncated
          ? `${listed.total} files match ${params.pattern}; returned the first ${matches.length}.`
          : `${plural(matches.length, "file")} match ${params.pattern}.`,
        warnings: listed.truncated
          ? [
              `${listed.total - matches.length} more matches left out (max_results=${params.max_results}); narrow the pattern or base_path.`,
            ]
          : [],
      },
    );
  },
};

const grep: AnyTool = {
  name: "grep",
  description:
    "Search file contents with a regular expression in ripgrep's syntax (Rust regex: \\pL, [[:digit:]], (?P<name>…), inline flags such as (?i); no look-around or back-references; linear time). Hidden and .gitignore'd files are skipped, as ripgrep does; binary files are skipped.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Regular expression to search for." },
      path: {
        type: "string",
        default: ".",
        description: "File or folder to search. Default: the workspace root.",
      },
      glob: {
        type: "string",
        description:
          "Only search files matching this glob ('*.py' by name at any depth; 'src/**/*.ts' by path).",
      },
      case_sensitive: { type: "boolean", default: true, description: "Match case exactly." },
      max_results: {
        type: "integer",
        minimum: 1,
        default: 200,
        description: "Maximum number of matching lines returned.",
      },
      context_lines: {
        type: "integer",
        minimum: 0,
        maximum: 20,
        default: 0,
        description: "Lines of context before and after each match.",
      },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  kind: "read",
  deadlineMs: 60_000,
  pathParams: ["path"],
  async run(
    params: {
      pattern: string;
      path: string;
      glob?: string;
      case_sensitive: boolean;
      max_results: number;
      context_lines: number;
    },
    context,
  ) {
    const root = await context.resolve(params.path, { param: "path" });
    const result = await searchText(context, {
      root: root.relative,
      pattern: params.pattern,
      regex: true,
      caseSensitive: params.case_sensitive,
      ...(params.glob ? { include: ripgrepGlob(params.glob) } : {}),
      contextLines: params.context_lines,
      maxMatches: params.max_results,
    });
    const matches = result.matches.map((match) => ({
      file: match.path,
      line: match.line,
      text: match.text,
      ...(params.context_lines > 0 ? { context_before: match.before, context_after: match.after } : {}),
    }));
    return report(
      {
        pattern: params.pattern,
        matches,
        match_count: result.totalMatches,
        files_matched: result.filesWithMatches.length,
        parser_used: GREP_ENGINE,
      },
      {
        message: `${plural(result.totalMatches, "match", "matches")} in ${plural(result.filesWithMatches.length, "file")} (${plural(result.filesSearched, "file")} searched).`,
        warnings: result.truncated
          ? [
              `Returned the first ${matches.length} of ${result.totalMatches} matches (max_results=${params.max_results}).`,
            ]
          : [],
      },
    );
  },
};

export const SEARCH_TOOLS: AnyTool[] = [glob, grep];
