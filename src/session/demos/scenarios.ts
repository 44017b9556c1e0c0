import type { ScriptedReply } from "../../agent/testing/scripted-model.ts";

/**
 * Scripted agent runs: a small project, a task, and what the model says and calls at each turn.
 * scripts/make-demo-sessions.ts runs them through the real agent loop and runtime to make the
 * built-in demo sessions; the agent tests drive the same runs through scripted HTTP servers.
 */
export interface Scenario {
  id: string;
  title: string;
  description: string;
  profile: string;
  files: Record<string, string>;
  task: string;
  replies: ScriptedReply[];
}

const TALLY = `# sum: adds its arguments.
sum() {
  total=1
  for n in "$@"; do
    total=$((total + n))
  done
  echo "$total"
}

# count: how many arguments it was given.
count() {
  echo "$#"
}
`;

const TALLY_TEST = `#!/bin/sh
# The tests of src/tally.sh: one line per check, exit 1 when one fails.
. ./src/tally.sh
failed=0
check() {
  if [ "$2" = "$3" ]; then
    echo "ok - $1"
  else
    echo "not ok - $1: expected $3, got $2"
    failed=1
  fi
}
check "sum of nothing is 0" "$(sum)" 0
check "sum 2 3 is 5" "$(sum 2 3)" 5
check "count a b c is 3" "$(count a b c)" 3
exit $failed
`;

const TALLY_FIX = `--- a/src/tally.sh
+++ b/src/tally.sh
@@ -1,5 +1,5 @@
 # sum: adds its arguments.
 sum() {
-  total=1
+  total=0
   for n in "$@"; do
     total=$((total + n))
`;

/** A shell library whose test fails; the agent runs it, reads the code, patches it, runs it again. */
export const FIX_FAILING_TEST: Scenario = {
  id: "fix-failing-test",
  title: "Fix a failing test",
  description:
    "An agent runs a small project's tests, finds why two fail, fixes the bug with one patch and checks that all pass.",
  profile: "agentbench",
  files: {
    "README.md": "# tally\n\nSmall shell helpers: `sum` and `count`.\n\nRun the tests with `sh test.sh`.\n",
    "src/tally.sh": TALLY,
    "test.sh": TALLY_TEST,
  },
  task: "The tests fail. Find out why and fix it — “sum” should work for every input.",
  replies: [
    {
      text: "Let me run the tests first.",
      toolCalls: [{ name: "run", arguments: { command: "sh test.sh" } }],
    },
    {
      text: "Both `sum` checks are off by one; `count` is fine. Let me read `sum`.",
      toolCalls: [{ name: "read_file", arguments: { path: "src/tally.sh", start_line: 1, end_line: 8 } }],
    },
    {
      text: "`sum` starts its total at 1 instead of 0 — that is the extra one in both results. Fixing it:",
      toolCalls: [{ name: "apply_patch", arguments: { unified_diff: TALLY_FIX } }],
    },
    { text: "Now the tests again.", toolCalls: [{ name: "run", arguments: { command: "sh test.sh" } }] },
    {
      text: "Fixed. `sum` in src/tally.sh started counting from 1, so every sum came out one too high; it now starts from 0. All three tests pass.",
    },
  ],
};

const FETCH_README = `# fetcher

A tiny download helper for shell scripts.

It retries a failed download up to 3 times, waiting a little longer each time.

See the retry schedule with \`sh check.sh\`.
`;

const FETCH_CONFIG = `# Settings read by src/fetch.sh.
MAX_RETRIES=3
BACKOFF_SECONDS=2
`;

const FETCH = `. ./src/config.sh

# delays: the wait before each retry, one per line.
delays() {
  attempt=1
  while [ "$attempt" -lt "$MAX_RETRIES" ]; do
    echo $((attempt * BACKOFF_SECONDS))
    attempt=$((attempt + 1))
  done
}
`;

const FETCH_CHECK = `#!/bin/sh
# Prints the retry schedule, so a person can see it at a glance.
. ./src/fetch.sh
echo "attempts: $MAX_RETRIES"
echo "waits: $(delays | tr '\\n' ' ')"
`;

const FETCH_CHANGE = `*** Begin Patch
*** Update File: src/config.sh
@@
 # Settings read by src/fetch.sh.
-MAX_RETRIES=3
+MAX_RETRIES=5
 BACKOFF_SECONDS=2
*** Update File: README.md
@@
 A tiny download helper for shell scripts.
 
-It retries a failed download up to 3 times, waiting a little longer each time.
+It retries a failed download up to 5 times, waiting a little longer each time.
 
 See the retry schedule with \`sh check.sh\`.
*** End Patch
`;

const plan = (find: string, change: string, check: string) => ({
  steps: [
    { description: "Find where retries are set", status: find },
    { description: "Change the code and README", status: change },
    { description: "Check the retry schedule", status: check },
  ],
});

/**
 * Finding where a setting lives and changing it everywhere it is stated, in another dialect
 * (BaseAgent): a plan, a tree listing, a regex search, two reads at once, one envelope patch, a command.
 */
export const CHANGE_A_SETTING: Scenario = {
  id: "change-a-setting",
  title: "Change a setting everywhere",
  description:
    "With BaseAgent's tools, an agent plans, finds where a download helper sets its number of retries, changes it in the code and the README with one patch, and checks the schedule.",
  profile: "baseagent",
  files: {
    "README.md": FETCH_README,
    "src/config.sh": FETCH_CONFIG,
    "src/fetch.sh": FETCH,
    "check.sh": FETCH_CHECK,
  },
  task: "Downloads give up too soon. Make them try 5 times instead of 3, and keep the README in step.",
  replies: [
    {
      text: "Here is my plan.",
      toolCalls: [{ name: "update_plan", arguments: plan("in_progress", "pending", "pending") }],
    },
    {
      text: "Let me see what the project holds.",
      toolCalls: [{ name: "list_dir", arguments: { dir_path: "." } }],
    },
    {
      text: "Now where the number of retries is set:",
      toolCalls: [{ name: "grep_files", arguments: { pattern: "MAX_RETRIES=[0-9]+" } }],
    },
    {
      text: "Only src/config.sh sets it. Let me read how fetch.sh uses it, and what the README promises:",
      toolCalls: [
        { name: "read_file", arguments: { file_path: "src/fetch.sh" } },
        { name: "read_file", arguments: { file_path: "README.md" } },
      ],
    },
    {
      text: "`delays` loops up to MAX_RETRIES, so the one setting is enough; the README says 3 on line 5. Changing both together:",
      toolCalls: [
        { name: "update_plan", arguments: plan("completed", "in_progress", "pending") },
        { name: "apply_patch", arguments: { patch: FETCH_CHANGE } },
      ],
    },
    {
      text: "Checking the new schedule:",
      toolCalls: [
        { name: "update_plan", arguments: plan("completed", "completed", "in_progress") },
        { name: "shell_command", arguments: { command: "sh check.sh" } },
      ],
    },
    {
      text: "Five attempts, waits of 2, 4, 6 and 8 seconds.",
      toolCalls: [{ name: "update_plan", arguments: plan("completed", "completed", "completed") }],
    },
    {
      text: "Done. MAX_RETRIES in src/config.sh is now 5 (fetch.sh reads it, so the waits grow to 2, 4, 6 and 8 seconds), and the README says 5 as well.",
    },
  ],
};

export const SCENARIOS: readonly Scenario[] = [FIX_FAILING_TEST, CHANGE_A_SETTING];
