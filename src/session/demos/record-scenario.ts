import { createProvider } from "../../agent/create-provider.ts";
import { type AgentHandlers, type AgentResult, runAgent } from "../../agent/loop.ts";
import type { FetchLike, ProviderSettings } from "../../agent/provider.ts";
import { scriptedFetch, type WireFormat } from "../../agent/testing/scripted-model.ts";
import type { Clock } from "../../core/events.ts";
import type { Runtime } from "../../core/runtime.ts";
import { createEmbeddedRuntime } from "../../host/create-runtime.ts";
import type { SessionFile } from "../format.ts";
import { agentMeta, SessionRecorder } from "../record.ts";
import type { Scenario } from "./scenarios.ts";

/** A clock that starts at `start` and moves `stepMs` each time it is read: repeatable timestamps. */
export function steppingClock(start = "2026-01-01T09:00:00.000Z", stepMs = 137): Clock {
  let time = Date.parse(start);
  return {
    now: () => {
      const now = new Date(time);
      time += stepMs;
      return now;
    },
  };
}

export interface RecordedScenario {
  session: SessionFile;
  result: AgentResult;
  runtime: Runtime;
}

/**
 * Runs a scenario's scripted model through the real agent loop and runtime, recording a session.
 * Without `settings` the model is served in-process (scriptedFetch); with them, from wherever they
 * point (a scripted HTTP server in the tests).
 */
export async function recordScenario(
  scenario: Scenario,
  options: {
    /** The project when the scenario names a fixture folder (read by the Node-side caller). */
    files?: Record<string, string>;
    format?: WireFormat;
    settings?: ProviderSettings;
    fetch?: FetchLike;
    clock?: Clock;
    handlers?: AgentHandlers;
    now?: () => Date;
  } = {},
): Promise<RecordedScenario> {
  const format = options.format ?? "openai";
  const settings: ProviderSettings = options.settings ?? {
    kind: format,
    baseUrl: format === "openai" ? "https://scripted.invalid/v1" : "https://scripted.invalid",
    model: "scripted-demo",
  };
  const fetch = options.fetch ?? scriptedFetch(format, scenario.replies).fetch;
  const files = options.files ?? scenario.files;
  if (!files) throw new Error(`Scenario ${scenario.id} reads its files from ${scenario.fixture}: pass them.`);
  const runtime = await createEmbeddedRuntime({
    files,
    session: `demo-${scenario.id}`,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const recorder = await SessionRecorder.start(runtime, {
    profile: scenario.profile,
    ...(options.now ? { now: options.now } : {}),
  });
  const result = await runAgent({
    runtime,
    profile: scenario.profile,
    provider: createProvider(settings, fetch),
    task: scenario.task,
    ...(options.handlers ? { handlers: options.handlers } : {}),
  });
  const session = recorder.finish({
    transcript: result.transcript,
    meta: {
      title: scenario.title,
      description: scenario.description,
      task: scenario.task,
      agent: agentMeta(settings, {
        stopReason: result.stopReason,
        iterations: result.iterations,
        usage: result.usage.total,
      }),
    },
  });
  return { session, result, runtime };
}
