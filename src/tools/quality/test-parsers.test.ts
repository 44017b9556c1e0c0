import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  parseGeneric,
  parseJest,
  parseNodeSpec,
  parseNodeTap,
  parsePytest,
  parseTestOutput,
  parseVitest,
} from "./test-parsers.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");

describe("parsePytest (pytest 9, real output)", () => {
  it("reads counts, the FAILED lines and each failure's section", () => {
    const report = parsePytest(fixture("pytest-default.txt"), "/tmp/cap/py")!;
    expect(report).toMatchObject({
      parser: "pytest",
      total: 8,
      passed_count: 3,
      failed_count: 4,
      skipped_count: 1,
    });
    expect(report.summary).toBe("4 failed, 3 passed, 1 skipped in 0.62s");
    expect(
      report.failures.map((failure) => [failure.file, failure.test, failure.line, failure.reason]),
    ).toEqual([
      ["tests/test_calc.py", "test_add_wrong", 11, "AssertionError: assert 4 == 5"],
      ["tests/test_calc.py", "test_div_zero", 15, "ZeroDivisionError: division by zero"],
      [
        "tests/test_calc.py",
        "TestGroup::test_inside_fails",
        24,
        "AssertionError: assert {'a': 1} == {'a': 2}",
      ],
      ["tests/test_calc.py", "test_param[2]", 34, "AssertionError: assert 2 == 1"],
    ]);
    expect(report.failures[0]!.snippet).toContain(">       assert add(2, 2) == 5");
    expect(report.failures[0]!.snippet).toContain("E       assert 4 == 5");
  });

  it("reads -q output the same way", () => {
    const report = parsePytest(fixture("pytest-q.txt"), "/tmp/cap/py")!;
    expect(report).toMatchObject({ total: 8, passed_count: 3, failed_count: 4, skipped_count: 1 });
    expect(report.failures).toHaveLength(4);
  });

  it("reads a passing run and a collection error", () => {
    expect(parsePytest(fixture("pytest-pass.txt"))).toMatchObject({
      total: 1,
      passed_count: 1,
      failed_count: 0,
      failures: [],
    });
    const broken = parsePytest(fixture("pytest-collect-error.txt"), "/tmp/cap/py")!;
    expect(broken).toMatchObject({ failed_count: 1 });
    expect(broken.failures).toEqual([
      expect.objectContaining({
        file: "tests/test_broken.py",
        test: "(collection)",
        reason: expect.stringContaining("SyntaxError"),
      }),
    ]);
  });
});

describe("parseNodeTap (node --test, TAP)", () => {
  it("reads the counts and each not-ok test's YAML block, suites joined into the name", () => {
    const report = parseNodeTap(fixture("node-test-tap.txt"), "/tmp/cap/node")!;
    expect(report).toMatchObject({
      parser: "node-test-tap",
      total: 6,
      passed_count: 2,
      failed_count: 3,
      skipped_count: 1,
    });
    expect(report.failures.map((failure) => [failure.file, failure.test, failure.line])).toEqual([
      ["test/math.test.js", "adds wrong", 9],
      ["test/math.test.js", "division > throws on zero", 17],
      ["test/math.test.js", "deep equal", 24],
    ]);
    expect(report.failures[0]!.reason).toBe("AssertionError: Expected values to be strictly equal: 4 !== 5");
    expect(report.failures[1]!.reason).toBe("RangeError: division by zero");
    expect(report.failures[1]!.snippet).toContain("at div (file:///tmp/cap/node/math.js:2:51)");
    expect(report.failures[1]!.snippet).not.toContain("node:internal");
  });

  it("reads TAP under npm test's banner", () => {
    expect(parseTestOutput(fixture("npm-test-node-tap.txt"), "/tmp/cap/node")).toMatchObject({
      parser: "node-test-tap",
      failed_count: 3,
    });
  });
});

describe("parseNodeSpec (node --test --test-reporter=spec)", () => {
  it("reads the ℹ counts and the failing tests section", () => {
    const report = parseNodeSpec(fixture("node-test-spec.txt"), "/tmp/cap/node")!;
    expect(report).toMatchObject({
      parser: "node-test-spec",
      total: 6,
      passed_count: 2,
      failed_count: 3,
      skipped_count: 1,
    });
    expect(
      report.failures.map((failure) => [failure.file, failure.test, failure.line, failure.reason]),
    ).toEqual([
      ["test/math.test.js", "adds wrong", 9, "AssertionError: Expected values to be strictly equal: 4 !== 5"],
      ["test/math.test.js", "throws on zero", 17, "RangeError: division by zero"],
      [
        "test/math.test.js",
        "deep equal",
        24,
        "AssertionError: Expected values to be strictly deep-equal: + actual - expected",
      ],
    ]);
  });
});

describe("parseVitest (vitest 4 default reporter)", () => {
  it.each(["vitest-default.txt", "vitest-color.txt"])("reads %s", (name) => {
    const report = parseVitest(fixture(name), "/tmp/cap/vt")!;
    expect(report).toMatchObject({
      parser: "vitest",
      total: 7,
      passed_count: 3,
      failed_count: 3,
      skipped_count: 1,
    });
    expect(report.summary).toBe("3 failed | 3 passed | 1 skipped (7)");
    expect(
      report.failures.map((failure) => [failure.file, failure.test, failure.line, failure.reason]),
    ).toEqual([
      ["src/math.test.ts", "adds wrong", 9, "AssertionError: expected 4 to be 5 // Object.is equality"],
      ["src/math.test.ts", "division > throws on zero", 17, "RangeError: division by zero"],
      [
        "src/other.test.ts",
        "deep",
        3,
        "AssertionError: expected { a: 1, b: [ 1, 2 ] } to deeply equal { a: 1, b: [ 1, 3 ] }",
      ],
    ]);
    expect(report.failures[0]!.snippet).toContain("- Expected");
  });
});

describe("parseJest (jest 29 default reporter)", () => {
  it("reads the Tests line and the ● blocks", () => {
    const report = parseJest(fixture("jest-default.txt"))!;
    expect(report).toMatchObject({
      parser: "jest",
      total: 6,
      passed_count: 3,
      failed_count: 2,
      skipped_count: 1,
    });
    expect(
      report.failures.map((failure) => [failure.file, failure.test, failure.line, failure.reason]),
    ).toEqual([
      [
        "__tests__/math.test.js",
        "adds wrong",
        4,
        "expect(received).toBe(expected) // Object.is equality Expected: 5 Received: 4",
      ],
      ["__tests__/math.test.js", "division > throws on zero", 9, "RangeError: division by zero"],
    ]);
  });
});

describe("parseTestOutput", () => {
  it("recognises each runner's output without being told", () => {
    expect(parseTestOutput(fixture("pytest-q.txt"))?.parser).toBe("pytest");
    expect(parseTestOutput(fixture("node-test-spec.txt"))?.parser).toBe("node-test-spec");
    expect(parseTestOutput(fixture("vitest-color.txt"))?.parser).toBe("vitest");
    expect(parseTestOutput(fixture("jest-default.txt"))?.parser).toBe("jest");
  });

  it("falls back to a plain 'N passed, N failed' line, and to null", () => {
    expect(parseGeneric("ok\n12 passed, 1 failed, 2 skipped\n")).toMatchObject({
      total: 15,
      passed_count: 12,
      failed_count: 1,
    });
    expect(parseTestOutput("Segmentation fault\n")).toBeNull();
  });
});
