import { inflateSync, strFromU8 } from "fflate";
import { afterEach, describe, expect, it } from "vitest";
import type { ProviderSettings } from "../agent/provider.ts";
import type { WireFormat } from "../agent/testing/scripted-model.ts";
import { type ScriptedServer, startScriptedServer } from "../agent/testing/scripted-server.ts";
import { base64ToBytes } from "../sandbox/snapshot.ts";
import { projectFiles } from "../test-support/project-files.ts";
import { recordScenario } from "./demos/record-scenario.ts";
import { FIX_FAILING_TEST } from "./demos/scenarios.ts";
import { exportSession } from "./export.ts";
import { parseSession } from "./format.ts";
import { replaySession } from "./replay.ts";
import { loadSessionFromUrl, shareSession } from "./share.ts";

const KEYS: Record<WireFormat, string> = {
  openai: "sk-proj-e2eTestKey_0123456789abcdefABCDEF",
  anthropic: "sk-ant-api03-e2eTestKey_0123456789abcdefABCDEF",
};

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Everything a link carries, decoded back to text, to search it for the key. */
function decodedLink(url: string): string {
  const value = new URLSearchParams(new URL(url).hash.slice(1)).get("s")!;
  const base64 = value.replace(/-/gu, "+").replace(/_/gu, "/");
  return strFromU8(inflateSync(base64ToBytes(base64 + "=".repeat((4 - (base64.length % 4)) % 4))));
}

describe.each(["openai", "anthropic"] as WireFormat[])(
  "an agent fixes a failing test over %s streaming",
  (format) => {
    it("fixes it, and the run exports, imports, shares and replays with zero divergences, never holding the key", async () => {
      const key = KEYS[format];
      const server = await startScriptedServer({ format, script: FIX_FAILING_TEST.replies, requireKey: key });
      servers.push(server);
      const settings: ProviderSettings = {
        kind: format,
        baseUrl: server.baseUrl,
        apiKey: key,
        model: "scripted",
      };
      let streamed = "";
      const files = projectFiles(FIX_FAILING_TEST.fixture!);
      const { session, result, runtime } = await recordScenario(FIX_FAILING_TEST, {
        files,
        settings,
        fetch: globalThis.fetch,
        handlers: { onText: (delta) => (streamed += delta) },
      });

      // The agent did the work, through the runtime, and the tests pass now.
      expect(result.stopReason).toBe("done");
      expect(result.iterations).toBe(5);
      const check = await runtime.sandbox.exec("npm test");
      expect(check.exitCode).toBe(0);
      expect(check.stdout).toMatch(/# tests 5\n# suites 1\n# pass 5\n# fail 0\n/u);
      expect(streamed).toContain("Let me run the tests first.");
      expect(result.usage.total.input).toBeGreaterThan(0);
      expect(result.usage.total.output).toBe(100);

      // The model was sent the failing test's envelope, as compact JSON, as the result of its call.
      const second = JSON.stringify(server.requests[1]!.body.messages);
      expect(second).toContain('\\"error_type\\":\\"abnormal_exit\\"');
      expect(second).toContain("not ok 3 - counts quantities in the total");
      expect(second).toContain("125 !== 225");
      expect(server.requests).toHaveLength(5);

      // The session: initial workspace, events of every call, the conversation; no key anywhere.
      expect(session.workspace.files).toEqual(files);
      expect(session.events.filter((event) => event.type === "tool_call_finished")).toHaveLength(4);
      expect(session.transcript.map((entry) => entry.role).join(" ")).toBe(
        "system user assistant tool assistant tool assistant tool assistant tool assistant",
      );
      expect(session.meta.agent).toEqual({
        provider: format,
        model: "scripted",
        baseUrl: server.baseUrl,
        stopReason: "done",
        iterations: 5,
        usage: result.usage.total,
      });
      expect(JSON.stringify(session)).not.toContain(key);

      const exported = exportSession(session, { secrets: [key] });
      expect(exported.redactions).toEqual([]);
      expect(exported.text).not.toContain(key);
      const imported = parseSession(exported.text);
      expect(imported).toEqual(session);

      const report = await replaySession(imported);
      expect(report.summary).toBe("All 4 replayed steps matched the recording.");

      const shared = shareSession(imported, "https://toolroom.test/", { secrets: [key] });
      if (shared.kind !== "link") throw new Error(`expected a link: ${shared.reason}`);
      expect(shared.url).not.toContain(key);
      expect(decodedLink(shared.url)).not.toContain(key);
      expect(decodedLink(shared.url)).not.toMatch(/sk-(ant-|proj-)/u);
      const reopened = await loadSessionFromUrl(shared.url);
      expect(reopened).toEqual(session);
      expect((await replaySession(reopened!)).diverged).toBe(0);
    });
  },
);
