import type { ToolContext } from "../../core/profile.ts";
import type { FileStat } from "../../sandbox/types.ts";

import { loadTypeScript } from "../quality/typescript-check.ts";
import { sha1All } from "../sha1.ts";
import { decodeText } from "../text.ts";
import { walkWorkspace } from "../walk.ts";
import { mayDefine } from "./definition-sites.ts";

export type SymbolKind = "function" | "class" | "variable";
export type SymbolLanguage = "python" | "typescript" | "javascript";

export interface SymbolDefinition {
  symbol: string;
  kind: SymbolKind;
  /** 1-based. */
  line: number;
  /** What kind of definition, when `kind` says less: method, interface, type, enum, property. */
  detail?: string;
  /** The class (or namespace) it is defined in. */
  container?: string;
  /** The parser recovered from a syntax error inside this definition. */
  recovered: boolean;
}

export interface SymbolMatch {
  symbol: string;
  file: string;
  line: number;
  kind: SymbolKind;
  /** How sure this is a definition named like the query: match closeness × parse certainty. */
  confidence: number;
  lang: SymbolLanguage;
  detail?: string;
  container?: string;
}

const LANGUAGE_OF: Record<string, SymbolLanguage> = {
  ".py": "python",
  ".pyi": "python",
  ".ts": "typescript",
  ".tsx": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".js": "javascript",
  ".jsx": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
};

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1))
    starts.push(index + 1);
  return starts;
}

function lineAt(starts: number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** Symbols with the range of their definition, until the walk has seen every error node. */
type Pending = SymbolDefinition & { from: number; to: number };

/** Marks the definitions an error node falls inside, and drops the ranges. */
function settle(pending: Pending[], errors: number[]): SymbolDefinition[] {
  return pending.map(({ from, to, ...symbol }) => ({
    ...symbol,
    recovered: errors.some((position) => position >= from && position <= to),
  }));
}

export type PythonParser = typeof import("@lezer/python").parser;

let pythonLoading: Promise<PythonParser> | undefined;

/** @lezer/python, loaded on the first Python search so the worker boots without it. */
export function loadPythonParser(): Promise<PythonParser> {
  pythonLoading ??= import("@lezer/python").then((module) => module.parser);
  return pythonLoading;
}

/** Functions, classes and module- or class-level variables of a Python file, from @lezer/python's tree. */
export function pythonSymbols(pythonParser: PythonParser, text: string): SymbolDefinition[] {
  const tree = pythonParser.parse(text);
  const starts = lineStarts(text);
  const errors: number[] = [];
  const symbols: Pending[] = [];
  const scopes: { kind: "class" | "function"; name: string }[] = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      if (node.name === "FunctionDefinition" || node.name === "ClassDefinition") {
        const nameNode = node.node.getChild("VariableName");
        const scope = scopes[scopes.length - 1];
        // Anything defined inside a function is a local, however deep: not a module-level symbol.
        const local = scopes.some((outer) => outer.kind === "function");
        if (nameNode && !local) {
          const isClass = node.name === "ClassDefinition";
          symbols.push({
            symbol: text.slice(nameNode.from, nameNode.to),
            kind: isClass ? "class" : "function",
            line: lineAt(starts, nameNode.from),
            ...(!isClass && scope?.kind === "class" ? { detail: "method" } : {}),
            ...(scope ? { container: scope.name } : {}),
            recovered: false,
            from: node.from,
            to: node.to,
          });
        }
        scopes.push({
          kind: node.name === "ClassDefinition" ? "class" : "function",
          name: nameNode ? text.slice(nameNode.from, nameNode.to) : "?",
        });
        return true;
      }
      if (node.name === "AssignStatement") {
        const scope = scopes[scopes.length - 1];
        if (scope?.kind === "function") return false;
        // Targets are the names before the first `=`; `a = b = 1` names both.
        for (let child = node.node.firstChild; child; child = child.nextSibling) {
          if (child.name === "VariableName") {
            const next = child.nextSibling;
            if (next && (next.name === "AssignOp" || next.name === "," || next.name === "TypeDef")) {
              symbols.push({
                symbol: text.slice(child.from, child.to),
                kind: "variable",
                line: lineAt(starts, child.from),
                ...(scope ? { container: scope.name, detail: "attribute" } : {}),
                recovered: false,
                from: node.from,
                to: node.to,
              });
            }
          }
        }
        return false;
      }
      return true;
    },
    leave(node) {
      if (node.name === "FunctionDefinition" || node.name === "ClassDefinition") scopes.pop();
    },
  });
  return settle(symbols, errors);
}

