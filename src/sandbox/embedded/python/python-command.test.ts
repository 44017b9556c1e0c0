import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedSandbox } from "../../../host/create-runtime.ts";
import { registerNodeAssets } from "../../../host/node-assets.ts";
import { debianPytest } from "../../../test-support/python-packages.ts";
import type { EmbeddedSandbox } from "../embedded-sandbox.ts";
import { EMBEDDED_PYTHON_VERSION, pythonRunner } from "./index.ts";

let sandbox: EmbeddedSandbox;
const run = (command: string, options: { timeoutMs?: number; stdin?: string; signal?: AbortSignal } = {}) =>
  sandbox.exec(command, { timeoutMs: 60_000, ...options });
const text = async (path: string) => new TextDecoder().decode(await sandbox.readFile(path));

beforeAll(async () => {
  registerNodeAssets();
  sandbox = await createEmbeddedSandbox();
  // The first run starts the worker and compiles CPython.
  await run("python3 -c pass");
}, 120_000);

afterAll(() => pythonRunner()?.dispose());

// Each run starts an interpreter; a loaded machine makes a pytest run take many seconds.
describe("python3 in the embedded sandbox", { timeout: 120_000 }, () => {
  it("runs -c and prints to stdout", async () => {
    expect(await run("python3 -c 'print(1+2)'")).toMatchObject({ exitCode: 0, stdout: "3\n", stderr: "" });
    expect((await run("python --version")).stdout).toBe(`Python ${EMBEDDED_PYTHON_VERSION}\n`);
  });

  it("runs a script with its arguments in the shell's folder, with stdin and the shell's environment", async () => {
    await sandbox.mkdir("/workspace/pkg", { recursive: true });
    await sandbox.writeFile(
      "/workspace/pkg/show.py",
      "import os, sys\nprint(sys.argv, os.getcwd(), os.environ['GREETING'])\nprint(sys.stdin.read().upper(), end='')\n",
    );
    const result = await run("cd pkg && GREETING=hello python3 show.py one 'two words'", {
      stdin: "héllo\n",
    });
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: "['show.py', 'one', 'two words'] /workspace/pkg hello\nHÉLLO\n",
    });
  });

  it("shares the workspace: a script's writes, folders and deletions are seen by the next command", async () => {
    await sandbox.writeFile("/workspace/old.txt", "old");
    const script = [
      "import os, pathlib",
      "pathlib.Path('made/deep').mkdir(parents=True)",
      "pathlib.Path('made/deep/data.bin').write_bytes(bytes(range(256)))",
      "open('notes.txt', 'w', encoding='utf-8').write('ünïcode\\n')",
      "os.remove('old.txt')",
      "os.chmod('notes.txt', 0o600)",
      "print(sorted(os.listdir('.')))",
    ].join("\n");
    await sandbox.writeFile("/workspace/write.py", script);
    const result = await run("python3 write.py && cat notes.txt && ls made/deep");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("'made'");
    expect(result.stdout).toContain("ünïcode\ndata.bin\n");
    expect(await text("/workspace/notes.txt")).toBe("ünïcode\n");
    expect([...(await sandbox.readFile("/workspace/made/deep/data.bin"))]).toEqual([...Array(256).keys()]);
    expect((await sandbox.stat("/workspace/notes.txt")).mode).toBe(0o600);
    await expect(sandbox.stat("/workspace/old.txt")).rejects.toMatchObject({ code: "ENOENT" });
    // Bytecode goes outside the workspace.
    expect((await run("find . -name __pycache__")).stdout).toBe("");
  });

  it("imports the workspace's own modules and sees a file changed since the last run", async () => {
    await sandbox.writeFile("/workspace/calc.py", "def add(a, b):\n    return a - b\n");
    expect((await run("python3 -c 'import calc; print(calc.add(2, 3))'")).stdout).toBe("-1\n");
    // Same size, same second: a stale bytecode cache would still say -1.
    await sandbox.writeFile("/workspace/calc.py", "def add(a, b):\n    return a + b\n");
    expect((await run("python3 -c 'import calc; print(calc.add(2, 3))'")).stdout).toBe("5\n");
  });

  it("reports a syntax error, an exception and sys.exit's code as CPython does", async () => {
    const syntax = await run("python3 -c 'x = ('");
    expect(syntax.exitCode).toBe(1);
    expect(syntax.stderr).toContain("SyntaxError: '(' was never closed");
    const raised = await run("python3 -c '1/0'");
    expect(raised.exitCode).toBe(1);
    expect(raised.stderr).toMatch(
      /Traceback \(most recent call last\):[\s\S]*ZeroDivisionError: division by zero\n$/u,
    );
    expect(raised.stderr).not.toContain("\u001b[");
    expect(await run("python3 -c 'import sys; print(\"bye\"); sys.exit(3)'")).toMatchObject({
      exitCode: 3,
      stdout: "bye\n",
    });
    expect((await run("python3 -c 'import sys; sys.exit(\"fatal: no input\")'")).stderr).toBe(
      "fatal: no input\n",
    );
    expect((await run("python3 missing.py")).stderr).toContain("can't open file '/workspace/missing.py'");
  });

  it("stops an endless loop at the shell's deadline with 124, keeps what it printed, and works afterwards", async () => {
    const result = await run("python3 -c 'print(\"started\", flush=True)\ni = 0\nwhile True: i += 1'", {
      timeoutMs: 10_000,
    });
    expect(result.exitCode).toBe(124);
    expect(result.stdout).toBe("started\n");
    expect(result.stderr).toContain("KeyboardInterrupt");
    expect(result.stderr).toContain("python3: stopped after");
    expect(await run("python3 -c 'print(\"still here\")'")).toMatchObject({
      exitCode: 0,
      stdout: "still here\n",
    });
  });

  it("terminates a program that swallows its KeyboardInterrupt (or never checks for one), keeping its output; the next run gets a fresh worker", async () => {
    const stubborn =
      "print('stubborn', flush=True)\nwhile True:\n    try:\n        while True: pass\n    except KeyboardInterrupt:\n        pass";
    await sandbox.writeFile("/workspace/stubborn.py", stubborn);
    const result = await run("python3 stubborn.py", { timeoutMs: 10_000 });
    expect(result.exitCode).toBe(124);
    expect(result.stdout).toBe("stubborn\n");
    expect(result.stderr).toContain("so it was terminated");
    expect(await run("python3 -c 'print(7*6)'")).toMatchObject({ exitCode: 0, stdout: "42\n" });
  });

  it("stops on cancel (Ctrl-C) with KeyboardInterrupt and exit code 130", async () => {
    // The runner directly: the shell words any cancelled command its own way (issue 16's part).
    const controller = new AbortController();
    let stderr = "";
    const pending = pythonRunner()!.run(
      {
        args: ["-c", "print('looping', flush=True)\ni = 0\nwhile True: i += 1"],
        cwd: "/",
        env: {},
        stdin: new Uint8Array(),
        tree: [],
        sitePaths: [],
        deadline: Date.now() + 60_000,
        memoryLimitBytes: 64 * 1024 * 1024,
      },
      {
        output: (fd, data) => {
          if (fd === 2) stderr += new TextDecoder().decode(data);
          else controller.abort();
        },
        signal: controller.signal,
      },
    );
    const outcome = await pending;
    expect(outcome).toMatchObject({ exitCode: 130, stopped: "interrupt" });
    expect(outcome.killed).toBeUndefined();
    expect(stderr).toMatch(/KeyboardInterrupt\n$/u);
    expect(await run("python3 -c 'print(1)'")).toMatchObject({ exitCode: 0, stdout: "1\n" });
  });

  it("raises MemoryError at the heap cap and says so; the sandbox keeps working", async () => {
    const result = await run("python3 -c 'l = []\nwhile True: l.append(bytearray(10**7))'");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("MemoryError");
    expect(result.stderr).toContain("heap is capped at 256 MB");
    const caught = await run(
      "python3 -c 'try:\n    x = bytearray(10**9)\nexcept MemoryError:\n    print(\"caught\")'",
    );
    expect(caught).toMatchObject({ exitCode: 0, stdout: "caught\n" });
  });

  it("has no network", async () => {
    const result = await run(
      'python3 -c \'import urllib.request\ntry:\n    urllib.request.urlopen("http://127.0.0.1:9/", timeout=2)\nexcept OSError as e:\n    print("no network", type(e).__name__)\'',
    );
    expect(result.stdout).toMatch(/^no network /u);
  });

  it("runs unittest offline and reports as CPython's unittest does", async () => {
    await sandbox.writeFile(
      "/workspace/test_math.py",
      "import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(1 + 1, 2)\n\n    def test_bad(self):\n        self.assertEqual(1 + 1, 3)\n",
    );
    const result = await run("python3 -m unittest test_math");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("FAIL: test_bad (test_math.T.test_bad)");
    expect(result.stderr).toContain("AssertionError: 2 != 3");
    expect(result.stderr).toMatch(/Ran 2 tests in [\d.]+s\n\nFAILED \(failures=1\)\n$/u);
  });
});

