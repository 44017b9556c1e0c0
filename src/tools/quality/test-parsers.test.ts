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
  parseUnittest,
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

describe("parseUnittest (real output of python -m unittest)", () => {
  const shapes = [
    [
      "test_shapes.py",
      "ShapeTests.test_missing",
      14,
      "ImportError: cannot import name 'volume' from 'pkg.shapes' (/tmp/utproj/pkg/shapes.py)",
    ],
    ["test_shapes.py", "ShapeTests.test_perimeter", 11, "AssertionError: 5 != 10"],
  ];

  it("reads counts, each FAIL and ERROR with its file and line (Python 3.11, default and -v)", () => {
    for (const name of ["unittest-default.txt", "unittest-verbose.txt"]) {
      const report = parseUnittest(fixture(name), "/tmp/utproj")!;
      expect(report).toMatchObject({
        parser: "unittest",
        total: 5,
        passed_count: 1,
        failed_count: 2,
        skipped_count: 2,
        summary: "Ran 5 tests: FAILED (failures=1, errors=1, skipped=1, expected failures=1)",
      });
      expect(report.failures.map((f) => [f.file, f.test, f.line, f.reason])).toEqual(shapes);
      expect(report.failures[1]!.snippet).toContain("self.assertEqual(perimeter(2, 3), 10)");
    }
  });

  it("reads the embedded CPython 3.13's output, and a test module that failed to import", () => {
    const report = parseUnittest(fixture("unittest-embedded.txt"), "/workspace")!;
    expect(report.failures.map((f) => [f.file, f.test, f.line])).toEqual(shapes.map((s) => s.slice(0, 3)));
    const broken = parseUnittest(fixture("unittest-import-error.txt"), "/workspace")!;
    expect(broken).toMatchObject({ total: 1, failed_count: 1, passed_count: 0 });
    expect(broken.failures).toEqual([
      expect.objectContaining({
        file: "test_broken.py",
        test: "test_broken (import)",
        line: 2,
        reason: "ModuleNotFoundError: No module named 'does_not_exist'",
      }),
    ]);
  });

  it("reads OK and NO TESTS RAN, and is not fooled by pytest's output", () => {
    expect(
      parseUnittest(
        "..\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nOK (skipped=1)\n",
      ),
    ).toMatchObject({
      total: 2,
      passed_count: 1,
      skipped_count: 1,
      failed_count: 0,
    });
    expect(
      parseUnittest(
        "\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n",
      ),
    ).toMatchObject({ total: 0 });
    expect(parseUnittest(fixture("pytest-default.txt"))).toBeNull();
    expect(parseTestOutput(fixture("unittest-default.txt"))?.parser).toBe("unittest");
  });
});

describe("parsePytest on pytest 7.2.1 in the embedded CPython (Debian's python3-pytest)", () => {
  it("reads counts and failures past the warnings summary, default and -q", () => {
    for (const name of ["pytest7-embedded.txt", "pytest7-embedded-q.txt"]) {
      const report = parsePytest(fixture(name), "/workspace")!;
      expect(report).toMatchObject({ total: 4, passed_count: 1, failed_count: 2, skipped_count: 1 });
      expect(report.failures.map((f) => [f.file, f.test, f.reason])).toEqual([
        ["test_pt.py", "test_perimeter", "AssertionError: assert 5 == 10"],
        ["test_pt.py", "TestMore::test_raises", "ValueError: bad value"],
      ]);
    }
    expect(parsePytest(fixture("pytest7-embedded.txt"), "/workspace")!.failures.map((f) => f.line)).toEqual([
      11, 21,
    ]);
  });
});
