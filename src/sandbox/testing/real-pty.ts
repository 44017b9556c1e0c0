import { execFile, execFileSync } from "node:child_process";

/**
 * Runs a real program on a pseudo-terminal, as a person at a terminal would (python3's pty module
 * holds the other end): once it has printed `marker`, Ctrl-C is typed, and the terminal's line
 * discipline sends SIGINT. Gives what the terminal showed ("\r\n" read as "\n") and the status a
 * shell would report (128 + the signal for a program a signal killed).
 */
export async function realUnderPty(
  command: string,
  marker: string,
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ output: string; exitCode: number }> {
  const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
    execFile(
      "python3",
      ["-c", HARNESS, command, marker, String((options.timeoutMs ?? 30_000) / 1000)],
      { env: options.env ?? process.env, maxBuffer: 16 * 1024 * 1024 },
      (error, out) => (error ? reject(error) : resolve({ stdout: out })),
    ),
  );
  const { output, status } = JSON.parse(stdout) as { output: string; status: number };
  return { output: output.replace(/\r\n/gu, "\n"), exitCode: status < 0 ? 128 - status : status };
}

/** Whether the real `program` runs here (a differential test is skipped where it cannot). */
export function hasProgram(program: string): boolean {
  try {
    execFileSync(program, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

// The command runs under bash -c on the pty; Ctrl-C is typed 0.3 s after the marker, once the
// program is waiting (sleep, a timer, a loop), as a person would. bash stays the session's leader
// (a last command is not exec'd in its place), as an interactive shell is: were the program (or
// timeout) the leader, its exit would hang the terminal up under what is still writing.
const HARNESS = `
import json, os, pty, select, sys, time
command, marker, limit = sys.argv[1], sys.argv[2].encode(), float(sys.argv[3])
pid, fd = pty.fork()
if pid == 0:
    os.execvp("bash", ["bash", "-c", command + "\\nexit $?"])
out, typed_at, typed, give_up = b"", None, False, time.time() + limit
while time.time() < give_up:
    ready, _, _ = select.select([fd], [], [], 0.05)
    if ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    if typed_at is None and marker in out.replace(b"\\r\\n", b"\\n"):
        typed_at = time.time() + 0.3
    if not typed and typed_at is not None and time.time() >= typed_at:
        os.write(fd, b"\\x03")
        typed = True
else:
    os.kill(pid, 9)
_, status = os.waitpid(pid, 0)
print(json.dumps({"output": out.decode("utf-8", "replace"), "status": os.waitstatus_to_exitcode(status)}))
`;