describe("what a python3 run is given", { timeout: 120_000 }, () => {
  it("is not given node_modules: JavaScript dependencies are not copied into every run", async () => {
    await sandbox.mkdir("/workspace/web/node_modules/dep", { recursive: true });
    await sandbox.writeFile("/workspace/web/node_modules/dep/index.js", "module.exports = 1;\n");
    await sandbox.writeFile("/workspace/web/app.js", "require('dep');\n");
    const result = await run(
      "cd web && python3 -c \"import os; print(sorted(os.listdir('.'))); open('made.txt','w').write('x')\"",
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: "['app.js']\n" });
    // The run's own changes come back, and node_modules is untouched.
    expect(await text("/workspace/web/made.txt")).toBe("x");
    expect(await text("/workspace/web/node_modules/dep/index.js")).toBe("module.exports = 1;\n");
  });
});

describe("python3 against the real CPython", { timeout: 120_000 }, () => {
  const programs = [
    "import json; print(json.dumps({'b': [1, 2.5, None], 'a': 'é'}, sort_keys=True, indent=1))",
    "print(sorted({3, 1, 2}), f'{3.14159:.2f}', 'x'.center(9, '*'), divmod(-7, 2), 2**100)",
    "import re; print(re.findall(r'(\\w+)=(\\d+)', 'a=1 b=22 c=x'))",
    "import collections; print(collections.Counter('mississippi').most_common(2))",
    "import textwrap; print(textwrap.fill('the quick brown fox jumps over the lazy dog ' * 3, 30))",
  ];
  for (const program of programs) {
    it(`prints what python3 prints: ${program.slice(0, 50)}`, async () => {
      const native = execFileSync("/usr/bin/python3", ["-c", program], { encoding: "utf8" });
      await sandbox.writeFile("/workspace/program.py", program);
      expect((await run("python3 program.py")).stdout).toBe(native);
    });
  }
});

