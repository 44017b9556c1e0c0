import { beforeAll, describe, expect, it } from "vitest";
import { createToolContext } from "../core/tool-context.ts";
import { registerNodeAssets } from "../host/node-assets.ts";
import { EmbeddedSandbox } from "../sandbox/embedded/embedded-sandbox.ts";
import {
  checkAwkScript,
  checkSedExpression,
  parseNumberedLines,
  runTextFilter,
  tokenizeAwk,
} from "./text-filters.ts";

async function setup() {
  const sandbox = await EmbeddedSandbox.create();
  await sandbox.writeFile("/workspace/secret.txt", "secret\n");
  return { sandbox, context: createToolContext(sandbox) };
}

const exists = async (sandbox: EmbeddedSandbox, path: string) =>
  sandbox.stat(path).then(
    () => true,
    () => false,
  );

// jq runs in a worker_thread the host registers.
beforeAll(() => registerNodeAssets());

describe("runTextFilter", () => {
  it("runs jq on the input, and on null input when there is none", async () => {
    const { context } = await setup();
    expect(await runTextFilter(context, { filter: "jq", program: ".a[1]", input: '{"a": [1, 2]}' })).toEqual({
      output: "2\n",
      exitCode: 0,
    });
    expect(
      (await runTextFilter(context, { filter: "jq", program: "[1, 2] | add", input: null })).output,
    ).toBe("3\n");
    expect((await runTextFilter(context, { filter: "jq", program: "-1", input: null })).output).toBe("-1\n");
  });

  it("runs grep, treating no match as a result", async () => {
    const { context } = await setup();
    const found = await runTextFilter(context, {
      filter: "grep",
      program: "o",
      input: "hello\nxyz\nworld\n",
    });
    expect(parseNumberedLines(found.output)).toEqual([
      { line: 1, text: "hello" },
      { line: 3, text: "world" },
    ]);
    expect(await runTextFilter(context, { filter: "grep", program: "nothing", input: "a\n" })).toEqual({
      output: "",
      exitCode: 1,
    });
    await expect(
      runTextFilter(context, { filter: "grep", program: "[", input: "a\n" }),
    ).rejects.toMatchObject({
      code: "invalid_pattern",
    });
  });

  it("runs sed -n and awk", async () => {
    const { context } = await setup();
    expect(
      (await runTextFilter(context, { filter: "sed", program: "2,3p", input: "a\nb\nc\nd\n" })).output,
    ).toBe("b\nc\n");
    expect(
      (await runTextFilter(context, { filter: "awk", program: "{ print $2 }", input: "a b\nc d\n" })).output,
    ).toBe("b\nd\n");
  });

  it("passes programs and input untouched: quotes, $ and ; cannot reach a shell", async () => {
    const { context, sandbox } = await setup();
    const sneaky = `'"; touch /workspace/pwned; echo "$(touch /workspace/pwned2)`;
    const result = await runTextFilter(context, { filter: "grep", program: sneaky, input: `x\n${sneaky}\n` });
    expect(parseNumberedLines(result.output)).toEqual([{ line: 2, text: sneaky }]);
    await runTextFilter(context, {
      filter: "awk",
      program: `{ print "$(touch /workspace/pwned3)" }`,
      input: "a\n",
    });
    await runTextFilter(context, { filter: "jq", program: `"\`touch /workspace/pwned4\`"`, input: null });
    for (const file of ["pwned", "pwned2", "pwned3", "pwned4"]) {
      expect(await exists(sandbox, `/workspace/${file}`), file).toBe(false);
    }
  });

  it("reports a failing program with its stderr, and enforces the output limit", async () => {
    const { context } = await setup();
    await expect(runTextFilter(context, { filter: "jq", program: ".[", input: "{}" })).rejects.toMatchObject({
      code: "abnormal_exit",
      message: expect.stringContaining("jq failed (exit"),
    });
    await expect(
      runTextFilter(context, {
        filter: "awk",
        program: "BEGIN { for (i = 0; i < 5000; i++) print i }",
        input: "",
        maxOutputBytes: 1000,
        maxOutputName: "max_output_size",
      }),
    ).rejects.toMatchObject({
      code: "limit_exceeded",
      details: { limit: "max_output_size", limit_bytes: 1000 },
    });
  });

  it("stops a runaway loop, which no timer can interrupt here, by counting its iterations", async () => {
    const { context } = await setup();
    const started = Date.now();
    await expect(
      runTextFilter(context, { filter: "awk", program: "BEGIN { while (1) x++ }", input: "" }),
    ).rejects.toMatchObject({
      code: "limit_exceeded",
      details: { limit: "max_loop_iterations", limit_iterations: 100_000 },
    });
    await expect(
      runTextFilter(context, { filter: "sed", program: ":a;s/a/a/;ta", input: "a\n" }),
    ).rejects.toMatchObject({
      code: "limit_exceeded",
    });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("stops a jq filter that never ends at its deadline (jq runs in a worker that is terminated)", async () => {
    const { context } = await setup();
    await expect(
      runTextFilter(context, { filter: "jq", program: "last(range(1e15))", input: null, timeoutMs: 1500 }),
    ).rejects.toMatchObject({ code: "timeout", message: "jq did not finish within 1.5 s." });
    expect((await runTextFilter(context, { filter: "jq", program: "1 + 1", input: null })).output).toBe(
      "2\n",
    );
  });

  it("stops awk, which runs in this thread, at its deadline", async () => {
    const { context } = await setup();
    await expect(
      runTextFilter(context, {
        filter: "awk",
        program: "{ print }",
        input: "a\n".repeat(5000),
        timeoutMs: 0,
      }),
    ).rejects.toMatchObject({ code: "timeout", message: "awk did not finish within 0 s." });
  });

  it("stops sed, which runs in this thread, at its deadline", async () => {
    const { context } = await setup();
    await expect(
      runTextFilter(context, { filter: "sed", program: "p", input: "a\n".repeat(5000), timeoutMs: 0 }),
    ).rejects.toMatchObject({ code: "timeout", message: "sed did not finish within 0 s." });
  });

  it("refuses writing sed and awk programs before running anything", async () => {
    const { context, sandbox } = await setup();
    await expect(
      runTextFilter(context, { filter: "sed", program: "w /workspace/out.txt", input: "a\n" }),
    ).rejects.toMatchObject({ code: "command_blocked" });
    await expect(
      runTextFilter(context, { filter: "awk", program: '{ print > "/workspace/out.txt" }', input: "a\n" }),
    ).rejects.toMatchObject({ code: "command_blocked" });
    expect(await exists(sandbox, "/workspace/out.txt")).toBe(false);
  });
});

describe("checkSedExpression", () => {
  const ok = [
    "1,10p",
    "p",
    "$p",
    "/start/,/end/p",
    "\\%path/x%p",
    "/a/I,+2p",
    "0~3p",
    "2!p",
    "1d;3q",
    "s/a/b/gp",
    "s|/usr|/opt|2p",
    "s/w/W/p",
    "s/x\\/y/e/p",
    "y/abc/xyz/;p",
    "/x/{p;=}",
    ":top\n/a/{N;b top}\np",
    "1i\\\nheader\np",
    "$a trailer",
    "# comment\np",
    "l 40",
    "/re/!d",
    "n;p",
  ];
  for (const script of ok) {
    it(`accepts ${JSON.stringify(script)}`, () => {
      expect(() => checkSedExpression(script)).not.toThrow();
    });
  }

  const writes = [
    ["w out.txt", "the w command"],
    ["1,3w /tmp/x", "the w command"],
    ["/a/W out", "the W command"],
    ["r /etc/passwd", "the r command"],
    ["1R other.txt", "the R command"],
    ["e echo hi", "the e command"],
    ["1e", "the e command"],
    ["s/a/b/w out.txt", "the s///w flag"],
    ["s/a/b/gw out.txt", "the s///w flag"],
    ["s|a|b|e", "the s///e flag"],
    ["p;w x", "the w command"],
    ["/x/{p;w x\n}", "the w command"],
    ["-i s/a/b/", "an option"],
    ["--in-place=.bak s/a/b/", "an option"],
  ];
  for (const [script, what] of writes) {
    it(`refuses ${JSON.stringify(script)}`, () => {
      expect(() => checkSedExpression(script!)).toThrow(
        expect.objectContaining({ code: "command_blocked", message: expect.stringContaining(what!) }),
      );
    });
  }

  it("reads a w inside an s command's text as text, not a command", () => {
    expect(() => checkSedExpression("s/w file/r file/p")).not.toThrow();
    expect(() => checkSedExpression("/w x/p")).not.toThrow();
    expect(() => checkSedExpression("1i\\\nw not a command")).not.toThrow();
  });

  it("says what is wrong with a malformed script", () => {
    // GNU sed's own messages, naming the character where the script went wrong.
    const malformed = (script: string, message: string, position: number) =>
      expect(() => checkSedExpression(script)).toThrow(
        expect.objectContaining({
          code: "invalid_params",
          message: expect.stringContaining(message),
          details: { command: "sed", position },
        }),
      );
    malformed("s/a/b", "-e expression #1, char 5: unterminated `s' command", 5);
    malformed("1,", "-e expression #1, char 2: unexpected `,'", 2);
    malformed("k", "-e expression #1, char 1: unknown command: `k'", 1);
    malformed("1,10p x", "-e expression #1, char 7: extra characters after command", 7);
    malformed("s/\\(a/b/", "char 8: Unmatched ( or \\(", 8);
  });
});

describe("checkAwkScript", () => {
  const ok = [
    "{ print $1, $3 }",
    "$1 > 5 { print }",
    "$1 >= 5 && $2 < 3 { print $1 }",
    "{ print ($1 > 5) }",
    '{ printf("%s\\n", $1 > 2 ? "big" : "small") }',
    "/a|b/ { print }",
    "{ x = $1 / 2; print x }",
    "{ a[$1]++ } END { for (k in a) print k, a[k] }",
    "{ while ((getline line) > 0) print line }",
    "{ getline; print }",
    "{ getline x; print x }",
    '{ print "a > b" }',
    "# print > file\n{ print }",
    "{ print $1 } # | getline",
    "function f(x) { return x > 1 }\n{ print f($1) }",
    "{ n = split($0, parts, /,/); print n }",
    '{ gsub(/>/, "&gt;"); print }',
    "NR > 1 { print }",
  ];
  for (const script of ok) {
    it(`accepts ${JSON.stringify(script)}`, () => {
      expect(() => checkAwkScript(script)).not.toThrow();
    });
  }

  const refused = [
    ['BEGIN { system("rm -rf /") }', "system()"],
    ["BEGIN { system ( cmd ) }", "system()"],
    ['BEGIN { "date" | getline d; print d }', "command | getline"],
    ['BEGIN { cmd = "ls"; while ((cmd | getline line) > 0) print line }', "command | getline"],
    ['BEGIN { while ((getline line < "/etc/passwd") > 0) print line }', "getline < file"],
    ['{ getline < "other.txt" }', "getline < file"],
    ['{ getline a[1] < "x" }', "getline < file"],
    ['{ print > "out.txt" }', "print > file"],
    ["{ print $1 > 0 }", "print > file"],
    ['{ print $1, $2 >> "log" }', "print >> file"],
    ['{ printf("%s", $1) > "f" }', "printf > file"],
    ['{ printf "%s", $1 > "f" }', "printf > file"],
    ['{ print | "sort" }', "print | command"],
    ['{ print $1 | "sh" }', "print | command"],
    ['{ print |& "cmd" }', "co-process"],
    ["-f /etc/passwd", "an option"],
  ];
  for (const [script, what] of refused) {
    it(`refuses ${JSON.stringify(script)}`, () => {
      expect(() => checkAwkScript(script!)).toThrow(
        expect.objectContaining({ code: "command_blocked", message: expect.stringContaining(what!) }),
      );
    });
  }

  it("tells a regex from a division", () => {
    expect(tokenizeAwk("a / b / c").filter((token) => token.kind === "regex")).toEqual([]);
    expect(tokenizeAwk("$0 ~ /x/").at(-1)).toEqual({ kind: "regex", text: "/x/" });
    expect(tokenizeAwk("/[/]/ { print }")[0]).toEqual({ kind: "regex", text: "/[/]/" });
  });
});
