/**
 * The awk language as gawk 5.2 reads it (POSIX awk plus gawk's func, gensub, and/or/xor, length
 * of an array, `**`, hex and octal source constants): a lexer that tells a regex from a division
 * by what precedes it, and a recursive-descent parser to a small tree. A malformed program is an
 * AwkSyntaxError naming the line and column, shown as gawk shows it (the line, then a caret).
 */

import { compilePosixRegex, RegexSyntaxError } from "../regex/posix-regex.ts";

export class AwkSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    readonly sourceLine: string,
  ) {
    super(
      `awk: cmd. line:${line}: ${sourceLine}\nawk: cmd. line:${line}: ${" ".repeat(Math.max(0, column - 1))}^ ${reason}`,
    );
    this.name = "AwkSyntaxError";
  }
}

type TokenKind =
  | "number"
  | "string"
  | "regex"
  | "name"
  | "funcName"
  | "builtin"
  | "keyword"
  | "newline"
  | "op"
  | "eof";

export interface Token {
  kind: TokenKind;
  text: string;
  value?: string | number;
  at: number;
}

const KEYWORDS = new Set([
  "BEGIN",
  "END",
  "function",
  "func",
  "if",
  "else",
  "while",
  "for",
  "do",
  "break",
  "continue",
  "next",
  "nextfile",
  "exit",
  "return",
  "delete",
  "in",
  "getline",
  "print",
  "printf",
]);

export const BUILTINS = new Set([
  "length",
  "substr",
  "index",
  "split",
  "sub",
  "gsub",
  "gensub",
  "match",
  "sprintf",
  "sin",
  "cos",
  "atan2",
  "exp",
  "log",
  "sqrt",
  "int",
  "rand",
  "srand",
  "tolower",
  "toupper",
  "system",
  "close",
  "fflush",
  "and",
  "or",
  "xor",
  "lshift",
  "rshift",
  "compl",
  "systime",
  "strftime",
  "asort",
  "asorti",
  "isarray",
  "typeof",
  "strtonum",
]);

/** awk's operators of more than one character, longest first (the sandboxed tool's check reads them too). */
export const AWK_OPERATORS = [
  "**=",
  "&&",
  "||",
  "==",
  "!=",
  "<=",
  ">=",
  "!~",
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "^=",
  "**",
  ">>",
  "|&",
];

const STRING_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  f: "\f",
  v: "\v",
  a: "\x07",
  b: "\b",
  "\\": "\\",
  '"': '"',
  "/": "/",
};

/** A string literal's escapes, as gawk reads them (an unknown \c is the character c). */
function unescapeString(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\" || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const next = body[++i]!;
    if (next in STRING_ESCAPES) out += STRING_ESCAPES[next];
    else if (/[0-7]/u.test(next)) {
      const digits = /^[0-7]{1,3}/u.exec(body.slice(i))![0];
      out += String.fromCharCode(Number.parseInt(digits, 8) & 0xff);
      i += digits.length - 1;
    } else if (next === "x" && /[0-9A-Fa-f]/u.test(body[i + 1] ?? "")) {
      const digits = /^[0-9A-Fa-f]{1,2}/u.exec(body.slice(i + 1))![0];
      out += String.fromCharCode(Number.parseInt(digits, 16));
      i += digits.length;
    } else if (next === "\n") {
      // A backslash-newline continues the string.
    } else out += next;
  }
  return out;
}

