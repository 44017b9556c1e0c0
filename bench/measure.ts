/**
 * Median wall time of `runs` runs after `warmup` unmeasured ones (ms). With `timed`, each run
 * returns its own time (to leave its set-up out).
 */
export async function medianMs(run: () => unknown, runs = 5, warmup = 1, timed = false): Promise<number> {
  for (let i = 0; i < warmup; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const own = await run();
    times.push(timed ? (own as number) : performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Whether a native command exists on this machine. */
export async function hasCommand(name: string): Promise<boolean> {
  const { spawnSync } = await import("node:child_process");
  return spawnSync("sh", ["-c", `command -v ${name}`]).status === 0;
}
