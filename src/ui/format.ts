/** A person's wait (an approval), in the unit that reads best. */
export function formatWait(seconds: number): string {
  return seconds < 60
    ? `${seconds.toFixed(1)} s`
    : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}
