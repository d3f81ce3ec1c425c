import { CommandError, CommandErrorCode } from "../core/errors.js";
import { splitExcept } from "../core/exemptions.js";
import type { FreezeSchedule, TimeOfDay, Weekday } from "../core/records.js";
import { canonicalZone } from "../time-zone.js";
import { wallMinutes } from "./schedule.js";

/**
 * The grammar of `freeze`: a name, then when (docs/commands.md, "Freeze windows"):
 *   <name> every <day> <HH:MM> - <day> <HH:MM> [zone]      (every week)
 *   <name> every day <HH:MM> - <HH:MM> [zone]              (every day)
 *   <name> from <YYYY-MM-DD> <HH:MM> to <YYYY-MM-DD> <HH:MM> [zone]   (once)
 * each optionally followed by `except label:<name> …` (src/core/exemptions.ts). Without a zone the window is
 * read in the person's zone (Slack) or UTC (GitHub).
 */
export interface FreezeSpec {
  name: string;
  schedule: FreezeSchedule;
  /** An IANA zone as typed (canonical), or null: the default one. */
  zone: string | null;
  /** Labels whose pull requests pass while a window holds the queue (lower case); empty: none. */
  except: string[];
}

/** A freeze's name is part of its pause's reason. */
export const MAX_FREEZE_NAME = 80;

/**
 * The limits on a window (docs/security.md, "Limits"): each one posts and pauses, so a window lasts at
 * least this long, and a one-off (unlike a `pause … until`, at most 14 days) at most 31 days.
 */
export const MIN_FREEZE_MINUTES = 15;
export const MAX_ONCE_FREEZE_DAYS = 31;

const FREEZE_EXAMPLES =
  'for example "weekend freeze every fri 18:00 - mon 08:00 Europe/Paris", "nightly every day 22:00 - 06:00" or "holidays from 2026-12-24 00:00 to 2027-01-02 00:00"';

