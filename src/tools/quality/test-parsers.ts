import { clip, dedent, plainText, relativePath, snippetOf } from "./output.ts";

export interface TestFailure {
  /** Workspace-relative file of the failing test (null when the runner does not say). */
  file: string | null;
  /** The test's name, with its suites ("division > throws on zero"). */
  test: string;
  /** One line: the error type and message. */
  reason: string;
  /** The runner's own lines for this failure: assertion, diff, code frame (at most 20 lines). */
  snippet: string;
  line: number | null;
}

export type TestParser =
  | "pytest"
  | "unittest"
  | "node-test-tap"
  | "node-test-spec"
  | "vitest"
  | "jest"
  | "generic";

export interface TestReport {
  parser: TestParser;
  total: number;
  passed_count: number;
  failed_count: number;
  skipped_count: number;
  failures: TestFailure[];
  /** The runner's own summary line. */
  summary: string | null;
}

const count = (text: string, word: RegExp): number => {
  let total = 0;
  for (const match of text.matchAll(new RegExp(`(\\d+) ${word.source}`, "gu"))) total += Number(match[1]);
  return total;
};

// ---------------------------------------------------------------- pytest

const PYTEST_SUMMARY = /^=*\s*((?:\d+ \w+(?:, )?)+)(?: in [\d.]+s(?: \([^)]*\))?)?\s*=*$/u;
const PYTEST_HEADER = /^={3,} (.+?) ={3,}$/u;
const PYTEST_SECTION = /^_{3,} (.+?) _{3,}$/u;
const PYTEST_LOCATION = /^(\S[^:]*\.py):(\d+): ?(\w[\w.]*)?$/u;
const EXCEPTION_NAME = /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Failed)\b/u;

/** pytest's default and -q reports: the final counts, FAILED/ERROR summary lines and the FAILURES sections. */
export function parsePytest(raw: string, root?: string): TestReport | null {
  const text = plainText(raw);
  const lines = text.split("\n");
  let summary: string | null = null;
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = PYTEST_SUMMARY.exec(lines[i]!.trim());
    if (
      match &&
      /\b(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|no tests ran)\b/u.test(match[1]!)
    ) {
      summary = lines[i]!.replace(/^=+\s*|\s*=+$/gu, "");
      break;
    }
    if (/^=+ no tests ran/u.test(lines[i]!)) {
      summary = "no tests ran";
      break;
    }
  }
  if (summary === null) return null;
  const passed = count(summary, /passed/u);
  const failed = count(summary, /failed/u);
  const errors = count(summary, /errors?/u);
  const skipped = count(summary, /skipped/u);
  const xfailed = count(summary, /xfailed/u);
  const xpassed = count(summary, /xpassed/u);

  // Sections: "____ title ____" blocks inside the FAILURES and ERRORS headers.
  const sections = new Map<string, string[]>();
  let inReport = false;
  let current: string[] | null = null;
  for (const line of lines) {
    const header = PYTEST_HEADER.exec(line);
    if (header) {
      inReport = header[1] === "FAILURES" || header[1] === "ERRORS";
      current = null;
      continue;
    }
    if (!inReport) continue;
    const section = PYTEST_SECTION.exec(line);
    if (section && !/^_ (?:_ )+_?$/u.test(line)) {
      current = [];
      sections.set(section[1]!, current);
      continue;
    }
    current?.push(line);
  }
  const failures: TestFailure[] = [];
  const used = new Set<string>();
  for (const line of lines) {
    const match = /^(FAILED|ERROR) (\S+?)(?: - (.*))?$/u.exec(line);
    if (!match) continue;
    const nodeid = match[2]!;
    const [file, ...names] = nodeid.split("::");
    const test = names.length > 0 ? names.join("::") : "(collection)";
    const title = names.length > 0 ? names.join(".") : `ERROR collecting ${file}`;
    const body = sections.get(title) ?? sections.get(`ERROR at setup of ${names.join(".")}`) ?? [];
    used.add(title);
    failures.push(pytestFailure(relativePath(file!, root), test, body, match[3] ?? "", root));
  }
  for (const [title, body] of sections) {
    if (used.has(title)) continue;
    const location = body.map((line) => PYTEST_LOCATION.exec(line)).find(Boolean);
    const file = location ? relativePath(location[1]!, root) : null;
    failures.push(pytestFailure(file, title.replace(/^ERROR collecting /u, ""), body, "", root));
  }
  return {
    parser: "pytest",
    total: passed + failed + errors + skipped + xfailed + xpassed,
    passed_count: passed + xpassed,
    failed_count: failed + errors,
    skipped_count: skipped + xfailed,
    failures,
    summary,
  };
}

