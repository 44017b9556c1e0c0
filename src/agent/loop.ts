import { ToolFailure } from "../core/errors.ts";
import type { Profile, ToolCall } from "../core/profile.ts";
import type { CallOutcome, Runtime } from "../core/runtime.ts";
import { isProviderError, ProviderError } from "./errors.ts";
import { argumentsObject } from "./http.ts";
import type { ModelTurn, Provider, StreamHandlers } from "./provider.ts";
import { toolEntryOf } from "./tool-results.ts";
import {
  type AssistantEntry,
  type ImagePart,
  type TokenUsage,
  type ToolEntry,
  type TranscriptEntry,
  type TranscriptToolCall,
  totalUsage,
  unansweredToolCalls,
} from "./transcript.ts";

export const DEFAULT_MAX_ITERATIONS = 30;

export type AgentStopReason =
  /** The model answered without calling a tool: it considers the task done. */
  | "done"
  /** The model called tools on every one of its allowed turns. */
  | "max_iterations"
  /** The person pressed stop. */
  | "stopped"
  /** The provider failed; `error` says how and what to do next. */
  | "error";

export interface AgentHandlers extends StreamHandlers {
  /** Every entry as it joins the transcript (the task, each answer, each tool result). */
  onEntry?(entry: TranscriptEntry): void;
  /** A model turn is about to be requested (1-based, counted within this run). */
  onTurnStart?(iteration: number): void;
  /** A tool call went through the runtime (approvals included); its outcome as the UI wants it. */
  onToolOutcome?(outcome: CallOutcome, entry: ToolEntry): void;
}

export interface AgentOptions {
  runtime: Runtime;
  /** The profile whose tools the model gets. */
  profile: string;
  /** Only these of the profile's tools go to the model (a lesson's subset); all of them when absent. */
  tools?: readonly string[];
  provider: Provider;
  /** The person's request; may be left out to continue an earlier transcript. */
  task?: string;
  images?: ImagePart[];
  /** An earlier conversation to continue (not changed; the result holds the new one). */
  transcript?: readonly TranscriptEntry[];
  /** Replaces the default system prompt (used only when the transcript has none yet). */
  system?: string;
  /** Model turns allowed in this run; default 30. */
  maxIterations?: number;
  /** How a call reaches the runtime; `runtime.invoke` by default (the worker adds its log flush). */
  invoke?: (profile: string, call: ToolCall) => Promise<CallOutcome>;
  /** Stop: the current stream is cut, the current tool call finishes, later ones are not run. */
  signal?: AbortSignal;
  handlers?: AgentHandlers;
}

export interface AgentResult {
  transcript: TranscriptEntry[];
  stopReason: AgentStopReason;
  /** Model turns requested in this run. */
  iterations: number;
  /** Per model turn of this run (null when the provider reported none), and their sum. */
  usage: { turns: (TokenUsage | null)[]; total: TokenUsage };
  /** The last answer's text. */
  finalText: string;
  error?: ProviderError;
}

/** The default system prompt: what the agent is, where it works, and when it is done. */
export function defaultSystemPrompt(profile: Profile): string {
  return [
    `You are a coding agent. You work in a sandboxed workspace (a folder of files with a shell) only through the tools of the ${profile.title} tool API (profile "${profile.name}").`,
    "Paths are relative to the workspace root. Look before you change anything, make the smallest change that does the task, and check your work (run the tests when there are any).",
    "When the task is done, answer with a short summary of what you changed and why, without calling a tool.",
  ].join("\n");
}

const STOPPED_RESULT = "Not run: the person stopped the agent before this call.";
const INTERRUPTED_RESULT =
  "No result: the run ended before this call's result was recorded (it was stopped, or the page's worker restarted). Check the workspace before trying again.";

/**
 * The agent loop: ask the model, run the tools it calls through the runtime (validation, guards,
 * approvals and the event log included), give it the results, until it answers without a tool
 * call, hits the turn limit, is stopped, or the provider fails. It never throws for a provider's
 * failure or a malformed answer: the result says what happened, and the transcript stays one that
 * every provider accepts (every tool call answered).
 */
