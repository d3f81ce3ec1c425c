import { LRUCache } from "lru-cache";
import type { QueueEvent } from "../core/queue.js";
import type { Repo } from "../repo.js";
import type { QueueHistory } from "../store/index.js";
import { queueState } from "./assess.js";
import { HOUR_MS, NORMAL_WINDOW_MS, type QueueNormal, queueNormal } from "./thresholds.js";

/**
 * What a health pass reads of a repository's recorded history, cheaply: the 7 days are read once per
 * NORMAL_TTL_MS (on the injected clock) per repository and replica; their p90s (the normal) are kept, with
 * the events of before the last hour that the alerts still need (the pull requests still queued then,
 * the merges, passes, pauses and resumes). Each pass in between reads only the events that happened or
 * were recorded from that hour on, so an event recorded late (a poller catching up) is seen by every
 * replica at its next pass, whenever its copy was read.
 */

/** How long the normal of a repository (and the older events kept with it) is reused. */
export const NORMAL_TTL_MS = 5 * 60_000;
/** The events of this last stretch before a full read are read again by every pass until the next. */
const REREAD_MS = HOUR_MS;
/** Repositories whose normal a replica keeps. */
const MAX_REPOSITORIES = 2_000;

interface Kept {
  normal: QueueNormal;
  /** Where the passes' reads start: the events before it are `older`. */
  cutoff: number;
  older: QueueEvent[];
}

/** Whether an event before the cutoff still counts for the alerts (see `keepOlder`). */
function stillCounts(e: QueueEvent, queued: ReadonlySet<number>): boolean {
  if (e.pull === null || queued.has(e.pull)) return true;
  if (e.kind === "merged" || e.kind === "paused" || e.kind === "resumed") return true;
  if (e.kind === "left") return e.merged;
  return e.kind === "checks-ended" && e.conclusion === "success";
}

/**
 * The events before the cutoff that the state, the failures within the hour and the endings read: every
 * event of a pull request still queued at the cutoff, and the merges, passes, pauses and resumes. A pull
 * request that left before then comes back with a new entry and a new run of checks.
 */
function keepOlder(older: readonly QueueEvent[]): QueueEvent[] {
  const queued = new Set(queueState(older).waiting.keys());
  return older.filter((e) => stillCounts(e, queued));
}

/**
 * The kept older events still within the 7 days and the recent ones, by time (then id), each once: an
 * event recorded late may be both among the kept ones (read before the copy was made) and the recent.
 */
function merged(older: readonly QueueEvent[], recent: readonly QueueEvent[], from: number): QueueEvent[] {
  const seen = new Set(recent.map((e) => e.id));
  const events = [...older.filter((e) => Date.parse(e.at) >= from && !seen.has(e.id)), ...recent];
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.id - b.id);
}

export class HealthHistory {
  private readonly kept: LRUCache<string, Kept>;
  /** Full reads of the 7 days (tests and metrics look). */
  fullReads = 0;

  constructor(
    private readonly deps: {
      history: Pick<QueueHistory, "readQueueEvents" | "readRecentQueueEvents">;
      stallMinutes: number | null;
      kinds: readonly string[];
      now: () => Date;
      ttlMs?: number;
    },
  ) {
    this.kept = new LRUCache<string, Kept>({
      max: MAX_REPOSITORIES,
      ttl: deps.ttlMs ?? NORMAL_TTL_MS,
      perf: { now: () => deps.now().getTime() },
      ttlResolution: 0,
    });
  }

  /** The repository's normal and its history of the last 7 days as far as the alerts read it, oldest first. */
  async read(repository: Repo): Promise<{ normal: QueueNormal; events: QueueEvent[] }> {
    const now = this.deps.now().getTime();
    const to = new Date(now + 1);
    const kept = this.kept.get(repository.key);
    if (kept) {
      const from = now - NORMAL_WINDOW_MS;
      const recent = await this.deps.history.readRecentQueueEvents(
        repository,
        { from: new Date(from), to, since: new Date(kept.cutoff) },
        this.deps.kinds,
      );
      return { normal: kept.normal, events: merged(kept.older, recent, from) };
    }
    this.fullReads += 1;
    const events = await this.deps.history.readQueueEvents(
      repository,
      { from: new Date(now - NORMAL_WINDOW_MS), to },
      this.deps.kinds,
    );
    const normal = queueNormal(events, this.deps.stallMinutes);
    const cutoff = now - REREAD_MS;
    const older = keepOlder(events.filter((e) => Date.parse(e.at) < cutoff));
    this.kept.set(repository.key, { normal, cutoff, older });
    return { normal, events };
  }
}