export function tokenize(src: string, fail: (reason: string, at: number) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const divisionAllowed = () => {
    const last = tokens.at(-1);
    if (!last) return false;
    if (last.kind === "number" || last.kind === "string" || last.kind === "regex") return true;
    if (last.kind === "name" || last.kind === "funcName") return true;
    if (last.kind === "builtin") return true;
    return (
      last.kind === "op" &&
      (last.text === ")" ||
        last.text === "]" ||
        last.text === "$" ||
        last.text === "++" ||
        last.text === "--")
    );
  };
  while (i < src.length) {
    const c = src[i]!;
    const at = i;
    if (c === "\n") {
      tokens.push({ kind: "newline", text: "\n", at });
      i++;
    } else if (c === " " || c === "\t" || c === "\r") i++;
    else if (c === "\\" && src[i + 1] === "\n") i += 2;
    else if (c === "\\" && src[i + 1] === "\r" && src[i + 2] === "\n") i += 3;
    else if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') {
        if (src[j] === "\n") fail("unterminated string", j);
        j += src[j] === "\\" ? 2 : 1;
      }
      if (j >= src.length) fail("unterminated string", i);
      tokens.push({
        kind: "string",
        text: src.slice(i, j + 1),
        value: unescapeString(src.slice(i + 1, j)),
        at,
      });
      i = j + 1;
    } else if (c === "/" && !divisionAllowed()) {
      let j = i + 1;
      let inBracket = false;
      while (j < src.length && (inBracket || src[j] !== "/")) {
        if (src[j] === "\n") fail("unterminated regexp", i);
        if (src[j] === "\\") j++;
        else if (src[j] === "[" && !inBracket) {
          inBracket = true;
          if (src[j + 1] === "^") j++;
          if (src[j + 1] === "]") j++;
        } else if (src[j] === "[" && src[j + 1] === ":") {
          const close = src.indexOf(":]", j + 2);
          if (close > 0) j = close + 1;
        } else if (src[j] === "]") inBracket = false;
        j++;
      }
      if (j >= src.length) fail("unterminated regexp", i);
      tokens.push({ kind: "regex", text: src.slice(i, j + 1), value: src.slice(i + 1, j), at });
      i = j + 1;
    } else if (/[A-Za-z_]/u.test(c)) {
      let j = i;
      while (j < src.length && /[A-Za-z0-9_]/u.test(src[j]!)) j++;
      const word = src.slice(i, j);
      let kind: TokenKind = "name";
      if (KEYWORDS.has(word)) kind = "keyword";
      else if (BUILTINS.has(word)) kind = "builtin";
      else if (src[j] === "(") kind = "funcName";
      tokens.push({ kind, text: word, at });
      i = j;
    } else if (/[0-9]/u.test(c) || (c === "." && /[0-9]/u.test(src[i + 1] ?? ""))) {
      const hex = /^0[xX][0-9A-Fa-f]+/u.exec(src.slice(i));
      if (hex) {
        tokens.push({ kind: "number", text: hex[0], value: Number.parseInt(hex[0].slice(2), 16), at });
        i += hex[0].length;
        continue;
      }
      const number = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/u.exec(src.slice(i))![0];
      // gawk reads 0-led integer constants in the program as octal (01234 is 668).
      const value = /^0[0-7]+$/u.test(number) ? Number.parseInt(number, 8) : Number(number);
      tokens.push({ kind: "number", text: number, value, at });
      i += number.length;
    } else {
      const op = AWK_OPERATORS.find((candidate) => src.startsWith(candidate, i)) ?? c;
      if (!"{}()[];,+-*/%^!<>|?:~$=".includes(op[0]!) && op === c)
        fail(`invalid char '${c}' in expression`, i);
      tokens.push({ kind: "op", text: op, at });
      i += op.length;
    }
  }
  tokens.push({ kind: "eof", text: "end of file", at: src.length });
  return tokens;
}

export type Expr =
  | { type: "num"; value: number }
  | { type: "str"; value: string }
  | { type: "regex"; source: string }
  | { type: "var"; name: string }
  | { type: "field"; index: Expr }
  | { type: "index"; name: string; subscripts: Expr[] }
  | { type: "assign"; op: string; target: Expr; value: Expr }
  | { type: "cond"; test: Expr; yes: Expr; no: Expr }
  | { type: "and" | "or"; left: Expr; right: Expr }
  | { type: "in"; subscripts: Expr[]; name: string }
  | { type: "match"; negate: boolean; left: Expr; right: Expr }
  | { type: "binary"; op: string; left: Expr; right: Expr }
  | { type: "concat"; left: Expr; right: Expr }
  | { type: "unary"; op: string; operand: Expr }
  | { type: "incdec"; op: "++" | "--"; prefix: boolean; target: Expr }
  | { type: "call"; name: string; args: Expr[]; at: number }
  | { type: "builtin"; name: string; args: Expr[]; at: number }
  | { type: "getline"; target: Expr | null; file: Expr | null; command: Expr | null }
  | { type: "group"; expr: Expr };

