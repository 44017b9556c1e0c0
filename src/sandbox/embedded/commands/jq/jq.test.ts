import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedRuntime } from "../../../../host/create-runtime.ts";
import { registerNodeAssets } from "../../../../host/node-assets.ts";
import { jqFileArguments, runJq } from "./jq.ts";
import { type JqCase, jqCases, judgeJqCase, nativeJq, runJqCase, runNativeJq } from "./jq-suite.ts";

beforeAll(() => registerNodeAssets());

describe("jq: jq's own tests/jq.test (../shared/reference-suites/peer-suites/jq-cases.json)", () => {
  it("passes at least the 428 of 516 runnable cases real jq 1.7.1 passes, and every one of those", async () => {
    const cases = jqCases();
    const failed: string[] = [];
    const regressions: string[] = [];
    const agreed: { entry: JqCase; stdout: string }[] = [];
    for (const entry of cases) {
      const outcome = await runJqCase(entry);
      const passed = judgeJqCase(entry, outcome);
      if (!passed) failed.push(entry.id);
      if (!passed && entry.real["jq-1.7.1"]) {
        regressions.push(`${entry.id} ${entry.program}: ${outcome.stdout}${outcome.stderr}`);
      }
      if (entry.real["jq-1.6"] && entry.real["jq-1.7.1"] && !entry.fail)
        agreed.push({ entry, stdout: outcome.stdout });
    }
    expect(cases.length).toBe(516);
    expect(regressions).toEqual([]);
    expect(cases.length - failed.length).toBeGreaterThanOrEqual(428);

    // Where jq 1.6 and 1.7.1 agree, the machine's own jq (Debian's 1.6) gives the same values.
    if (!nativeJq()) return;
    const differ: string[] = [];
    for (const { entry, stdout } of agreed) {
      const native = runNativeJq(["-c", entry.program], entry.input ?? "null");
      if (
        !judgeJqCase(
          { ...entry, expected: native.stdout.split("\n").filter(Boolean) },
          { exitCode: 0, stdout },
        )
      ) {
        differ.push(`${entry.id} ${entry.program}: ours ${stdout} native ${native.stdout}`);
      }
    }
    expect(differ).toEqual([]);
  }, 600_000);
});

