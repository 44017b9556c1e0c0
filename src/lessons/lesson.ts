import type { SerializedWorkspace } from "../sandbox/snapshot.ts";
import { LESSON_VALIDATORS } from "./lesson-validator.generated.ts";

/**
 * A lesson: a task a learner solves by calling tools by hand (or hands to an LLM), with checks
 * that say when it is done. A lesson is a file (JSON); teachers author, export and share it.
 */
export interface Lesson {
  format: "toolroom-lesson";
  version: 1;
  id: string;
  title: string;
  /** Markdown, rendered as text elements (never as HTML). */
  instructions: string;
  /** The dialects and tools the learner may use; the first profile is the default one. */
  profiles: LessonProfile[];
  /** Starting files. */
  files: SerializedWorkspace["files"];
  /** One at a time, in order. */
  hints: string[];
  /** The end state of the files a correct solution reaches, shown by "Show solution". */
  solution?: { files: Record<string, string>; explanation?: string };
  controls?: LessonControls;
  /** Start as a git repository: the files committed with `message`, then `uncommitted` written on top. */
  repository?: { message: string; uncommitted?: Record<string, string> };
  checks: LessonCheck[];
}

export interface LessonProfile {
  profile: string;
  /** The subset of the profile's tools the learner may call. */
  tools: string[];
}

/** What the teacher allows; enforced by the runtime's guards, not only hidden in the UI. */
export interface LessonControls {
  /** Shell commands a command tool may run: each is a prefix ("npm test") or /regex/. None: any. */
  allowedCommands?: string[];
  /** Globs of workspace paths no call may change (checked on what each call really changed). */
  readOnlyPaths?: string[];
  /** At most this many tool calls in the lesson. */
  maxCalls?: number;
}

/** One thing the lesson checks, in the teacher's words: `title` is what the learner sees. */
export type LessonCheck = { id: string; title: string } & (
  | { kind: "file_contains"; path: string; text: string }
  | { kind: "file_matches"; path: string; pattern: string }
  | { kind: "file_equals"; path: string; content: string }
  | { kind: "file_unchanged"; path: string }
  | { kind: "file_absent"; path: string }
  | { kind: "command_succeeds"; command: string; stdoutContains?: string; stdoutEquals?: string }
  | {
      kind: "tool_used";
      tool: string;
      profile?: string;
      min?: number;
      max?: number;
      status?: "success" | "error";
      /** Only calls that gave these params a value count ("read_file with a line range"). */
      withParams?: string[];
    }
  | { kind: "changed_with"; path: string; tools: string[] }
  | { kind: "call_count"; max: number }
);

const checkKinds = [
  "file_contains",
  "file_matches",
  "file_equals",
  "file_unchanged",
  "file_absent",
  "command_succeeds",
  "tool_used",
  "changed_with",
  "call_count",
];

/** A lesson file's shape; its validator is made ahead (lesson-validator.generated.ts, kept current by lesson.test.ts). */
export const LESSON_SCHEMA = {
  type: "object",
  required: ["format", "version", "id", "title", "instructions", "profiles", "files", "hints", "checks"],
  properties: {
    format: { const: "toolroom-lesson" },
    version: { const: 1 },
    id: { type: "string", pattern: "^[a-z0-9][a-z0-9-]*$" },
    title: { type: "string", minLength: 1 },
    instructions: { type: "string" },
    profiles: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["profile", "tools"],
        properties: {
          profile: { type: "string" },
          tools: { type: "array", items: { type: "string" }, minItems: 1 },
        },
      },
    },
    files: { type: "object" },
    hints: { type: "array", items: { type: "string" } },
    solution: { type: "object", required: ["files"], properties: { files: { type: "object" } } },
    repository: {
      type: "object",
      required: ["message"],
      properties: { message: { type: "string", minLength: 1 }, uncommitted: { type: "object" } },
      additionalProperties: false,
    },

    controls: {
      type: "object",
      properties: {
        allowedCommands: { type: "array", items: { type: "string" } },
        readOnlyPaths: { type: "array", items: { type: "string" } },
        maxCalls: { type: "integer", minimum: 1 },
      },
      additionalProperties: false,
    },
    checks: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["id", "title", "kind"],
        properties: { id: { type: "string" }, title: { type: "string" }, kind: { enum: checkKinds } },
      },
    },
  },
} as const;

/** Parses and checks a lesson file; the error says what is wrong and where. */
export function parseLesson(text: string): Lesson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`This lesson file is not JSON: ${(error as Error).message}`);
  }
  return checkLesson(value);
}

export function checkLesson(value: unknown): Lesson {
  if (
    typeof value === "object" &&
    value !== null &&
    (value as { format?: unknown }).format !== "toolroom-lesson"
  ) {
    throw new Error('This is not a Toolroom lesson (its "format" is not "toolroom-lesson").');
  }
  const validate = LESSON_VALIDATORS.lessonValidator!;
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map(
      (error) => `${error.instancePath || "lesson"} ${error.message}`,
    );
    throw new Error(`This lesson file is invalid: ${[...new Set(problems)].join("; ")}.`);
  }
  const lesson = value as unknown as Lesson;
  const ids = new Set<string>();
  for (const check of lesson.checks) {
    if (ids.has(check.id))
      throw new Error(`This lesson file is invalid: two checks have the id "${check.id}".`);
    ids.add(check.id);
  }
  return lesson;
}

export function serializeLesson(lesson: Lesson): string {
  return `${JSON.stringify(lesson, null, 2)}\n`;
}
