// jq in a worker_thread of its own (see jq-command.ts): just-bash's own jq, on the files the command
// line names, in a heap the host caps. Plain JavaScript: it loads without tsx.
import { parentPort } from "node:worker_threads";
import { Bash, InMemoryFs } from "just-bash";

parentPort.on("message", async (job) => {
  try {
    const fs = new InMemoryFs();
    for (const entry of job.entries) {
      if (entry.bytes === undefined) await fs.mkdir(entry.path, { recursive: true });
      else {
        await fs.mkdir(entry.path.slice(0, entry.path.lastIndexOf("/")) || "/", { recursive: true });
        await fs.writeFile(entry.path, entry.bytes);
      }
    }
    await fs.mkdir(job.cwd, { recursive: true });
    const bash = new Bash({ fs, cwd: job.cwd, env: job.env, commands: ["jq"], executionLimits: job.limits });
    const result = await bash.exec("jq", {
      cwd: job.cwd,
      args: job.args,
      stdin: job.stdin,
      stdinKind: "bytes",
      rawScript: true,
    });
    parentPort.postMessage({
      stdout: result.stdout,
      stderr: result.stderr,
      exitCode: result.exitCode,
      stdoutKind: result.stdoutKind,
    });
  } catch (error) {
    parentPort.postMessage({ stdout: "", stderr: `jq: ${error?.message ?? String(error)}\n`, exitCode: 2 });
  }
});
