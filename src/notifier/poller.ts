import { AsyncLocalStorage } from "node:async_hooks";
import pLimit from "p-limit";
import type { EventGroup } from "../core/event-groups.js";
import { groupOfEvent, type QueueEvent, type QueueEventLog } from "../core/queue.js";
import { Turns } from "../event-loop.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import type { ClaimedPoll, PollCursor, PollReason, PollStore, SubscriptionStore } from "../store/index.js";
import { DEFAULT_BACKOFF, nextDelayMs } from "./backoff.js";
import type { Deliverer } from "./deliverer.js";
import { type DispatchDeps, dispatchEvents } from "./dispatch.js";
import type { PersonalNotices } from "./personal-notices.js";

export interface PollerDeps {
  store: PollStore & Pick<SubscriptionStore, "listSubscriptions">;
  /**
   * The event log of the backend that has one to read (Mergify's, src/backends/mergify/queue-events.ts);
   * null when no repository is on such a backend (MERGE_QUEUE_PROVIDER=github): nothing is read, and
   * the loop only delivers what GitHub's webhooks brought (pushed-notices.ts).
   */
  eventLog: QueueEventLog | null;
  /** Records each new event in the queue's history (src/store/history.ts); none without it. */
  history?: { record(repository: Repo, events: readonly QueueEvent[]): Promise<void> };
  /**
   * Whether the repository's notices come from Mergify's log; false for a repository on GitHub's own
   * merge queue (MERGE_QUEUE_PROVIDER=auto), whose notices GitHub's webhooks bring: it is not read.
   * Default: every repository is read.
   */
  readsLog?: (repository: Repo) => Promise<boolean>;
  deliverer: Deliverer;
  /** Who hears about an event in a direct message (personal notices); none without it. */
  personal?: PersonalNotices;
  /** Adds what the recorded history says to an event before it is queued (notes.ts); none without it. */
  annotate?: DispatchDeps["annotate"];
  /** Starts reading why a removal's checks failed (failure-details.ts); none without it. */
  details?: DispatchDeps["details"];
  /** Between two reads of a repository while it is active, or always without the doorbell. */
  intervalMs: number;
  /** Between two reads of an idle repository whose activity GitHub announces; default intervalMs. */
  idleMs?: number;
  /**
   * Least time between two reads the doorbell asks for (DOORBELL_MIN_GAP_SECONDS, which the settings
   * keep at most the interval); default DEFAULT_MIN_GAP_MS. However many webhooks arrive, a rung
   * repository is read at most once per gap, plus the recheck after the last of them.
   */
  minGapMs?: number;
  /**
   * Whether GitHub announces the repository's queue activity to the app (the doorbell): only then may an
   * idle repository wait `idleMs`. Default: never (every repository is read at the interval).
   */
  doorbellServes?: (repository: Repo) => Promise<boolean>;
  /** Which replica this is: its claims on repositories and channels. */
  owner: string;
  /** Repositories read at once. */
  concurrency?: number;
  /** How often the loop looks for due repositories (a doorbell rung here wakes it at once); default 1 s. */
  wakeMs?: number;
  metrics?: Metrics;
  logger: Logger;
  now?: () => Date;
}

/**
 * How far back a poll reads again before the newest event already seen, so that an event made
 * visible late is not missed; ids already handled are skipped (and the outbox would not post twice).
 */
export const LATE_MS = 60_000;
/** How far behind our clock an idle repository's cursor stays, for a service clock a little off ours. */
export const OVERLAP_MS = 5 * 60_000;
/** A doorbell reads the log this soon: the events GitHub sends in a burst are read together. */
export const DOORBELL_DELAY_MS = 300;
/** And once more this long after the last event, for a merge queue that writes its log after GitHub's event. */
export const RECHECK_MS = 5_000;
/** A repository is active (read at the interval) this long after GitHub's last event or the log's last new event. */
export const ACTIVE_MS = 10 * 60_000;
/** DOORBELL_MIN_GAP_SECONDS's default: a busy repository's webhooks cause at most 30 reads a minute. */
export const DEFAULT_MIN_GAP_MS = 2_000;

export interface TickReport {
  /** Repositories claimed (due) in this pass. */
  repositories: number;
  polled: number;
  failed: number;
  events: number;
  sent: number;
}

/** Why the merge-queue request being made is made, for its metrics; undefined outside the poller. */
const readReason = new AsyncLocalStorage<PollReason>();
export const currentReadReason = (): PollReason | undefined => readReason.getStore();

