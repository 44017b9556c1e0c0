import { describe, expect, it } from "vitest";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import { jqWorkerCommand } from "./jq-command.ts";

async function sandboxes() {
  const files: Record<string, string> = {
    "data.json": '{"name":"ada","tags":["x","y"],"n":1.5}\n{"name":"bob","tags":[],"n":2}\n',
    "sub/raw.txt": "raw ü text\n",
    "sub/list.json": "[1,2,3]",
  };
  const make = async (commands: ReturnType<typeof jqWorkerCommand>[]) => {
    const sandbox = await EmbeddedSandbox.create({ commands, env: { GREETING: "hallo" } });
    for (const [path, text] of Object.entries(files)) {
      await sandbox.mkdir(`/workspace/${path}`.replace(/\/[^/]+$/u, ""), { recursive: true });
      await sandbox.writeFile(`/workspace/${path}`, text);
    }
    return sandbox;
  };
  return { inWorker: await make([jqWorkerCommand()]), inThread: await make([]) };
}

describe("jq in a capped worker", () => {
  it("answers as just-bash's own jq does: files, stdin, options, env, errors and exit codes", async () => {
    const { inWorker, inThread } = await sandboxes();
    const commands = [
      "jq -c . data.json",
      "jq -r '.name' data.json",
      "jq -s 'map(.n) | add' data.json",
      "cat data.json | jq -c '{name, count: (.tags | length)}'",
      "cd sub && jq -n --rawfile r raw.txt --slurpfile l list.json --arg a 1 --argjson b '{\"c\":2}' -c '[$r, $l, $a, $b]'",
      "cd sub && jq -c '.[] * 2' ./list.json ../sub/list.json",
      "jq -n 'env.GREETING, $ENV.GREETING'",
      "printf '\\xff\\xfe{\"a\":1}' | jq .a",
      "echo '\"ü€\"' | jq -r 'explode'",
      "jq . missing.json",
      "jq '.[' data.json",
      "echo null | jq -e .",
      "jq -n '1, error(\"boom\"), 3'",
      "jq --tab -n '{a:[1]}'",
      "jq -n '[range(5)]' | jq -c 'map(. * .)'",
      'jq -j -n \'"a", "b"\'',
      "jq -n 'input' < data.json",
      "jq",
    ];
    for (const command of commands) {
      const [worker, thread] = [await inWorker.exec(command), await inThread.exec(command)];
      expect(worker, command).toEqual(thread);
    }
    await inWorker.dispose();
    await inThread.dispose();
  }, 120_000);

  it("stops a jq loop at the deadline, which the in-thread jq never sees", async () => {
    const { inWorker } = await sandboxes();
    const started = Date.now();
    const result = await inWorker.exec("jq -n '[limit(100000000; repeat(1))] | length'", { timeoutMs: 1500 });
    expect(result).toMatchObject({ exitCode: 124, timedOut: true });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await inWorker.exec("jq -n 1+1")).stdout).toBe("2\n");
  }, 60_000);

  it("stops when the caller cancels", async () => {
    const { inWorker } = await sandboxes();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const result = await inWorker.exec("jq -n '[limit(100000000; repeat(1))] | length'", {
      signal: controller.signal,
    });
    expect(result).toMatchObject({ exitCode: 130, interrupted: true });
    expect((await inWorker.exec("echo '[3]' | jq '.[0]'")).stdout).toBe("3\n");
  }, 60_000);
});