type TypeScript = typeof import("typescript");

function scriptKind(ts: TypeScript, path: string) {
  if (/\.tsx$/u.test(path)) return ts.ScriptKind.TSX;
  if (/\.jsx$/u.test(path)) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/u.test(path)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/**
 * Functions, classes (and interfaces, types, enums), methods, properties and module-level variables
 * of a TS/JS file, from the TypeScript compiler's own parser (about five times faster than a
 * generic incremental parser on the same files).
 */
export function typescriptSymbols(ts: TypeScript, text: string, path = "a.ts"): SymbolDefinition[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, scriptKind(ts, path));
  const errors = (
    (source as unknown as { parseDiagnostics?: { start: number }[] }).parseDiagnostics ?? []
  ).map((diagnostic) => diagnostic.start);
  const symbols: Pending[] = [];
  const add = (
    name: import("typescript").Node | undefined,
    kind: SymbolKind,
    node: import("typescript").Node,
    extra: { detail?: string; container?: string } = {},
  ) => {
    if (!name || !(ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name))) return;
    const start = name.getStart(source);
    symbols.push({
      symbol: name.text,
      kind,
      line: source.getLineAndCharacterOfPosition(start).line + 1,
      ...(extra.detail ? { detail: extra.detail } : {}),
      ...(extra.container ? { container: extra.container } : {}),
      recovered: false,
      from: node.pos,
      to: node.end,
    });
  };
  // Nothing defined inside a function is listed (it is a local): a function's body is not walked.
  const visit = (node: import("typescript").Node, container: string | undefined): void => {
    if (ts.isFunctionDeclaration(node)) {
      add(node.name, "function", node, container ? { container } : {});
      return;
    }
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      if (ts.isClassDeclaration(node)) add(node.name, "class", node, container ? { container } : {});
      const name = node.name?.text ?? "default";
      for (const member of node.members) {
        if (
          ts.isMethodDeclaration(member) ||
          ts.isGetAccessorDeclaration(member) ||
          ts.isSetAccessorDeclaration(member)
        ) {
          add(member.name, "function", member, { detail: "method", container: name });
        } else if (ts.isPropertyDeclaration(member)) {
          add(member.name, "variable", member, { detail: "property", container: name });
        }
      }
      return;
    }
    if (ts.isInterfaceDeclaration(node)) {
      add(node.name, "class", node, { detail: "interface", ...(container ? { container } : {}) });
      return;
    }
    if (ts.isTypeAliasDeclaration(node)) {
      add(node.name, "class", node, { detail: "type", ...(container ? { container } : {}) });
      return;
    }
    if (ts.isEnumDeclaration(node)) {
      add(node.name, "class", node, { detail: "enum", ...(container ? { container } : {}) });
      return;
    }
    if (ts.isModuleDeclaration(node)) {
      const name = ts.isIdentifier(node.name) ? node.name.text : undefined;
      if (node.body) visit(node.body, name ?? container);
      return;
    }
    if (ts.isVariableStatement(node)) {
      for (const declaration of node.declarationList.declarations) {
        const initializer = declaration.initializer;
        const isFunction =
          initializer !== undefined &&
          (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer));
        const isClass = initializer !== undefined && ts.isClassExpression(initializer);
        // `const { a, b: c, ...d } = …` and `const [e, [f]] = …` name each binding.
        const names: import("typescript").Node[] = [];
        const collect = (name: import("typescript").BindingName): void => {
          if (ts.isIdentifier(name)) names.push(name);
          else
            for (const element of name.elements) if (!ts.isOmittedExpression(element)) collect(element.name);
        };
        collect(declaration.name);
        for (const name of names) {
          add(
            name,
            isFunction ? "function" : isClass ? "class" : "variable",
            node,
            container ? { container } : {},
          );
        }
        if (initializer && !isFunction) visit(initializer, container);
      }
      return;
    }
    // Arrow functions, function expressions, object literals' methods and accessors: a function's body.
    if (ts.isFunctionLike(node)) return;
    ts.forEachChild(node, (child) => visit(child, container));
  };
  visit(source, undefined);
  return settle(symbols, errors);
}

