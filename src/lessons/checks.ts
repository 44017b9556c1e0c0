import type { ToolEvent } from "../core/events.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { lessonCalls } from "./controls.ts";
import type { Lesson, LessonCheck } from "./lesson.ts";

export interface CheckResult {
  id: string;
  title: string;
  passed: boolean;
  /** What was found, in a sentence, so a failing check says what to look at. */
  detail: string;
}

const COMMAND_CHECK_TIMEOUT_MS = 60_000;

async function readText(sandbox: Sandbox, path: string): Promise<string | null> {
  try {
    return new TextDecoder().decode(
      await sandbox.readFile(`${sandbox.workspaceRoot}/${path.replace(/^\.?\/+/u, "")}`),
    );
  } catch {
    return null;
  }
}

function expectedStart(lesson: Lesson, path: string): string | null {
  const value = lesson.files[path];
  return typeof value === "string" ? value : null;
}

/** Runs one check against the workspace and the lesson's events (those since the last Reset). */
export async function runCheck(
  check: LessonCheck,
  lesson: Lesson,
  sandbox: Sandbox,
  events: readonly ToolEvent[],
): Promise<CheckResult> {
  const result = (passed: boolean, detail: string): CheckResult => ({
    id: check.id,
    title: check.title,
    passed,
    detail,
  });
  const finished = events.filter((event) => event.type === "tool_call_finished");
  const started = events.filter((event) => event.type === "tool_call_started");
  switch (check.kind) {
    case "file_contains": {
      const text = await readText(sandbox, check.path);
      if (text === null) return result(false, `${check.path} does not exist.`);
      return text.includes(check.text)
        ? result(true, `${check.path} contains it.`)
        : result(false, `${check.path} does not have what this check looks for yet.`);
    }
    case "file_matches": {
      const text = await readText(sandbox, check.path);
      if (text === null) return result(false, `${check.path} does not exist.`);
      return new RegExp(check.pattern, "mu").test(text)
        ? result(true, `${check.path} matches.`)
        : result(false, `${check.path} does not match yet.`);
    }
    case "file_equals": {
      const text = await readText(sandbox, check.path);
      if (text === null) return result(false, `${check.path} does not exist.`);
      return text === check.content
        ? result(true, `${check.path} is as expected.`)
        : result(false, `${check.path} is not as expected yet.`);
    }
    case "file_unchanged": {
      const text = await readText(sandbox, check.path);
      return text === expectedStart(lesson, check.path)
        ? result(true, `${check.path} is untouched.`)
        : result(false, `${check.path} was changed; Reset restores it.`);
    }
    case "file_absent": {
      const text = await readText(sandbox, check.path);
      return text === null
        ? result(true, `${check.path} is gone.`)
        : result(false, `${check.path} still exists.`);
    }
    case "command_succeeds": {
      const run = await sandbox.exec(check.command, { timeoutMs: COMMAND_CHECK_TIMEOUT_MS });
      if (run.timedOut) return result(false, `\`${check.command}\` did not finish in time.`);
      if (run.exitCode !== 0) return result(false, `\`${check.command}\` exits with ${run.exitCode}.`);
      if (check.stdoutEquals !== undefined && run.stdout !== check.stdoutEquals) {
        return result(
          false,
          `\`${check.command}\` prints ${JSON.stringify(run.stdout.slice(0, 200))}, which is not what this check expects.`,
        );
      }
      if (check.stdoutContains && !run.stdout.includes(check.stdoutContains)) {
        return result(false, `\`${check.command}\` does not print what this check expects yet.`);
      }
      return result(true, `\`${check.command}\` succeeds.`);
    }
    case "tool_used": {
      const startOf = new Map(started.map((event) => [event.request_id, event]));
      const count = finished.filter((event) => {
        const start = startOf.get(event.request_id);
        const params = (start?.params ?? {}) as Record<string, unknown>;
        return (
          event.tool === check.tool &&
          (check.status === undefined || event.status === check.status) &&
          (check.profile === undefined ||
            (start?.data as { profile?: string } | undefined)?.profile === check.profile) &&
          (check.withParams ?? []).every((name) => params[name] !== undefined && params[name] !== null)
        );
      }).length;

      const min = check.min ?? 1;
      if (count < min)
        return result(
          false,
          `${check.tool} was used ${count} time${count === 1 ? "" : "s"}; at least ${min} expected.`,
        );
      if (check.max !== undefined && count > check.max)
        return result(false, `${check.tool} was used ${count} times; at most ${check.max} allowed.`);
      return result(true, `${check.tool} was used ${count} time${count === 1 ? "" : "s"}.`);
    }
    case "changed_with": {
      const changes = events.filter(
        (event) =>
          event.type === "file_changed" && (event.data as { path?: string } | undefined)?.path === check.path,
      );
      if (changes.length === 0) return result(false, `${check.path} has not been changed by any call yet.`);
      const others = changes.filter((event) => !check.tools.includes(event.tool ?? ""));
      if (others.length > 0)
        return result(
          false,
          `${check.path} was changed with ${[...new Set(others.map((event) => event.tool))].join(", ")}, not ${check.tools.join(" or ")}.`,
        );
      return result(true, `${check.path} was changed with ${check.tools.join(" or ")}.`);
    }
    case "call_count": {
      const calls = lessonCalls(events);
      return calls.length <= check.max
        ? result(true, `${calls.length} call${calls.length === 1 ? "" : "s"} so far (at most ${check.max}).`)
        : result(false, `${calls.length} calls; the lesson asks for at most ${check.max}.`);
    }
  }
}

/** Every check of the lesson, in order. */
export async function runChecks(
  lesson: Lesson,
  sandbox: Sandbox,
  events: readonly ToolEvent[],
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of lesson.checks) results.push(await runCheck(check, lesson, sandbox, events));
  return results;
}
