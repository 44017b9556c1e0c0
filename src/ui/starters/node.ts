/** A small Node project with one failing test: the first thing an agent (or a person) can fix. */
export const NODE_STARTER: Record<string, string> = {
  "package.json": `${JSON.stringify(
    {
      name: "starter-node",
      version: "1.0.0",
      private: true,
      type: "module",
      scripts: { test: "node --test" },
    },
    null,
    2,
  )}\n`,
  "README.md": `# starter-node

A tiny package with one failing test.

- \`src/sum.js\` adds two numbers (or should).
- \`test/sum.test.js\` checks it with \`node:test\`.

Run \`npm test\` to see the failure, then fix \`src/sum.js\`.
`,
  "src/sum.js": `/** Adds two numbers. */
export function sum(a, b) {
  return a - b;
}
`,
  "test/sum.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
import { sum } from "../src/sum.js";

test("sum adds two numbers", () => {
  assert.equal(sum(2, 3), 5);
});
`,
};
