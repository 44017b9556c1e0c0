import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRg } from "./rg.ts";

const REAL = existsSync("/usr/bin/rg") ? "/usr/bin/rg" : null;

/** A project with a .gitignore, hidden files, a binary, several matches per line and context. */
const FILES: Record<string, string> = {
  ".git/HEAD": "ref: refs/heads/main\n",
  ".git/info/exclude": "excluded.md\n",
  "excluded.md": "foo excluded\n",
  ".gitignore": "ignored.txt\nbuild/\n*.log\n",
  "ignored.txt": "foo in an ignored file\n",
  "build/out.js": "foo built\n",
  "debug.log": "foo logged\n",
  ".hidden.txt": "foo hidden\n",
  ".config/settings.json": '{"foo": 1}\n',
  "bin.dat": "foo\u0000binary foo\n",
  "src/main.ts":
    "import foo from './foo';\nconst x = foo(foo);\n// FOO upper\nfunction bar() {}\nbar();\n\nreturn foobar;\n",
  "src/util/helper.ts": "one\ntwo\nthree foo\nfour\nfive\nsix\nseven foo\neight\n",
  "src/.ignore": "secret.ts\n",
  "src/secret.ts": "foo secret\n",
  "src/x.log": "foo log in src\n",
  "src/.gitignore": "!keep.log\n/local.txt\n",
  "src/keep.log": "foo keep\n",
  "src/local.txt": "foo local\n",
  "src/util/local.txt": "foo util local\n",
  "notes.md": "Foo Bar\nfoo bar\nfoo.bar\nfooXbar\nx+y=z\naaa\n",
  "café.txt": "café Café CAFÉ\n",
};

async function runOurs(args: string[], stdin: string) {
  const { createCommandContext, InMemoryFs, unsafeBytesFromLatin1 } = await import("just-bash");
  const fs = new InMemoryFs();
  for (const [name, text] of Object.entries(FILES)) {
    await fs.mkdir(dirname(`/work/p/${name}`), { recursive: true });
    await fs.writeFile(`/work/p/${name}`, text);
  }
  const latin1 = String.fromCharCode(...new TextEncoder().encode(stdin));
  const ctx = createCommandContext({ fs, cwd: "/work/p", stdin: unsafeBytesFromLatin1(latin1) });
  const result = await runRg(args, ctx as never);
  return { stdout: result.stdout, stderr: result.stderr, status: result.exitCode };
}

