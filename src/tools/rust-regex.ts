import { ToolFailure } from "../core/errors.ts";

/**
 * ripgrep's regex engine for every search that promises rg: Rust's `regex` crate 1.13 compiled to
 * WebAssembly (the `rregex` package). Its syntax is ripgrep's (`\pL`, `[[:digit:]]`, `(?P<n>…)`,
 * `(?i)a(?-i)b`, `\A`, `\z`), its errors are ripgrep's ("regex parse error: … error: unclosed group"),
 * and it runs in linear time, so no pattern can hang a search. Lines are matched one at a time, as
 * ripgrep reports them; a literal the pattern cannot match without (or else one pass of the whole
 * file) rules files out before any line is looked at.
 */

export interface RRegexLike {
  isMatch(text: string): boolean;
  /** The leftmost-first match starting at or after the UTF-8 byte offset `start` (offsets in bytes). */
  findAt(text: string, start: number): { start: number; end: number } | undefined;
  /** Every leftmost-first match, left to right (offsets in bytes). */
  findAll(text: string): { start: number; end: number }[];
  syntax(): Hir;
}
export interface RRegexModule {
  RRegex: new (pattern: string) => RRegexLike;
  escape(text: string): string;
  default?: () => Promise<unknown>;
}
export interface Hir {
  kind: { "@variant": string; "@values": unknown[] };
}

let engine: RRegexModule | null = null;
let loading: Promise<RRegexModule> | null = null;

/** The engine when it has been loaded (loadRustRegex), for code that must match synchronously. */
export function loadedRustRegex(): RRegexModule | null {
  return engine;
}

/** Loads the engine once (1 MB of WebAssembly): Node reads it beside the module, a browser fetches it. */
export function loadRustRegex(): Promise<RRegexModule> {
  loading ??= import("rregex").then(async (module) => {
    const loaded = module as unknown as RRegexModule;
    // The browser build (web.js) is initialised by its default export; the Node build at import.
    if (typeof loaded.default === "function") await loaded.default();
    engine = loaded;
    return loaded;
  });
  loading.catch(() => {
    loading = null;
  });
  return loading;
}

export interface LineMatcher {
  /** Whether one line (without its terminator) matches. */
  test(line: string): boolean;
  /** False when no line of this text can match (a required literal is missing, or the whole text does not match). */
  mayMatch(text: string): boolean;
}

export interface PatternOptions {
  /** false: the pattern is literal text. */
  regex: boolean;
  caseSensitive: boolean;
}

function compile(module: RRegexModule, source: string, pattern: string): RRegexLike {
  try {
    return new module.RRegex(source);
  } catch (error) {
    const message = String((error as Error).message ?? error);
    throw new ToolFailure(
      "invalid_pattern",
      `The search pattern is not a valid regular expression (Rust regex syntax, as ripgrep reads it): ${message}`,
      { pattern },
    );
  }
}

const utf8 = new TextDecoder();

/** Walks the parsed pattern (its HIR), calling `visit` on every node. */
export function walkHir(hir: Hir, visit: (hir: Hir) => void): void {
  visit(hir);
  const { "@variant": variant, "@values": values } = hir.kind;
  if (variant === "Repetition" || variant === "Capture") walkHir((values[0] as { sub: Hir }).sub, visit);
  else if (variant === "Concat" || variant === "Alternation")
    for (const sub of values[0] as Hir[]) walkHir(sub, visit);
}

export function literalBytes(hir: Hir): number[] {
  const value = (hir.kind["@values"][0] as { "@values": [Record<string, number>] })["@values"][0];
  return Object.keys(value)
    .sort((a, b) => Number(a) - Number(b))
    .map((key) => value[key]!);
}