function pytestFailure(
  file: string | null,
  test: string,
  body: string[],
  shortReason: string,
  root?: string,
): TestFailure {
  const errorLines = body
    .filter((line) => /^E {2,}|^E\s*$/u.test(line))
    .map((line) => line.replace(/^E\s?/u, "").trim());
  const locations = body
    .map((line) => PYTEST_LOCATION.exec(line))
    .filter((match): match is RegExpExecArray => match !== null);
  const own =
    locations.find((match) => file !== null && relativePath(match[1]!, root) === file) ?? locations[0];
  const exceptionType = locations[locations.length - 1]?.[3];
  let reason =
    errorLines.find((line) => EXCEPTION_NAME.test(line)) ??
    errorLines.find((line) => line !== "") ??
    shortReason;
  if (exceptionType && !EXCEPTION_NAME.test(reason)) reason = `${exceptionType}: ${reason}`;
  const firstCode = body.findIndex((line) => line.startsWith(">") || /^ {4}\S/u.test(line));
  return {
    file,
    test,
    reason: clip(reason || shortReason || "failed"),
    snippet: snippetOf(body.slice(Math.max(0, firstCode))),
    line: own ? Number(own[2]) : null,
  };
}

// ---------------------------------------------------------------- unittest

const UNITTEST_RAN = /^Ran (\d+) tests? in [\d.]+s$/u;
const UNITTEST_RESULT = /^(OK|FAILED|NO TESTS RAN)(?: \((.*)\))?$/u;
const UNITTEST_BLOCK = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+)(?: \(([^)]*)\))?(?: \[.*\])?$/u;
const TRACEBACK_FRAME = /^ {2}File "([^"]+)", line (\d+), in (.+)$/u;

/** Python's unittest (`python -m unittest`, with or without -v): "Ran N tests", the result line, each FAIL/ERROR block. */
export function parseUnittest(raw: string, root?: string): TestReport | null {
  const lines = plainText(raw).split("\n");
  let ran = -1;
  let result: RegExpExecArray | null = null;
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = UNITTEST_RAN.exec(lines[i]!);
    if (!match) continue;
    ran = Number(match[1]);
    for (let j = i + 1; j < lines.length && !result; j++) result = UNITTEST_RESULT.exec(lines[j]!.trim());
    break;
  }
  if (ran < 0 || !result) return null;
  const stats = new Map<string, number>();
  for (const part of (result[2] ?? "").split(", ").filter(Boolean)) {
    const [name, value] = part.split("=");
    stats.set(name!, Number(value));
  }
  const failed =
    (stats.get("failures") ?? 0) + (stats.get("errors") ?? 0) + (stats.get("unexpected successes") ?? 0);
  const skipped = (stats.get("skipped") ?? 0) + (stats.get("expected failures") ?? 0);
  const failures: TestFailure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const block = UNITTEST_BLOCK.exec(lines[i]!);
    if (!block || !/^=+$/u.test(lines[i - 1] ?? "")) continue;
    const body: string[] = [];
    for (let j = i + 2; j < lines.length && !/^(?:=|-){20,}$/u.test(lines[j]!); j++) body.push(lines[j]!);
    failures.push(unittestFailure(block, body, root));
  }
  return {
    parser: "unittest",
    total: ran,
    passed_count: Math.max(0, ran - failed - skipped),
    failed_count: failed,
    skipped_count: skipped,
    failures,
    summary: `Ran ${ran} test${ran === 1 ? "" : "s"}: ${result[0]!.trim()}`,
  };
}