export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const { runtime, provider, signal, handlers = {} } = options;
  const invoke = options.invoke ?? ((name: string, call: ToolCall) => runtime.invoke(name, call));
  const fullProfile = runtime.profile(options.profile);
  const allowed = options.tools;
  const profile: Profile = allowed
    ? { ...fullProfile, tools: fullProfile.tools.filter((tool) => allowed.includes(tool.name)) }
    : fullProfile;
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const transcript: TranscriptEntry[] = [...(options.transcript ?? [])];
  const turns: (TokenUsage | null)[] = [];
  const append = (entry: TranscriptEntry) => {
    transcript.push(entry);
    handlers.onEntry?.(entry);
  };

  if (transcript[0]?.role !== "system") {
    const entry: TranscriptEntry = { role: "system", text: options.system ?? defaultSystemPrompt(profile) };
    transcript.unshift(entry);
    handlers.onEntry?.(entry);
  }
  runtime.events.emit("agent_started", {
    data: {
      profile: profile.name,
      provider: provider.kind,
      model: provider.model,
      max_iterations: maxIterations,
    },
  });
  // An earlier run that ended oddly may have left calls unanswered; providers refuse that.
  for (const call of unansweredToolCalls(transcript)) append(notRunEntry(call, profile, INTERRUPTED_RESULT));
  if (options.task !== undefined) {
    append({
      role: "user",
      text: options.task,
      ...(options.images?.length ? { images: options.images } : {}),
    });
    runtime.events.emit("agent_message", { data: { role: "user", text: options.task } });
  } else if (transcript.at(-1)?.role === "assistant") {
    append({ role: "user", text: "Continue." });
  }

  let iterations = 0;
  /** Turns in a row the output limit cut inside a tool call. */
  let cutTurns = 0;
  const finish = (stopReason: AgentStopReason, error?: ProviderError): AgentResult => {
    const total = sumUsage(turns);
    runtime.events.emit("agent_finished", {
      data: {
        stop_reason: stopReason,
        iterations,
        usage: total,
        conversation_usage: totalUsage(transcript),
        ...(error ? { error: error.toJSON() } : {}),
      },
    });
    const lastAnswer = transcript.findLast((entry) => entry.role === "assistant");
    return {
      transcript,
      stopReason,
      iterations,
      usage: { turns, total },
      finalText: lastAnswer?.role === "assistant" ? lastAnswer.text : "",
      ...(error ? { error } : {}),
    };
  };

  while (true) {
    if (signal?.aborted) return finish("stopped");
    if (iterations >= maxIterations) return finish("max_iterations");
    iterations++;
    handlers.onTurnStart?.(iterations);

    let turn: ModelTurn;
    try {
      turn = await provider.stream(
        {
          system: transcript[0]?.role === "system" ? transcript[0].text : "",
          messages: transcript.slice(1),
          profile,
          ...(signal ? { signal } : {}),
        },
        handlers,
      );
    } catch (thrown) {
      const error = isProviderError(thrown)
        ? thrown
        : new ProviderError({
            kind: "bad_response",
            message: `The answer could not be read: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
          });
      turns.push(null);
      // Text already shown to the person stays in the conversation, marked as cut short.
      if (error.partialText) {
        append({ role: "assistant", text: error.partialText, toolCalls: [], incomplete: true });
      }
      if (error.kind === "stopped" || signal?.aborted) return finish("stopped");
      runtime.events.emit("agent_error", { data: { during: "model", ...error.toJSON() } });
      return finish("error", error);
    }

    turns.push(turn.usage);
    const answer: AssistantEntry = {
      role: "assistant",
      text: turn.text,
      toolCalls: turn.toolCalls,
      finish: turn.finish,
      ...(turn.usage ? { usage: turn.usage } : {}),
    };
    append(answer);
    runtime.events.emit("agent_message", {
      data: {
        role: "assistant",
        text: turn.text,
        tool_calls: turn.toolCalls.map((call) => ({
          id: call.id,
          name: call.name,
          arguments: call.arguments,
        })),
        finish: turn.finish,
        usage: turn.usage,
        iteration: iterations,
      },
    });
    if (turn.toolCalls.length === 0) return finish("done");

    // The output limit cut the turn inside a call: its arguments are unfinished, and saying they
    // are "not valid JSON" would send the model round the same cut again.
    const cut =
      turn.finish === "length" &&
      turn.toolCalls.some((call) => argumentsObject(call.arguments) === undefined);
    for (const call of turn.toolCalls) {
      if (signal?.aborted) {
        append(notRunEntry(call, profile, STOPPED_RESULT));
        continue;
      }
      if (cut) {
        append(failureEntry(call, profile, outputLimitFailure(call)));
        continue;
      }
      append(await runToolCall(runtime, profile, call, handlers, invoke));
    }
    cutTurns = cut ? cutTurns + 1 : 0;
    if (cutTurns >= 2) {
      const error = new ProviderError({
        kind: "bad_response",
        message: `The model's output hit the token limit inside a tool call twice in a row, so the run stopped instead of asking again. Raise max tokens in the agent settings, or ask for smaller steps (a large file in parts), then press Continue.`,
      });
      runtime.events.emit("agent_error", { data: { during: "model", ...error.toJSON() } });
      return finish("error", error);
    }
  }
}

