import type { QueueEvent } from "../core/queue.js";

/**
 * The queue's own normal, from its recorded history (src/store/history.ts): the p90 of the time between
 * merges and of its checks' durations, and the thresholds the health alerts (docs/notifications.md,
 * "The queue's health") and `/mq stats` take from them.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
/** How far back the normal is reckoned. */
export const NORMAL_WINDOW_MS = 7 * 24 * HOUR_MS;
/** The least stall threshold, whatever the normal. */
export const MIN_STALL_MS = 30 * MINUTE_MS;
/** Slow checks run at least this much longer than their p90. */
export const SLOW_MARGIN_MS = 15 * MINUTE_MS;
/** The fewest samples a p90 is reckoned on; fewer: no normal yet. */
export const MIN_SAMPLES = 3;

/** The 90th percentile (nearest rank) of the values; null for fewer than MIN_SAMPLES. */
export function p90(values: readonly number[]): number | null {
  if (values.length < MIN_SAMPLES) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)] ?? null;
}

/** When each merge happened (ms), oldest first: merges, and leaves that say they merged without one. */
export function mergeTimes(events: readonly QueueEvent[]): { at: number; pull: number | null }[] {
  const merged = new Set(events.filter((e) => e.kind === "merged").map((e) => e.pull));
  return events
    .filter((e) => e.kind === "merged" || (e.kind === "left" && e.merged && !merged.has(e.pull)))
    .map((e) => ({ at: Date.parse(e.at), pull: e.pull }))
    .sort((a, b) => a.at - b.at);
}

/** The time between consecutive merges, ms. */
export function timesBetweenMerges(events: readonly QueueEvent[]): number[] {
  const times = mergeTimes(events).map((m) => m.at);
  return times.slice(1).map((t, i) => t - (times[i] ?? t));
}

/** A run of checks: from its start to its conclusion (aborted runs are not counted). */
export interface CheckRun {
  pull: number;
  batch: string | null;
  startedAt: number;
  endedAt: number | null;
}

/** The checks' runs of the history, one per batch and start (a batch's pulls share theirs). */
export function checkRuns(events: readonly QueueEvent[]): CheckRun[] {
  const running = new Map<number, CheckRun>();
  const runs = new Map<string, CheckRun>();
  for (const e of events) {
    if (e.pull === null) continue;
    if (e.kind === "checks-started") {
      const run = { pull: e.pull, batch: e.batch, startedAt: Date.parse(e.at), endedAt: null };
      running.set(e.pull, run);
      runs.set(`${e.batch ?? `#${e.pull}`}@${run.startedAt}`, run);
    } else if (e.kind === "checks-ended" || e.kind === "left" || e.kind === "merged") {
      const run = running.get(e.pull);
      running.delete(e.pull);
      if (!run) continue;
      const aborted =
        e.kind === "checks-ended" ? e.aborted : e.kind === "left" && !e.merged && !e.failedChecks.length;
      if (aborted) runs.delete(`${run.batch ?? `#${run.pull}`}@${run.startedAt}`);
      else run.endedAt ??= Date.parse(e.at);
    }
  }
  return [...runs.values()];
}

/** The durations of the runs that ended, ms. */
export function checkDurations(events: readonly QueueEvent[]): number[] {
  return checkRuns(events).flatMap((r) => (r.endedAt === null ? [] : [r.endedAt - r.startedAt]));
}

/** The normal the alerts are judged on (and `/mq stats` shows). */
export interface QueueNormal {
  /** p90 of the time between merges of the last 7 days, ms; null with too few merges. */
  mergeGapP90: number | null;
  /** p90 of the checks' durations, ms; null with too few runs. */
  checksP90: number | null;
  /** No merge for this long while pull requests wait is a stall, ms. */
  stallAfterMs: number;
  /** The stall's threshold is HEALTH_STALL_MINUTES, not the normal's. */
  stallSet?: boolean;
  /** Checks running this long are far slower than usual, ms; null without a normal. */
  slowAfterMs: number | null;
}

/** The normal of a history of the last 7 days; `stallMinutes` (HEALTH_STALL_MINUTES) overrides the stall's. */
export function queueNormal(events: readonly QueueEvent[], stallMinutes: number | null = null): QueueNormal {
  const mergeGapP90 = p90(timesBetweenMerges(events));
  const checksP90 = p90(checkDurations(events));
  return {
    mergeGapP90,
    checksP90,
    stallAfterMs:
      stallMinutes !== null ? stallMinutes * MINUTE_MS : Math.max(MIN_STALL_MS, 3 * (mergeGapP90 ?? 0)),
    ...(stallMinutes !== null ? { stallSet: true } : {}),
    slowAfterMs: checksP90 === null ? null : Math.max(2 * checksP90, checksP90 + SLOW_MARGIN_MS),
  };
}