function runReal(args: string[], stdin: string | null) {
  const folder = mkdtempSync(join(tmpdir(), "toolroom-rg-"));
  try {
    for (const [name, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(folder, name)), { recursive: true });
      writeFileSync(join(folder, name), text);
    }
    // --sort path: ripgrep's own order is its threads'; ours is always path order.
    const result = spawnSync(REAL!, ["--sort", "path", ...args], {
      cwd: folder,
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin", LC_ALL: "C.UTF-8", HOME: folder },
      // No stdin at all (not an empty pipe), so rg walks the folder as an agent's rg does.
      stdio: [stdin === null ? "ignore" : "pipe", "pipe", "pipe"],
      ...(stdin === null ? {} : { input: stdin }),
      timeout: 10_000,
    });
    return { stdout: result.stdout ?? "", stderr: result.stderr ?? "", status: result.status ?? -1 };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const CASES: { args: string[]; stdin?: string }[] = [
  { args: ["foo"] },
  { args: ["foo", "."] },
  { args: ["foo", "src"] },
  { args: ["foo", "src/"] },
  { args: ["foo", "src/main.ts"] },
  { args: ["foo", "src/main.ts", "notes.md"] },
  { args: ["-n", "foo"] },
  { args: ["-N", "foo", "src"] },
  { args: ["-H", "foo", "src/main.ts"] },
  { args: ["-i", "foo", "src"] },
  { args: ["-S", "foo", "notes.md"] },
  { args: ["-S", "Foo", "notes.md"] },
  { args: ["-S", "-o", "\\p{Ll}+", "notes.md"] },
  { args: ["-S", "-o", "[[:lower:]]oo", "notes.md"] },
  { args: ["-S", "[A-Z]oo", "notes.md"] },
  { args: ["-S", "[a-z]OO", "src"] },
  { args: ["-S", "foo\\.bar", "notes.md"] },
  { args: ["-S", "\\Wbar", "notes.md"] },
  { args: ["-S", "-F", "Foo", "notes.md"] },
  { args: ["-S", "-F", "foo", "notes.md"] },
  { args: ["-S", "(?P<x>foo)x", "notes.md"] },
  { args: ["-S", "-e", "foo", "-e", "Bar", "notes.md"] },
  { args: ["-S", "café", "café.txt"] },
  { args: ["-S", "-o", "\\w+", "café.txt"] },
  { args: ["-s", "FOO"] },
  { args: ["-w", "foo"] },
  { args: ["-x", "foo bar", "notes.md"] },
  { args: ["-F", "foo.bar", "notes.md"] },
  { args: ["foo.bar", "notes.md"] },
  { args: ["-F", "x+y"] },
  { args: ["-v", "foo", "src/util/helper.ts"] },
  { args: ["-vn", "o", "src"] },
  { args: ["-l", "foo"] },
  { args: ["-c", "foo"] },
  { args: ["-c", "foo", "src/main.ts"] },
  { args: ["--files"] },
  { args: ["--files", "src"] },
  { args: ["--files", "--hidden"] },
  { args: ["-g", "*.ts", "foo"] },
  { args: ["-g", "!*.ts", "foo"] },
  { args: ["--glob=*.md", "-l", "o"] },
  { args: ["-g", "*.txt", "foo"] },
  { args: ["-g", "*.ts", "-g", "!secret.ts", "foo"] },
  { args: ["-g", "src/**", "-l", "foo"] },
  { args: ["-g", "!src", "-l", "foo"] },
  { args: ["--hidden", "foo"] },
  { args: ["-u", "foo"] },
  { args: ["-uu", "-l", "foo"] },
  { args: ["-A", "1", "foo", "src"] },
  { args: ["-B2", "foo", "src/util/helper.ts"] },
  { args: ["-C", "1", "-n", "foo", "src"] },
  { args: ["-C1", "foo"] },
  { args: ["-o", "foo", "src"] },
  { args: ["-on", "fo+", "src/main.ts"] },
  { args: ["-o", "[a-z]+é", "café.txt"] },
  { args: ["-i", "café", "café.txt"] },
  { args: ["-e", "bar", "-e", "seven", "src"] },
  { args: ["-m", "1", "foo", "src"] },
  { args: ["-m1", "-c", "foo"] },
  { args: ["-q", "foo"] },
  { args: ["-q", "nothing-here"] },
  { args: ["nothing-here"] },
  { args: ["foo", "missing.txt"] },
  { args: ["foo", "missing.txt", "src/main.ts"] },
  { args: ["--no-heading", "foo", "src"] },
  { args: ["--heading", "foo", "src"] },
  { args: ["\\bfoo\\b", "src"] },
  { args: ["(?i)foo(?-i)BAR", "notes.md"] },
  { args: ["\\pL+\\d", "notes.md"] },
  { args: ["[[:digit:]]", "."] },
  { args: ["^$", "src/main.ts", "-n"] },
  { args: ["("] },
  { args: ["a{2,1}"] },
  { args: ["a\\nb"] },
  { args: ["-F", "a\nb"] },
  { args: ["foo"], stdin: "a foo\nb\nfoo c\n" },
  { args: ["-n", "foo"], stdin: "a foo\nb\nfoo c" },
  { args: ["-c", "x"], stdin: "x\nxx\ny\n" },
  { args: ["-o", "o"], stdin: "foo boo\n" },
  { args: ["-C1", "x"], stdin: "a\nx\nb\nc\nd\nx\n" },
  { args: ["foo", "-"], stdin: "foo\n" },
  { args: ["-A", "1", "-m", "1", "foo", "src/util/helper.ts"] },
  { args: ["-n", "-C", "2", "o", "src/util/helper.ts"] },
  { args: ["-c", "-v", "foo", "src"] },
  { args: ["-l", "-v", "foo"] },
  { args: ["-iw", "café", "café.txt"] },
  { args: ["-m", "1", "-A", "5", "foo", "src/util/helper.ts"] },
  { args: ["-co", "foo", "src/main.ts"] },
  { args: ["-lc", "foo"] },
  { args: ["--no-filename", "foo", "src"] },
  { args: ["-l", "foo", "src/util"] },
  { args: ["-l", "foo", "src/"] },
  { args: ["--files", "src/util"] },
  { args: ["-l", "--no-ignore", "foo", "src"] },
  { args: ["-g", "util/*", "-l", "foo", "src"] },
  { args: ["-g", "src/util/*", "-l", "foo", "src"] },
  { args: ["-g", "*.md", "foo", "src/main.ts"] },
  { args: ["-g", "!util", "-l", "foo", "src"] },
  { args: ["foo", "./src"] },
  { args: ["-x", "foo"], stdin: "foo\r\nfoo\n" },
  { args: ["foo"], stdin: "foo\r\n" },
  { args: ["--color", "never", "-n", "foo", "src"] },
  { args: ["--color=auto", "foo", "src"] },
  { args: ["--sort=path", "-l", "foo"] },
  { args: ["-lc", "foo", "notes.md"] },
  { args: ["-n", "-m1", "-A2", "x"], stdin: "x\nx\nx\nx\n" },
  { args: ["-m1", "-A1", "-B1", "x"], stdin: "a\nx\nb\nx\nx\n" },
  { args: ["-o", "a*"], stdin: "bab\n" },
  { args: ["-co", "a*"], stdin: "bab\n" },
  { args: ["-w", "-x", "foo", "src"] },
  { args: ["-c", "-m", "1", "-o", "foo", "src/main.ts"] },
  { args: ["-l", "-m", "1", "foo"] },
  { args: ["-o", ""], stdin: "ab\n" },
  { args: [""], stdin: "ab\n\ncd\n" },
  { args: ["-v", ""], stdin: "ab\n" },
  { args: ["-B1", "-A1", "three|seven", "src/util/helper.ts"] },
  { args: ["-A1", "o", "src/util/helper.ts"] },
  { args: ["-x", "-w", "foo", "src"] },
  { args: ["-w", "foo|bar", "notes.md"] },
  { args: ["-H", "x"], stdin: "x\n" },
  { args: ["-l", "x"], stdin: "x\n" },
  { args: ["-c", "x"], stdin: "y\n" },
  { args: ["foo", "src", "notes.md"] },
  { args: ["--files", "src/main.ts"] },
  { args: ["--heading", "-n", "foo"] },
  { args: ["-x", "-e", "one", "-e", "two", "src/util/helper.ts"] },
];

describe.skipIf(!REAL)("rg: ours against the real ripgrep 13 on a project folder", () => {
  for (const entry of CASES) {
    it(`rg ${entry.args.join(" ")}${entry.stdin === undefined ? "" : " (stdin)"}`, async () => {
      const ours = await runOurs(entry.args, entry.stdin ?? "");
      const real = runReal(entry.args, entry.stdin ?? null);
      expect({ stdout: ours.stdout, status: ours.status }).toEqual({
        stdout: real.stdout,
        status: real.status,
      });
      expect(ours.stderr === "").toBe(real.stderr === "");
      if (["(", "a{2,1}", "a\\nb"].includes(entry.args[0]!)) expect(ours.stderr).toBe(real.stderr);
    });
  }
});

describe("rg: what it refuses rather than guesses", () => {
  for (const args of [
    ["--json", "foo"],
    ["-P", "foo"],
    ["-uuu", "foo"],
    ["-r", "x", "foo"],
    ["-a", "foo"],
    ["--color=always", "foo"],
    ["--sort", "modified", "foo"],
    ["-t", "ts", "foo"],
  ]) {
    it(`rg ${args.join(" ")} fails with exit 2 and says the option is not supported`, async () => {
      const result = await runOurs(args, "");
      expect(result.status).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^rg: option .+ is not supported in this sandbox\n$/u);
    });
  }

  it("says a file that is not UTF-8 is not searched (exit 2), as its raw bytes cannot be printed", async () => {
    const { createCommandContext, InMemoryFs } = await import("just-bash");
    const fs = new InMemoryFs();
    await fs.writeFile("/w/latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const ctx = createCommandContext({ fs, cwd: "/w" });
    expect(await runRg(["caf"], ctx as never)).toEqual({
      stdout: "",
      stderr: "rg: latin1.txt: not UTF-8 text, not searched in this sandbox\n",
      exitCode: 2,
    });
  });

  it("refuses -g on a folder outside the current one (ripgrep would match the glob against another path)", async () => {
    const { createCommandContext, InMemoryFs } = await import("just-bash");
    const fs = new InMemoryFs();
    await fs.writeFile("/other/a.ts", "foo\n");
    await fs.mkdir("/w", { recursive: true });
    const ctx = createCommandContext({ fs, cwd: "/w" });
    const result = await runRg(["-g", "*.ts", "foo", "/other"], ctx as never);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^rg: option -g .* is not supported in this sandbox\n$/u);
    expect((await runRg(["foo", "/other"], ctx as never)).stdout).toBe("/other/a.ts:foo\n");
  });

  it("says a named binary file is not searched (exit 2) instead of printing a guess", async () => {
    const result = await runOurs(["foo", "bin.dat"], "");
    expect(result).toEqual({
      stdout: "",
      stderr: "rg: bin.dat: binary files are not searched in this sandbox\n",
      status: 2,
    });
  });
});