/** What the model is told of a call its output limit cut short. */
function outputLimitFailure(call: TranscriptToolCall): ToolFailure {
  return new ToolFailure(
    "invalid_params",
    `Your output hit the token limit (max_tokens) while writing this call to ${call.name}, so its arguments are cut short and it was not run. Send it again in a shorter form: split the work into smaller calls (a large file in parts, a patch per file).`,
    { reason: "output_token_limit", received_chars: call.arguments.length },
  );
}

/** One tool call the model asked for: checked here for what the runtime cannot see, then run by it. */
async function runToolCall(
  runtime: Runtime,
  profile: Profile,
  call: TranscriptToolCall,
  handlers: AgentHandlers,
  invoke: (profile: string, call: ToolCall) => Promise<CallOutcome>,
): Promise<ToolEntry> {
  const problem = malformedCall(runtime, profile, call);
  if (problem) {
    runtime.events.emit("agent_error", {
      tool: call.name,
      data: { during: "tool_call", kind: problem.code, call_id: call.id, message: problem.message },
    });
    return failureEntry(call, profile, problem);
  }
  let outcome: CallOutcome;
  try {
    outcome = await invoke(profile.name, {
      tool: call.name,
      params: argumentsObject(call.arguments)!,
    });
  } catch (error) {
    // The runtime turns every tool failure into an envelope; this is a bug, still not a crash.
    const message = error instanceof Error ? error.message : String(error);
    return failureEntry(call, profile, new ToolFailure("internal_error", `The call failed: ${message}`));
  }
  const entry = toolEntryOf(call, outcome);
  handlers.onToolOutcome?.(outcome, entry);
  return entry;
}

/** What is wrong with a call before it can reach the runtime: no such tool here, or arguments that are not an object. */
function malformedCall(
  runtime: Runtime,
  profile: Profile,
  call: TranscriptToolCall,
): ToolFailure | undefined {
  const valid = profile.tools.map((tool) => tool.name);
  if (!valid.includes(call.name)) {
    const elsewhere = runtime
      .listProfiles()
      .filter((other) => other.name !== profile.name && other.tools.some((tool) => tool.name === call.name))
      .map((other) => other.name);
    const belongs =
      elsewhere.length > 0 ? ` It belongs to the ${elsewhere.join(", ")} profile, not this one.` : "";
    return new ToolFailure(
      "unknown_tool",
      `There is no tool "${call.name}" in the ${profile.name} profile.${belongs} Valid tools: ${valid.join(", ")}. The call was not run.`,
      { valid_tools: valid },
    );
  }
  if (argumentsObject(call.arguments) === undefined) {
    let reason = "they are not a JSON object";
    try {
      JSON.parse(call.arguments);
    } catch (error) {
      reason = `they are not valid JSON (${error instanceof Error ? error.message : String(error)})`;
    }
    const shown = call.arguments.length > 200 ? `${call.arguments.slice(0, 200)}…` : call.arguments;
    return new ToolFailure(
      "invalid_params",
      `The arguments of ${call.name} could not be read: ${reason}. Received: ${shown}. Send one JSON object of named parameters; the call was not run. Valid tools: ${valid.join(", ")}.`,
      { valid_tools: valid },
    );
  }
  return undefined;
}

/** A result the model reads, in its own dialect's error envelope, for a call the runtime never ran. */
function failureEntry(call: TranscriptToolCall, profile: Profile, failure: ToolFailure): ToolEntry {
  const now = new Date();
  const envelope = profile.envelope.failure(
    { requestId: call.id, tool: call.name, params: {}, step: 0, startedAt: now, endedAt: now },
    failure,
  );
  return { role: "tool", callId: call.id, tool: call.name, content: JSON.stringify(envelope), isError: true };
}

function notRunEntry(call: TranscriptToolCall, profile: Profile, message: string): ToolEntry {
  return failureEntry(call, profile, new ToolFailure("tool_not_allowed", message));
}

function sumUsage(turns: readonly (TokenUsage | null)[]): TokenUsage {
  const total: TokenUsage = { input: 0, output: 0 };
  for (const usage of turns) {
    if (!usage) continue;
    total.input += usage.input;
    total.output += usage.output;
  }
  return total;
}