function unittestFailure(block: RegExpExecArray, body: string[], root?: string): TestFailure {
  const [, kind, method, where] = block;
  // "test_x (module.Class.test_x)" on 3.11+, "test_x (module.Class)" before; a module that failed to import is a _FailedTest.
  const dotted = where ?? method!;
  const failedImport = dotted.startsWith("unittest.loader._FailedTest");
  const parts = dotted.split(".");
  if (parts[parts.length - 1] !== method) parts.push(method!);
  const test = failedImport ? `${method} (import)` : parts.slice(-2).join(".");
  const frames = body
    .map((line) => TRACEBACK_FRAME.exec(line))
    .filter((match): match is RegExpExecArray => match !== null);
  const inProject = frames.filter(
    (frame) => !/\/(?:unittest|importlib)\/|^<frozen |\/site-packages\/|\/lib\/python3/u.test(frame[1]!),
  );
  const own = inProject.find((frame) => frame[3] === method) ?? inProject[inProject.length - 1];
  const deepest = inProject[inProject.length - 1];
  const located = failedImport ? deepest : own;
  const last = [...body]
    .reverse()
    .find((line) => /^[A-Za-z_][\w.]*(?::|$)/u.test(line) && !line.startsWith("Traceback"));
  const reason = kind === "UNEXPECTED SUCCESS" ? "unexpected success" : (last ?? kind!.toLowerCase());
  return {
    file: located ? relativePath(located[1]!, root) : null,
    test,
    reason: clip(reason),
    snippet: snippetOf(body),
    line: located ? Number(located[2]) : null,
  };
}

// ---------------------------------------------------------------- node --test (TAP)

/** node --test's TAP reporter (the default when output is not a terminal). */
export function parseNodeTap(raw: string, root?: string): TestReport | null {
  const text = plainText(raw);
  if (!/^TAP version \d+/mu.test(text) || !/^# tests \d+/mu.test(text)) return null;
  const stat = (name: string) => Number(new RegExp(`^# ${name} (\\d+)`, "mu").exec(text)?.[1] ?? 0);
  const lines = text.split("\n");
  const failures: TestFailure[] = [];
  const names: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const subtest = /^( *)# Subtest: (.*)$/u.exec(line);
    if (subtest) {
      names[subtest[1]!.length / 4] = subtest[2]!;
      names.length = subtest[1]!.length / 4 + 1;
      continue;
    }
    const notOk = /^( *)not ok \d+ - (.*?)(?: # .*)?$/u.exec(line);
    if (!notOk) continue;
    const depth = notOk[1]!.length / 4;
    const yaml: string[] = [];
    if (lines[i + 1]?.trim() === "---") {
      for (let j = i + 2; j < lines.length && lines[j]!.trim() !== "..."; j++) yaml.push(lines[j]!);
    }
    const block = dedent(yaml);
    const field = (key: string): string | null => {
      const index = block.findIndex((entry) => entry.startsWith(`${key}:`));
      if (index === -1) return null;
      const value = block[index]!.slice(key.length + 1).trim();
      if (value === "|-" || value === "|" || value === ">-") {
        const body: string[] = [];
        for (
          let j = index + 1;
          j < block.length && (block[j]!.startsWith("  ") || block[j]!.trim() === "");
          j++
        )
          body.push(block[j]!.slice(2));
        return body.join("\n").trimEnd();
      }
      return value.replace(/^'(.*)'$/u, "$1").replace(/''/gu, "'");
    };
    if (field("failureType") === "subtestsFailed") continue;
    const location = /^(.*):(\d+):\d+$/u.exec(field("location") ?? "");
    const errorText = field("error") ?? "";
    const errorName = field("name");
    const stack = (field("stack") ?? "")
      .split("\n")
      .filter(
        (entry) =>
          entry.trim() !== "" && !entry.includes("node:internal") && !entry.includes("node:async_hooks"),
      );
    const test = [...names.slice(0, depth), notOk[2]!].join(" > ");
    failures.push({
      file: location ? relativePath(location[1]!, root) : null,
      test,
      reason: clip(
        `${errorName ? `${errorName}: ` : ""}${errorText
          .split("\n")
          .filter((entry) => entry.trim() !== "")
          .join(" ")}`,
      ),
      snippet: snippetOf([...errorText.split("\n"), ...stack.map((entry) => `    at ${entry.trim()}`)]),
      line: location ? Number(location[2]) : null,
    });
  }
  return {
    parser: "node-test-tap",
    total: stat("tests"),
    passed_count: stat("pass"),
    failed_count: stat("fail") + stat("cancelled"),
    skipped_count: stat("skipped") + stat("todo"),
    failures,
    summary: `tests ${stat("tests")}, pass ${stat("pass")}, fail ${stat("fail")}, cancelled ${stat("cancelled")}, skipped ${stat("skipped")}, todo ${stat("todo")}`,
  };
}

// ---------------------------------------------------------------- node --test (spec)

/** node --test's spec reporter (the default on a terminal): counts after ℹ, failures after "✖ failing tests:". */
export function parseNodeSpec(raw: string, root?: string): TestReport | null {
  const text = plainText(raw);
  if (!/^ℹ tests \d+/mu.test(text)) return null;
  const stat = (name: string) => Number(new RegExp(`^ℹ ${name} (\\d+)`, "mu").exec(text)?.[1] ?? 0);
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.startsWith("✖ failing tests:"));
  const failures: TestFailure[] = [];
  if (start !== -1) {
    for (let i = start + 1; i < lines.length; i++) {
      const at = /^test at (.*):(\d+):\d+$/u.exec(lines[i]!);
      const head = /^✖ (.*?)(?: \([\d.]+m?s\))?$/u.exec(lines[at ? i + 1 : i] ?? "");
      if (!head) continue;
      const bodyStart = at ? i + 2 : i + 1;
      let end = bodyStart;
      while (end < lines.length && !/^(?:test at |✖ )/u.test(lines[end]!)) end++;
      const body = dedent(lines.slice(bodyStart, end));
      failures.push({
        file: at ? relativePath(at[1]!, root) : null,
        test: head[1]!,
        reason: specReason(body),
        snippet: snippetOf(body.filter((line) => !/node:internal|node:async_hooks/u.test(line))),
        line: at ? Number(at[2]) : null,
      });
      i = end - 1;
    }
  }
  return {
    parser: "node-test-spec",
    total: stat("tests"),
    passed_count: stat("pass"),
    failed_count: stat("fail") + stat("cancelled"),
    skipped_count: stat("skipped") + stat("todo"),
    failures,
    summary: `tests ${stat("tests")}, pass ${stat("pass")}, fail ${stat("fail")}, cancelled ${stat("cancelled")}, skipped ${stat("skipped")}, todo ${stat("todo")}`,
  };
}