describe("rg in the embedded shell", () => {
  it("is ours, on ripgrep's syntax: \\pL, a piped stdin, and refused options", async () => {
    const { EmbeddedSandbox } = await import("../../embedded-sandbox.ts");
    const sandbox = await EmbeddedSandbox.create();
    const root = sandbox.workspaceRoot;
    await sandbox.writeFile(`${root}/a.txt`, "é1\nx\n");
    await sandbox.writeFile(`${root}/b.txt`, "y2\n");
    expect(await sandbox.exec("rg '\\pL\\d'")).toMatchObject({ exitCode: 0, stdout: "a.txt:é1\nb.txt:y2\n" });
    expect(await sandbox.exec("printf 'a\\nfoo\\n' | rg -n foo")).toMatchObject({
      exitCode: 0,
      stdout: "2:foo\n",
    });
    expect(await sandbox.exec("rg nothing")).toMatchObject({ exitCode: 1, stdout: "" });
    expect(await sandbox.exec("rg --json x")).toMatchObject({
      exitCode: 2,
      stderr: "rg: option --json is not supported in this sandbox\n",
    });
  });

  it.skipIf(!REAL)(
    "searches its stdin when it is a pipe or a file, even an empty one, as ripgrep 13 does",
    async () => {
      const { EmbeddedSandbox } = await import("../../embedded-sandbox.ts");
      const sandbox = await EmbeddedSandbox.create();
      const root = sandbox.workspaceRoot;
      const files = { "a.txt": "x here\n", "empty.txt": "" };
      for (const [name, text] of Object.entries(files)) await sandbox.writeFile(`${root}/${name}`, text);
      const folder = mkdtempSync(join(tmpdir(), "toolroom-rg-"));
      try {
        for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
        for (const command of [
          "printf '' | rg x",
          "printf 'x\\n' | rg x",
          "rg x < empty.txt",
          "{ rg x; } < empty.txt",
          "rg x <<< ''",
          "printf '' | rg x a.txt",
          "true | rg -c x",
          "rg x",
          "rg x; printf '' | rg x; echo $?",
        ]) {
          const ours = await sandbox.exec(command);
          const real = spawnSync("bash", ["-c", command], {
            cwd: folder,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
          });
          expect({ command, stdout: ours.stdout, status: ours.exitCode }).toEqual({
            command,
            stdout: real.stdout,
            status: real.status,
          });
        }
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  it("stops at the stop signal with exit 130", async () => {
    const { createCommandContext, InMemoryFs } = await import("just-bash");
    const fs = new InMemoryFs();
    for (let i = 0; i < 300; i++) await fs.writeFile(`/w/f${i}.txt`, "x\n");
    const controller = new AbortController();
    controller.abort();
    const ctx = createCommandContext({ fs, cwd: "/w", signal: controller.signal });
    const result = await runRg(["x"], ctx as never);
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toBe("rg: interrupted\n");
  });
});
