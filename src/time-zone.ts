/**
 * Wall clocks in IANA time zones, from the platform's time-zone data (Intl): what a clock in a zone
 * shows at an instant, the first instant at which it shows a given time (daylight saving time
 * included), and a zone's name as typed read as Intl spells it. Used by timed pauses, freeze windows and
 * weekly digests.
 */

/** What a clock shows, to the minute (month 1 to 12). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** What a clock in `zone` shows at `at`. */
export function wallClock(at: Date, zone: string): WallClock {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    formatters.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
  };
}

/** The first instant at which a clock in `zone` shows `wall`, or null if it never does (a DST gap). */
export function fromWallClock(wall: WallClock, zone: string): Date | null {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  // The zone's offsets a day either side cover every offset it can have around that time.
  const offsets = new Set([offsetAt(asUtc - 86_400_000, zone), offsetAt(asUtc + 86_400_000, zone)]);
  const candidates = [...offsets]
    .map((offset) => asUtc - offset)
    .filter((t) => sameWall(wallClock(new Date(t), zone), wall))
    .sort((a, b) => a - b);
  return candidates.length ? new Date(candidates[0] as number) : null;
}

/** The zone's offset from UTC at an instant, ms. */
function offsetAt(t: number, zone: string): number {
  const w = wallClock(new Date(t), zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  return asUtc - Math.floor(t / 60_000) * 60_000;
}

function sameWall(a: WallClock, b: WallClock): boolean {
  return (
    a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute
  );
}

/** The zone's IANA name as `Intl` spells it ("europe/paris" → "Europe/Paris"), or null if unknown. */
export function canonicalZone(zone: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
