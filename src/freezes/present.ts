import type { Freeze } from "../core/records.js";
import { wallClock } from "../time-zone.js";
import type { TextFormat } from "../wording/description.js";
import { exceptLabels } from "../wording/lists.js";
import { describeSchedule, type FreezeWindow, WEEKDAY_NAMES, windowAt } from "./schedule.js";

/** How the freeze commands and `status` show freezes: their schedule and next window, in their zone. */

const pad = (n: number) => String(n).padStart(2, "0");

/** "Fri 2026-11-27 18:00" as a clock in `zone` shows it. */
export function timeIn(at: Date, zone: string): string {
  const w = wallClock(at, zone);
  const day = WEEKDAY_NAMES[new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay()] ?? "";
  return `${day[0]?.toUpperCase()}${day.slice(1)} ${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}`;
}

/** A freeze as listed, with its next window (or the one in progress) as of `now`. */
export interface ListedFreeze {
  number: number;
  name: string;
  schedule: string;
  zone: string;
  createdBy: string;
  window: FreezeWindow | null;
  inProgress: boolean;
  /** Labels whose pull requests pass while a window holds the queue; absent: none. */
  except?: readonly string[];
}

export function listed(freeze: Freeze, now: Date): ListedFreeze {
  const window = windowAt(freeze.schedule, freeze.zone, now);
  return {
    number: freeze.number,
    name: freeze.name,
    schedule: describeSchedule(freeze.schedule, freeze.zone),
    zone: freeze.zone,
    createdBy: freeze.createdBy,
    window,
    inProgress: window !== null && window.start.getTime() <= now.getTime(),
    ...(freeze.except?.length ? { except: freeze.except } : {}),
  };
}

/** "in progress until Mon 2026-11-30 08:00 Europe/Paris", "next from … to …", "ended". */
export function windowText(f: ListedFreeze): string {
  if (!f.window) return "ended";
  const end = `${timeIn(f.window.end, f.zone)} ${f.zone}`;
  if (f.inProgress) return `in progress until ${end}`;
  return `next from ${timeIn(f.window.start, f.zone)} to ${end}`;
}

/** `#1 weekend freeze: every fri 18:00 - mon 08:00 Europe/Paris · next from … to …` */
export function freezeLine(f: TextFormat, freeze: ListedFreeze): string {
  return `${f.bold(`#${freeze.number}`)} ${f.escape(freeze.name)}: ${f.code(freeze.schedule)}${exemptText(f, freeze.except)} · ${windowText(freeze)} (set by ${f.escape(freeze.createdBy)})`;
}

/** " except pull requests labelled `hotfix` or `release`" where a freeze lets them through. */
export function exemptText(f: TextFormat, labels: readonly string[] | undefined): string {
  return exceptLabels(labels, (l) => f.code(l), " ");
}

/** The freeze whose window comes first (in progress, or next to start), for `status` and the Home tab. */
export function nextFreeze(freezes: readonly Freeze[], now: Date): ListedFreeze | null {
  const all = freezes.map((fr) => listed(fr, now)).filter((l) => l.window !== null);
  all.sort((a, b) => (a.window?.start.getTime() ?? 0) - (b.window?.start.getTime() ?? 0));
  return all[0] ?? null;
}