function specReason(body: string[]): string {
  const message: string[] = [];
  for (const line of body) {
    if (/^\s*at /u.test(line) || /^\s*[{}]/u.test(line) || /^\s+\w+: /u.test(line)) break;
    if (line.trim() !== "") message.push(line.trim());
    if (message.length >= 4) break;
  }
  return clip(
    message
      .join(" ")
      .replace(/ \[ERR_[A-Z_]+\]/u, "")
      .replace(/^(\w+) \[Error\]/u, "$1"),
  );
}

// ---------------------------------------------------------------- vitest

/** vitest's default reporter: the "Tests" summary line and each " FAIL  file > test" block. */
export function parseVitest(raw: string, root?: string): TestReport | null {
  const text = plainText(raw);
  const summaryLine = /^\s*Tests\s+(.*\(\d+\))\s*$/mu.exec(text);
  if (!summaryLine) {
    if (!/^\s*Test Files\s+/mu.test(text) && !/No test files found/u.test(text)) return null;
  }
  const summary = summaryLine
    ? summaryLine[1]!.trim()
    : (/^\s*Test Files\s+(.*)$/mu.exec(text)?.[1]?.trim() ?? "no tests");
  const failed = count(summary, /failed/u);
  const passed = count(summary, /passed/u);
  const skipped = count(summary, /skipped/u) + count(summary, /todo/u);
  const total = Number(/\((\d+)\)\s*$/u.exec(summary)?.[1] ?? failed + passed + skipped);
  const lines = text.split("\n");
  const failures: TestFailure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^\s*FAIL\s+(\S+)(?: \[[^\]]*\])?(?: > (.*))?$/u.exec(lines[i]!);
    if (!head || lines[i]!.includes("Failed Tests")) continue;
    let end = i + 1;
    while (
      end < lines.length &&
      !/^\s*FAIL\s+/u.test(lines[end]!) &&
      !/⎯{3,}/u.test(lines[end]!) &&
      !/^\s*Test Files\s+/u.test(lines[end]!)
    )
      end++;
    const body = lines.slice(i + 1, end);
    const file = relativePath(head[1]!, root);
    const frames = body
      .map((line) => /❯ (?:.*? )?(\S+):(\d+):\d+\s*$/u.exec(line))
      .filter((match): match is RegExpExecArray => match !== null);
    const own = frames.find((frame) => relativePath(frame[1]!, root) === file) ?? frames[0];
    failures.push({
      file,
      test: head[2] ? head[2].trim() : "(file failed to run)",
      reason: clip(body.find((line) => line.trim() !== "") ?? "failed"),
      snippet: snippetOf(body),
      line: own ? Number(own[2]) : null,
    });
    i = end - 1;
  }
  return {
    parser: "vitest",
    total,
    passed_count: passed,
    failed_count: failed,
    skipped_count: skipped,
    failures,
    summary,
  };
}

