/**
 * Generates the built-in demo sessions (src/session/demos/*.json): each scenario's scripted model
 * runs through the real agent loop and runtime, the session is replayed on a fresh runtime, and it
 * is written only if the replay matches with zero divergences.
 *
 *   npx tsx scripts/make-demo-sessions.ts          write the files
 *   npx tsx scripts/make-demo-sessions.ts --check  fail if a file is missing or no longer replays
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { registerNodeAssets } from "../src/host/node-assets.ts";
import { recordScenario, steppingClock } from "../src/session/demos/record-scenario.ts";
import { SCENARIOS } from "../src/session/demos/scenarios.ts";
import { exportSession } from "../src/session/export.ts";
import { parseSession } from "../src/session/format.ts";
import { replaySession } from "../src/session/replay.ts";
import { projectFiles } from "../src/test-support/project-files.ts";

const here = dirname(fileURLToPath(import.meta.url));
const demosDir = join(here, "..", "src", "session", "demos");

async function main(check: boolean): Promise<number> {
  // The Python demo runs python3 on the embedded CPython.
  registerNodeAssets();
  let failures = 0;
  for (const scenario of SCENARIOS) {
    const file = join(demosDir, `${scenario.id}.json`);
    if (check) {
      const session = parseSession(await readFile(file, "utf8"));
      const report = await replaySession(session);
      console.log(`${scenario.id}: ${report.summary}`);
      if (report.diverged > 0) failures++;
      continue;
    }
    const { session, result } = await recordScenario(scenario, {
      ...(scenario.fixture ? { files: projectFiles(scenario.fixture) } : {}),
      clock: steppingClock(),
      now: () => new Date("2026-01-01T09:00:00.000Z"),
    });
    session.meta.demo = true;
    if (result.stopReason !== "done") {
      console.error(`${scenario.id}: the scripted agent stopped with "${result.stopReason}"; not written.`);
      failures++;
      continue;
    }
    const report = await replaySession(session);
    if (report.diverged > 0) {
      console.error(`${scenario.id}: ${report.summary}\nNot written.`);
      failures++;
      continue;
    }
    const { text, redactions } = exportSession(session, { pretty: true });
    if (redactions.length > 0) {
      console.error(`${scenario.id}: redacted ${JSON.stringify(redactions)}; not written.`);
      failures++;
      continue;
    }
    await writeFile(file, `${text}\n`);
    console.log(`${scenario.id}: ${report.steps.length} calls, replayed with zero divergences → ${file}`);
  }
  return failures === 0 ? 0 : 1;
}

main(process.argv.includes("--check")).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
