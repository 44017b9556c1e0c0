import type { Lesson } from "../lesson.ts";

/** Lesson 4 (toolrouter): one long-running shell session whose state carries from call to call. */
export const ptySession: Lesson = {
  format: "toolroom-lesson",
  version: 1,
  id: "pty-session",
  title: "A PTY session",
  instructions: `# A PTY session

\`exec_command\` starts a long-running command — here a shell — under a session id you choose;
\`write_stdin\` types into it. Unlike one-shot commands, the session **keeps its state**: the folder
you \`cd\` into and the variables you set are still there at the next call.

Using only these two tools:

1. Start a shell: \`exec_command\` with \`{"session_id": "s1", "cmd": "bash"}\`.
2. Move into \`logs/\` in one call.
3. In later calls, find the log file that contains \`ERROR\` (\`grep -l ERROR *.log\`), and write its
   name into \`answer.txt\` at the top of the workspace — from inside \`logs/\`, so \`../answer.txt\`.

Each \`write_stdin\` returns what the session printed since your last call.`,
  profiles: [{ profile: "toolrouter", tools: ["exec_command", "write_stdin"] }],
  files: {
    "logs/a.log": "INFO started\nINFO ready\n",
    "logs/b.log": "INFO started\nERROR disk full\nINFO retrying\n",
    "logs/c.log": "WARN slow response\n",
  },
  hints: [
    'write_stdin {"session_id": "s1", "chars": "cd logs\\n"} — remember the newline, as if you pressed Enter.',
    'write_stdin {"session_id": "s1", "chars": "grep -l ERROR *.log\\n"} shows which file it is.',
    'write_stdin {"session_id": "s1", "chars": "grep -l ERROR *.log > ../answer.txt\\n"}',
  ],
  solution: { files: { "answer.txt": "b.log\n" } },
  controls: { allowedCommands: ["bash", "cd", "ls", "pwd", "cat", "grep", "echo"] },

  checks: [
    {
      id: "started",
      title: "You started one session",
      kind: "tool_used",
      tool: "exec_command",
      status: "success",
      max: 1,
    },
    {
      id: "typed",
      title: "You typed into it more than once",
      kind: "tool_used",
      tool: "write_stdin",
      status: "success",
      min: 2,
    },
    {
      id: "answer",
      title: "answer.txt names the log with the error",
      kind: "file_matches",
      path: "answer.txt",
      pattern: "^b\\.log\\s*$",
    },
    {
      id: "from-session",
      title: "answer.txt was written from the session",
      kind: "changed_with",
      path: "answer.txt",
      tools: ["write_stdin"],
    },
  ],
};
