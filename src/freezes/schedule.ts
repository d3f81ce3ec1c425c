import type { FreezeSchedule, TimeOfDay, Weekday } from "../core/records.js";
import { fromWallClock, type WallClock, wallClock } from "../time-zone.js";

/**
 * Freeze windows (docs/commands.md, "Freeze windows"): when a repository's merge queue is paused by
 * itself, every week, every day, or once. A window is written in wall-clock time in an IANA zone and
 * reckoned again for each occurrence, so daylight-saving changes move nothing (a window at 18:00 in
 * Europe/Paris starts at 18:00 in Paris, summer and winter). The schedule's types are records of the core
 * (src/core/records.ts), which the store keeps.
 */

/** One occurrence of a window, as instants. */
export interface FreezeWindow {
  start: Date;
  end: Date;
}

export const WEEKDAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;

type Day = { year: number; month: number; day: number };

function addDays(d: Day, n: number): Day {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

function weekday(d: Day): Weekday {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() as Weekday;
}

/**
 * The instant a clock in `zone` shows `wall`; a time skipped when the clocks go forward is the instant
 * the clocks jump (its first minute that exists, up to two hours later).
 */
export function instantOf(wall: WallClock, zone: string): Date {
  for (let extra = 0; extra <= 120; extra += 15) {
    const minutes = wall.hour * 60 + wall.minute + extra;
    const day = addDays(wall, Math.floor(minutes / 1440));
    const at = fromWallClock({ ...day, hour: Math.floor((minutes % 1440) / 60), minute: minutes % 60 }, zone);
    if (at) return at;
  }
  // No zone skips more than two hours.
  return new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute));
}

/** Days from a recurring window's start day to its end day. */
function spanDays(schedule: Exclude<FreezeSchedule, { kind: "once" }>): number {
  const { start, end } = schedule;
  const endsLater = end.hour * 60 + end.minute > start.hour * 60 + start.minute;
  if (schedule.kind === "daily") return endsLater ? 0 : 1;
  const days = (schedule.end.day - schedule.start.day + 7) % 7;
  return days === 0 && !endsLater ? 7 : days;
}

/**
 * The window in progress at `at`, or else the next one to start; null when there is none (a one-off
 * window that has ended).
 */
export function windowAt(schedule: FreezeSchedule, zone: string, at: Date): FreezeWindow | null {
  if (schedule.kind === "once") {
    const window = { start: instantOf(schedule.start, zone), end: instantOf(schedule.end, zone) };
    return window.end.getTime() > at.getTime() ? window : null;
  }
  const today = wallClock(at, zone);
  const span = spanDays(schedule);
  // A window in progress started at most `span` days ago; the next one starts within 8 days.
  for (let offset = -span - 1; offset <= 8; offset++) {
    const day = addDays(today, offset);
    if (schedule.kind === "weekly" && weekday(day) !== schedule.start.day) continue;
    const start = instantOf({ ...day, ...pick(schedule.start) }, zone);
    const end = instantOf({ ...addDays(day, span), ...pick(schedule.end) }, zone);
    if (end.getTime() > at.getTime()) return { start, end };
  }
  return null;
}

/**
 * How long a window lasts on the wall clock, in minutes (a daylight-saving change may make one occurrence
 * an hour longer or shorter): what the limits on a window's length read (parse.ts).
 */
export function wallMinutes(schedule: FreezeSchedule): number {
  const of = (t: TimeOfDay) => t.hour * 60 + t.minute;
  if (schedule.kind === "once") {
    const at = (w: WallClock) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) / 60_000;
    return at(schedule.end) - at(schedule.start);
  }
  return spanDays(schedule) * 1440 + of(schedule.end) - of(schedule.start);
}

function pick(t: TimeOfDay): TimeOfDay {
  return { hour: t.hour, minute: t.minute };
}

const pad = (n: number) => String(n).padStart(2, "0");

/** "every fri 18:00 - mon 08:00 Europe/Paris", as `freezes` shows it. */
export function describeSchedule(schedule: FreezeSchedule, zone: string): string {
  const hm = (t: TimeOfDay) => `${pad(t.hour)}:${pad(t.minute)}`;
  const date = (w: WallClock) => `${w.year}-${pad(w.month)}-${pad(w.day)} ${hm(w)}`;
  switch (schedule.kind) {
    case "weekly":
      return `every ${WEEKDAY_NAMES[schedule.start.day]} ${hm(schedule.start)} - ${WEEKDAY_NAMES[schedule.end.day]} ${hm(schedule.end)} ${zone}`;
    case "daily":
      return `every day ${hm(schedule.start)} - ${hm(schedule.end)} ${zone}`;
    case "once":
      return `from ${date(schedule.start)} to ${date(schedule.end)} ${zone}`;
  }
}
