/**
 * Sessions and the agent loop: what a replay adds over running the same calls, what the agent loop
 * adds over them (a scripted model served in-process, so the model costs nothing), and how long a
 * share link takes to make and to open. The reference of each is the bare calls on a fresh embedded
 * runtime, measured in the same run. Run alone with `npx tsx bench/session.ts`.
 */
import { pathToFileURL } from "node:url";
import { createProvider } from "../src/agent/create-provider.ts";
import { runAgent } from "../src/agent/loop.ts";
import { scriptedFetch } from "../src/agent/testing/scripted-model.ts";
import { createEmbeddedRuntime } from "../src/host/create-runtime.ts";
import { DEMO_SESSIONS } from "../src/session/demos/index.ts";
import { FIX_FAILING_TEST } from "../src/session/demos/scenarios.ts";
import { replayPlan, replaySession } from "../src/session/replay.ts";
import { decodeShareFragment, shareSession } from "../src/session/share.ts";
import { medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";

const RUNS = 9;

export async function benchSessions(): Promise<BenchRow[]> {
  const session = DEMO_SESSIONS.find((demo) => demo.id === "fix-failing-test")!.session;
  const calls = replayPlan(session).flatMap((action) => (action.kind === "call" ? [action] : []));

  const bareCalls = await medianMs(async () => {
    const runtime = await createEmbeddedRuntime({ files: session.workspace });
    for (const call of calls)
      await runtime.invoke(call.profile, { tool: call.tool, params: structuredClone(call.params) });
  }, RUNS);
  const bare = { name: `the ${calls.length} calls on a fresh runtime`, ms: bareCalls };

  const replay = await medianMs(async () => {
    const report = await replaySession(session);
    if (report.diverged > 0) throw new Error(report.summary);
  }, RUNS);

  const agent = await medianMs(async () => {
    const runtime = await createEmbeddedRuntime({ files: session.workspace });
    const model = scriptedFetch("openai", FIX_FAILING_TEST.replies, { chunkSize: 64 });
    const provider = createProvider(
      { kind: "openai", baseUrl: "https://scripted.invalid/v1", model: "scripted" },
      model.fetch,
    );
    const result = await runAgent({ runtime, profile: "agentbench", provider, task: FIX_FAILING_TEST.task });
    if (result.stopReason !== "done") throw new Error(`The agent stopped: ${result.stopReason}`);
  }, RUNS);

  let url = "";
  const share = await medianMs(() => {
    const shared = shareSession(session, "https://toolroom.example/");
    if (shared.kind !== "link") throw new Error("The demo no longer fits in a link.");
    url = shared.url;
  }, RUNS);
  const open = await medianMs(() => decodeShareFragment(url.slice(url.indexOf("#s=") + 3)), RUNS);

  return [
    { name: "replay fix-failing-test (calls + checks)", ms: replay, reference: bare },
    { name: "agent loop, scripted model (5 turns)", ms: agent, reference: bare },
    {
      name: "make its share link",
      ms: share,
      note: `${(url.length / 1024).toFixed(1)} KB of URL for ${(JSON.stringify(session).length / 1024).toFixed(1)} KB of session`,
    },
    { name: "open its share link (inflate + validate)", ms: open },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("sessions", await benchSessions());
}
