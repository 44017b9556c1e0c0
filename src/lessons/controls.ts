import picomatch from "picomatch/posix";
import { ToolFailure } from "../core/errors.ts";
import type { ToolEvent } from "../core/events.ts";
import type { ChangeGuard, Guard, Runtime } from "../core/runtime.ts";
import type { Lesson } from "./lesson.ts";

/** Params through which a command tool receives a shell command, by the name dialects give them. */
const COMMAND_PARAMS = ["command", "cmd"];
/** Shell syntax that runs a second command after an allowed one. */
const CHAINING = /[;&|`\n]|\$\(/u;

/** Whether one command line is allowed: a prefix on a word boundary, or a /regex/ that matches whole. */
export function commandAllowed(command: string, allowed: readonly string[]): boolean {
  const line = command.trim();
  return allowed.some((pattern) => {
    if (pattern.length > 2 && pattern.startsWith("/") && pattern.endsWith("/")) {
      return new RegExp(`^(?:${pattern.slice(1, -1)})$`, "u").test(line);
    }
    if (CHAINING.test(line)) return false;
    return line === pattern || line.startsWith(`${pattern} `);
  });
}

/**
 * The calls a lesson counts among `events`: every call begun, except those its call limit refused
 * (the limit's own "no" is not a call the learner made). The check and the limit count the same way.
 */
export function lessonCalls(events: readonly ToolEvent[]): ToolEvent[] {
  const refused = new Set(
    events
      .filter((event) => event.type === "tool_call_finished" && event.data?.error_code === "limit_exceeded")
      .map((event) => event.request_id),
  );
  return events.filter((event) => event.type === "tool_call_started" && !refused.has(event.request_id));
}

/**
 * Puts a lesson's controls into the runtime as guards: which tools, which commands, which paths
 * stay untouched (checked on what each call really changed, so a shell command or a patch cannot
 * slip past), and how many calls (counted in `lessonEvents`, the events since the lesson began or
 * was reset, as the call_count check counts them). `lift` takes them out again.
 */
export function applyLessonControls(
  runtime: Runtime,
  lesson: Lesson,
  lessonEvents: () => readonly ToolEvent[],
): { lift(): void } {
  const controls = lesson.controls ?? {};

  const guard: Guard = ({ profile, tool, params }) => {
    const allowed = lesson.profiles.find((entry) => entry.profile === profile);
    if (!allowed?.tools.includes(tool.name)) {
      const list = lesson.profiles.map((entry) => `${entry.profile}: ${entry.tools.join(", ")}`).join("; ");
      throw new ToolFailure(
        "tool_not_allowed",
        `This lesson does not allow ${profile} ${tool.name}. Allowed tools — ${list}.`,
        {
          tool: tool.name,
          profile,
        },
      );
    }
    // This call has begun (its tool_call_started is the last one); the calls before it decide.
    const before = lessonCalls(lessonEvents()).length - 1;
    if (controls.maxCalls !== undefined && before >= controls.maxCalls) {
      throw new ToolFailure(
        "limit_exceeded",
        `This lesson allows at most ${controls.maxCalls} tool calls, and ${before} were made; this one was not run. Press Reset to start over.`,
        {
          limit: "max_calls",
          max_calls: controls.maxCalls,
        },
      );
    }
    if (controls.allowedCommands && tool.kind === "command") {
      const lines = [
        ...COMMAND_PARAMS.map((name) => params[name]).filter(
          (value): value is string => typeof value === "string",
        ),
        ...(typeof params.chars === "string"
          ? params.chars.split(/\r?\n|\r/u).filter((line) => line.trim() !== "")
          : []),
      ];
      const refused = lines.find((line) => !commandAllowed(line, controls.allowedCommands!));
      if (refused !== undefined) {
        throw new ToolFailure(
          "command_blocked",
          `This lesson does not allow the command ${JSON.stringify(refused.trim())}. Allowed: ${controls.allowedCommands.join(", ")}.`,
          { command: refused, allowed: controls.allowedCommands },
        );
      }
    }
  };
  const readOnly = (controls.readOnlyPaths ?? []).map((glob) => picomatch(glob, { dot: true }));
  const changeGuard: ChangeGuard = ({ changes }) => {
    const touched = changes.find((change) => readOnly.some((matches) => matches(change.path)));
    if (touched) {
      throw new ToolFailure(
        "read_only_path",
        `${touched.path} is read-only in this lesson; the call was undone.`,
        {
          path: touched.path,
        },
      );
    }
  };
  runtime.guards.push(guard);
  if (readOnly.length > 0) runtime.changeGuards.push(changeGuard);
  return {
    lift() {
      runtime.guards.splice(runtime.guards.indexOf(guard), 1);
      const index = runtime.changeGuards.indexOf(changeGuard);
      if (index !== -1) runtime.changeGuards.splice(index, 1);
    },
  };
}
