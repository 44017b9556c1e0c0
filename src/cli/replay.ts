import { readFile } from "node:fs/promises";
import { formatDivergence } from "../session/compare.ts";
import { parseSession, type SessionFile, SessionFormatError } from "../session/format.ts";
import { replaySession } from "../session/replay.ts";
import { loadSessionFromUrl } from "../session/share.ts";

export interface ReplayCommandOptions {
  /** A session file's path, or a share link (anything holding `#s=`). */
  source: string;
  profiles: readonly string[];
  json: boolean;
  output: NodeJS.WritableStream;
}

/** Reads a session from a file, or from a link as the app opens one (#s=… or ?session=https://…). */
async function readSessionSource(source: string, profiles: readonly string[]): Promise<SessionFile> {
  if (!/^https?:\/\//iu.test(source)) return parseSession(await readFile(source, "utf8"), { profiles });
  const session = await loadSessionFromUrl(source, { fetch: (input, init) => fetch(input, init), profiles });
  if (session) return session;
  throw new SessionFormatError(
    ["It holds no session: a share link has #s=…, a link to a session file ?session=https://…."],
    `${source} cannot be opened:`,
  );
}

/**
 * `toolroom replay`: replays a recorded session on a fresh embedded runtime built from its initial
 * workspace and checks every result against the recording. Exit code 0 when all match, 1 when any
 * diverged, so CI can hold a demo (or an agent's run) to what it once did.
 */
export async function runReplay(options: ReplayCommandOptions): Promise<number> {
  const session = await readSessionSource(options.source, options.profiles);
  const report = await replaySession(session);
  if (options.json) {
    const steps = report.steps.map(({ action, verdict, divergences }) => ({
      index: action.index,
      kind: action.kind,
      ...(action.kind === "call"
        ? { tool: action.tool, request_id: action.requestId }
        : { before_step: action.beforeStep }),
      verdict,
      divergences: divergences.map((divergence) => formatDivergence(divergence)),
    }));
    options.output.write(
      `${JSON.stringify({ title: session.meta.title, matched: report.matched, diverged: report.diverged, steps })}\n`,
    );
  } else {
    options.output.write(`${session.meta.title} (${session.profile}, ${report.steps.length} steps)\n`);
    for (const { action, verdict, divergences } of report.steps) {
      const mark = verdict === "match" ? "✓" : verdict === "diverged" ? "✗" : "?";
      const what =
        action.kind === "call"
          ? `${action.tool} ${action.requestId}`
          : `restore before step ${action.beforeStep}`;
      options.output.write(`${mark} ${action.index + 1} ${what}\n`);
      for (const divergence of divergences)
        options.output.write(`${formatDivergence(divergence).replace(/^/gmu, "    ")}\n`);
    }
    options.output.write(`${report.summary.split("\n")[0]}\n`);
  }
  return report.diverged > 0 ? 1 : 0;
}