export type Stmt =
  | { type: "expr"; expr: Expr }
  | { type: "print"; printf: boolean; args: Expr[]; redirect: { op: string; target: Expr } | null }
  | { type: "if"; test: Expr; then: Stmt; else: Stmt | null }
  | { type: "while"; test: Expr; body: Stmt }
  | { type: "do"; body: Stmt; test: Expr }
  | { type: "for"; init: Stmt | null; test: Expr | null; step: Stmt | null; body: Stmt }
  | { type: "forIn"; variable: Expr; name: string; body: Stmt }
  | { type: "block"; body: Stmt[] }
  | { type: "next" | "nextfile" | "break" | "continue" }
  | { type: "exit"; value: Expr | null }
  | { type: "return"; value: Expr | null }
  | { type: "delete"; name: string; subscripts: Expr[] | null };

export interface Rule {
  kind: "begin" | "end" | "main";
  pattern: Expr | null;
  /** A range pattern's end. */
  until: Expr | null;
  /** null: print $0. */
  action: Stmt[] | null;
}

export interface AwkFunction {
  name: string;
  params: string[];
  body: Stmt[];
}

export interface AwkProgram {
  rules: Rule[];
  functions: Map<string, AwkFunction>;
}

export function parseAwk(src: string): AwkProgram {
  return new Parser(src).program();
}

class Parser {
  private readonly tokens: Token[];
  private k = 0;
  private loopDepth = 0;
  private inFunction = false;
  private inPrint = 0;

  constructor(private readonly src: string) {
    this.tokens = tokenize(src, (reason, at) => this.failAt(reason, at));
  }

  private failAt(reason: string, at: number): never {
    const before = this.src.slice(0, at);
    const line = before.split("\n").length;
    const lineStart = before.lastIndexOf("\n") + 1;
    let lineEnd = this.src.indexOf("\n", at);
    if (lineEnd < 0) lineEnd = this.src.length;
    throw new AwkSyntaxError(reason, line, at - lineStart + 1, this.src.slice(lineStart, lineEnd));
  }

