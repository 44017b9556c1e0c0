import type { ScriptedReply } from "../../agent/testing/scripted-model.ts";
import { PYTHON_STARTER } from "../../ui/starters/python.ts";

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
  /** The project, inline; or see `fixture`. */
  files?: Record<string, string>;
  /** A folder of this repository holding the project (read by Node-side callers: tests, the generator). */
  fixture?: string;
  task: string;
  replies: ScriptedReply[];
}

const CART_FIX = `--- a/src/cart.js
+++ b/src/cart.js
@@ -13,6 +13,5 @@
   /** Total in cents. */
   total() {
-    // Bug: the quantity is ignored.
-    return this.items.reduce((sum, item) => sum + item.priceCents, 0);
+    return this.items.reduce((sum, item) => sum + item.priceCents * item.quantity, 0);
   }
 
`;

/**
 * The Node starter project (its test fails): the agent runs npm test on the embedded node, reads the
 * code, patches it and runs the tests again.
 */
export const FIX_FAILING_TEST: Scenario = {
  id: "fix-failing-test",
  title: "Fix a failing test",
  description:
    "An agent runs a small Node project's tests, finds why one fails, fixes the bug with one patch and checks that all pass.",
  profile: "agentbench",
  fixture: "src/sandbox/embedded/node/fixtures/starter-node",
  task: "npm test fails. Find out why and fix the code (not the test).",
  replies: [
    { text: "Let me run the tests first.", toolCalls: [{ name: "run", arguments: { command: "npm test" } }] },
    {
      text: "One test fails: the cart's total is 125 where 225 is expected, so the 3 apples count as one. Let me read the cart.",
      toolCalls: [{ name: "read_file", arguments: { path: "src/cart.js" } }],
    },
    {
      text: "`total()` adds each item's unit price but never multiplies it by the quantity. Fixing it:",
      toolCalls: [{ name: "apply_patch", arguments: { unified_diff: CART_FIX } }],
    },
    { text: "Now the tests again.", toolCalls: [{ name: "run", arguments: { command: "npm test" } }] },
    {
      text: "Fixed. `Cart.total()` in src/cart.js ignored each item's quantity; it now adds price × quantity, and all 5 tests pass.",
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

/** The one-line fix of the Python starter: is_even() tested for odd numbers. */
export const PARITY_FIX = `--- a/parity.py
+++ b/parity.py
@@ -1,3 +1,3 @@
 def is_even(number: int) -> bool:
     """True when number is even."""
-    return number % 2 == 1
+    return number % 2 == 0
`;

/**
 * An agent fixes the Python starter with coding-agent's tools: run_tests (with `runTests` as its
 * params: auto-detected, or a given command), read, one patch, run_tests again.
 */
export function fixPythonTestReplies(runTests: Record<string, unknown> = {}): ScriptedReply[] {
  return [
    { text: "Let me run the tests first.", toolCalls: [{ name: "run_tests", arguments: runTests }] },
    {
      text: "Both tests fail: is_even(4) is False and is_even(7) is True, so the parity is inverted. Let me read parity.py.",
      toolCalls: [{ name: "file_read", arguments: { path: "parity.py" } }],
    },
    {
      text: "`is_even` returns `number % 2 == 1`, which is true for odd numbers. Fixing it with one patch:",
      toolCalls: [{ name: "file_patch", arguments: { diff_text: PARITY_FIX } }],
    },
    { text: "Now the tests again.", toolCalls: [{ name: "run_tests", arguments: runTests }] },
    {
      text: "Fixed. `is_even()` in parity.py compared the remainder with 1; it now compares it with 0, and both tests pass.",
    },
  ];
}

/**
 * The Python starter (its unittest fails), on the embedded CPython: the demo names the runner
 * (`python3 -m unittest`), so it replays the same in a browser whatever Python packages it has.
 */
export const FIX_PYTHON_TEST: Scenario = {
  id: "fix-python-test",
  title: "Fix a failing Python test",
  description:
    "With Coding Agent Tools, an agent runs a small Python project's tests on the in-browser CPython, finds the inverted parity check, fixes it with one patch and runs the tests green.",
  profile: "coding-agent",
  files: PYTHON_STARTER,
  task: "The tests fail. Find out why and fix the code (not the tests).",
  replies: fixPythonTestReplies({ command: "python3 -m unittest" }),
};

export const SCENARIOS: readonly Scenario[] = [FIX_FAILING_TEST, CHANGE_A_SETTING, FIX_PYTHON_TEST];