describe("pytest in the embedded sandbox", { timeout: 180_000 }, () => {
  const TESTS = {
    "/workspace/proj/calc.py": "def add(a, b):\n    return a - b\n",
    "/workspace/proj/test_calc.py":
      "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
  };

  beforeAll(async () => {
    await sandbox.mkdir("/workspace/proj", { recursive: true });
    for (const [path, content] of Object.entries(TESTS)) await sandbox.writeFile(path, content);
  });

  it("says how to get pytest when it is not installed", async () => {
    pythonRunner()!.setPackages([]);
    const result = await run("cd proj && pytest");
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain("pytest is not installed in the embedded Python");
  });

  it("runs pytest from the host's packages (Debian's python3-pytest) with its real report", async () => {
    pythonRunner()!.setPackages(await debianPytest());
    const result = await run("cd proj && pytest");
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("platform emscripten -- Python 3.13.2, pytest-7.2.1");
    expect(result.stdout).toContain("test_calc.py:4: AssertionError");
    expect(result.stdout).toMatch(/FAILED test_calc\.py::test_add - assert -1 == 5\n/u);
    expect(result.stdout).toMatch(/=+ 1 failed, 1 passed(?:, \d+ warnings)? in [\d.]+s =+\n$/u);
    expect((await run("cd proj && python3 -m pytest -q test_calc.py::test_zero")).exitCode).toBe(0);
    // pytest's caches stay out of the workspace's way as they would in .gitignore'd folders.
    expect((await run("find proj -name __pycache__")).stdout).toBe("");
  });

  it("runs pytest vendored in the workspace's .venv", async () => {
    pythonRunner()!.setPackages([]);
    for (const file of await debianPytest()) {
      const path = `/workspace/.venv/lib/python3.13/site-packages/${file.path}`;
      await sandbox.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await sandbox.writeFile(path, file.data);
    }
    const result = await run("cd proj && pytest -q");
    expect(result.stdout).toMatch(/1 failed, 1 passed(?:, \d+ warnings)? in [\d.]+s\n$/u);
    await sandbox.rm("/workspace/.venv", { recursive: true });
  });
});