  private fail(reason = "syntax error"): never {
    return this.failAt(reason, this.peek().at);
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.k + offset, this.tokens.length - 1)]!;
  }

  private is(text: string): boolean {
    const token = this.peek();
    return (token.kind === "op" || token.kind === "keyword") && token.text === text;
  }

  private eat(text: string): boolean {
    if (!this.is(text)) return false;
    this.k++;
    return true;
  }

  private expect(text: string): void {
    if (!this.eat(text)) this.fail();
  }

  private newlines(): void {
    while (this.peek().kind === "newline") this.k++;
  }

  /** Statement terminators: newlines and semicolons. */
  private terminators(): void {
    while (this.peek().kind === "newline" || this.is(";")) this.k++;
  }

  program(): AwkProgram {
    const rules: Rule[] = [];
    const functions = new Map<string, AwkFunction>();
    this.terminators();
    while (this.peek().kind !== "eof") {
      if (this.is("function") || this.is("func")) {
        const fn = this.functionDefinition();
        if (functions.has(fn.name)) this.fail(`function \`${fn.name}' previously defined`);
        functions.set(fn.name, fn);
      } else if (this.eat("BEGIN")) {
        this.newlines();
        if (!this.is("{")) this.fail("`BEGIN' blocks must have an action part");
        rules.push({ kind: "begin", pattern: null, until: null, action: this.block() });
      } else if (this.eat("END")) {
        this.newlines();
        if (!this.is("{")) this.fail("`END' blocks must have an action part");
        rules.push({ kind: "end", pattern: null, until: null, action: this.block() });
      } else {
        let pattern: Expr | null = null;
        let until: Expr | null = null;
        if (!this.is("{")) {
          pattern = this.expression();
          if (this.eat(",")) {
            this.newlines();
            until = this.expression();
          }
        }
        const action = this.is("{") ? this.block() : null;
        rules.push({ kind: "main", pattern, until, action });
        // A pattern without an action ends at a newline or a semicolon.
        const next = this.peek();
        if (action === null && next.kind !== "eof" && next.kind !== "newline" && !this.is(";")) this.fail();
      }
      this.terminators();
    }
    return { rules, functions };
  }

  private functionDefinition(): AwkFunction {
    this.k++;
    const nameToken = this.peek();
    if (nameToken.kind !== "name" && nameToken.kind !== "funcName") this.fail();
    this.k++;
    this.expect("(");
    const params: string[] = [];
    this.newlines();
    if (!this.is(")")) {
      for (;;) {
        const param = this.peek();
        if (param.kind !== "name") this.fail();
        if (params.includes(param.text))
          this.fail(`function \`${nameToken.text}': duplicate argument \`${param.text}'`);
        params.push(param.text);
        this.k++;
        this.newlines();
        if (this.eat(",")) {
          this.newlines();
          continue;
        }
        break;
      }
    }
    this.expect(")");
    this.newlines();
    this.inFunction = true;
    const body = this.block();
    this.inFunction = false;
    return { name: nameToken.text, params, body };
  }

  private block(): Stmt[] {
    this.expect("{");
    const body: Stmt[] = [];
    this.terminators();
    while (!this.is("}")) {
      if (this.peek().kind === "eof") this.fail("unexpected end of file, missing }");
      body.push(this.statement());
      this.terminators();
    }
    this.k++;
    return body;
  }

  /** The end of a simple statement: ;, newline, } or the end. */
  private endSimple(): void {
    if (this.eat(";") || this.peek().kind === "newline") return;
    if (this.is("}") || this.peek().kind === "eof") return;
    this.fail();
  }

  private body(): Stmt {
    this.newlines();
    if (this.eat(";")) return { type: "block", body: [] };
    return this.statement();
  }

  private statement(): Stmt {
    const token = this.peek();
    if (this.is("{")) return { type: "block", body: this.block() };
    if (token.kind === "keyword") {
      switch (token.text) {
        case "if": {
          this.k++;
          this.expect("(");
          const test = this.expression();
          this.expect(")");
          const then = this.body();
          // An else may follow a newline or a semicolon.
          const save = this.k;
          this.terminators();
          if (this.eat("else")) return { type: "if", test, then, else: this.body() };
          this.k = save;
          return { type: "if", test, then, else: null };
        }
        case "while": {
          this.k++;
          this.expect("(");
          const test = this.expression();
          this.expect(")");
          if (this.is(";")) {
            this.k++;
            return { type: "while", test, body: { type: "block", body: [] } };
          }
          return { type: "while", test, body: this.loopBody() };
        }
        case "do": {
          this.k++;
          const body = this.loopBody();
          this.terminators();
          this.expect("while");
          this.expect("(");
          const test = this.expression();
          this.expect(")");
          this.endSimple();
          return { type: "do", body, test };
        }
        case "for": {
          this.k++;
          this.expect("(");
          if (
            this.peek().kind === "name" &&
            this.peek(1).text === "in" &&
            this.peek(2).kind === "name" &&
            this.peek(3).text === ")"
          ) {
            const variable: Expr = { type: "var", name: this.peek().text };
            const name = this.peek(2).text;
            this.k += 4;
            return { type: "forIn", variable, name, body: this.loopBody() };
          }
          const init = this.is(";") ? null : this.simpleStatement();
          this.expect(";");
          this.newlines();
          const test = this.is(";") ? null : this.expression();
          this.expect(";");
          this.newlines();
          const step = this.is(")") ? null : this.simpleStatement();
          this.expect(")");
          if (this.is(";")) {
            this.k++;
            return { type: "for", init, test, step, body: { type: "block", body: [] } };
          }
          return { type: "for", init, test, step, body: this.loopBody() };
        }
        case "break":
        case "continue":
          if (this.loopDepth === 0) this.fail(`\`${token.text}' is not allowed outside a loop`);
          this.k++;
          this.endSimple();
          return { type: token.text };
        case "next":
        case "nextfile":
          this.k++;
          this.endSimple();
          return { type: token.text };
        case "exit": {
          this.k++;
          const value = this.atSimpleEnd() ? null : this.expression();
          this.endSimple();
          return { type: "exit", value };
        }
        case "return": {
          if (!this.inFunction) this.fail("`return' used outside function context");
          this.k++;
          const value = this.atSimpleEnd() ? null : this.expression();
          this.endSimple();
          return { type: "return", value };
        }
        case "delete": {
          this.k++;
          const name = this.peek();
          if (name.kind !== "name") this.fail();
          this.k++;
          let subscripts: Expr[] | null = null;
          if (this.eat("[")) {
            subscripts = this.expressionList();
            this.expect("]");
          }
          this.endSimple();
          return { type: "delete", name: name.text, subscripts };
        }
      }
    }
    const statement = this.simpleStatement();
    this.endSimple();
    return statement;
  }

  private loopBody(): Stmt {
    this.loopDepth++;
    try {
      return this.body();
    } finally {
      this.loopDepth--;
    }
  }

  private atSimpleEnd(): boolean {
    return this.is(";") || this.is("}") || this.peek().kind === "newline" || this.peek().kind === "eof";
  }

  private simpleStatement(): Stmt {
    if (this.is("print") || this.is("printf")) return this.print();
    return { type: "expr", expr: this.expression() };
  }

  private print(): Stmt {
    const printf = this.peek().text === "printf";
    this.k++;
    let args: Expr[] = [];
    this.inPrint++;
    try {
      if (this.is("(")) {
        // print (a, b) > "f": a parenthesised list, unless it is the start of a longer expression.
        const save = this.k;
        this.k++;
        const depth = this.inPrint;
        this.inPrint = 0;
        const list = this.is(")") ? [] : this.expressionList();
        this.inPrint = depth;
        if (this.eat(")") && (this.atSimpleEnd() || this.is(">") || this.is(">>") || this.is("|"))) {
          args = list;
          if (list.length === 0) this.failAt("syntax error", this.tokens[this.k - 1]!.at);
        } else {
          this.k = save;
          args = this.expressionList();
        }
      } else if (!this.atSimpleEnd() && !this.is(">") && !this.is(">>") && !this.is("|")) {
        args = this.expressionList();
      }
    } finally {
      this.inPrint--;
    }
    if (printf && args.length === 0) this.fail();
    let redirect: { op: string; target: Expr } | null = null;
    if (this.is(">") || this.is(">>") || this.is("|") || this.is("|&")) {
      const op = this.peek().text;
      this.k++;
      redirect = { op, target: this.concatenation(true) };
    }
    return { type: "print", printf, args, redirect };
  }

  private expressionList(): Expr[] {
    const list = [this.expression()];
    while (this.eat(",")) {
      this.newlines();
      list.push(this.expression());
    }
    return list;
  }

  expression(): Expr {
    return this.ternary();
  }

  private isLvalue(expr: Expr): boolean {
    return expr.type === "var" || expr.type === "field" || expr.type === "index";
  }

  private ternary(): Expr {
    const test = this.or();
    if (this.eat("?")) {
      this.newlines();
      const yes = this.ternary();
      this.newlines();
      this.expect(":");
      this.newlines();
      const no = this.ternary();
      return { type: "cond", test, yes, no };
    }
    const token = this.peek();
    if (token.kind === "op" && ["=", "+=", "-=", "*=", "/=", "%=", "^=", "**="].includes(token.text)) {
      if (!this.isLvalue(test)) this.fail();
      this.k++;
      this.newlines();
      const value = this.ternary();
      return { type: "assign", op: token.text === "**=" ? "^=" : token.text, target: test, value };
    }
    return test;
  }

  private or(): Expr {
    let left = this.and();
    while (this.eat("||")) {
      this.newlines();
      left = { type: "or", left, right: this.and() };
    }
    return left;
  }

  private and(): Expr {
    let left = this.inExpr();
    while (this.eat("&&")) {
      this.newlines();
      left = { type: "and", left, right: this.inExpr() };
    }
    return left;
  }

  private inExpr(): Expr {
    let left = this.matchExpr();
    while (this.is("in")) {
      this.k++;
      const name = this.peek();
      if (name.kind !== "name") this.fail();
      this.k++;
      left = { type: "in", subscripts: [left], name: name.text };
    }
    return left;
  }

  private matchExpr(): Expr {
    let left = this.comparison();
    while (this.is("~") || this.is("!~")) {
      const negate = this.peek().text === "!~";
      this.k++;
      left = { type: "match", negate, left, right: this.comparison() };
    }
    return left;
  }

  private comparison(): Expr {
    const left = this.concatenation(false);
    const token = this.peek();
    if (token.kind === "op" && ["<", "<=", "==", "!=", ">=", ">"].includes(token.text)) {
      if (token.text === ">" && this.inPrint > 0) return left;
      this.k++;
      return { type: "binary", op: token.text, left, right: this.concatenation(false) };
    }
    return left;
  }

  /** Could this token start an operand of a concatenation? */
  private startsOperand(): boolean {
    const token = this.peek();
    switch (token.kind) {
      case "number":
      case "string":
      case "regex":
      case "name":
      case "funcName":
      case "builtin":
        return true;
      case "op":
        return ["$", "!", "(", "-", "+", "++", "--"].includes(token.text);
      default:
        return false;
    }
  }

  private concatenation(redirectTarget: boolean): Expr {
    let left = this.additive();
    while (this.startsOperand() && !this.is("+") && !this.is("-")) {
      if (this.is("!") && redirectTarget) break;
      if (this.is("in")) break;
      left = { type: "concat", left, right: this.additive() };
    }
    // getline after an expression: cmd | getline [var]
    while (this.is("|") && this.peek(1).text === "getline" && this.peek(1).kind === "keyword") {
      this.k += 2;
      const target = this.optionalLvalue();
      left = { type: "getline", target, file: null, command: left };
    }
    return left;
  }

  private additive(): Expr {
    let left = this.multiplicative();
    while (this.is("+") || this.is("-")) {
      const op = this.peek().text;
      this.k++;
      left = { type: "binary", op, left, right: this.multiplicative() };
    }
    return left;
  }

  private multiplicative(): Expr {
    let left = this.unary();
    while (this.is("*") || this.is("/") || this.is("%")) {
      const op = this.peek().text;
      this.k++;
      const right = this.unary();
      // gawk folds constants: dividing by a literal zero is an error before anything runs.
      if ((op === "/" || op === "%") && right.type === "num" && right.value === 0) {
        this.failAt(
          op === "/" ? "division by zero attempted" : "division by zero attempted in `%'",
          this.tokens[this.k - 1]!.at,
        );
      }
      left = { type: "binary", op, left, right };
    }
    return left;
  }

  private unary(): Expr {
    if (this.is("!")) {
      this.k++;
      return { type: "unary", op: "!", operand: this.unary() };
    }
    if (this.is("-") || this.is("+")) {
      const op = this.peek().text;
      this.k++;
      return { type: "unary", op, operand: this.unary() };
    }
    return this.power();
  }

  private power(): Expr {
    const base = this.postfix();
    if (this.is("^") || this.is("**")) {
      this.k++;
      // Right-associative, and binds tighter than a unary minus on its right: 2^-1.
      const exponent = this.is("-") || this.is("+") || this.is("!") ? this.unary() : this.power();
      return { type: "binary", op: "^", left: base, right: exponent };
    }
    return base;
  }

  private postfix(): Expr {
    if (this.is("++") || this.is("--")) {
      const op = this.peek().text as "++" | "--";
      this.k++;
      const target = this.postfix();
      if (!this.isLvalue(target)) this.fail();
      return { type: "incdec", op, prefix: true, target };
    }
    const primary = this.primary();
    if (this.isLvalue(primary) && (this.is("++") || this.is("--"))) {
      const op = this.peek().text as "++" | "--";
      this.k++;
      return { type: "incdec", op, prefix: false, target: primary };
    }
    return primary;
  }

  private optionalLvalue(): Expr | null {
    const token = this.peek();
    if (token.kind === "name") {
      this.k++;
      if (this.eat("[")) {
        const subscripts = this.expressionList();
        this.expect("]");
        return { type: "index", name: token.text, subscripts };
      }
      return { type: "var", name: token.text };
    }
    if (this.is("$")) {
      this.k++;
      return { type: "field", index: this.fieldOperand() };
    }
    return null;
  }

  private fieldOperand(): Expr {
    if (this.is("++") || this.is("--")) return this.postfix();
    if (this.is("-") || this.is("+") || this.is("!")) {
      const op = this.peek().text;
      this.k++;
      return { type: "unary", op, operand: this.fieldOperand() };
    }
    return this.primary();
  }

  private primary(): Expr {
    const token = this.peek();
    switch (token.kind) {
      case "number":
        this.k++;
        return { type: "num", value: token.value as number };
      case "string":
        this.k++;
        return { type: "str", value: token.value as string };
      case "regex": {
        this.k++;
        const source = token.value as string;
        // gawk compiles a regex literal with the program: a malformed one is an error before any input.
        try {
          compilePosixRegex(source, { dialect: "extended", awk: true });
        } catch (error) {
          if (error instanceof RegexSyntaxError) this.failAt(`${error.gnuMessage}: /${source}/`, token.at);
          throw error;
        }
        return { type: "regex", source };
      }
      case "funcName": {
        this.k++;
        this.expect("(");
        this.newlines();
        const args = this.is(")") ? [] : this.expressionList();
        this.newlines();
        this.expect(")");
        return { type: "call", name: token.text, args, at: token.at };
      }
      case "builtin":
        return this.builtin();
      case "name": {
        this.k++;
        if (this.eat("[")) {
          const subscripts = this.expressionList();
          this.expect("]");
          return { type: "index", name: token.text, subscripts };
        }
        return { type: "var", name: token.text };
      }
      case "keyword":
        if (token.text === "getline") {
          this.k++;
          const target = this.optionalLvalue();
          let file: Expr | null = null;
          if (this.eat("<")) file = this.primaryForRedirect();
          return { type: "getline", target, file, command: null };
        }
        break;
      case "op":
        if (token.text === "$") {
          this.k++;
          return { type: "field", index: this.fieldOperand() };
        }
        if (token.text === "(") {
          this.k++;
          this.newlines();
          // Inside parentheses ">" compares, even in a print.
          const depth = this.inPrint;
          this.inPrint = 0;
          try {
            return this.parenthesised();
          } finally {
            this.inPrint = depth;
          }
        }
        if (token.text === "-" || token.text === "+" || token.text === "!") return this.unary();
        break;
    }
    return this.fail();
  }

  private parenthesised(): Expr {
    {
      const first = this.expression();
      if (this.is(",")) {
        // (i, j) in array
        const list = [first];
        while (this.eat(",")) {
          this.newlines();
          list.push(this.expression());
        }
        this.expect(")");
        if (!this.is("in")) this.fail();
        this.k++;
        const name = this.peek();
        if (name.kind !== "name") this.fail();
        this.k++;
        return { type: "in", subscripts: list, name: name.text };
      }
      this.newlines();
      this.expect(")");
      return { type: "group", expr: first };
    }
  }

  private primaryForRedirect(): Expr {
    // getline < "file" ".txt" reads < ("file") — the concatenation binds looser.
    return this.postfix();
  }

  private builtin(): Expr {
    const token = this.peek();
    this.k++;
    const name = token.text;
    if (!this.is("(")) {
      if (name === "length") return { type: "builtin", name, args: [], at: token.at };
      this.fail();
    }
    this.k++;
    this.newlines();
    const args = this.is(")") ? [] : this.expressionList();
    this.newlines();
    this.expect(")");
    return { type: "builtin", name, args, at: token.at };
  }
}
