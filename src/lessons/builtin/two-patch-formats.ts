import type { Lesson } from "../lesson.ts";

/** Lesson 2 (toolrouter): the same kind of fix as a unified diff and as a Begin/End Patch envelope. */
export const twoPatchFormats: Lesson = {
  format: "toolroom-lesson",
  version: 1,
  id: "two-patch-formats",
  title: "A unified diff and a Begin/End Patch fix",
  instructions: `# A unified diff and a Begin/End Patch fix

Two small bugs, two patch formats, with the **ToolRouter** tools.

1. \`src/units.js\` converts Celsius to Fahrenheit with the wrong offset (it adds 23; it should add 32).
   Fix it with \`apply_patch_json\` and a **unified diff**:

   \`\`\`
   --- a/src/units.js
   +++ b/src/units.js
   @@ -1,3 +1,3 @@
   …
   \`\`\`

2. \`src/greet.js\` says "Helo". Fix it with \`apply_patch_freeform\` and the **envelope**:

   \`\`\`
   *** Begin Patch
   *** Update File: src/greet.js
   @@ export function greet(name) {
   -…
   +…
   *** End Patch
   \`\`\`

Patches ask for approval in this dialect: approve them when asked. Read before you patch.`,
  profiles: [
    {
      profile: "toolrouter",
      tools: ["list_dir", "read_file", "grep_files", "apply_patch_json", "apply_patch_freeform"],
    },
  ],
  files: {
    "src/units.js":
      "export function toFahrenheit(celsius) {\n  return (celsius * 9) / 5 + 23;\n}\n\nexport function toCelsius(fahrenheit) {\n  return ((fahrenheit - 32) * 5) / 9;\n}\n",
    "src/greet.js": 'export function greet(name) {\n  return "Helo, " + name + "!";\n}\n',
  },
  hints: [
    "read_file src/units.js first: the line to change is line 2.",
    "In a unified diff, a hunk lists the old line with '-' and the new one with '+', with unchanged lines around them starting with a space.",
    "In the envelope, '@@ export function greet(name) {' tells the tool where to look; then '-  return \"Helo, \" + name + \"!\";' and the '+' line.",
  ],
  solution: {
    files: {
      "src/units.js":
        "export function toFahrenheit(celsius) {\n  return (celsius * 9) / 5 + 32;\n}\n\nexport function toCelsius(fahrenheit) {\n  return ((fahrenheit - 32) * 5) / 9;\n}\n",
      "src/greet.js": 'export function greet(name) {\n  return "Hello, " + name + "!";\n}\n',
    },
  },
  checks: [
    {
      id: "units-fixed",
      title: "toFahrenheit adds 32",
      kind: "file_contains",
      path: "src/units.js",
      text: "/ 5 + 32;",
    },
    {
      id: "units-by-diff",
      title: "units.js was fixed with apply_patch_json",
      kind: "changed_with",
      path: "src/units.js",
      tools: ["apply_patch_json"],
    },
    {
      id: "greet-fixed",
      title: "greet says Hello",
      kind: "file_contains",
      path: "src/greet.js",
      text: '"Hello, "',
    },
    {
      id: "greet-by-envelope",
      title: "greet.js was fixed with apply_patch_freeform",
      kind: "changed_with",
      path: "src/greet.js",
      tools: ["apply_patch_freeform"],
    },
    {
      id: "read-first",
      title: "You read before patching",
      kind: "tool_used",
      tool: "read_file",
      status: "success",
    },
  ],
};