export interface SymbolQuery {
  query: string;
  /** python, typescript (TS and JS files) or javascript (JS files only); all when absent. */
  lang?: SymbolLanguage;
  exact: boolean;
  maxResults: number;
}

export interface SymbolSearch {
  results: SymbolMatch[];
  total: number;
  filesScanned: number;
  filesParsed: number;
}

/** A file as last read: its text (null when not text) and, once parsed, its definitions. */
interface FileRecord {
  size: number;
  mtimeMs: number;
  ino: number | undefined;
  text: string | null;
  lower: string;
  symbols?: SymbolDefinition[] | undefined;
  /** Queries (as matched) this version was found not to define: no occurrence may be a definition. */
  withoutDefinition?: Set<string> | undefined;
}

/**
 * Definitions by content id (and language), so a file parsed once is not parsed again for the same
 * content: after an edit is undone, in a copy, or (given a persistent store) after a reload.
 */
export interface SymbolStore {
  get(keys: string[]): Promise<Map<string, SymbolDefinition[]>>;
  put(entries: Map<string, SymbolDefinition[]>): Promise<void>;
}

const PARSED_LIMIT = 50_000;

/** How close a name is to the query: exact 1, same but for case 0.95, prefix 0.85, inside 0.7. */
function matchScore(name: string, query: string, exact: boolean): number {
  if (name === query) return 1;
  if (exact) return 0;
  const lowerName = name.toLowerCase();
  const lowerQuery = query.toLowerCase();
  if (lowerName === lowerQuery) return 0.95;
  if (lowerName.startsWith(lowerQuery)) return 0.85;
  if (lowerName.includes(lowerQuery)) return 0.7;
  return 0;
}

/**
 * Finds definitions named like the query. Each file is read once per version (size, mtime and
 * entry version unchanged: its text is reused; nothing changed since the last call, by the
 * sandbox's changeCount: not even walked or stat'ed), then pre-filtered: it must contain the query at an
 * occurrence that may be a definition (mayDefine: an import, a call or a member access is not).
 * Only those files are parsed, each once per content (by SHA-1, in memory and in `symbols.store`
 * when the host gives one).
 */
