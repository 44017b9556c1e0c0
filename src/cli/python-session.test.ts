import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin", "toolroom");

/**
 * The CLI's `toolroom batch`: an exec_command session's python3 reads each write_stdin as it comes
 * and stops on Ctrl-C while waiting in input() (the same runtime the MCP server runs).
 */
describe("python3 in a CLI exec_command session", () => {
  it("answers each write_stdin as it reads it, and stops on Ctrl-C in input()", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "toolroom-python-session-"));
    writeFileSync(
      join(workspace, "ask.py"),
      'while True:\n    line = input("> ")\n    if line == "quit":\n        break\n    print(line.upper(), flush=True)\nprint("bye")\n',
    );
    const child = spawn(BIN, ["batch", "--workspace", workspace, "--profile", "toolrouter"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    let id = 0;
    const call = async (tool: string, params: Record<string, unknown>): Promise<string> => {
      child.stdin.write(`${JSON.stringify({ tool, params, request_id: String(++id) })}\n`);
      // toolrouter's answers are its own envelope: `output`, or `error`.
      const answer = JSON.parse((await lines.next()).value as string) as { output?: string; error?: unknown };
      expect(answer.error).toBeUndefined();
      return answer.output!;
    };
    // Each call answers within a second; on a loaded machine the rest comes with the next empty write.
    const until = async (session: string, first: string, done: (output: string) => boolean) => {
      let output = first;
      for (let i = 0; i < 60 && !done(output); i++)
        output += await call("write_stdin", { session_id: session, chars: "" });
      return output;
    };
    try {
      const started = await call("exec_command", { session_id: "py", cmd: "python3 ask.py", workdir: null });
      expect(await until("py", started, (output) => output.endsWith("> "))).toBe("> ");
      const hello = await call("write_stdin", { session_id: "py", chars: "hello\n" });
      expect(await until("py", hello, (output) => output.endsWith("> "))).toBe("hello\nHELLO\n> ");
      const quit = await call("write_stdin", { session_id: "py", chars: "quit\n" });
      expect(await until("py", quit, (output) => output.includes("[process exited"))).toBe(
        "quit\nbye\n[process exited with code 0]\n",
      );
      const second = await call("exec_command", { session_id: "stop", cmd: "python3 ask.py", workdir: null });
      await until("stop", second, (output) => output.endsWith("> "));
      const stopped = await call("write_stdin", { session_id: "stop", chars: "\u0003" });
      expect(await until("stop", stopped, (output) => output.includes("[process exited"))).toMatch(
        /^\^C\nTraceback[\s\S]*KeyboardInterrupt\n\[process exited with code 130\]\n$/u,
      );
    } finally {
      child.stdin.end();
      child.kill();
    }
  }, 180_000);
});
