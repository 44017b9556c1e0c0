import type { Lesson } from "../lesson.ts";

const SLUGIFY = `import re


def slugify(title: str) -> str:
    """A URL slug: lower case, words joined by single hyphens, nothing else."""
    words = re.findall(r"[a-z0-9]+", title)
    return "-".join(words)
`;

const TEST_SLUGIFY = `import unittest

from slugs import slugify


class SlugifyTest(unittest.TestCase):
    def test_lower_case_words(self):
        self.assertEqual(slugify("hello world"), "hello-world")

    def test_capitals_are_kept_as_lower_case(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_numbers_stay(self):
        self.assertEqual(slugify("Top 10 Tips"), "top-10-tips")
`;

/** The lesson's one-patch fix (its solution, and what its tests apply). */
export const SLUGIFY_FIX = `--- a/slugs.py
+++ b/slugs.py
@@ -4,5 +4,5 @@
 def slugify(title: str) -> str:
     """A URL slug: lower case, words joined by single hyphens, nothing else."""
-    words = re.findall(r"[a-z0-9]+", title)
+    words = re.findall(r"[a-z0-9]+", title.lower())
     return "-".join(words)
`;

/**
 * Lesson (coding-agent, Python): make the failing test pass with one patch, on the embedded
 * CPython. The tests are unittest's, so they run offline; pytest runs them too where it is installed.
 */
export const pythonOnePatch: Lesson = {
  format: "toolroom-lesson",
  version: 1,
  id: "python-one-patch",
  title: "Make the failing Python test pass with one patch",
  instructions: `# Make the failing Python test pass with one patch

A tiny Python module turns titles into URL slugs, and some of its tests fail. The workspace runs
real Python (CPython compiled to WebAssembly) in the browser. With the **Coding Agent** tools:

1. \`run_tests\` — it finds the tests (pytest if it is installed, else \`python3 -m unittest\`). Read
   \`failures\`: each test's name, \`file\`, \`line\` and \`reason\`.
2. \`file_read\` \`slugs.py\` and find why capitals are lost.
3. Fix it with **one** \`file_patch\` (a unified diff). Think before you patch: a second patch does not count.
4. \`run_tests\` again until \`passed\` is true. The tests are read-only.`,
  profiles: [
    {
      profile: "coding-agent",
      tools: ["run_tests", "file_read", "file_patch", "file_list", "grep"],
    },
  ],
  files: { "slugs.py": SLUGIFY, "test_slugs.py": TEST_SLUGIFY },
  hints: [
    'Two tests fail: titles with capital letters lose those letters ("Hello, World!" gives "ello-orld").',
    're.findall(r"[a-z0-9]+", title) only matches lower-case letters: make the title lower case first.',
    `file_patch {"diff_text": ${JSON.stringify(SLUGIFY_FIX)}}`,
  ],
  solution: { files: { "slugs.py": SLUGIFY.replace("title)", "title.lower())") } },
  controls: { readOnlyPaths: ["test_slugs.py"] },
  checks: [
    {
      id: "ran-twice",
      title: "You ran the tests before and after the fix",
      kind: "tool_used",
      tool: "run_tests",
      status: "success",
      min: 2,
    },
    {
      id: "passing",
      title: "The tests pass",
      kind: "command_succeeds",
      command: "python3 -m unittest",
    },
    {
      id: "one-patch",
      title: "One file_patch did it",
      kind: "tool_used",
      tool: "file_patch",
      status: "success",
      min: 1,
      max: 1,
    },
    {
      id: "fixed-code",
      title: "The fix is in slugs.py",
      kind: "changed_with",
      path: "slugs.py",
      tools: ["file_patch"],
    },
    {
      id: "tests-untouched",
      title: "The tests are untouched",
      kind: "file_unchanged",
      path: "test_slugs.py",
    },
  ],
};
