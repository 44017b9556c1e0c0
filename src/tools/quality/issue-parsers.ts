import { clip, plainText, relativePath } from "./output.ts";

export type Severity = "error" | "warning" | "info";

export interface Issue {
  file: string;
  line: number;
  col: number;
  rule: string | null;
  message: string;
  severity: Severity;
}

export type IssueParser =
  | "ruff-json"
  | "ruff"
  | "eslint-json"
  | "eslint-stylish"
  | "mypy"
  | "pyright-json"
  | "pyright"
  | "tsc"
  | "typescript-api"
  | "ruff-wasm";

export interface IssueReport {
  parser: IssueParser;
  issues: Issue[];
}

const severityOf = (word: string): Severity =>
  /^(?:error|fatal)$/iu.test(word) ? "error" : /^warn/iu.test(word) ? "warning" : "info";

function parseJsonOutput(raw: string): unknown {
  const text = plainText(raw);
  const start = text.search(/^\s*[[{]/mu);
  if (start === -1) return undefined;
  try {
    return JSON.parse(text.slice(start));
  } catch {
    return undefined;
  }
}

/** `ruff check --output-format=json`. */
export function parseRuffJson(raw: string, root?: string): IssueReport | null {
  const json = parseJsonOutput(raw);
  if (
    !Array.isArray(json) ||
    !json.every((item) => typeof item === "object" && item && "code" in item && "location" in item)
  )
    return null;
  return {
    parser: "ruff-json",
    issues: (
      json as {
        code: string | null;
        filename: string;
        location: { row: number; column: number };
        message: string;
      }[]
    ).map((item) => ({
      file: relativePath(item.filename, root),
      line: item.location.row,
      col: item.location.column,
      rule: item.code,
      message: item.message,
      severity: "error",
    })),
  };
}

/** ruff's text formats: concise (`file:line:col: CODE message`) and full (`CODE message` then ` --> file:line:col`). */
export function parseRuffText(raw: string, root?: string): IssueReport | null {
  const lines = plainText(raw).split("\n");
  const issues: Issue[] = [];
  for (let i = 0; i < lines.length; i++) {
    const concise = /^(\S.*?):(\d+):(\d+): ([A-Z]+[0-9]+|invalid-syntax|SyntaxError)(?: \[\*\])? (.*)$/u.exec(
      lines[i]!,
    );
    if (concise) {
      issues.push({
        file: relativePath(concise[1]!, root),
        line: Number(concise[2]),
        col: Number(concise[3]),
        rule: concise[4]!,
        message: concise[5]!,
        severity: "error",
      });
      continue;
    }
    const full = /^([A-Z]+[0-9]+|invalid-syntax)(?: \[\*\])? (.*)$/u.exec(lines[i]!);
    const arrow = /^\s*-->\s+(.*?):(\d+):(\d+)$/u.exec(lines[i + 1] ?? "");
    if (full && arrow) {
      issues.push({
        file: relativePath(arrow[1]!, root),
        line: Number(arrow[2]),
        col: Number(arrow[3]),
        rule: full[1]!,
        message: full[2]!,
        severity: "error",
      });
      i++;
    }
  }
  return issues.length > 0 || /All checks passed!/u.test(raw) ? { parser: "ruff", issues } : null;
}

/** `eslint -f json`. */
export function parseEslintJson(raw: string, root?: string): IssueReport | null {
  const json = parseJsonOutput(raw);
  if (
    !Array.isArray(json) ||
    !json.every((item) => typeof item === "object" && item && "filePath" in item && "messages" in item)
  )
    return null;
  const issues: Issue[] = [];
  for (const file of json as {
    filePath: string;
    messages: { ruleId: string | null; severity: number; message: string; line?: number; column?: number }[];
  }[]) {
    for (const message of file.messages) {
      issues.push({
        file: relativePath(file.filePath, root),
        line: message.line ?? 0,
        col: message.column ?? 0,
        rule: message.ruleId,
        message: message.message,
        severity: message.severity === 2 ? "error" : "warning",
      });
    }
  }
  return { parser: "eslint-json", issues };
}

/** eslint's default "stylish" format: a file line, then `  line:col  severity  message  rule`. */
export function parseEslintStylish(raw: string, root?: string): IssueReport | null {
  const lines = plainText(raw).split("\n");
  const issues: Issue[] = [];
  let file: string | null = null;
  for (const line of lines) {
    const entry = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)(?:\s{2,}(\S+))?\s*$/u.exec(line);
    if (entry && file) {
      issues.push({
        file,
        line: Number(entry[1]),
        col: Number(entry[2]),
        rule: entry[5] ?? null,
        message: entry[4]!,
        severity: severityOf(entry[3]!),
      });
      continue;
    }
    if (/^\S/u.test(line) && !/^✖|^\d+ problems?/u.test(line)) file = relativePath(line.trim(), root);
  }
  return issues.length > 0 ? { parser: "eslint-stylish", issues } : null;
}

/** mypy: `file:line[:col]: error|warning|note: message  [code]`; notes are folded into the issue above them. */
export function parseMypy(raw: string, root?: string): IssueReport | null {
  const issues: Issue[] = [];
  let matched = false;
  for (const line of plainText(raw).split("\n")) {
    const match = /^(\S.*?\.pyi?):(\d+):(?:(\d+):)? (error|warning|note): (.*?)(?:\s{2}\[([\w-]+)\])?$/u.exec(
      line,
    );
    if (!match) continue;
    matched = true;
    if (match[4] === "note" && issues.length > 0 && issues[issues.length - 1]!.line === Number(match[2])) {
      const last = issues[issues.length - 1]!;
      last.message = clip(`${last.message} (${match[5]})`, 1000);
      continue;
    }
    issues.push({
      file: relativePath(match[1]!, root),
      line: Number(match[2]),
      col: match[3] ? Number(match[3]) : 1,
      rule: match[6] ?? null,
      message: match[5]!,
      severity: severityOf(match[4]!),
    });
  }
  return matched || /^Success: no issues found/mu.test(raw) ? { parser: "mypy", issues } : null;
}

/** `pyright --outputjson`: 0-based positions made 1-based. */
export function parsePyrightJson(raw: string, root?: string): IssueReport | null {
  const json = parseJsonOutput(raw) as { generalDiagnostics?: unknown } | undefined;
  if (!json || !Array.isArray(json.generalDiagnostics)) return null;
  return {
    parser: "pyright-json",
    issues: (
      json.generalDiagnostics as {
        file: string;
        severity: string;
        message: string;
        range: { start: { line: number; character: number } };
        rule?: string;
      }[]
    ).map((item) => ({
      file: relativePath(item.file, root),
      line: item.range.start.line + 1,
      col: item.range.start.character + 1,
      rule: item.rule ?? null,
      message: item.message.split("\n")[0]!,
      severity: severityOf(item.severity === "information" ? "info" : item.severity),
    })),
  };
}

/** pyright's text output: `  file:line:col - error: message (rule)`, continuation lines indented further. */
export function parsePyrightText(raw: string, root?: string): IssueReport | null {
  const issues: Issue[] = [];
  for (const line of plainText(raw).split("\n")) {
    const match = /^\s+(\S.*?):(\d+):(\d+) - (error|warning|information): (.*?)(?: \((report\w+)\))?$/u.exec(
      line,
    );
    if (match) {
      issues.push({
        file: relativePath(match[1]!, root),
        line: Number(match[2]),
        col: Number(match[3]),
        rule: match[6] ?? null,
        message: match[5]!,
        severity: severityOf(match[4] === "information" ? "info" : match[4]!),
      });
      continue;
    }
    const rule = /\((report\w+)\)$/u.exec(line);
    const last = issues[issues.length - 1];
    if (rule && last && last.rule === null) last.rule = rule[1]!;
  }
  return issues.length > 0 || /\d+ errors?, \d+ warnings?/u.test(raw) ? { parser: "pyright", issues } : null;
}

/** tsc: `file(line,col): error TSxxxx: message` (and --pretty's `file:line:col - error TSxxxx: message`). */
export function parseTsc(raw: string, root?: string): IssueReport | null {
  const issues: Issue[] = [];
  const lines = plainText(raw).split("\n");
  let matched = false;
  for (const line of lines) {
    const plain = /^(\S.*?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/u.exec(line);
    const pretty = plain ? null : /^(\S.*?):(\d+):(\d+) - (error|warning|message) (TS\d+): (.*)$/u.exec(line);
    const match = plain ?? pretty;
    if (match) {
      matched = true;
      issues.push({
        file: relativePath(match[1]!, root),
        line: Number(match[2]),
        col: Number(match[3]),
        rule: match[5]!,
        message: match[6]!,
        severity: severityOf(match[4]!),
      });
      continue;
    }
    // Continuation lines of a plain diagnostic are indented by two spaces.
    const last = issues[issues.length - 1];
    if (last && !pretty && /^ {2}\S/u.test(line) && !/^\s+\d+ {2}/u.test(line))
      last.message = `${last.message}\n${line.trim()}`;
    if (/^error TS\d+: /u.test(line)) {
      matched = true;
      const global = /^error (TS\d+): (.*)$/u.exec(line)!;
      issues.push({ file: "", line: 0, col: 0, rule: global[1]!, message: global[2]!, severity: "error" });
    }
  }
  return matched || /Found 0 errors/u.test(raw) ? { parser: "tsc", issues } : null;
}

const LINT_PARSERS = [parseRuffJson, parseEslintJson, parseRuffText, parseEslintStylish];
const TYPE_PARSERS = [parsePyrightJson, parseTsc, parseMypy, parsePyrightText];

/** Reads a linter's output, trying each format; null when none matches. */
export function parseLintOutput(raw: string, root?: string): IssueReport | null {
  for (const parse of LINT_PARSERS) {
    const report = parse(raw, root);
    if (report) return report;
  }
  return null;
}

/** Reads a type checker's output, trying each format; null when none matches. */
export function parseTypecheckOutput(raw: string, root?: string): IssueReport | null {
  for (const parse of TYPE_PARSERS) {
    const report = parse(raw, root);
    if (report) return report;
  }
  return null;
}
