import type { Lesson } from "../lesson.ts";

/** Lesson 3 (coding-agent): run the tests, read the failure, fix the code (not the test), run again. */
export const testsAndFailures: Lesson = {
  format: "toolroom-lesson",
  version: 1,
  id: "tests-and-failures",
  title: "Running tests and reading failures",
  instructions: `# Running tests and reading failures

A small Node project has a failing test. With the **Coding Agent** tools:

1. \`run_tests\` — no arguments needed, it finds \`npm test\`. Read \`failures\`: which test, which
   file, and the \`reason\` (expected vs actual).
2. \`file_read\` the code the failure points at.
3. Fix the **code** with \`file_edit\` (exact text → new text) or \`file_patch\`. The tests are
   read-only: a fix that changes them is undone.
4. \`run_tests\` again until \`passed\` is true.`,
  profiles: [
    {
      profile: "coding-agent",
      tools: ["run_tests", "file_read", "file_edit", "file_patch", "file_list", "grep"],
    },
  ],
  files: {
    "package.json":
      '{\n  "name": "invoice",\n  "version": "1.0.0",\n  "type": "module",\n  "scripts": { "test": "node --test" }\n}\n',
    "src/invoice.js":
      "export function lineTotal(line) {\n  return line.price * line.quantity;\n}\n\nexport function invoiceTotal(lines, taxRate) {\n  const net = lines.reduce((sum, line) => sum + lineTotal(line), 0);\n  return net + net * taxRate / 100 * 0;\n}\n",
    "test/invoice.test.js":
      'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { invoiceTotal, lineTotal } from "../src/invoice.js";\n\ntest("a line costs price times quantity", () => {\n  assert.equal(lineTotal({ price: 250, quantity: 4 }), 1000);\n});\n\ntest("an invoice adds tax", () => {\n  assert.equal(invoiceTotal([{ price: 1000, quantity: 2 }], 20), 2400);\n});\n',
  },
  hints: [
    "The failing test is 'an invoice adds tax': it expected 2400 and got 2000.",
    "Look at the last line of invoiceTotal in src/invoice.js: something multiplies the tax by zero.",
    'file_edit {"path": "src/invoice.js", "old_str": "net * taxRate / 100 * 0", "new_str": "net * taxRate / 100"}',
  ],
  solution: {
    files: {
      "src/invoice.js":
        "export function lineTotal(line) {\n  return line.price * line.quantity;\n}\n\nexport function invoiceTotal(lines, taxRate) {\n  const net = lines.reduce((sum, line) => sum + lineTotal(line), 0);\n  return net + net * taxRate / 100;\n}\n",
    },
  },
  controls: { readOnlyPaths: ["test/**", "package.json"] },
  checks: [
    {
      id: "ran-twice",
      title: "You ran the tests before and after the fix",
      kind: "tool_used",
      tool: "run_tests",
      status: "success",
      min: 2,
    },
    { id: "passing", title: "The tests pass", kind: "command_succeeds", command: "npm test" },
    {
      id: "fixed-code",
      title: "The fix is in src/invoice.js, made with file_edit or file_patch",
      kind: "changed_with",
      path: "src/invoice.js",
      tools: ["file_edit", "file_patch"],
    },
    {
      id: "tests-untouched",
      title: "The test is untouched",
      kind: "file_unchanged",
      path: "test/invoice.test.js",
    },
  ],
};
