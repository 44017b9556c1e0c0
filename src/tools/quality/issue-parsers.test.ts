import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  parseEslintJson,
  parseEslintStylish,
  parseLintOutput,
  parseMypy,
  parsePyrightJson,
  parsePyrightText,
  parseRuffJson,
  parseRuffText,
  parseTsc,
  parseTypecheckOutput,
} from "./issue-parsers.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");

const RUFF = [
  { file: "bad.py", line: 1, col: 8, rule: "F401", message: "`os` imported but unused", severity: "error" },
  { file: "bad.py", line: 2, col: 8, rule: "F401", message: "`sys` imported but unused", severity: "error" },
  {
    file: "bad.py",
    line: 6,
    col: 5,
    rule: "F841",
    message: "Local variable `unused` is assigned to but never used",
    severity: "error",
  },
  {
    file: "bad.py",
    line: 11,
    col: 12,
    rule: "F821",
    message: "Undefined name `undefined_name`",
    severity: "error",
  },
];

describe("ruff (0.16, real output)", () => {
  it("reads json, concise and full formats to the same issues", () => {
    expect(parseRuffJson(fixture("ruff-json.txt"), "/tmp/cap/lint")?.issues).toEqual(RUFF);
    expect(parseRuffText(fixture("ruff-concise.txt"))?.issues).toEqual(RUFF);
    expect(parseRuffText(fixture("ruff-default.txt"))?.issues).toEqual(RUFF);
    expect(parseRuffText("All checks passed!\n")).toEqual({ parser: "ruff", issues: [] });
  });
});

describe("eslint (9, real output)", () => {
  const ESLINT = [
    {
      file: "src/app.js",
      line: 1,
      col: 7,
      rule: "no-unused-vars",
      message: "'unused' is assigned a value but never used",
      severity: "error",
    },
    {
      file: "src/app.js",
      line: 3,
      col: 10,
      rule: "no-undef",
      message: "'b' is not defined",
      severity: "error",
    },
    { file: "src/app.js", line: 3, col: 15, rule: "semi", message: "Missing semicolon", severity: "warning" },
  ];
  it("reads json and stylish formats to the same issues", () => {
    // The json format keeps each message's final period; stylish drops it.
    expect(parseEslintJson(fixture("eslint-json.txt"), "/tmp/cap/eslint")?.issues).toEqual(
      ESLINT.map((issue) => ({ ...issue, message: `${issue.message}.` })),
    );
    expect(parseEslintStylish(fixture("eslint-stylish.txt"), "/tmp/cap/eslint")?.issues).toEqual(ESLINT);
  });
  it("is recognised without being told", () => {
    expect(parseLintOutput(fixture("eslint-stylish.txt"))?.parser).toBe("eslint-stylish");
    expect(parseLintOutput(fixture("ruff-json.txt"))?.parser).toBe("ruff-json");
  });
});

describe("mypy (2.4, real output)", () => {
  it("reads lines with and without columns", () => {
    const issue = {
      file: "bad.py",
      line: 7,
      rule: "return-value",
      message: 'Incompatible return value type (got "int", expected "str")',
      severity: "error",
    };
    expect(parseMypy(fixture("mypy-default.txt"))?.issues).toEqual([{ ...issue, col: 1 }]);
    expect(parseMypy(fixture("mypy-columns.txt"))?.issues).toEqual([{ ...issue, col: 12 }]);
    expect(parseMypy("Success: no issues found in 3 source files\n")).toEqual({ parser: "mypy", issues: [] });
  });
});

describe("pyright (1.1.414, real output)", () => {
  it("reads --outputjson and the text format to the same issues", () => {
    const expected = [
      {
        file: "bad.py",
        line: 7,
        col: 12,
        rule: "reportReturnType",
        message: 'Type "int" is not assignable to return type "str"',
        severity: "error",
      },
      {
        file: "bad.py",
        line: 11,
        col: 12,
        rule: "reportUndefinedVariable",
        message: '"undefined_name" is not defined',
        severity: "error",
      },
    ];
    expect(parsePyrightJson(fixture("pyright-json.txt"), "/tmp/cap/lint")?.issues).toEqual(expected);
    expect(parsePyrightText(fixture("pyright-default.txt"), "/tmp/cap/lint")?.issues).toEqual(expected);
  });
});

describe("tsc (5.9, real output)", () => {
  const TSC = [
    {
      file: "src/a.ts",
      line: 2,
      col: 3,
      rule: "TS2322",
      message: "Type 'number' is not assignable to type 'string'.",
      severity: "error",
    },
    {
      file: "src/a.ts",
      line: 4,
      col: 7,
      rule: "TS2322",
      message: "Type 'string' is not assignable to type 'number'.",
      severity: "error",
    },
    {
      file: "src/a.ts",
      line: 5,
      col: 22,
      rule: "TS2307",
      message: "Cannot find module './missing' or its corresponding type declarations.",
      severity: "error",
    },
    {
      file: "src/b.ts",
      line: 1,
      col: 18,
      rule: "TS2304",
      message: "Cannot find name 'undefinedThing'.",
      severity: "error",
    },
  ];
  it("reads file(line,col): error TSxxxx: msg and the --pretty format", () => {
    expect(parseTsc(fixture("tsc-default.txt"))?.issues).toEqual(TSC);
    expect(parseTsc(fixture("tsc-pretty.txt"))?.issues).toEqual(TSC);
  });
  it("keeps continuation lines and global errors", () => {
    const report = parseTsc(
      "a.ts(1,1): error TS2322: Type 'A' is not assignable to type 'B'.\n  Property 'x' is missing.\nerror TS5083: Cannot read file 'tsconfig.json'.\n",
    );
    expect(report?.issues[0]?.message).toBe(
      "Type 'A' is not assignable to type 'B'.\nProperty 'x' is missing.",
    );
    expect(report?.issues[1]).toMatchObject({ file: "", rule: "TS5083" });
  });
  it("is recognised without being told", () => {
    expect(parseTypecheckOutput(fixture("tsc-default.txt"))?.parser).toBe("tsc");
    expect(parseTypecheckOutput(fixture("mypy-columns.txt"))?.parser).toBe("mypy");
    expect(parseTypecheckOutput(fixture("pyright-default.txt"))?.parser).toBe("pyright");
    expect(parseTypecheckOutput("segfault")).toBeNull();
  });
});
