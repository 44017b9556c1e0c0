import type { WordNode } from "just-bash";

type WordPart = WordNode["parts"][number];
type BraceItem = Extract<WordPart, { type: "BraceExpansion" }>["items"][number];

/**
 * One argument of a command as far as it can be known before it runs: its string when that is
 * fixed by the text (quotes, escapes, braces and variables set in the same line resolved), or
 * null when it depends on run time.
 */
export interface Arg {
  value: string | null;
  /** How it reads in the command, for messages. */
  text: string;
  /** It holds an unquoted wildcard (*, ?, [...]): it names whatever matches. */
  glob: boolean;
  /** For a value only known at run time: absolute folders it is known to lie under (find's {}). */
  within?: string[];
}

/** Variables whose possible values the line fixes; null: set at run time. */
export type Variables = ReadonlyMap<string, readonly Arg[] | null>;

/** How a word reads, for messages (not for running). */
export function wordText(word: WordNode): string {
  return word.parts.map(partText).join("");
}

function partText(part: WordPart): string {
  switch (part.type) {
    case "Literal":
      return part.value;
    case "SingleQuoted":
      return `'${part.value}'`;
    case "DoubleQuoted":
      return `"${part.parts.map(partText).join("")}"`;
    case "Escaped":
      return `\\${part.value}`;
    case "ParameterExpansion":
      return part.operation ? `\${${part.parameter}…}` : `$${part.parameter}`;
    case "CommandSubstitution":
      return "$(…)";
    case "ArithmeticExpansion":
      return "$((…))";
    case "ProcessSubstitution":
      return part.direction === "input" ? "<(…)" : ">(…)";
    case "BraceExpansion":
      return `{${part.items.map((item: BraceItem) => (item.type === "Word" ? wordText(item.word) : `${item.start}..${item.end}`)).join(",")}}`;
    case "TildeExpansion":
      return `~${part.user ?? ""}`;
    case "Glob":
      return part.pattern;
  }
  return "";
}

/** Most strings one word may stand for before we call it unknowable. */
const MAX_EXPANSIONS = 64;

interface Piece {
  /** Possible strings so far; null once anything is unknown. */
  values: string[] | null;
  glob: boolean;
  within?: string[];
}

/**
 * The arguments a word becomes: several for a brace expansion ({a,b}) or a variable with several
 * possible values, one unknown Arg when anything in it is decided at run time.
 */
export function expandWord(word: WordNode, variables: Variables): Arg[] {
  const text = wordText(word);
  const piece = expandParts(word.parts, variables, false);
  if (piece.values === null) {
    return [{ value: null, text, glob: piece.glob, ...(piece.within ? { within: piece.within } : {}) }];
  }
  return piece.values.map((value) => ({ value, text, glob: piece.glob }));
}

function concat(pieces: Piece[]): Piece {
  let values: string[] | null = [""];
  let glob = false;
  for (const piece of pieces) {
    glob ||= piece.glob;
    if (values === null || piece.values === null) {
      values = null;
      continue;
    }
    const next: string[] = [];
    for (const left of values) for (const right of piece.values) next.push(left + right);
    values = next.length > MAX_EXPANSIONS ? null : next;
  }
  // A word that is exactly one run-time value keeps what is known about where that value lies.
  const only = pieces.length === 1 ? pieces[0] : undefined;
  return { values, glob, ...(values === null && only?.within ? { within: only.within } : {}) };
}

function expandParts(parts: readonly WordPart[], variables: Variables, quoted: boolean): Piece {
  return concat(parts.map((part) => expandPart(part, variables, quoted)));
}

