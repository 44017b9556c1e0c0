/** A small Python project with one failing unittest. */
export const PYTHON_STARTER: Record<string, string> = {
  "README.md": `# starter-python

A tiny module with one failing test.

- \`parity.py\` tells even numbers from odd ones (or should).
- \`test_parity.py\` checks it with \`unittest\`.

Run \`python3 -m unittest\` to see the failure, then fix \`parity.py\`.
`,
  "parity.py": `def is_even(number: int) -> bool:
    """True when number is even."""
    return number % 2 == 1
`,
  "test_parity.py": `import unittest

from parity import is_even


class IsEvenTest(unittest.TestCase):
    def test_even(self):
        self.assertTrue(is_even(4))

    def test_odd(self):
        self.assertFalse(is_even(7))


if __name__ == "__main__":
    unittest.main()
`,
};
