import { canonicalZone, fromWallClock, wallClock } from "../../time-zone.js";
import { CommandError, CommandErrorCode } from "../errors.js";

/**
 * When a timed pause ends (`pause <reason> for <duration>`, `pause <reason> until <time>`): the grammar
 * that finds it at the end of a pause's text, and the instant it means. Time zones are IANA names read
 * with `Intl` (docs/commands.md, "Timed pauses").
 */

/** A timed pause ends at most this far ahead. */
const MAX_RESUME_AHEAD_MS = 14 * 24 * 60 * 60_000;

/** What was typed after the reason: a duration, or a wall-clock time (in a zone, or the default one). */
export type ResumeSpec =
  | { kind: "for"; ms: number }
  | {
      kind: "until";
      /** The day, when one was given; otherwise the next occurrence of the time. */
      date: { year: number; month: number; day: number } | null;
      hour: number;
      minute: number;
      /** An IANA zone (or "UTC") typed after the time; null: the person's zone (Slack) or UTC (GitHub). */
      zone: string | null;
    };

const EXAMPLES =
  '"for 90m", "for 2h", "for 1h30m", "for 1d", "until 18:00" or "until 2026-12-01 09:00 Europe/Paris"';

const UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000 };
const UNIT_WORDS: Record<string, string> = {
  d: "d",
  day: "d",
  days: "d",
  h: "h",
  hr: "h",
  hrs: "h",
  hour: "h",
  hours: "h",
  m: "m",
  min: "m",
  mins: "m",
  minute: "m",
  minutes: "m",
};
/** "2h", "1h30m", "2 hours", "1 h 30 min": numbers each followed by a unit, with or without spaces. */
const DURATION = new RegExp(
  `^(?:\\d+\\s*(?:${Object.keys(UNIT_WORDS)
    .sort((a, b) => b.length - a.length)
    .join("|")})\\s*)+$`,
  "i",
);
const DURATION_PART = /(\d+)\s*([a-z]+)/gi;
/**
 * A duration mistyped: one word, a number (perhaps with a decimal part) followed by a letter, then
 * letters and digits ("2x", "3hrs5", "1.5h", "90mn"). Only such a word after the last `for` is refused as
 * a duration; anything else there is the reason's ("freeze for 1.2", "for v2.0", "for 1.2.3", "for QA",
 * "for 2 reviewers"). A bare number ("for 2") is a reason too: no unit was attempted.
 */
const DURATION_ATTEMPT = /^\d+(?:[.,]\d+)?[a-z][a-z\d]*$/i;
const CLOCK = /^(\d{1,2}):(\d{2})$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Splits a pause's text into its reason and, when it ends with `for <duration>` or `until <time>`, when
 * the pause ends. The ending counts only when it looks like one (`for` then numbers with units or a
 * DURATION_ATTEMPT, `until` then a digit), so that "waiting for CI", "freeze for 1.2" or "until the
 * release" stay reasons; once it looks like one, it must be readable or the pause is refused with examples.
 */
export function splitResume(command: string, text: string): { reason: string; resume: ResumeSpec | null } {
  const trimmed = text.trim();
  // The last `for` or `until` of the text is the one that may end it.
  const last = lastEnding(trimmed);
  if (!last) return { reason: trimmed, resume: null };
  const { keyword, index, tail } = last;
  const reason = trimmed.slice(0, index).trim();
  if (keyword === "for") {
    if (!DURATION.test(tail) && !DURATION_ATTEMPT.test(tail)) return { reason: trimmed, resume: null };
    return { reason, resume: { kind: "for", ms: readDuration(command, tail) } };
  }
  if (!/^\d/.test(tail)) return { reason: trimmed, resume: null };
  return { reason, resume: readUntil(command, tail) };
}

function lastEnding(text: string): { keyword: "for" | "until"; index: number; tail: string } | null {
  const re = /(?:^|\s)(for|until)\s+/gi;
  let found: { keyword: "for" | "until"; index: number; tail: string } | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const keyword = (m[1] ?? "").toLowerCase() as "for" | "until";
    found = { keyword, index: m.index, tail: text.slice(m.index + m[0].length).trim() };
  }
  return found;
}

function refuse(command: string, detail: string): never {
  throw new CommandError(CommandErrorCode.InvalidArgument, {
    command,
    argument: "resume time",
    detail: `${detail}. Write for example ${EXAMPLES}, at most 14 days ahead`,
  });
}

