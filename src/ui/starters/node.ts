/**
 * The Node starter: the embedded node's own fixture project (its failing cart test is part of the
 * node acceptance suite, so `npm test` here is known to run on the embedded sandbox too), plus a
 * README for the person.
 */
const FIXTURE = "../../sandbox/embedded/node/fixtures/starter-node/";
const files = import.meta.glob("../../sandbox/embedded/node/fixtures/starter-node/**/*", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

export const NODE_STARTER: Record<string, string> = {
  ...Object.fromEntries(Object.entries(files).map(([path, text]) => [path.slice(FIXTURE.length), text])),
  "README.md": `# starter-node

A small shopping cart with one failing test.

- \`src/cart.js\` keeps items with a price in cents and a quantity.
- \`test/cart.test.js\` checks it with \`node:test\`.

Run \`npm test\` to see the failure (in the terminal, or with a dialect's run tool), then fix
\`Cart.total()\` in \`src/cart.js\`. \`npm start\` prints the total of a sample cart.
`,
};
