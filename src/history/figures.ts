import { compareQueueEvents, type QueueCheck, type QueueEvent } from "../core/queue.js";

/**
 * Queue health from queue events (src/core/queue.ts): what `stats` and the weekly digest show. Events
 * are first reduced to facts (small, JSON, kept per finished day in the store), then facts of a period
 * to its figures. Pure: no I/O, no clock.
 */

/** The kinds the figures are computed from: merges, leaves, pauses begun and ended, merges outside the queue. */
export const STATS_KINDS = ["merged", "left", "paused", "resumed", "merged-outside-queue"] as const;

export interface FailedCheck {
  name: string;
  url: string | null;
}

/**
 * What a stretch of the log says, reduced to what the figures need, each fact with its time (epoch
 * milliseconds) so that a day's facts serve any period that covers part of it.
 */
export interface StatsFacts {
  /** Per merge: seconds from the pull request's (last) entry in the queue to its merge. */
  waits: { at: number; seconds: number }[];
  /**
   * Per leave without merging: the service's dequeue code (null when it gave none), its reason, and the
   * checks that had failed.
   */
  leaves: { at: number; code: string | null; reason: string; checks: FailedCheck[] }[];
  /** Pauses begun and ended, in log order. */
  pauses: { at: number; kind: "start" | "end" }[];
  /** Pull requests merged without going through the queue (src/outside-merges): which, and who merged it. */
  outside: { at: number; pull: number; by: string | null }[];
}

export interface Period {
  from: Date;
  to: Date;
}

export interface LeaveCount {
  code: string | null;
  count: number;
  /** One reason the service gave for this code (the latest). */
  reason: string;
}

export interface CheckCount extends FailedCheck {
  count: number;
}

export interface PeriodFigures {
  period: Period;
  merged: number;
  /** Time in queue of merged pull requests, seconds; null without merges. */
  waitP50: number | null;
  waitP90: number | null;
  /** Leaves without merging, most frequent first. */
  leaves: LeaveCount[];
  leftWithoutMerging: number;
  /** Checks that failed in pull requests thrown out, most frequent first. */
  failedChecks: CheckCount[];
  /** Pauses begun in the period. */
  pauses: number;
  /** Seconds the queue was paused within the period (as far as the log tells). */
  pausedSeconds: number;
  /** Pull requests merged without going through the queue, oldest first. */
  mergedOutside: { pull: number; by: string | null }[];
}

/** The facts of events (any order; other kinds are ignored). */
export function factsOf(events: readonly QueueEvent[]): StatsFacts {
  const facts: StatsFacts = { waits: [], leaves: [], pauses: [], outside: [] };
  const sorted = [...events].sort(compareQueueEvents);
  for (const event of sorted) {
    const at = Date.parse(event.at);
    switch (event.kind) {
      case "merged": {
        const queuedAt = event.enteredAt ? Date.parse(event.enteredAt) : Number.NaN;
        if (Number.isFinite(queuedAt) && queuedAt <= at)
          facts.waits.push({ at, seconds: Math.round((at - queuedAt) / 1000) });
        break;
      }
      case "left":
        if (event.merged) break;
        facts.leaves.push({
          at,
          code: event.code,
          reason: event.reason ?? "",
          checks: checksOf(event.failedChecks),
        });
        break;
      case "paused":
        // An update of a pause is no new pause.
        if (!event.update) facts.pauses.push({ at, kind: "start" });
        break;
      case "resumed":
        facts.pauses.push({ at, kind: "end" });
        break;
      case "merged-outside-queue":
        if (event.pull !== null) facts.outside.push({ at, pull: event.pull, by: event.by });
        break;
    }
  }
  return facts;
}

const checksOf = (checks: readonly QueueCheck[]): FailedCheck[] =>
  checks.map((c) => ({ name: c.name, url: c.url }));

/** Facts of consecutive stretches, in order, as one. */
export function joinFacts(parts: readonly StatsFacts[]): StatsFacts {
  return {
    waits: parts.flatMap((p) => p.waits),
    leaves: parts.flatMap((p) => p.leaves),
    pauses: parts.flatMap((p) => p.pauses),
    outside: parts.flatMap((p) => p.outside),
  };
}

/** The facts that happened within the period. */
export function factsWithin(facts: StatsFacts, period: Period): StatsFacts {
  const from = period.from.getTime();
  const to = period.to.getTime();
  const within = ({ at }: { at: number }) => at >= from && at < to;
  return {
    waits: facts.waits.filter(within),
    leaves: facts.leaves.filter(within),
    pauses: facts.pauses.filter(within),
    outside: facts.outside.filter(within),
  };
}

/** The figures of a period from its facts. */
export function periodFigures(period: Period, facts: StatsFacts): PeriodFigures {
  const waits = facts.waits.map((w) => w.seconds).sort((a, b) => a - b);
  const leaves = new Map<string, LeaveCount>();
  for (const leave of facts.leaves) {
    const key = leave.code ?? "";
    const known = leaves.get(key);
    if (known) {
      known.count += 1;
      if (leave.reason) known.reason = leave.reason;
    } else leaves.set(key, { code: leave.code, count: 1, reason: leave.reason });
  }
  const checks = new Map<string, CheckCount>();
  for (const { checks: failed } of facts.leaves) {
    // A check counts once per pull request thrown out, however many times it is listed.
    for (const check of new Map(failed.map((c) => [c.name, c])).values()) {
      const known = checks.get(check.name);
      if (known) {
        known.count += 1;
        known.url = check.url ?? known.url;
      } else checks.set(check.name, { ...check, count: 1 });
    }
  }
  const byCount = <T extends { count: number }>(a: T, b: T, key: (t: T) => string) =>
    b.count - a.count || key(a).localeCompare(key(b));
  return {
    period,
    merged: facts.waits.length,
    waitP50: percentile(waits, 50),
    waitP90: percentile(waits, 90),
    leaves: [...leaves.values()].sort((a, b) => byCount(a, b, (l) => l.code ?? "")),
    leftWithoutMerging: facts.leaves.length,
    failedChecks: [...checks.values()].sort((a, b) => byCount(a, b, (c) => c.name)),
    pauses: facts.pauses.filter((p) => p.kind === "start").length,
    pausedSeconds: pausedSeconds(period, facts.pauses),
    mergedOutside: facts.outside.map(({ pull, by }) => ({ pull, by })),
  };
}

/**
 * Nearest-rank percentile of sorted values: the smallest value with at least p% of the values at or
 * below it. Null when there are none.
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

/**
 * Seconds paused within the period: from each start to the next end. An end with no start before it
 * in the period means the queue was paused when the period began; a start with no end, that it still
 * was when the period ended. A period without any pause event counts as not paused.
 */
export function pausedSeconds(period: Period, pauses: StatsFacts["pauses"]): number {
  const from = period.from.getTime();
  const to = period.to.getTime();
  let total = 0;
  let since: number | null = null;
  let seenAny = false;
  for (const { at, kind } of pauses) {
    const t = Math.min(Math.max(at, from), to);
    if (kind === "start") {
      since ??= t;
    } else {
      if (since !== null) total += t - since;
      else if (!seenAny) total += t - from;
      since = null;
    }
    seenAny = true;
  }
  if (since !== null) total += to - since;
  return Math.round(total / 1000);
}
