import { Bash, InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../embedded-sandbox.ts";
import { createNodeCommands } from "./index.ts";
import { parseNodeArgs } from "./node-command.ts";
import { EMBEDDED_NODE_VERSION } from "./vm.ts";

async function shell(files: Record<string, string> = {}, cwd = "/p") {
  const fs = new InMemoryFs();
  for (const [path, text] of Object.entries(files)) await fs.writeFile(path, text);
  await fs.mkdir(cwd, { recursive: true });
  return { fs, bash: new Bash({ fs, cwd, customCommands: createNodeCommands() }) };
}

describe("node command line", () => {
  it("parses options, the script and its arguments", () => {
    expect(parseNodeArgs(["--no-warnings", "app.js", "--flag", "x"])).toMatchObject({
      mode: "script",
      script: "app.js",
      rest: ["--flag", "x"],
      execArgv: ["--no-warnings"],
    });
    expect(parseNodeArgs(["-e", "1", "a"])).toMatchObject({ mode: "eval", code: "1", rest: ["a"] });
    expect(parseNodeArgs(["--test", "test/", "x.test.js"])).toMatchObject({
      mode: "test",
      rest: ["test/", "x.test.js"],
    });
    expect(parseNodeArgs(["--inspect"]).error).toBe("node: bad option: --inspect");
  });

  it("--version, --help, -p and a script on stdin", async () => {
    const { bash } = await shell();
    expect((await bash.exec("node --version")).stdout).toBe(`${EMBEDDED_NODE_VERSION}\n`);
    expect((await bash.exec("node --help")).stdout).toContain("node --test");
    expect((await bash.exec("node -p '[1, 2].map((x) => x * 2)'")).stdout).toBe("[ 2, 4 ]\n");
    expect((await bash.exec('echo \'console.log("from stdin", require("path").sep)\' | node')).stdout).toBe(
      "from stdin /\n",
    );
    const bad = await bash.exec("node --inspect app.js");
    expect(bad.exitCode).toBe(9);
    expect(bad.stderr).toContain("bad option");
  });

  it("a missing script fails like Node", async () => {
    const { bash } = await shell();
    const result = await bash.exec("node nope.js");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("Error: Cannot find module '/p/nope.js'");
    expect(result.stderr).toContain("code: 'MODULE_NOT_FOUND'");
    const test = await bash.exec("node --test nope.test.js");
    expect(test).toMatchObject({ exitCode: 1, stderr: "Could not find '/p/nope.test.js'\n" });
  });

  it("writes from node reach the shell's filesystem, and reads see the shell's writes", async () => {
    const { bash, fs } = await shell();
    await bash.exec("echo from-shell > in.txt");
    const result = await bash.exec(
      `node -e "const fs = require('fs'); fs.mkdirSync('out/deep', { recursive: true }); fs.writeFileSync('out/deep/x.txt', fs.readFileSync('in.txt', 'utf8').toUpperCase()); fs.rmSync('in.txt')"`,
    );
    expect(result.exitCode).toBe(0);
    expect(await fs.readFile("/p/out/deep/x.txt")).toBe("FROM-SHELL\n");
    expect(await fs.exists("/p/in.txt")).toBe(false);
    expect((await bash.exec("cat out/deep/x.txt")).stdout).toBe("FROM-SHELL\n");
  });

  it("writes made before a wait are visible to the shell afterwards, and on a later exit too", async () => {
    const { bash, fs } = await shell();
    await bash.exec(
      `node -e "require('fs').writeFileSync('a.txt', '1'); setTimeout(() => { require('fs').writeFileSync('b.txt', '2'); process.exit(3) }, 5)"`,
    );
    expect(await fs.readFile("/p/a.txt")).toBe("1");
    expect(await fs.readFile("/p/b.txt")).toBe("2");
  });

  it("data files are loaded on demand: the program reruns once, with no doubled output or writes", async () => {
    const { bash, fs } = await shell({ "/p/data.txt": "hello data", "/p/log.txt": "start\n" });
    const result = await bash.exec(
      `node -e "const fs = require('fs'); console.log('before'); fs.appendFileSync('log.txt', 'x\\n'); console.log(fs.readFileSync('data.txt', 'utf8'), fs.statSync('data.txt').size)"`,
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: "before\nhello data 10\n", stderr: "" });
    expect(await fs.readFile("/p/log.txt")).toBe("start\nx\n");
  });

  it("ES modules: JSON imports, createRequire, import.meta, and require of ESM refused", async () => {
    const { bash } = await shell({
      "/p/d.json": '{"k": 1}',
      "/p/j.mjs": [
        'import data from "./d.json" with { type: "json" };',
        'import { createRequire } from "node:module";',
        "const require = createRequire(import.meta.url);",
        'console.log(data, require("./d.json"), import.meta.dirname, import.meta.filename, import.meta.url);',
      ].join("\n"),
      "/p/esm.mjs": "export const x = 1;",
      "/p/c.js": 'try { require("./esm.mjs") } catch (e) { console.log(e.code) }',
    });
    expect((await bash.exec("node j.mjs")).stdout).toBe("{ k: 1 } { k: 1 } /p /p/j.mjs file:///p/j.mjs\n");
    expect((await bash.exec("node c.js")).stdout).toBe("ERR_REQUIRE_ESM\n");
  });

  it("import of a missing module fails with Node's message and exit code 1", async () => {
    const { bash } = await shell({ "/p/m.mjs": 'import "./absent.js";' });
    const result = await bash.exec("node m.mjs");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("Cannot find module '/p/absent.js' imported from /p/m.mjs");
  });

  it("syntax errors name the file and fail", async () => {
    const { bash } = await shell({
      "/p/bad.js": "const x = ;\n",
      "/p/esm-in-cjs.js": "import fs from 'fs';\n",
    });
    const bad = await bash.exec("node bad.js");
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("/p/bad.js:1");
    expect(bad.stderr).toContain("SyntaxError");
    const esm = await bash.exec("node esm-in-cjs.js");
    expect(esm.stderr).toContain("Cannot use import statement outside a module");
  });

  it("process.stdin and fs.readFileSync(0) read the shell's stdin", async () => {
    const { bash } = await shell();
    const piped = await bash.exec(
      `printf 'a\\nb\\n' | node -e "let text = ''; process.stdin.on('data', (c) => (text += c)); process.stdin.on('end', () => console.log(text.split('\\n').length))"`,
    );
    expect(piped.stdout).toBe("3\n");
    expect(
      (await bash.exec(`echo hi | node -e "console.log(require('fs').readFileSync(0, 'utf8').trim())"`))
        .stdout,
    ).toBe("hi\n");
  });

  it("sees exported shell variables and arguments", async () => {
    const { bash } = await shell({
      "/p/env.js": "console.log(process.env.GREETING, process.env.LOCAL, process.argv.slice(2))",
    });
    const result = await bash.exec("export GREETING=hello; LOCAL=unexported; node env.js one 'two words'");
    expect(result.stdout).toBe("hello undefined [ 'one', 'two words' ]\n");
  });

  it("runs in the EmbeddedSandbox with its PATH and workspace", async () => {
    const sandbox = await EmbeddedSandbox.create({ commands: createNodeCommands() });
    await sandbox.writeFile("/workspace/index.js", "console.log(process.cwd(), require('os').platform())");
    const result = await sandbox.exec("node index.js");
    expect(result).toMatchObject({ exitCode: 0, stdout: "/workspace linux\n", timedOut: false });
    expect(sandbox.capabilities.commands).toEqual(expect.arrayContaining(["node", "npm", "npx"]));
  });
});
