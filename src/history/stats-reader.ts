import { z } from "zod";
import type { QueueEvent } from "../core/queue.js";
import type { Repo } from "../repo.js";
import {
  factsOf,
  factsWithin,
  joinFacts,
  type Period,
  type PeriodFigures,
  periodFigures,
  type StatsFacts,
} from "./figures.js";

/**
 * Reads what a period's figures need from the queue's events (Mergify's log, or the history Yardmaster
 * recorded), as few times as it can: only the kinds the figures use, and whole UTC days, each finished
 * day once (its facts are kept in the store and read from there afterwards). Only today is read every
 * time.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/** A day is kept once it ended this long ago: events are written to the log a little after they happen. */
const STATS_SETTLE_MS = 5 * 60 * 1000;

const factsSchema = z.object({
  waits: z.array(z.object({ at: z.number(), seconds: z.number() })),
  leaves: z.array(
    z.object({
      at: z.number(),
      code: z.string().nullable(),
      reason: z.string(),
      checks: z.array(z.object({ name: z.string(), url: z.string().nullable() })),
    }),
  ),
  pauses: z.array(z.object({ at: z.number(), kind: z.enum(["start", "end"]) })),
  // Days kept before merges outside the queue were counted had none.
  outside: z.array(z.object({ at: z.number(), pull: z.number(), by: z.string().nullable() })).default([]),
});

/** Where a repository's queue events of a stretch come from (merges, leaves, pauses at least). */
export type StatsEvents = (repo: Repo, range: { from: Date; to: Date }) => AsyncIterable<QueueEvent>;

/**
 * What `stats` keeps of each finished UTC day of a repository's log ("2026-11-20"), so that a day is
 * read from the log once: JSON the stats reader wrote (it checks what it reads back).
 */
export interface StatsDays {
  get(repo: Repo, days: readonly string[]): Promise<Map<string, unknown>>;
  put(repo: Repo, day: string, facts: unknown): Promise<void>;
}

export interface StatsSources {
  statsEvents: StatsEvents;
  /** Absent: nothing is kept, every day is read from the events. */
  statsDays?: StatsDays;
}

/** A period's figures and those of the period just before it, of the same length. */
export async function readPeriodFigures(
  sources: StatsSources,
  repo: Repo,
  period: Period,
  now: Date,
): Promise<{ current: PeriodFigures; previous: PeriodFigures }> {
  const length = period.to.getTime() - period.from.getTime();
  const previous: Period = { from: new Date(period.from.getTime() - length), to: period.from };
  const facts = await readDays(sources, repo, utcDays({ from: previous.from, to: period.to }), now);
  return {
    current: periodFigures(period, factsWithin(facts, period)),
    previous: periodFigures(previous, factsWithin(facts, previous)),
  };
}

/** The UTC days ("2026-11-20") a range touches, in order. */
export function utcDays(range: Period): string[] {
  const days: string[] = [];
  for (let t = Math.floor(range.from.getTime() / DAY_MS) * DAY_MS; t < range.to.getTime(); t += DAY_MS)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

async function readDays(sources: StatsSources, repo: Repo, days: string[], now: Date): Promise<StatsFacts> {
  const start = (day: string) => Date.parse(`${day}T00:00:00Z`);
  const finished = (day: string) => start(day) + DAY_MS + STATS_SETTLE_MS <= now.getTime();
  const done = days.filter(finished);
  const kept = sources.statsDays && done.length ? await sources.statsDays.get(repo, done) : new Map();
  const facts: StatsFacts[] = [];
  // Adjacent days to read from the log are read with one query, then cut apart.
  let run: string[] = [];
  const flush = async () => {
    const [first] = run;
    if (first === undefined) return;
    const to = Math.min(start(run[run.length - 1] as string) + DAY_MS, now.getTime());
    const events = await readLog(sources, repo, { from: new Date(start(first)), to: new Date(to) });
    const byDay = new Map<string, QueueEvent[]>();
    for (const e of events) {
      const at = Date.parse(e.at);
      if (Number.isNaN(at)) continue;
      const day = new Date(at).toISOString().slice(0, 10);
      const own = byDay.get(day);
      if (own) own.push(e);
      else byDay.set(day, [e]);
    }
    for (const day of run) {
      const dayFacts = factsOf(byDay.get(day) ?? []);
      facts.push(dayFacts);
      if (finished(day)) await sources.statsDays?.put(repo, day, dayFacts);
    }
    run = [];
  };
  for (const day of days) {
    const stored = finished(day) ? factsSchema.safeParse(kept.get(day)) : null;
    if (stored?.success) {
      await flush();
      facts.push(stored.data);
    } else run.push(day);
  }
  await flush();
  return joinFacts(facts);
}

async function readLog(sources: StatsSources, repo: Repo, range: Period): Promise<QueueEvent[]> {
  const events: QueueEvent[] = [];
  for await (const event of sources.statsEvents(repo, range)) events.push(event);
  return events;
}
