import type { ResolvedCommandContext } from "just-bash";

/**
 * The shell's time zone, as its `date` reads it: $TZ when it names a zone, else UTC (the sandbox has
 * no system zone; the host's, a browser user's, is not the shell's). stat and ls -l print times in it.
 */
export function shellZone(ctx: ResolvedCommandContext): string {
  const zone = ctx.env.get("TZ");
  return zone && validZone(zone) ? zone : "UTC";
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone offset ("+0100") and local fields of an instant in a time zone. */
export function zoned(date: Date, zone: string): { fields: string; offset: string } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "00";
  const year = Number(part("year"));
  const local = Date.UTC(
    year,
    Number(part("month")) - 1,
    Number(part("day")),
    Number(part("hour")),
    Number(part("minute")),
    Number(part("second")),
  );
  const minutes = Math.round((local - Math.floor(date.getTime() / 1000) * 1000) / 60000);
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
  const fields = `${String(year).padStart(4, "0")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}:${part("second")}`;
  return { fields, offset };
}