const DAYS: Record<string, Weekday> = {
  sun: 0,
  sunday: 0,
  mon: 1,
  monday: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
};
const CLOCK = /^(\d{1,2}):(\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function refuseFreeze(command: string, detail: string): never {
  throw new CommandError(CommandErrorCode.InvalidArgument, {
    command,
    argument: "freeze window",
    detail: `${detail}. Write ${FREEZE_EXAMPLES}`,
  });
}

export function parseFreeze(command: string, all: string): FreezeSpec {
  const { rest: text, labels: except } = splitExcept(command, all);
  const words = text.trim() === "" ? [] : text.trim().split(/\s+/);
  const at = words.findIndex((w) => /^(every|from)$/i.test(w));
  if (at < 0) {
    if (words.length === 0)
      throw new CommandError(CommandErrorCode.MissingArgument, { command, argument: "name and window" });
    refuseFreeze(command, 'the window must start with "every" or "from"');
  }
  const name = words.slice(0, at).join(" ");
  if (name === "") refuseFreeze(command, "the freeze needs a name before its window");
  if (name.length > MAX_FREEZE_NAME)
    refuseFreeze(command, `the name is longer than ${MAX_FREEZE_NAME} characters`);
  if (/^\d+$/.test(name))
    refuseFreeze(command, "the name cannot be a number (unfreeze reads a number as the freeze's)");
  const rest = words.slice(at + 1);
  const keyword = (words[at] as string).toLowerCase();
  const { schedule, left } = keyword === "every" ? readEvery(command, rest) : readOnce(command, rest);
  checkLength(command, schedule);
  if (left.length > 1) refuseFreeze(command, `"${left.join(" ")}" is not a time zone`);
  const typed = left[0];
  const zone = typed === undefined ? null : canonicalZone(typed);
  if (typed !== undefined && zone === null) refuseFreeze(command, `"${typed}" is not a time zone`);
  return { name, schedule, zone, except };
}

function readEvery(command: string, w: string[]): { schedule: FreezeSchedule; left: string[] } {
  const first = (w[0] ?? "").toLowerCase();
  if (first === "day" || first === "night") {
    const start = clock(command, w[1]);
    dash(command, w[2]);
    const end = clock(command, w[3]);
    if (same(start, end)) refuseFreeze(command, "the window ends when it starts");
    return { schedule: { kind: "daily", start, end }, left: w.slice(4) };
  }
  const startDay = day(command, w[0]);
  const start = clock(command, w[1]);
  dash(command, w[2]);
  const endDay = day(command, w[3]);
  const end = clock(command, w[4]);
  if (startDay === endDay && same(start, end)) refuseFreeze(command, "the window ends when it starts");
  return {
    schedule: { kind: "weekly", start: { day: startDay, ...start }, end: { day: endDay, ...end } },
    left: w.slice(5),
  };
}

function readOnce(command: string, w: string[]): { schedule: FreezeSchedule; left: string[] } {
  const start = { ...date(command, w[0]), ...clock(command, w[1]) };
  if ((w[2] ?? "").toLowerCase() !== "to")
    refuseFreeze(command, 'a one-off window is "from <date> <time> to <date> <time>"');
  const end = { ...date(command, w[3]), ...clock(command, w[4]) };
  const key = (x: typeof start) =>
    [x.year, x.month, x.day, x.hour, x.minute].map((n) => String(n).padStart(4, "0")).join("");
  if (key(end) <= key(start)) refuseFreeze(command, "the window ends before it starts");
  return { schedule: { kind: "once", start, end }, left: w.slice(5) };
}

/** A window shorter than MIN_FREEZE_MINUTES, or a one-off longer than MAX_ONCE_FREEZE_DAYS, is refused. */
function checkLength(command: string, schedule: FreezeSchedule): void {
  const minutes = wallMinutes(schedule);
  if (minutes < MIN_FREEZE_MINUTES)
    refuseFreeze(
      command,
      `a freeze window lasts at least ${MIN_FREEZE_MINUTES} minutes (this one lasts ${minutes} ${minutes === 1 ? "minute" : "minutes"})`,
    );
  if (schedule.kind === "once" && minutes > MAX_ONCE_FREEZE_DAYS * 1440)
    refuseFreeze(
      command,
      `a one-off freeze window lasts at most ${MAX_ONCE_FREEZE_DAYS} days (this one lasts ${Math.ceil(minutes / 1440)} days): split it, or use a weekly window`,
    );
}

function same(a: TimeOfDay, b: TimeOfDay): boolean {
  return a.hour === b.hour && a.minute === b.minute;
}

function dash(command: string, word: string | undefined): void {
  if (word !== "-" && word !== "–" && word?.toLowerCase() !== "to")
    refuseFreeze(command, 'a weekly or daily window is "<start> - <end>"');
}

function day(command: string, word: string | undefined): Weekday {
  const d = word === undefined ? undefined : DAYS[word.toLowerCase()];
  if (d === undefined)
    refuseFreeze(
      command,
      word === undefined ? "a day is missing" : `"${word}" is not a day (mon, tue, … sun, or "day")`,
    );
  return d;
}

function clock(command: string, word: string | undefined): TimeOfDay {
  const m = word === undefined ? null : CLOCK.exec(word);
  const hour = Number(m?.[1]);
  const minute = Number(m?.[2]);
  if (!m || hour > 23 || minute > 59)
    refuseFreeze(
      command,
      word === undefined ? "a time is missing" : `"${word}" is not a time (HH:MM, 00:00 to 23:59)`,
    );
  return { hour, minute };
}

function date(command: string, word: string | undefined): { year: number; month: number; day: number } {
  const m = word === undefined ? null : DATE.exec(word);
  const [year, month, d] = [Number(m?.[1]), Number(m?.[2]), Number(m?.[3])];
  const t = new Date(Date.UTC(year, month - 1, d));
  if (!m || t.getUTCFullYear() !== year || t.getUTCMonth() !== month - 1 || t.getUTCDate() !== d)
    refuseFreeze(command, word === undefined ? "a date is missing" : `"${word}" is not a date (YYYY-MM-DD)`);
  return { year, month, day: d };
}