/**
 * The notifier's poller (docs/notifications.md, "When a repository is read"). The store keeps when each
 * subscribed repository is due; a pass claims the due ones (each by one replica), reads each one's event
 * log since its cursor (one request for an idle repository), routes new events to the subscribed
 * channels through the outbox, schedules the next read, then delivers. GitHub's events on a repository
 * (`ring`) make it due within DOORBELL_DELAY_MS, whichever replica received them.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  /**
   * Wake-ups asked for by the doorbell, one per repository and kind (its read, its recheck) with the time
   * it is for: a stream of webhooks keeps one of each, not one per webhook.
   */
  private readonly rings = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private running: Promise<unknown> | undefined;
  private stopped = true;
  /** Set by stop(): a pass under way claims no more repositories. */
  private halted = false;
  private delivering: Promise<number> | undefined;
  private deliverAgain = false;
  /** The delivery asked for when a paced or held channel may go on (deliverAt). */
  private laterDelivery: { at: number; timer: NodeJS.Timeout } | undefined;
  lastSuccessfulTick: Date | null = null;

  constructor(private readonly deps: PollerDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private get wakeMs(): number {
    return this.deps.wakeMs ?? Math.min(1_000, this.deps.intervalMs);
  }

  /** How long a claim on a repository lasts: a killed replica's repositories are read again within an interval. */
  private get leaseMs(): number {
    return Math.min(60_000, Math.max(10_000, this.deps.intervalMs));
  }

  /** Starts the loop (again, after stop()), and the deliverer's runs (each channel's, as durable work). */
  start(): void {
    this.stopped = false;
    this.halted = false;
    this.deps.metrics?.pollerRunning.set(true);
    this.wake(0);
    this.deps.deliverer.start?.().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halted = true;
    this.deps.metrics?.pollerRunning.set(false);
    clearTimeout(this.timer);
    // No wake-up is pending any more: start() must be able to set one.
    this.wakeAt = Number.POSITIVE_INFINITY;
    for (const { timer } of this.rings.values()) clearTimeout(timer);
    clearTimeout(this.laterDelivery?.timer);
    this.laterDelivery = undefined;
    this.rings.clear();
    await Promise.all([this.running, this.deps.deliverer.stop?.()]);
  }

  /** The loop runs again `ms` from now (or sooner, if it was due sooner); never two passes at once. */
  private wake(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (at >= this.wakeAt) return;
    clearTimeout(this.timer);
    this.wakeAt = at;
    this.timer = setTimeout(() => void this.loop(), ms);
  }

  private async loop(): Promise<void> {
    this.wakeAt = Number.POSITIVE_INFINITY;
    if (this.running) {
      // A pass is under way: this wake-up is for after it.
      await this.running;
      return this.wake(0);
    }
    this.running = this.tick().catch((error: unknown) =>
      this.deps.logger.error({ err: error }, "poller pass failed"),
    );
    await this.running;
    this.running = undefined;
    this.wake(this.wakeMs);
  }

  private get minGapMs(): number {
    return this.deps.minGapMs ?? DEFAULT_MIN_GAP_MS;
  }

  /**
   * GitHub announced activity on `repository` (the doorbell): it is read DOORBELL_DELAY_MS from now, or
   * the minimum gap after its last read if that is later (a read already asked for stands: this event is
   * read with it), and again RECHECK_MS after the latest event, by whichever replica claims it. Nothing
   * happens for a repository nobody subscribed to.
   */
  async ring(repository: Repo): Promise<void> {
    const now = this.now().getTime();
    const schedule = await this.deps.store.ringDoorbell(repository, {
      pollAt: new Date(now + DOORBELL_DELAY_MS),
      recheckAt: new Date(now + RECHECK_MS),
      activeUntil: new Date(now + ACTIVE_MS),
    });
    if (!schedule) return;
    this.deps.metrics?.doorbellRings.inc({});
    const due = Math.max(
      schedule.doorbellAt?.getTime() ?? now,
      (schedule.lastReadAt?.getTime() ?? 0) + this.minGapMs,
    );
    this.wakeFor(`read:${repository.key}`, due - now);
    this.wakeFor(`recheck:${repository.key}`, RECHECK_MS);
  }

  /**
   * The loop runs once `ms` have passed, even if it runs before then: a pass that comes earlier finds the
   * rung repository not yet due, and without this the next would be the regular one, up to `wakeMs` later.
   * One wake-up per key: a new time replaces the one asked for before (the same time keeps it).
   */
  private wakeFor(key: string, ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, ms);
    const pending = this.rings.get(key);
    if (pending && Math.abs(pending.at - at) < 20) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(
      () => {
        this.rings.delete(key);
        this.wake(0);
      },
      Math.max(0, ms),
    );
    this.rings.set(key, { at, timer });
  }

  /** One pass: reads every repository due now (claimed batch by batch), then delivers what is pending. */
  async tick(): Promise<TickReport> {
    const { store, logger, metrics } = this.deps;
    const report: TickReport = { repositories: 0, polled: 0, failed: 0, events: 0, sent: 0 };
    const limit = this.deps.concurrency ?? 16;
    for (; this.deps.eventLog; ) {
      const claimed = await store.claimPolls({
        owner: this.deps.owner,
        now: this.now(),
        leaseMs: this.leaseMs,
        limit,
        minGapMs: this.minGapMs,
      });
      if (claimed.length === 0) break;
      // People's preferences, read once for a pass that reads some log (most passes claim nothing).
      if (report.repositories === 0) await this.deps.personal?.refreshGroups();
      report.repositories += claimed.length;
      await pLimit(limit).map(claimed, async (poll) => {
        const result = await this.pollRepository(poll).catch((error: unknown) => {
          // Reading errors are handled inside; this is the store failing around them.
          logger.warn({ repository: poll.repository, err: error }, "could not poll a repository");
          return "failed" as const;
        });
        if (result === "failed") report.failed += 1;
        else {
          report.polled += 1;
          report.events += result;
        }
      });
      // What this batch routed is posted while the next batch is read.
      if (report.events > 0) this.deliverSoon();
      if (this.halted) break;
    }
    report.sent = await this.deliver();
    this.lastSuccessfulTick = this.now();
    metrics?.pollerLastTick.set(this.lastSuccessfulTick.getTime() / 1000);
    if (report.events || report.failed) logger.debug(report, "poller pass");
    return report;
  }

  /**
   * Delivers what is pending, one delivery at a time: asked again while one runs, it runs once more
   * after. Resolves with the notices sent by the delivery that covers this call. Also for what GitHub's
   * webhooks put in the outbox.
   */
  deliver(): Promise<number> {
    if (this.delivering) {
      this.deliverAgain = true;
      return this.delivering;
    }
    const run = async (): Promise<number> => {
      let sent = 0;
      do {
        this.deliverAgain = false;
        const report = await this.deps.deliverer.deliverPending();
        sent += report.sent;
        if (report.nextAt) this.deliverAt(report.nextAt);
      } while (this.deliverAgain);
      return sent;
    };
    this.delivering = run().finally(() => {
      this.delivering = undefined;
    });
    return this.delivering;
  }

  /** Delivers in the background (what was routed is posted while the poller goes on). */
  private deliverSoon(): void {
    this.deliver().catch((error: unknown) => this.deps.logger.warn({ err: error }, "delivery failed"));
  }

  /**
   * Delivers again at `at`, when a channel paced at Slack's rate (or held by a 429) may post its next
   * row: a backlog drains at Slack's pace, not at the loop's. One such delivery is kept, the earliest.
   */
  private deliverAt(at: Date): void {
    if (this.stopped) return;
    const ms = Math.max(0, at.getTime() - this.now().getTime());
    const when = Date.now() + ms;
    if (this.laterDelivery && this.laterDelivery.at <= when) return;
    clearTimeout(this.laterDelivery?.timer);
    const timer = setTimeout(() => {
      this.laterDelivery = undefined;
      this.deliverSoon();
    }, ms);
    this.laterDelivery = { at: when, timer };
  }

  /** Reads one claimed repository and schedules its next read; returns the number of new events, or "failed". */
  private async pollRepository(poll: ClaimedPoll): Promise<number | "failed"> {
    const { store, logger, metrics, owner } = this.deps;
    const { repository } = poll;
    const renew = setInterval(() => {
      void store
        .renewPollClaim(repository, owner, new Date(this.now().getTime() + this.leaseMs))
        .catch(() => {});
    }, this.leaseMs / 3);
    try {
      const fresh = await readReason.run(poll.reason, () => this.read(repository));
      const now = this.now();
      const activeUntil = fresh > 0 ? new Date(now.getTime() + ACTIVE_MS) : undefined;
      const active = Math.max(poll.activeUntil?.getTime() ?? 0, activeUntil?.getTime() ?? 0) > now.getTime();
      const idle = !active && (await this.servedByDoorbell(repository));
      await store.finishPoll(repository, owner, {
        nextPollAt: new Date(now.getTime() + (idle ? this.idleMs : this.deps.intervalMs)),
        cadence: idle ? "idle" : "interval",
        failures: 0,
        lastError: null,
        ...(activeUntil ? { activeUntil } : {}),
      });
      metrics?.repositoryReads.inc({ repository: repository.toString(), outcome: "ok" });
      return fresh;
    } catch (error) {
      metrics?.repositoryReads.inc({ repository: repository.toString(), outcome: "failed" });
      metrics?.notificationFailures.inc({
        stage: "poll",
        reason: this.deps.eventLog?.failureCode?.(error) ?? "error",
      });
      const failures = poll.failures + 1;
      const retryAt = new Date(this.now().getTime() + nextDelayMs(failures, DEFAULT_BACKOFF));
      await store.finishPoll(repository, owner, {
        nextPollAt: retryAt,
        cadence: "retry",
        failures,
        lastError: (error as Error).message,
      });
      logger.warn(
        { repository, err: error, failures, retryAt: retryAt.toISOString() },
        `could not read the event log of ${repository}: retried with backoff`,
      );
      return "failed";
    } finally {
      clearInterval(renew);
    }
  }

  private get idleMs(): number {
    return Math.max(this.deps.idleMs ?? this.deps.intervalMs, this.deps.intervalMs);
  }

  private async servedByDoorbell(repository: Repo): Promise<boolean> {
    if (!this.deps.doorbellServes || this.idleMs === this.deps.intervalMs) return false;
    return this.deps.doorbellServes(repository).catch(() => false);
  }

  /** Reads the repository's log since its cursor and hands the new events to the outbox. */
  private async read(repository: Repo): Promise<number> {
    const { store, metrics, deliverer, personal, eventLog } = this.deps;
    if (!eventLog) return 0;
    const subs = await store.listSubscriptions({ repository });
    if (subs.length === 0) return 0;
    if (this.deps.readsLog && !(await this.deps.readsLog(repository))) return 0;
    const now = this.now();
    const cursor: PollCursor = (await store.getPollCursor(repository)) ?? {
      repository,
      // A new subscription starts at the moment it was made: no backfill.
      receivedFrom: new Date(Math.min(...subs.map((s) => s.createdAt.getTime()))),
      seenEventIds: [],
      updatedAt: now,
    };
    const groups = new Set(
      [...subs, { groups: (await personal?.wantedGroups()) ?? [] }].flatMap((s) => s.groups),
    );
    const events: QueueEvent[] = [];
    for await (const event of eventLog.events(repository, {
      since: cursor.receivedFrom,
      groups: [...groups] as EventGroup[],
    })) {
      events.push(event);
    }
    // A backlog's thousands of events (read again at each poll while they are the newest) are sorted,
    // sifted and handed over in turns of the event loop (event-loop.ts), not in one long task.
    const turns = new Turns();
    await turns.next();
    sortByTime(events);
    const seen = new Set(cursor.seenEventIds);
    let fresh = 0;
    const routed: QueueEvent[] = [];
    for (const event of events) {
      await turns.next();
      if (seen.has(event.id)) continue;
      fresh += 1;
      metrics?.eventsPolled.inc({ type: event.origin });
      if (groupOfEvent(event)) routed.push(event);
      else metrics?.eventsSkipped.inc({ reason: "unknown_type" });
    }
    await this.deps.history?.record(repository, routed);
    // Channels' notices are posted while people's are looked up (a backlog's first post does not wait).
    const onChannelsQueued = () => this.deliverSoon();
    const { annotate, details } = this.deps;
    await dispatchEvents(
      { deliverer, personal, annotate, details, onChannelsQueued, turns },
      repository,
      routed,
      subs,
    );
    await turns.next();
    await store.putPollCursor(advance(cursor, events, now));
    return fresh;
  }
}