function readDuration(command: string, tail: string): number {
  let ms = 0;
  const seen = new Set<string>();
  if (!DURATION.test(tail)) refuse(command, `"${tail}" is not a duration`);
  for (const [, amount, word] of tail.matchAll(DURATION_PART)) {
    const unit = UNIT_WORDS[(word ?? "").toLowerCase()];
    if (!unit || seen.has(unit)) refuse(command, `"${tail}" is not a duration`);
    seen.add(unit);
    ms += Number(amount) * (UNITS[unit] ?? 0);
  }
  if (ms <= 0) refuse(command, `"${tail}" is no time at all`);
  if (ms > MAX_RESUME_AHEAD_MS) refuse(command, `"${tail}" is more than 14 days`);
  return ms;
}

function readUntil(command: string, tail: string): ResumeSpec {
  const words = tail.split(/\s+/);
  let date: { year: number; month: number; day: number } | null = null;
  const day = DAY.exec(words[0] ?? "");
  if (day) {
    date = { year: Number(day[1]), month: Number(day[2]), day: Number(day[3]) };
    words.shift();
  }
  const clock = CLOCK.exec(words.shift() ?? "");
  if (!clock || words.length > 1) refuse(command, `"${tail}" is not a time`);
  const hour = Number(clock[1]);
  const minute = Number(clock[2]);
  if (hour > 23 || minute > 59) refuse(command, `"${tail}" is not a time of day`);
  if (date && !validDate(date)) refuse(command, `"${tail}" is not a date`);
  const typedZone = words[0];
  const zone = typedZone === undefined ? null : canonicalZone(typedZone);
  if (zone === null && typedZone !== undefined) refuse(command, `"${typedZone}" is not a time zone`);
  return { kind: "until", date, hour, minute, zone };
}

function validDate({ year, month, day }: { year: number; month: number; day: number }): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/**
 * The instant a pause ends: `now` plus the duration, or the given time in its zone (else `zone`), on its
 * day or else at its next occurrence after `now`. Refuses a time past, more than 14 days ahead, or that
 * does not exist in the zone (skipped when the clocks go forward); a time that happens twice (when they
 * go back) is its first occurrence.
 */
export function resumeInstant(command: string, spec: ResumeSpec, now: Date, zone: string): Date {
  if (spec.kind === "for") return new Date(now.getTime() + spec.ms);
  const tz = spec.zone ?? zone;
  const shown = `${spec.date ? `${isoDay(spec.date)} ` : ""}${pad(spec.hour)}:${pad(spec.minute)} ${tz}`;
  let day = spec.date ?? wallClock(now, tz);
  let at = fromWallClock({ ...day, hour: spec.hour, minute: spec.minute }, tz);
  if (!spec.date && at !== null && at.getTime() <= now.getTime()) {
    day = nextDay(day);
    at = fromWallClock({ ...day, hour: spec.hour, minute: spec.minute }, tz);
  }
  if (at === null) refuse(command, `${shown} does not exist (the clocks go forward then)`);
  if (at.getTime() <= now.getTime()) refuse(command, `${shown} is in the past`);
  if (at.getTime() - now.getTime() > MAX_RESUME_AHEAD_MS)
    refuse(command, `${shown} is more than 14 days ahead`);
  return at;
}

function nextDay(d: { year: number; month: number; day: number }) {
  const next = new Date(Date.UTC(d.year, d.month - 1, d.day + 1));
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() };
}

const pad = (n: number) => String(n).padStart(2, "0");
const isoDay = (d: { year: number; month: number; day: number }) => `${d.year}-${pad(d.month)}-${pad(d.day)}`;

/**
 * The zone a time is read in when none was typed: the Slack user's (as Slack knows it), else UTC
 * (always on GitHub).
 */
export async function userZone(
  actor: { slack?: { teamId: string; userId: string } },
  ports: { slackTimeZone?: (user: { teamId: string; userId: string }) => Promise<string | null> },
): Promise<string> {
  const slackZone =
    actor.slack && ports.slackTimeZone ? await ports.slackTimeZone(actor.slack).catch(() => null) : null;
  return (slackZone ? canonicalZone(slackZone) : null) ?? "UTC";
}
