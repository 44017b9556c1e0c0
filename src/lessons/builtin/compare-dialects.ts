import type { Lesson } from "../lesson.ts";

/** Lesson 6 (sandboxed and baseagent): the same fix in two dialects, to compare their envelopes. */
export const compareDialects: Lesson = {
  format: "toolroom-lesson",
  version: 1,
  id: "compare-dialects",
  title: "One task, two dialects",
  instructions: `# One task, two dialects

The same configuration mistake is in two copies of a file: \`sandboxed/app.conf\` and
\`baseagent/app.conf\` both say \`timeout = 5\` where the service needs \`timeout = 30\`.

- Fix \`sandboxed/app.conf\` with the **sandboxed** dialect: \`read_file\`, then \`text_replace\`.
- Fix \`baseagent/app.conf\` with the **BaseAgent** dialect: \`read_file\`, then \`apply_patch\` with a
  \`*** Begin Patch\` envelope.

Then compare what came back: sandboxed answers with structured results and a hit count;
BaseAgent answers \`{success, output}\` with text made for a model, line numbers as \`L1:\`.
Which would you rather parse, and which would you rather read?`,
  profiles: [
    { profile: "sandboxed", tools: ["read_file", "text_replace"] },
    { profile: "baseagent", tools: ["read_file", "apply_patch"] },
  ],
  files: {
    "sandboxed/app.conf": "name = shop\ntimeout = 5\nretries = 3\n",
    "baseagent/app.conf": "name = shop\ntimeout = 5\nretries = 3\n",
  },
  hints: [
    'sandboxed text_replace: {"file": "sandboxed/app.conf", "search": "timeout = 5", "replace": "timeout = 30"}',
    "BaseAgent read_file takes file_path, and shows lines as L1:, L2: …",
    "*** Begin Patch\\n*** Update File: baseagent/app.conf\\n name = shop\\n-timeout = 5\\n+timeout = 30\\n retries = 3\\n*** End Patch",
  ],
  solution: {
    files: {
      "sandboxed/app.conf": "name = shop\ntimeout = 30\nretries = 3\n",
      "baseagent/app.conf": "name = shop\ntimeout = 30\nretries = 3\n",
    },
  },
  checks: [
    {
      id: "sandboxed-fixed",
      title: "sandboxed/app.conf has timeout = 30",
      kind: "file_contains",
      path: "sandboxed/app.conf",
      text: "timeout = 30\n",
    },
    {
      id: "sandboxed-tool",
      title: "…fixed with sandboxed text_replace",
      kind: "changed_with",
      path: "sandboxed/app.conf",
      tools: ["text_replace"],
    },
    {
      id: "baseagent-fixed",
      title: "baseagent/app.conf has timeout = 30",
      kind: "file_contains",
      path: "baseagent/app.conf",
      text: "timeout = 30\n",
    },
    {
      id: "baseagent-tool",
      title: "…fixed with BaseAgent apply_patch",
      kind: "changed_with",
      path: "baseagent/app.conf",
      tools: ["apply_patch"],
    },
    {
      id: "read-sandboxed",
      title: "You read with sandboxed read_file",
      kind: "tool_used",
      tool: "read_file",
      profile: "sandboxed",
    },
    {
      id: "read-baseagent",
      title: "You read with BaseAgent read_file",
      kind: "tool_used",
      tool: "read_file",
      profile: "baseagent",
    },
  ],
};