/** The longest literal every match contains, when the pattern has one (ripgrep's "required literal"). */
export function requiredLiteral(hir: Hir): string | null {
  const { "@variant": variant, "@values": values } = hir.kind;
  if (variant === "Literal") return utf8.decode(new Uint8Array(literalBytes(hir)));
  if (variant === "Capture") return requiredLiteral((values[0] as { sub: Hir }).sub);
  if (variant === "Repetition") {
    const repetition = values[0] as { min: number; sub: Hir };
    return repetition.min >= 1 ? requiredLiteral(repetition.sub) : null;
  }
  if (variant === "Concat") {
    let best: string | null = null;
    for (const sub of values[0] as Hir[]) {
      const literal = requiredLiteral(sub);
      if (literal && (!best || literal.length > best.length)) best = literal;
    }
    return best;
  }
  return null;
}

/**
 * Compiles a search pattern as ripgrep reads it (literal text is escaped; case-insensitive search
 * is `(?i)`). A malformed pattern is invalid_pattern with the engine's message, which points at the
 * character; a pattern with a literal newline is refused as ripgrep refuses it (lines never hold one).
 */
export async function compileLineMatcher(pattern: string, options: PatternOptions): Promise<LineMatcher> {
  // Literal text needs no engine (nor its load) when JavaScript compares it exactly as (?i) would.
  const literal =
    options.regex || pattern.includes("\n") ? null : literalPrefilter(pattern, options.caseSensitive);
  if (literal) return { test: literal.test.bind(literal), mayMatch: literal.test.bind(literal) };
  const module = engine ?? (await loadRustRegex());
  const body = options.regex ? pattern : module.escape(pattern);
  const flags = options.caseSensitive ? "" : "(?i)";
  const line = compile(module, `${flags}${body}`, pattern);
  // One parse answers the rest: without (?i), whose case classes cost tens of ms to hand over from
  // WebAssembly per parse (literals, newlines and anchors are the same), and with (?mR), the
  // whole-file pass's anchors, where only \A and \z are still text anchors.
  const shape = compile(module, `(?mR)${body}`, pattern).syntax();
  let newline = false;
  let anchoredToText = false;
  walkHir(shape, (node) => {
    const { "@variant": variant, "@values": values } = node.kind;
    if (variant === "Literal" && literalBytes(node).includes(10)) newline = true;
    if (variant !== "Look") return;
    const look = values[0] as { "@variant"?: string } | string;
    const name = typeof look === "string" ? look : (look["@variant"] ?? "");
    if (name === "Start" || name === "End") anchoredToText = true;
  });
  if (newline) {
    throw new ToolFailure(
      "invalid_pattern",
      'The search pattern contains a literal newline ("\\n"), which no line can hold: search for each line\'s text separately.',
      { pattern },
    );
  }
  const required = requiredLiteral(shape);
  const prefilter = literalPrefilter(required, options.caseSensitive);
  // A pattern that is only a literal needs no engine at all: the prefilter is the exact answer.
  if (prefilter && shape.kind["@variant"] === "Literal")
    return {
      test: prefilter.test.bind(prefilter),
      mayMatch: prefilter.test.bind(prefilter),
    };
  // The whole file's pass, with multi-line CRLF anchors: only needed where no literal rules files out.
  const whole = prefilter ? null : compile(module, `(?mR)${flags}${body}`, pattern);
  return {
    test: (text) => (!prefilter || prefilter.test(text)) && line.isMatch(text),
    // With a literal, lines without it never reach the engine, so the literal alone rules files
    // out; without one, a single pass of the whole file does (the engine costs per call).
    mayMatch: (text) => (prefilter ? prefilter.test(text) : anchoredToText || whole!.isMatch(text)),
  };
}

/**
 * A JavaScript test for the required literal, which only ever rules text out: exact when the
 * search is case-sensitive; for (?i) only ASCII literals, as JavaScript's /iu folds case as Rust's
 * (?i) does for them (k and s included: K, ſ).
 */
export function literalPrefilter(
  literal: string | null,
  caseSensitive: boolean,
): { test(text: string): boolean } | null {
  if (!literal) return null;
  if (caseSensitive) return { test: (text) => text.includes(literal) };
  if (!/^[\x20-\x7e]+$/u.test(literal)) return null;
  return new RegExp(literal.replace(/[.*+?^${}()|[\]\\/]/gu, "\\$&"), "iu");
}