// ---------------------------------------------------------------- jest

/** jest's default reporter: the "Tests:" summary and the "● suite › test" blocks under each FAIL file. */
export function parseJest(raw: string, root?: string): TestReport | null {
  const text = plainText(raw);
  const summaryMatch = /^Tests:\s+(.*)$/mu.exec(text);
  if (!summaryMatch) return null;
  const summary = summaryMatch[1]!.trim();
  const lines = text.split("\n");
  const failures: TestFailure[] = [];
  let file: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const suite = /^(FAIL|PASS)\s+(\S+)/u.exec(lines[i]!);
    if (suite) {
      file = relativePath(suite[2]!, root);
      continue;
    }
    const bullet = /^ {2}● (.*)$/u.exec(lines[i]!);
    if (!bullet) continue;
    let end = i + 1;
    while (
      end < lines.length &&
      !/^ {2}● /u.test(lines[end]!) &&
      !/^(?:FAIL|PASS)\s/u.test(lines[end]!) &&
      !/^Test Suites:/u.test(lines[end]!)
    )
      end++;
    const body = dedent(lines.slice(i + 1, end));
    const message = body.filter((line) => line.trim() !== "");
    const reasonLines = [
      message[0] ?? "failed",
      ...message.slice(1, 3).filter((line) => /^(?:Expected|Received)/u.test(line.trim())),
    ];
    const frame = body
      .map((line) => /at .*?\(?([^\s()]+):(\d+):\d+\)?$/u.exec(line))
      .find((match) => match !== null && file !== null && relativePath(match[1]!, root) === file);
    failures.push({
      file,
      test: bullet[1]!.replace(/ › /gu, " > "),
      reason: clip(reasonLines.join(" ")),
      snippet: snippetOf(body),
      line: frame ? Number(frame[2]) : null,
    });
    i = end - 1;
  }
  const failed = count(summary, /failed/u);
  const passed = count(summary, /passed/u);
  const skipped = count(summary, /skipped/u) + count(summary, /todo/u);
  const total = Number(/(\d+) total/u.exec(summary)?.[1] ?? failed + passed + skipped);
  return {
    parser: "jest",
    total,
    passed_count: passed,
    failed_count: failed,
    skipped_count: skipped,
    failures,
    summary,
  };
}

// ---------------------------------------------------------------- any runner

/** The plain "N passed, N failed" closing line many runners print. */
export function parseGeneric(raw: string): TestReport | null {
  const text = plainText(raw);
  const lines = text.split("\n").reverse();
  const line = lines.find((candidate) => /\d+ passed/u.test(candidate) || /\d+ failed/u.test(candidate));
  if (!line) return null;
  const passed = count(line, /passed/u);
  const failed = count(line, /failed/u);
  const skipped = count(line, /skipped/u);
  return {
    parser: "generic",
    total: passed + failed + skipped,
    passed_count: passed,
    failed_count: failed,
    skipped_count: skipped,
    failures: [],
    summary: line.trim(),
  };
}

const PARSERS: Record<Exclude<TestParser, "generic">, (raw: string, root?: string) => TestReport | null> = {
  pytest: parsePytest,
  unittest: parseUnittest,
  "node-test-tap": parseNodeTap,
  "node-test-spec": parseNodeSpec,
  vitest: parseVitest,
  jest: parseJest,
};

/** Reads a test run's output: the expected runner's parser first, then each other, then the generic line. */
export function parseTestOutput(raw: string, root?: string, expected?: TestParser): TestReport | null {
  const order = Object.keys(PARSERS) as (keyof typeof PARSERS)[];
  if (expected && expected !== "generic")
    order.sort((a, b) => (a === expected ? -1 : b === expected ? 1 : 0));
  for (const name of order) {
    const report = PARSERS[name](raw, root);
    if (report) return report;
  }
  return parseGeneric(raw);
}
