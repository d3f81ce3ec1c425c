import { wantsFailureDetails } from "../core/check-failures.js";
import type { QueueCheck, QueueEvent } from "../core/queue.js";
import type { Repo } from "../repo.js";
import type { QueueHistory } from "../store/index.js";

/**
 * What the recorded history (src/store/history.ts) adds to a notice before it is sent
 * (docs/notifications.md): a failed check that also failed for other pull requests within the hour, and
 * for a person's direct message, "you're next" with an estimate. The event itself is recorded before it
 * is handed over, so the history holds it, and those that came with it in the same read.
 */
export type HistoryReader = Pick<QueueHistory, "readQueueEvents" | "readPullQueueEvents">;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How far back a failure of the same check counts for "also failed". */
const ALSO_FAILED_WINDOW_MS = HOUR;
/** How far back a pull request's entry is looked for (an entry lasting longer counts from here). */
export const ENTRY_LOOKBACK_MS = 30 * DAY;
/** The merges whose time from their checks' start makes the estimate. */
const ESTIMATE_LOOKBACK_MS = 7 * DAY;

/** The failed checks of an event that says some (a leave without merging, checks that ended). */
function failedChecksOf(event: QueueEvent): readonly QueueCheck[] {
  if (event.kind === "left" && !event.merged) return event.failedChecks;
  if (event.kind === "checks-ended" && !event.aborted) return event.failedChecks;
  return [];
}

/**
 * Whether two failures of a check are two runs of it: a run shared by a batch (or a merge group) fails
 * for each pull request in it, and says nothing of the others. Their pages tell them apart; without a
 * page, they count as two.
 */
const otherRun = (a: QueueCheck, b: QueueCheck) => a.url === null || b.url === null || a.url !== b.url;

/**
 * For a pull request that left the queue for failed checks: each of those checks that also failed, in
 * another run, for other pull requests within the hour before (`notes.alsoFailed`). Other events: as
 * they are.
 */
export async function withAlsoFailed(
  history: Pick<QueueHistory, "readQueueEvents">,
  repository: Repo,
  event: QueueEvent,
): Promise<QueueEvent> {
  if (!wantsFailureDetails(event)) return event;
  const at = Date.parse(event.at);
  const earlier = await history.readQueueEvents(
    repository,
    { from: new Date(at - ALSO_FAILED_WINDOW_MS), to: new Date(at + 1) },
    ["left", "checks-ended"],
  );
  const alsoFailed: { check: string; pulls: number[] }[] = [];
  for (const check of event.failedChecks) {
    if (alsoFailed.some((a) => a.check === check.name)) continue;
    const pulls = new Set<number>();
    for (const other of earlier) {
      if (other.pull === null || other.pull === event.pull) continue;
      if (failedChecksOf(other).some((c) => c.name === check.name && otherRun(c, check)))
        pulls.add(other.pull);
    }
    if (pulls.size > 0) alsoFailed.push({ check: check.name, pulls: [...pulls].sort((a, b) => a - b) });
  }
  return alsoFailed.length === 0 ? event : { ...event, notes: { ...event.notes, alsoFailed } };
}

/**
 * Whether a pull request's checks started for the first time since it (last) entered the queue: its
 * people hear "you're next" once per entry. Null when it is not that; else the estimate.
 */
export async function nextUp(
  history: HistoryReader,
  repository: Repo,
  event: QueueEvent,
): Promise<{ estimatedMergeAt: string | null } | null> {
  if (event.kind !== "checks-started" || event.pull === null) return null;
  const at = Date.parse(event.at);
  const own = await history.readPullQueueEvents(
    repository,
    event.pull,
    { from: new Date(at - ENTRY_LOOKBACK_MS), to: new Date(at + 1) },
    ["entered", "checks-started"],
  );
  // Not recorded (the history is written before the notices): nothing to go by.
  if (!own.some((e) => e.id === event.id)) return null;
  // By time only: events of one instant (a webhook's clock, a read's second) come in no known order.
  const entryAt = Math.max(
    at - ENTRY_LOOKBACK_MS,
    ...own.filter((e) => e.kind === "entered").map((e) => Date.parse(e.at)),
  );
  const startedBefore = own.some(
    (e) =>
      e.kind === "checks-started" &&
      e.id !== event.id &&
      Date.parse(e.at) >= entryAt &&
      Date.parse(e.at) < at,
  );
  if (startedBefore) return null;
  const typical = await typicalMergeAfterChecks(history, repository, at);
  return { estimatedMergeAt: typical === null ? null : new Date(at + typical).toISOString() };
}

/**
 * The median time from a pull request's (last) checks start to its merge, over the merges of the week
 * before; null without any.
 */
async function typicalMergeAfterChecks(
  history: HistoryReader,
  repository: Repo,
  at: number,
): Promise<number | null> {
  const events = await history.readQueueEvents(
    repository,
    { from: new Date(at - ESTIMATE_LOOKBACK_MS), to: new Date(at) },
    ["checks-started", "merged"],
  );
  const started = new Map<number, number>();
  const durations: number[] = [];
  for (const e of events) {
    if (e.pull === null) continue;
    if (e.kind === "checks-started") started.set(e.pull, Date.parse(e.at));
    else if (started.has(e.pull)) {
      durations.push(Date.parse(e.at) - (started.get(e.pull) ?? 0));
      started.delete(e.pull);
    }
  }
  if (durations.length === 0) return null;
  durations.sort((a, b) => a - b);
  return durations[Math.floor((durations.length - 1) / 2)] ?? null;
}
