/**
 * Whether a file can define a name containing the query, decided from the text around each
 * occurrence of the query, before any parsing. A name is usually defined in one file and used in
 * many: an occurrence that is certainly a use (a member access `x.name`, a call `= name(`, an import
 * `import { name } from`) cannot be where the parser finds a definition, so a file whose every
 * occurrence is such a use is not parsed. Anything the rules below are not sure of keeps the file.
 *
 * The invariant (held by a test over the symbol extractors' fixtures): every definition that
 * typescriptSymbols or pythonSymbols reports has its name at an occurrence this keeps.
 */

export type SourceLanguage = "python" | "typescript" | "javascript";

const IDENTIFIER = /[\p{ID_Continue}$\u200c\u200d]/u;

function isIdentifierChar(char: string | undefined): boolean {
  return char !== undefined && IDENTIFIER.test(char);
}

function isSpace(char: string | undefined): boolean {
  return char === " " || char === "\t" || char === "\n" || char === "\r" || char === "\f" || char === "\v";
}

/** Operators after which (on the same line) an identifier followed by "(" can only be a call. */
const SAME_LINE_OPERATORS = new Set([
  "=",
  "(",
  ",",
  "[",
  "&",
  "|",
  "%",
  "^",
  "~",
  "!",
  "+",
  "-",
  "/",
  "?",
  ":",
  "<",
  ">",
]);
/** The same across a line break: only those that need an operand after them (no semicolon is inserted). */
const ANY_LINE_OPERATORS = new Set(["=", "(", ",", "[", "&", "|", "%", "^", "~"]);
/** Keywords after which (on the same line) an identifier is an expression. */
const EXPRESSION_KEYWORDS = new Set([
  "return",
  "await",
  "new",
  "typeof",
  "void",
  "yield",
  "throw",
  "case",
  "in",
  "of",
  "delete",
  "instanceof",
  "else",
  "do",
]);

interface Before {
  char: string | undefined;
  /** Where the char is. */
  at: number;
  /** A line break lies between it and the occurrence. */
  newline: boolean;
  /** The text before may be a comment ending there: nothing can be concluded. */
  unsure: boolean;
}

function charBefore(text: string, start: number): Before {
  let at = start - 1;
  let newline = false;
  while (at >= 0 && isSpace(text[at])) {
    if (text[at] === "\n") newline = true;
    at--;
  }
  const char = at >= 0 ? text[at] : undefined;
  // "*/" ends a block comment; a "//" or "#" earlier on that line may start a line comment.
  let unsure = char === "/" && text[at - 1] === "*";
  if (!unsure && newline && at >= 0) {
    const lineStart = text.lastIndexOf("\n", at) + 1;
    const line = text.slice(lineStart, at + 1);
    unsure = line.includes("//") || line.includes("#") || line.includes("*/");
  }
  return { char, at, newline, unsure };
}

function charAfter(text: string, end: number): string | undefined {
  let at = end;
  while (at < text.length && isSpace(text[at])) at++;
  return text[at];
}

/** The word (identifier) ending at `at`, inclusive. */
function wordEndingAt(text: string, at: number): string {
  let start = at;
  while (start > 0 && isIdentifierChar(text[start - 1])) start--;
  return text.slice(start, at + 1);
}

/** `x.name`, `x?.name`: a member, not a definition (a spread `...name` is not a member). */
function isMemberAccess(text: string, before: Before, language: SourceLanguage): boolean {
  if (before.char !== "." || before.unsure) return false;
  if (text[before.at - 1] === "." && text[before.at - 2] === ".") return false;
  if (language === "python") return true;
  // `namespace A.B`: B is declared there; walk back over the dotted name to the keyword.
  let at = before.at - 1;
  while (at >= 0 && (isIdentifierChar(text[at]) || text[at] === "." || isSpace(text[at]))) at--;
  const words = text
    .slice(at + 1, before.at)
    .trim()
    .split(/\s+/u);
  const keyword = words.length >= 2 ? words[words.length - 2] : undefined;
  return keyword !== "namespace" && keyword !== "module";
}

/** `= name(`, `return name(`: a call. */
function isCall(text: string, before: Before, end: number, language: SourceLanguage): boolean {
  if (charAfter(text, end) !== "(" || before.unsure || before.char === undefined) return false;
  if (language === "python") {
    // Only `def name(` and `class name(` define a name followed by "(" (a "\" may continue their line).
    if (before.char === "\\") return false;
    if (!isIdentifierChar(before.char)) return true;
    const word = wordEndingAt(text, before.at);
    return word !== "def" && word !== "class";
  }
  // On one line no semicolon can be inserted, so these start an expression; across lines only the
  // operators that need an operand do (after `x = y!` or `a?` a new class member may begin).
  if (isIdentifierChar(before.char))
    return !before.newline && EXPRESSION_KEYWORDS.has(wordEndingAt(text, before.at));
  return (before.newline ? ANY_LINE_OPERATORS : SAME_LINE_OPERATORS).has(before.char);
}

/** `import { a, name } from "m"`, `import name from "m"`; Python's `from m import name` on one line. */
function isImported(text: string, start: number, end: number, language: SourceLanguage): boolean {
  if (language === "python") {
    const head = text.slice(text.lastIndexOf("\n", start - 1) + 1, start);
    if (!/^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import|import)[ \t][\w., \t]*$/u.test(head)) return false;
    const lineEnd = text.indexOf("\n", end);
    const rest = text.slice(end, lineEnd === -1 ? text.length : lineEnd);
    return /^[ \t]*(?:,|as[ \t]|\\?\r?$|;|#)/u.test(rest);
  }
  // Back over the specifiers to the statement's first word, which must be `import`; forward to `from "`.
  let at = start - 1;
  const limit = Math.max(-1, start - 4000);
  while (at > limit && /[\p{ID_Continue}$\s,{*]/u.test(text[at]!)) at--;
  if (at === limit && limit !== -1) return false;
  if (!/^\s*import\s/u.test(text.slice(at + 1, start))) return false;
  return /^[\p{ID_Continue}$\s,*]*\}?\s*from\s*["']/u.test(text.slice(end, end + 2000));
}

/**
 * True when some occurrence of `needle` (in `haystack`, the text itself or its lower-case copy of
 * the same length) might be where a definition's name is, so the file must be parsed.
 */
export function mayDefine(text: string, haystack: string, needle: string, language: SourceLanguage): boolean {
  if (haystack.length !== text.length) return haystack.includes(needle);
  // A query that is not one identifier may match a string-literal name: parse.
  for (const char of needle) if (!isIdentifierChar(char)) return haystack.includes(needle);
  for (let found = haystack.indexOf(needle); found !== -1; found = haystack.indexOf(needle, found + 1))
    if (mayBeDefinitionAt(text, found, needle.length, language)) return true;
  return false;
}

/** Whether the identifier around text[found, found + length) might be a definition's name. */
export function mayBeDefinitionAt(
  text: string,
  found: number,
  length: number,
  language: SourceLanguage,
): boolean {
  let start = found;
  while (start > 0 && isIdentifierChar(text[start - 1])) start--;
  let end = found + length;
  while (end < text.length && isIdentifierChar(text[end])) end++;
  const before = charBefore(text, start);
  return !(
    isMemberAccess(text, before, language) ||
    isCall(text, before, end, language) ||
    isImported(text, start, end, language)
  );
}
