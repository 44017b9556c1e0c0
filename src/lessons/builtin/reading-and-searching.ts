import type { Lesson } from "../lesson.ts";

/** Lesson 1 (agentbench): find code by searching, read only the lines that matter, fix with one patch. */
export const readingAndSearching: Lesson = {
  format: "toolroom-lesson",
  version: 1,
  id: "reading-and-searching",
  title: "Reading and searching a codebase",
  instructions: `# Reading and searching a codebase

A customer entered a **150% discount** and the shop paid *them* to shop. Discounts are
percentages between 0 and 100 (see \`README.md\`).

You are the agent, with the **AgentBench** tools. Work like a good agent does:

1. \`search\` for where discounts are checked — do not open every file.
2. \`read_file\` only the lines around the match (use \`start_line\` and \`end_line\`).
3. Fix the bound with **one** \`apply_patch\` (a unified diff with \`a/\` and \`b/\` paths).

\`README.md\` is read-only, and you have at most 8 calls.`,
  profiles: [{ profile: "agentbench", tools: ["list_files", "search", "read_file", "apply_patch"] }],
  files: {
    "README.md": "# Shop\n\nDiscounts are percentages between 0 and 100.\n",
    "src/cart.js":
      'import { applyDiscount } from "./pricing.js";\n\nexport function checkout(items, discountPercent) {\n  const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n  return applyDiscount(total, discountPercent);\n}\n',
    "src/pricing.js":
      "/** Prices are in cents. */\nexport function roundCents(value) {\n  return Math.round(value);\n}\n\nexport function applyDiscount(total, percent) {\n  if (percent < 0 || percent > 1000) {\n    throw new RangeError(`discount must be between 0 and 100, got ${percent}`);\n  }\n  return roundCents(total * (1 - percent / 100));\n}\n",
    "src/format.js": "export function formatPrice(cents) {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n",
    "src/inventory.js":
      "export const stock = new Map();\n\nexport function restock(sku, count) {\n  stock.set(sku, (stock.get(sku) ?? 0) + count);\n}\n",
  },
  hints: [
    "Search for the word discount, or for the error message a bad discount should raise.",
    "The check is in src/pricing.js. Read lines 6 to 11 only.",
    "Change `percent > 1000` to `percent > 100` with a unified diff whose hunk has the `if` line as context.",
  ],
  solution: {
    files: {
      "src/pricing.js":
        "/** Prices are in cents. */\nexport function roundCents(value) {\n  return Math.round(value);\n}\n\nexport function applyDiscount(total, percent) {\n  if (percent < 0 || percent > 100) {\n    throw new RangeError(`discount must be between 0 and 100, got ${percent}`);\n  }\n  return roundCents(total * (1 - percent / 100));\n}\n",
    },
    explanation:
      "search 'discount' → read_file src/pricing.js lines 6–11 → apply_patch changing 1000 to 100.",
  },
  controls: { readOnlyPaths: ["README.md"], maxCalls: 8 },
  checks: [
    {
      id: "searched",
      title: "You searched instead of opening every file",
      kind: "tool_used",
      tool: "search",
      status: "success",
    },
    {
      id: "read-a-range",
      title: "You read a line range, not a whole file",
      kind: "tool_used",
      tool: "read_file",
      status: "success",
      withParams: ["start_line"],
    },
    {
      id: "bound-fixed",
      title: "Discounts above 100% are refused",
      kind: "file_contains",
      path: "src/pricing.js",
      text: "percent > 100)",
    },
    {
      id: "patched",
      title: "The fix was made with apply_patch",
      kind: "changed_with",
      path: "src/pricing.js",
      tools: ["apply_patch"],
    },
    {
      id: "one-patch",
      title: "One patch was enough",
      kind: "tool_used",
      tool: "apply_patch",
      status: "success",
      max: 1,
    },
    { id: "readme-untouched", title: "README.md is untouched", kind: "file_unchanged", path: "README.md" },
    { id: "few-calls", title: "At most 8 calls", kind: "call_count", max: 8 },
  ],
};