/**
 * Sorts events as compareQueueEvents does (by time, then id), each time parsed once: a comparator that
 * parses both times of each of a backlog's n·log n comparisons is a long task by itself.
 */
function sortByTime(events: QueueEvent[]): void {
  const at = new Map(events.map((e) => [e, Date.parse(e.at)]));
  events.sort((a, b) => (at.get(a) ?? 0) - (at.get(b) ?? 0) || a.id - b.id);
}

/**
 * The cursor after a poll: shortly before the newest event seen, or a few minutes behind our clock
 * for an idle repository (never backwards), with the ids that will be read again.
 */
export function advance(cursor: PollCursor, events: readonly QueueEvent[], now: Date): PollCursor {
  const times = events.map((e) => Date.parse(e.at));
  const newest = times.reduce((max, t) => Math.max(max, t), Number.NEGATIVE_INFINITY);
  const anchor = Math.max(newest - LATE_MS, now.getTime() - OVERLAP_MS);
  const receivedFrom = new Date(Math.max(cursor.receivedFrom.getTime(), anchor));
  // Every event from receivedFrom on is read again next time: remember which were handled.
  const seenEventIds = events.filter((_, i) => (times[i] ?? 0) >= receivedFrom.getTime()).map((e) => e.id);
  return { repository: cursor.repository, receivedFrom, seenEventIds, updatedAt: now };
}
