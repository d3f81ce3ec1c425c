import { fromWallClock, wallClock } from "../time-zone.js";

/** When weekly digests are due: Monday at 09:00 in the workspace's time zone (DIGEST_TIME_ZONE). */

const DAY_MS = 24 * 60 * 60 * 1000;
const DIGEST_HOUR = 9;

/**
 * The latest Monday 09:00 in the zone at or before `now`: when it was, and its week (the Monday's date,
 * which names the digest of that week).
 */
export function latestDigestTime(now: Date, timeZone: string): { at: Date; week: string } {
  const today = wallClock(now, timeZone);
  const date = Date.UTC(today.year, today.month - 1, today.day);
  // getUTCDay: 0 is Sunday; days since Monday.
  let monday = date - ((new Date(date).getUTCDay() + 6) % 7) * DAY_MS;
  let at = digestTimeOn(monday, timeZone);
  if (at > now.getTime()) {
    monday -= 7 * DAY_MS;
    at = digestTimeOn(monday, timeZone);
  }
  return { at: new Date(at), week: new Date(monday).toISOString().slice(0, 10) };
}

/**
 * The first Monday 09:00 in the zone after `now`: a day after the latest one, its next (a Tuesday is
 * past Monday 09:00 whatever a zone's change of hour).
 */
export function nextDigestTime(now: Date, timeZone: string): Date {
  const latest = latestDigestTime(now, timeZone).at;
  return latestDigestTime(new Date(latest.getTime() + 8 * DAY_MS), timeZone).at;
}

/** 09:00 on that date in the zone (no zone skips 09:00; if one did, the hour after). */
function digestTimeOn(date: number, timeZone: string): number {
  const d = new Date(date);
  const wall = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), minute: 0 };
  const at =
    fromWallClock({ ...wall, hour: DIGEST_HOUR }, timeZone) ??
    fromWallClock({ ...wall, hour: DIGEST_HOUR + 1 }, timeZone);
  return (at as Date).getTime();
}
