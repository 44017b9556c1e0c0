/**
 * A child process for write-back-kill.test.ts: writes one call's changes back to a folder and kills
 * itself with SIGKILL just before its Nth change to the disk (KILL_AT=N; 0 runs to the end and
 * prints how many changes it made). The changes come as JSON on argv (file bytes as text). With
 * NO_HARD_LINKS=1 the disk makes no hard links (link() fails EPERM, as on FAT or exFAT).
 */
import { promises } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import type { FileChange } from "../core/checkpoints.ts";

const killAt = Number(process.env.KILL_AT ?? 0);
let made = 0;
const fs = promises as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
for (const name of ["open", "rename", "link", "unlink", "rmdir", "mkdir", "chmod", "symlink", "copyFile"]) {
  const original = fs[name]!;
  fs[name] = (...args: unknown[]) => {
    // Opening to read changes nothing on disk.
    const changes = name !== "open" || /[wax+]/u.test(String(args[1] ?? "r"));
    if (changes && ++made === killAt) process.kill(process.pid, "SIGKILL");
    if (name === "link" && process.env.NO_HARD_LINKS === "1")
      return Promise.reject(
        Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" }),
      );
    return original.apply(promises, args);
  };
}
syncBuiltinESMExports();
const { writeBackChanges } = await import("../cli/host-folder.ts");

const [folder, json] = process.argv.slice(2) as [string, string];
type Entry = FileChange["after"] & { text?: string };
const revive = (entry: Entry | null) =>
  entry?.type === "file" ? { ...entry, data: new TextEncoder().encode(entry.text ?? "") } : entry;
const changes = (JSON.parse(json) as { path: string; before: Entry | null; after: Entry | null }[]).map(
  (change) =>
    ({ path: change.path, before: revive(change.before), after: revive(change.after) }) as FileChange,
);
const report = await writeBackChanges(folder, changes, { caseInsensitive: false });
process.stdout.write(`${JSON.stringify({ made, report })}\n`);
