import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../embedded-sandbox.ts";
import { createNodeCommands } from "./index.ts";

async function project(files: Record<string, string>): Promise<EmbeddedSandbox> {
  const sandbox = await EmbeddedSandbox.create({ commands: createNodeCommands() });
  for (const [path, text] of Object.entries(files)) {
    await sandbox.mkdir(`/workspace/${path}`.replace(/\/[^/]+$/u, ""), { recursive: true });
    await sandbox.writeFile(`/workspace/${path}`, text);
  }
  return sandbox;
}

const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: "demo", version: "1.2.3", scripts });

describe("embedded npm", () => {
  it("npm test runs the test script through the shell, with pre and post scripts", async () => {
    const sandbox = await project({
      "package.json": pkg({
        pretest: "echo before",
        test: "node -e \"console.log('testing')\"",
        posttest: "echo after",
      }),
    });
    const result = await sandbox.exec("npm test");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      "\n> demo@1.2.3 pretest\n> echo before\n\nbefore\n" +
        "\n> demo@1.2.3 test\n> node -e \"console.log('testing')\"\n\ntesting\n" +
        "\n> demo@1.2.3 posttest\n> echo after\n\nafter\n",
    );
  });

  it("a failing script fails npm with its exit code and skips the post script", async () => {
    const sandbox = await project({
      "package.json": pkg({ test: "node -e 'process.exit(3)'", posttest: "echo never" }),
    });
    const result = await sandbox.exec("npm test");
    expect(result.exitCode).toBe(3);
    expect(result.stdout).not.toContain("never");
    expect(result.stderr).toContain("npm error Lifecycle script `test` failed with error:");
  });

  it("npm run passes arguments after -- and lists scripts without a name", async () => {
    const sandbox = await project({
      "package.json": pkg({ test: "node --test", greet: "node greet.js" }),
      "greet.js": "console.log('hi', process.argv.slice(2).join(','), process.env.npm_lifecycle_event)",
    });
    const run = await sandbox.exec("npm run greet -- a 'b c'");
    expect(run.stdout).toContain("hi a,b c greet\n");
    const list = await sandbox.exec("npm run");
    expect(list.stdout).toBe(
      "Lifecycle scripts included in demo@1.2.3:\n  test\n    node --test\n\navailable via `npm run-script`:\n  greet\n    node greet.js\n",
    );
  });

  it("npm start falls back to node server.js, and a missing script is an error", async () => {
    const sandbox = await project({ "package.json": pkg({}), "server.js": "console.log('serving')" });
    expect((await sandbox.exec("npm start")).stdout).toContain("serving\n");
    const missing = await sandbox.exec("npm run build");
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('Missing script: "build"');
  });

  it("runs scripts from a subfolder against the nearest package.json", async () => {
    const sandbox = await project({ "package.json": pkg({ where: "pwd" }), "src/index.js": "" });
    const result = await sandbox.exec("npm run where", { cwd: "/workspace/src" });
    expect(result.stdout).toContain("/workspace\n");
  });

  it("install, ci and add explain what to do instead", async () => {
    const sandbox = await project({ "package.json": pkg({}) });
    for (const command of ["npm install", "npm i lodash", "npm ci", "npm add left-pad"]) {
      const result = await sandbox.exec(command);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain("cannot be installed in the embedded sandbox");
      expect(result.stderr).toContain("WebContainer");
      expect(result.stderr).toContain("node_modules/<name>/");
    }
  });

  it("node_modules/.bin entries run with the embedded node from scripts and npx", async () => {
    const sandbox = await project({
      "package.json": pkg({ lint: "shout --loud" }),
      "node_modules/shout/package.json": JSON.stringify({ name: "shout", bin: { shout: "cli.js" } }),
      "node_modules/shout/cli.js":
        "#!/usr/bin/env node\nconsole.log('SHOUT', process.argv.slice(2).join(' '))",
    });
    await sandbox.symlink("../shout/cli.js", "/workspace/node_modules/.bin/shout").catch(async () => {
      await sandbox.mkdir("/workspace/node_modules/.bin", { recursive: true });
      await sandbox.symlink("../shout/cli.js", "/workspace/node_modules/.bin/shout");
    });
    expect((await sandbox.exec("npm run lint")).stdout).toContain("SHOUT --loud\n");
    expect((await sandbox.exec("npx shout it")).stdout).toBe("SHOUT it\n");
  });

  it("npx cannot download", async () => {
    const sandbox = await project({ "package.json": pkg({}) });
    const result = await sandbox.exec("npx create-react-app demo");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("cannot download packages");
  });

  it("npm init -y writes a package.json whose test script fails like npm's", async () => {
    const sandbox = await EmbeddedSandbox.create({ commands: createNodeCommands() });
    await sandbox.mkdir("/workspace/fresh");
    expect((await sandbox.exec("npm init -y", { cwd: "/workspace/fresh" })).exitCode).toBe(0);
    const written = JSON.parse(
      new TextDecoder().decode(await sandbox.readFile("/workspace/fresh/package.json")),
    );
    expect(written).toMatchObject({ name: "fresh", version: "1.0.0" });
    const test = await sandbox.exec("npm test", { cwd: "/workspace/fresh" });
    expect(test.exitCode).toBe(1);
    expect(test.stdout).toContain("Error: no test specified");
  });
});