function expandPart(part: WordPart, variables: Variables, quoted: boolean): Piece {
  switch (part.type) {
    case "Literal":
    case "SingleQuoted":
    case "Escaped":
      return { values: [part.value], glob: false };
    case "DoubleQuoted":
      return expandParts(part.parts, variables, true);
    case "Glob":
      return { values: [part.pattern], glob: !quoted };
    case "BraceExpansion": {
      const values: string[] = [];
      let glob = false;
      for (const item of part.items) {
        if (item.type === "Word") {
          const inner = expandParts(item.word.parts, variables, quoted);
          if (inner.values === null) return { values: null, glob: glob || inner.glob };
          glob ||= inner.glob;
          values.push(...inner.values);
        } else {
          const range = braceRange(item);
          if (range === null) return { values: null, glob };
          values.push(...range);
        }
        if (values.length > MAX_EXPANSIONS) return { values: null, glob };
      }
      return { values, glob };
    }
    case "ParameterExpansion": {
      if (part.operation !== null) return { values: null, glob: false };
      const known = variables.get(part.parameter);
      if (!known) return { values: null, glob: false };
      const values: string[] = [];
      let glob = false;
      let within: string[] | undefined;
      for (const arg of known) {
        // Unquoted, a value with spaces splits into several words: too many shapes to follow.
        if (arg.value === null || (!quoted && /[\s*?[]/u.test(arg.value))) {
          if (arg.within && known.length === 1) within = arg.within;
          return { values: null, glob: glob || arg.glob, ...(within ? { within } : {}) };
        }
        glob ||= arg.glob;
        values.push(arg.value);
      }
      return { values, glob };
    }
    case "ProcessSubstitution":
      // What the command sees is a pipe's name.
      return { values: ["/dev/fd/63"], glob: false };
    default:
      // $(…), $((…)), ~: decided when the line runs.
      return { values: null, glob: false };
  }
}

function braceRange(item: { start: string | number; end: string | number; step?: number }): string[] | null {
  const { start, end } = item;
  const step = Math.abs(item.step ?? 1) || 1;
  if (typeof start === "number" && typeof end === "number") {
    if (Math.abs(end - start) / step > MAX_EXPANSIONS) return null;
    const values: string[] = [];
    for (let n = start; start <= end ? n <= end : n >= end; n += start <= end ? step : -step)
      values.push(String(n));
    return values;
  }
  if (typeof start === "string" && typeof end === "string" && start.length === 1 && end.length === 1) {
    const from = start.charCodeAt(0);
    const to = end.charCodeAt(0);
    if (Math.abs(to - from) / step > MAX_EXPANSIONS) return null;
    const values: string[] = [];
    for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? step : -step)
      values.push(String.fromCharCode(n));
    return values;
  }
  return null;
}

/** Options and operands of a command line, parsed the way getopt does. */
export interface ParsedOptions {
  /** Each option seen (short letter or long name), with its value when it takes one. */
  options: Map<string, Arg | true>;
  /** Every value given to an option, in order (an option may repeat: sed -e a -e b). */
  values: { name: string; value: Arg }[];
  operands: Arg[];
  /** An argument that may be an option but is only known at run time. */
  unknownBeforeOperands: boolean;
}

export interface OptionSpec {
  /** Short options that take a value ("t" for -t DIR). */
  short?: string;
  /** Long options that take a value ("target-directory"). */
  long?: readonly string[];
  /** Long options whose value is optional and only given with "=" (--in-place[=SUFFIX]). */
  optionalLong?: readonly string[];
  /** Short options whose value is optional and attached (-i[SUFFIX]). */
  optionalShort?: string;
  /** Operands end option parsing (POSIX), as for find and xargs; default: options may follow operands (GNU). */
  posix?: boolean;
}

export function parseOptions(args: readonly Arg[], spec: OptionSpec = {}): ParsedOptions {
  const map = new Map<string, Arg | true>();
  const values: { name: string; value: Arg }[] = [];
  const options = {
    set(name: string, value: Arg | true) {
      map.set(name, value);
      if (value !== true) values.push({ name, value });
    },
  };
  const operands: Arg[] = [];
  let unknownBeforeOperands = false;
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = arg.value;
    if (onlyOperands || value === null || value === "-" || !value.startsWith("-")) {
      if (value === null && !onlyOperands) unknownBeforeOperands = true;
      operands.push(arg);
      if (spec.posix) onlyOperands = true;
      continue;
    }
    if (value === "--") {
      onlyOperands = true;
      continue;
    }
    if (value.startsWith("--")) {
      const eq = value.indexOf("=");
      const name = value.slice(2, eq === -1 ? undefined : eq);
      if (eq !== -1) options.set(name, { ...arg, value: value.slice(eq + 1) });
      else if (spec.long?.includes(name) && i + 1 < args.length) options.set(name, args[++i]!);
      else options.set(name, true);
      continue;
    }
    for (let j = 1; j < value.length; j++) {
      const letter = value[j]!;
      if (spec.short?.includes(letter)) {
        const attached = value.slice(j + 1);
        if (attached !== "") options.set(letter, { ...arg, value: attached });
        else if (i + 1 < args.length) options.set(letter, args[++i]!);
        else options.set(letter, true);
        break;
      }
      if (spec.optionalShort?.includes(letter)) {
        const attached = value.slice(j + 1);
        options.set(letter, attached === "" ? true : { ...arg, value: attached });
        break;
      }
      options.set(letter, true);
    }
  }
  return { options: map, values, operands, unknownBeforeOperands };
}

/** The option's value when it was given one. */
export function optionValue(parsed: ParsedOptions, ...names: string[]): Arg | undefined {
  for (const name of names) {
    const value = parsed.options.get(name);
    if (value !== undefined && value !== true) return value;
  }
  return undefined;
}

export function hasOption(parsed: ParsedOptions, ...names: string[]): boolean {
  return names.some((name) => parsed.options.has(name));
}
