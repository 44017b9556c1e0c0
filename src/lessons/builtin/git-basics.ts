import type { Lesson } from "../lesson.ts";

/** Lesson 5 (coding-agent): look before you commit — git_status, git_diff, then commit only what belongs. */
export const gitBasics: Lesson = {
  format: "toolroom-lesson",
  version: 1,
  id: "git-basics",
  title: "git status, diff and commit",
  instructions: `# git status, diff and commit

The workspace is a git repository. Someone bumped the version and also left a scratch file behind.

1. \`git_status\`: what is staged, unstaged, untracked?
2. \`git_diff\`: what exactly changed in the tracked files?
3. \`git_commit\` **only** \`src/version.js\`, with a message that says which version it is.
   \`git_commit\` needs \`confirmed: true\` — agents must not commit by accident.

Leave \`notes.txt\` untracked.`,
  profiles: [{ profile: "coding-agent", tools: ["git_status", "git_diff", "git_commit", "file_read"] }],
  files: {
    "src/version.js": 'export const VERSION = "1.0.0";\n',
    "README.md": "# Widget\n",
  },
  repository: {
    message: "Widget 1.0.0",
    uncommitted: {
      "src/version.js": 'export const VERSION = "1.1.0";\n',
      "notes.txt": "todo: ask about the release date\n",
    },
  },
  hints: [
    "git_status lists src/version.js as unstaged and notes.txt as untracked.",
    "git_diff with no arguments shows the working tree against the index.",
    'git_commit {"message": "Release 1.1.0", "confirmed": true, "paths": ["src/version.js"]}',
  ],
  solution: {
    files: { "src/version.js": 'export const VERSION = "1.1.0";\n' },
    explanation: 'Committed with paths: ["src/version.js"].',
  },
  checks: [
    {
      id: "looked",
      title: "You looked at the status",
      kind: "tool_used",
      tool: "git_status",
      status: "success",
    },
    {
      id: "diffed",
      title: "You read the diff before committing",
      kind: "tool_used",
      tool: "git_diff",
      status: "success",
    },
    {
      id: "committed",
      title: "You committed, with confirmation",
      kind: "tool_used",
      tool: "git_commit",
      status: "success",
      max: 1,
    },
    {
      id: "message",
      title: "The commit message names the version",
      kind: "command_succeeds",
      command: "git log --oneline -1",
      stdoutContains: "1.1.0",
    },
    {
      id: "only-version",
      title: "Only the version was committed; notes.txt stays untracked",
      kind: "command_succeeds",
      command: "git status --porcelain",
      stdoutEquals: "?? notes.txt\n",
    },
  ],
};