export async function searchSymbols(
  context: Pick<ToolContext, "sandbox" | "signal" | "services">,
  request: SymbolQuery,
): Promise<SymbolSearch> {
  const sandbox = context.sandbox;
  const files = context.services.get("symbols.files", () => new Map<string, FileRecord>());
  const parsed = context.services.get("symbols.parsed", () => new Map<string, SymbolDefinition[]>());
  const store = context.services.get<SymbolStore | null>("symbols.store", () => null);
  const needle = request.exact ? request.query : request.query.toLowerCase();
  const memo = `${request.exact ? "=" : "~"}${needle}`;
  const listing = context.services.get("symbols.listing", () => ({
    changes: undefined as number | undefined,
    sources: [] as { path: string; language: SymbolLanguage }[],
  }));
  // Unchanged since the last call (the sandbox says so): its files and texts still hold, unwalked.
  const changes = sandbox.changeCount?.();
  if (changes === undefined || changes !== listing.changes) {
    listing.changes = undefined;
    const sources: { path: string; language: SymbolLanguage }[] = [];
    for await (const entry of walkWorkspace(sandbox, "", {
      gitignore: true,
      skipHidden: true,
      skipFolders: [".git", "node_modules", "__pycache__", ".venv", "venv"],
      signal: context.signal,
    })) {
      if (entry.type !== "file") continue;
      const dot = entry.path.lastIndexOf(".");
      const language = dot === -1 ? undefined : LANGUAGE_OF[entry.path.slice(dot)];
      if (language) sources.push({ path: entry.path, language });
    }
    const seen = new Set(sources.map(({ path }) => path));
    for (const path of files.keys()) if (!seen.has(path)) files.delete(path);

    // Files whose stat changed are read again, in one batch.
    const stale: { path: string; stat: FileStat }[] = [];
    for (const { path } of sources) {
      const stat = await sandbox.stat(`${sandbox.workspaceRoot}/${path}`);
      const known = files.get(path);
      if (!known || known.size !== stat.size || known.mtimeMs !== stat.mtimeMs || known.ino !== stat.ino)
        stale.push({ path, stat });
    }
    const contents = await Promise.all(
      stale.map(({ path }) => sandbox.readFile(`${sandbox.workspaceRoot}/${path}`)),
    );
    stale.forEach(({ path, stat }, index) => {
      const text = decodeText(contents[index]!);
      const previous = files.get(path);
      const same = previous !== undefined && previous.text === text;
      files.set(path, {
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        ino: stat.ino,
        text,
        lower: same ? previous.lower : text === null ? "" : text.toLowerCase(),
        ...(same ? { symbols: previous.symbols, withoutDefinition: previous.withoutDefinition } : {}),
      });
    });
    listing.sources = sources;
    // Counted before the walk: a change made while it ran is seen by the next call.
    if (!context.signal.aborted) listing.changes = changes;
  }
  const candidates = listing.sources.filter(
    ({ language }) =>
      !request.lang ||
      (request.lang === "python"
        ? language === "python"
        : request.lang === "typescript"
          ? language !== "python"
          : language === "javascript"),
  );

  // The pre-filter, then the parse of what passes and is not known by its content.
  const toParse: { path: string; language: SymbolLanguage; record: FileRecord }[] = [];
  for (const { path, language } of candidates) {
    if (context.signal.aborted) break;
    const record = files.get(path)!;
    if (record.symbols || record.text === null || record.withoutDefinition?.has(memo)) continue;
    const haystack = request.exact ? record.text : record.lower;
    if (mayDefine(record.text, haystack, needle, language)) {
      toParse.push({ path, language, record });
      continue;
    }
    record.withoutDefinition ??= new Set();
    if (record.withoutDefinition.size >= 32) record.withoutDefinition.clear();
    record.withoutDefinition.add(memo);
  }
  const encoder = new TextEncoder();
  const hashes = await sha1All(toParse.map(({ record }) => encoder.encode(record.text!)));
  const keys = toParse.map(({ path }, index) => `${parseKind(path)}:${hashes[index]}`);
  const missing = toParse.flatMap((file, index) => {
    const known = parsed.get(keys[index]!);
    if (known) file.record.symbols = known;
    return known ? [] : [{ ...file, key: keys[index]! }];
  });
  if (store && missing.length > 0) {
    const stored = await store.get(missing.map(({ key }) => key));
    for (const [key, symbols] of stored) parsed.set(key, symbols);
  }
  const fresh = new Map<string, SymbolDefinition[]>();
  let filesParsed = 0;
  for (const { path, language, record, key } of missing) {
    if (context.signal.aborted) break;
    let symbols = parsed.get(key);
    if (!symbols) {
      filesParsed++;
      symbols =
        language === "python"
          ? pythonSymbols(await loadPythonParser(), record.text!)
          : typescriptSymbols(await loadTypeScript(), record.text!, path);
      if (parsed.size >= PARSED_LIMIT) parsed.clear();
      parsed.set(key, symbols);
      fresh.set(key, symbols);
    }
    record.symbols = symbols;
  }
  if (store && fresh.size > 0) await store.put(fresh);

  const matches: SymbolMatch[] = [];
  for (const { path, language } of candidates) {
    const symbols = files.get(path)?.symbols;
    if (!symbols) continue;
    for (const symbol of symbols) {
      const score = matchScore(symbol.symbol, request.query, request.exact);
      if (score === 0) continue;
      matches.push({
        symbol: symbol.symbol,
        file: path,
        line: symbol.line,
        kind: symbol.kind,
        confidence: Math.round(score * (symbol.recovered ? 0.8 : 1) * 100) / 100,
        lang: language,
        ...(symbol.detail ? { detail: symbol.detail } : {}),
        ...(symbol.container ? { container: symbol.container } : {}),
      });
    }
  }
  matches.sort(
    (a, b) => b.confidence - a.confidence || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line),
  );
  return {
    results: matches.slice(0, request.maxResults),
    total: matches.length,
    filesScanned: candidates.length,
    filesParsed,
  };
}

/** What the parse of a file depends on besides its content: its language and JSX flavour. */
function parseKind(path: string): string {
  const dot = path.lastIndexOf(".");
  return path.slice(dot + 1);
}