describe("jq in the embedded shell, held to the machine's jq where 1.6 and 1.7.1 print alike", () => {
  const FILES: Record<string, string> = {
    "users.json": '{"users":[{"name":"ada","age":36,"tags":["x","y"]},{"name":"bob","age":7,"tags":[]}]}\n',
    "a.json": '{"a":1}\n{"a":2}\n',
    "names.txt": "one\ntwo\n",
    "prog.jq": ".users | map(.name)\n",
  };
  const CASES: string[][] = [
    [".users[0].name", "users.json"],
    ["-r", ".users[].name", "users.json"],
    ["-c", ".users[] | {name, n: (.tags | length)}", "users.json"],
    ["-S", ".users[0]", "users.json"],
    ["--tab", ".users[1]", "users.json"],
    ["--indent", "1", ".users[1]", "users.json"],
    ["-j", ".users[].name", "users.json"],
    ["-s", "map(.a) | add", "a.json"],
    ["-n", "--arg", "x", "hi", '$x + "!"'],
    ["-n", "--argjson", "v", '{"k":[1,2]}', "$v.k[1]"],
    ["-n", "--slurpfile", "s", "a.json", "$s | length"],
    ["-n", "--rawfile", "r", "names.txt", '$r | split("\\n")'],
    ["-c", ".a", "a.json", "a.json"],
    ["-f", "prog.jq", "users.json"],
    ["-e", ".users[5]", "users.json"],
    ["-R", ".", "names.txt"],
    ["-Rs", ".", "names.txt"],
    ["-n", "[1, 2] | @csv, @tsv, @sh, @base64, @uri, @html, @json, @text"],
    ["-r", '.users[] | "\\(.name) is \\(.age)"', "users.json"],
    ["-c", "paths", "users.json"],
    ["-c", "[.users[] | select(.age > 10)] | length", "users.json"],
    ["-c", "to_entries", "a.json"],
    [".", "missing.json"],
    ["-n", '1 | error("boom")'],
  ];
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "toolroom-jq-"));
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(folder, name), text);
    return () => rmSync(folder, { recursive: true, force: true });
  });

  it.skipIf(!nativeJq())(
    "prints what jq prints and exits as it does, for each command line",
    async () => {
      const runtime = await createEmbeddedRuntime({ files: FILES });
      const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
      for (const args of CASES) {
        const ours = await runtime.sandbox.exec(`jq ${args.map(quote).join(" ")}`, { timeoutMs: 30_000 });
        const real = runNativeJq(args, "", folder);
        expect({ args, stdout: ours.stdout, exitCode: ours.exitCode }).toEqual({
          args,
          stdout: real.stdout,
          exitCode: real.exitCode,
        });
        // -e's exit 1 (a false or null last output) is said by the status alone.
        if (real.exitCode > 1) expect(ours.stderr).toMatch(/^jq: error/u);
      }
    },
    120_000,
  );

  it("reads stdin in a pipeline, sees exported variables, and loads modules from -L", async () => {
    const runtime = await createEmbeddedRuntime({ files: { "lib/util.jq": "def double: . * 2;\n" } });
    const piped = await runtime.sandbox.exec(`echo '{"n": 21}' | jq .n`);
    expect(piped).toMatchObject({ stdout: "21\n", exitCode: 0 });
    const env = await runtime.sandbox.exec("export GREETING=hello; jq -n 'env.GREETING, $ENV.GREETING'");
    expect(env.stdout).toBe('"hello"\n"hello"\n');
    const module = await runtime.sandbox.exec(`jq -n -L lib 'import "util" as u; 21 | u::double'`);
    expect(module).toMatchObject({ stdout: "42\n", exitCode: 0 });
  });

  it("says a malformed filter is a compile error naming where, exit 3", async () => {
    const runtime = await createEmbeddedRuntime();
    const result = await runtime.sandbox.exec("jq -n '.a | [1,'");
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain("jq: error: syntax error");
    expect(result.stderr).toContain("at <top-level>, line 1");
  });

  it("stops a filter that never ends at the command's deadline (124) and on an interrupt (130)", async () => {
    const runtime = await createEmbeddedRuntime();
    const slow = await runtime.sandbox.exec("jq -n 'last(range(1e15))'", { timeoutMs: 1500 });
    expect(slow.exitCode).toBe(124);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 800);
    const stopped = await runtime.sandbox.exec("jq -n 'last(range(1e15))'", {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    expect(stopped.exitCode).toBe(130);
    // The next filter gets a new worker.
    expect((await runtime.sandbox.exec("jq -n 1+1")).stdout).toBe("2\n");
  }, 60_000);
});

describe("jq's limits", () => {
  it("stops a filter at its memory cap with jq's own message", async () => {
    const outcome = await runJq({
      args: ["-n", "[range(1e9)] | length"],
      stdin: new Uint8Array(),
      files: {},
      cwd: "/",
      env: {},
      timeoutMs: 60_000,
      memoryLimitBytes: 48 * 1024 * 1024,
    });
    expect(outcome).toMatchObject({ outOfMemory: true, exitCode: 134 });
    expect(new TextDecoder().decode(outcome!.stderr)).toContain("jq: error: cannot allocate memory");
  }, 60_000);

  it("stops endless output at the output cap", async () => {
    const outcome = await runJq({
      args: ["-n", "repeat(1)"],
      stdin: new Uint8Array(),
      files: {},
      cwd: "/",
      env: {},
      timeoutMs: 60_000,
      maxOutputBytes: 10_000,
    });
    expect(outcome).toMatchObject({ outputLimited: true });
    expect(outcome!.stdout.length).toBeLessThanOrEqual(10_000);
  });

  it("finds the files a command line reads, as jq's own option parser does", () => {
    expect(jqFileArguments(["-r", ".a", "x.json", "y.json"])).toEqual({
      files: ["x.json", "y.json"],
      libraries: [],
    });
    expect(jqFileArguments(["-nf", "p.jq", "in.json"]).files).toEqual(["p.jq", "in.json"]);
    expect(jqFileArguments(["--slurpfile", "s", "a.json", "--arg", "k", "v.json", "."]).files).toEqual([
      "a.json",
    ]);
    expect(jqFileArguments([".", "--args", "a", "b"]).files).toEqual([]);
    expect(jqFileArguments(["-Llib", "-L", "more", "."]).libraries).toEqual(["lib", "more"]);
  });
});
