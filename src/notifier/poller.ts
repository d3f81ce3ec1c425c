import { AsyncLocalStorage } from "node:async_hooks";
import type { EventGroup } from "../core/event-groups.js";
import { groupOfEvent, type LogPosition, type QueueEvent, type QueueEventLog } from "../core/queue.js";
import type { Subscription } from "../core/records.js";
import { Turns } from "../event-loop.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { Repo } from "../repo.js";
import {
  cursorOf,
  cursorPayload,
  POLL_KIND,
  type PollCursor,
  type PollPayload,
  type PollReason,
  type PollStore,
  type SubscriptionStore,
  type WorkItem,
  type WorkStore,
} from "../store/index.js";
import { type WorkKind, type WorkNext, WorkRunner } from "../work/runner.js";
import { DEFAULT_BACKOFF, nextDelayMs } from "./backoff.js";
import type { Deliverer } from "./deliverer.js";
import { type DispatchDeps, dispatchEvents } from "./dispatch.js";
import type { PersonalNotices } from "./personal-notices.js";

export interface PollerDeps {
  store: PollStore & Pick<SubscriptionStore, "listSubscriptions"> & WorkStore;
  /**
   * This replica's runner of durable work (src/work/runner.ts), which runs the reads (kind `poll`); the
   * poller makes its own without one (tests, the benchmark).
   */
  work?: WorkRunner;
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
  /** Repositories read at once (and claimed at once: one claim takes at most this many). */
  concurrency?: number;
  /** For a runner the poller makes itself: how often it looks for reads other replicas made due. Default 1 s. */
  wakeMs?: number;
  metrics?: Metrics;
  logger: Logger;
  now?: () => Date;
}

/** How far before the newest event read the cursor stays: an event the log shows late is still read. */
export const LATE_MS = 60_000;
/** The most ids a cursor keeps (the newest): more than a backlog's events within LATE_MS. */
const MOST_SEEN_IDS = 5_000;
/** How far behind our clock a quiet repository's cursor stays, for a service clock a little off ours. */
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
  /** Repositories read in this pass (successfully or not). */
  repositories: number;
  polled: number;
  failed: number;
  events: number;
  sent: number;
}

/** Why the merge-queue request being made is made, for its metrics; undefined outside the poller. */
const readReason = new AsyncLocalStorage<PollReason>();
export const currentReadReason = (): PollReason | undefined => readReason.getStore();

const ms = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : Number.NEGATIVE_INFINITY);
const iso = (at: number): string => new Date(at).toISOString();

/**
 * The notifier's poller (docs/notifications.md, "When a repository is read"). Each subscribed
 * repository's reads are durable work of kind `poll` (docs/architecture.md, "Durable work"): this
 * replica's runner claims the due ones in batches (each by one replica; a dead replica's at its claim's
 * lapse), and each run reads the log since the cursor its item keeps (one request for a quiet
 * repository), routes the new events to the subscribed channels through the outbox, and returns when
 * the repository is due next, with the cursor moved. GitHub's events on a repository (`ring`) make its
 * item due within DOORBELL_DELAY_MS (an `earlier` schedule), whichever replica received them. The
 * deliverer's own kind of work posts what the reads queued; the poller's last tick is the runner's last
 * pass (/healthz).
 */
export class Poller {
  private readonly work: WorkRunner;
  /** Whether the runner is the poller's own (no `work` given): then it is stopped with it. */
  private readonly ownRunner: boolean;
  private stopped = true;
  /** Ends the poller's hearing of the runner's passes (its ticks). */
  private unlisten: (() => void) | undefined;
  private delivering: Promise<number> | undefined;
  private deliverAgain = false;
  /** The delivery asked for when a paced or held channel may go on (deliverAt). */
  private laterDelivery: { at: number; timer: NodeJS.Timeout } | undefined;
  /** This replica's reads so far (a tick reports the difference). */
  private readonly reads = { polled: 0, failed: 0, events: 0 };
  /** Each claimed repository's subscriptions, read for its whole claim at once (beforeBatch), until its run takes them. */
  private readonly claimedSubscriptions = new WeakMap<WorkItem, Subscription[]>();
  lastSuccessfulTick: Date | null = null;

  constructor(private readonly deps: PollerDeps) {
    this.ownRunner = !deps.work;
    this.work =
      deps.work ??
      new WorkRunner({
        store: deps.store,
        owner: deps.owner,
        now: () => this.now(),
        logger: deps.logger,
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
        safetyMs: this.wakeMs,
      });
    this.work.register(this.kind());
  }

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

  private get minGapMs(): number {
    return this.deps.minGapMs ?? DEFAULT_MIN_GAP_MS;
  }

  /** The kind of work of the reads. */
  private kind(): WorkKind {
    return {
      kind: POLL_KIND,
      concurrency: this.deps.concurrency ?? 16,
      leaseMs: this.leaseMs,
      // A claim's quiet reads end together: one write completes them all.
      completeTogether: true,
      backoff: (attempts) => nextDelayMs(attempts, DEFAULT_BACKOFF),
      // People's preferences and the repositories' subscriptions, read once per claim.
      beforeBatch: async (items) => {
        await this.deps.personal?.refreshGroups();
        await this.readSubscriptions(items);
      },
      run: (item) => this.runPoll(item),
    };
  }

  /**
   * Starts the reads (when there is a log to read) and the deliverer's runs (each channel's, as durable
   * work); each pass of the runner is a tick. A deliverer that does not run by itself (a test's) is asked
   * now, and again when a paced channel may go on.
   */
  start(): void {
    this.stopped = false;
    this.deps.metrics?.pollerRunning.set(true);
    if (this.deps.eventLog) this.work.resume(POLL_KIND);
    this.unlisten?.();
    this.unlisten = this.work.onPassed(() => this.ticked());
    const { deliverer } = this.deps;
    if (deliverer.start) deliverer.start().catch(() => undefined);
    else this.deliverSoon();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.metrics?.pollerRunning.set(false);
    this.unlisten?.();
    this.unlisten = undefined;
    clearTimeout(this.laterDelivery?.timer);
    this.laterDelivery = undefined;
    await Promise.all([
      this.ownRunner ? this.work.stop() : this.work.pause(POLL_KIND),
      this.deps.deliverer.stop?.(),
    ]);
    await this.delivering?.catch(() => undefined);
  }

  private ticked(): void {
    this.lastSuccessfulTick = this.now();
    this.deps.metrics?.pollerLastTick.set(this.lastSuccessfulTick.getTime() / 1000);
  }

  /**
   * GitHub announced activity on `repository` (the doorbell): it is read DOORBELL_DELAY_MS from now, or
   * the minimum gap after its last read if that is later (a read already asked for sooner stands: this
   * event is read with it), and again RECHECK_MS after the latest event, by whichever replica claims it.
   * Nothing happens for a repository nobody subscribed to.
   */
  async ring(repository: Repo): Promise<void> {
    const schedule = await this.deps.store.getPollSchedule(repository);
    if (!schedule) return;
    const now = this.now().getTime();
    const due = Math.max(now + DOORBELL_DELAY_MS, (schedule.lastReadAt?.getTime() ?? 0) + this.minGapMs);
    const rung = await this.work.schedule({
      kind: POLL_KIND,
      key: repository.key,
      dueAt: new Date(due),
      when: "earlier",
      existingOnly: true,
      payload: {
        rungAt: iso(now),
        recheckAt: iso(now + RECHECK_MS),
        activeUntil: iso(now + ACTIVE_MS),
      } satisfies Partial<PollPayload>,
    });
    if (rung) this.deps.metrics?.doorbellRings.inc({});
  }

  /**
   * Runs the due reads by hand, claim after claim, then delivers what is pending (tests and the
   * benchmark, with the runner not claiming them by itself).
   */
  async tick(): Promise<TickReport> {
    const before = { ...this.reads };
    if (this.deps.eventLog) await this.work.drain(POLL_KIND);
    const polled = this.reads.polled - before.polled;
    const failed = this.reads.failed - before.failed;
    const events = this.reads.events - before.events;
    const report: TickReport = { repositories: polled + failed, polled, failed, events, sent: 0 };
    report.sent = await this.deliver();
    this.ticked();
    if (report.events || report.failed) this.deps.logger.debug(report, "poller pass");
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

  /**
   * Why a claimed repository is read now, or null when it is not to be read yet: it was rung within the
   * minimum gap after its last read (across replicas), and nothing else is due.
   */
  private reasonOf(item: WorkItem, startedAt: number): PollReason | null {
    const p = item.payload as Partial<PollPayload>;
    const last = ms(p.lastReadAt);
    if (last === Number.NEGATIVE_INFINITY) return item.attempts > 0 ? "retry" : "new";
    const recheck = ms(p.recheckAt);
    const rung = ms(p.rungAt) > last || (recheck > last && recheck <= startedAt);
    if (rung && startedAt >= last + this.minGapMs) return "doorbell";
    const regular = item.attempts > 0 ? "retry" : (p.cadence ?? "interval");
    return rung && ms(p.regularAt) > startedAt ? null : regular;
  }

  /**
   * The subscriptions of a claim's repositories, in one query; a repository whose run finds none kept
   * (the query failed, or an item not claimed in a batch) reads its own.
   */
  private async readSubscriptions(items: readonly WorkItem[]): Promise<void> {
    const repositories = items.map((item) => repositoryOf(item));
    const subs = await this.deps.store.listSubscriptions({ repositories }).catch(() => null);
    if (!subs) return;
    const byKey = new Map<string, Subscription[]>();
    for (const sub of subs) {
      const list = byKey.get(sub.repository.key);
      if (list) list.push(sub);
      else byKey.set(sub.repository.key, [sub]);
    }
    items.forEach((item, i) => {
      this.claimedSubscriptions.set(item, byKey.get(repositories[i]?.key ?? "") ?? []);
    });
  }

  /** A claimed repository's subscriptions: those read with its claim, else its own query. */
  private async subscriptionsOf(item: WorkItem, repository: Repo): Promise<Subscription[]> {
    const kept = this.claimedSubscriptions.get(item);
    this.claimedSubscriptions.delete(item);
    return kept ?? this.deps.store.listSubscriptions({ repository });
  }

  /** One claimed repository's read (the `poll` kind's run): when it is due next, with its cursor moved. */
  private async runPoll(item: WorkItem): Promise<WorkNext> {
    const p = item.payload as Partial<PollPayload>;
    const repository = repositoryOf(item);
    const start = this.now().getTime();
    const reason = this.reasonOf(item, start);
    if (reason === null) {
      this.claimedSubscriptions.delete(item);
      return { dueAt: new Date(ms(p.lastReadAt) + this.minGapMs) };
    }
    const { metrics } = this.deps;
    let read: { fresh: number; cursor: PollCursor | null };
    try {
      const subs = await this.subscriptionsOf(item, repository);
      read = await readReason.run(reason, () => this.read(repository, subs, cursorOf(item.payload)));
    } catch (error) {
      this.reads.failed += 1;
      metrics?.repositoryReads.inc({ outcome: "failed", repository: repository.toString() });
      metrics?.notificationFailures.inc({
        stage: "poll",
        reason: this.deps.eventLog?.failureCode?.(error) ?? "error",
      });
      throw new Error(`could not read the event log of ${repository}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.reads.polled += 1;
    this.reads.events += read.fresh;
    metrics?.repositoryReads.inc({ outcome: "ok", repository: repository.toString() });
    return this.next(repository, p, start, read);
  }

  /** When a repository read at `start` is due next: its cadence, or the recheck GitHub's last event asked for. */
  private async next(
    repository: Repo,
    p: Partial<PollPayload>,
    start: number,
    read: { fresh: number; cursor: PollCursor | null },
  ): Promise<WorkNext> {
    const now = this.now().getTime();
    const activeUntil = read.fresh > 0 ? now + ACTIVE_MS : undefined;
    const active = Math.max(ms(p.activeUntil), activeUntil ?? 0) > now;
    const idle = !active && (await this.servedByDoorbell(repository));
    const regularAt = now + (idle ? this.idleMs : this.deps.intervalMs);
    const recheck = ms(p.recheckAt);
    const dueAt = recheck > start ? Math.min(regularAt, Math.max(recheck, start + this.minGapMs)) : regularAt;
    const payload: Partial<PollPayload> = {
      cadence: idle ? "idle" : "interval",
      regularAt: iso(regularAt),
      lastReadAt: iso(start),
      ...(activeUntil ? { activeUntil: iso(activeUntil) } : {}),
      ...(read.cursor ? { cursor: cursorPayload(read.cursor) } : {}),
    };
    return { dueAt: new Date(dueAt), payload };
  }

  private get idleMs(): number {
    return Math.max(this.deps.idleMs ?? this.deps.intervalMs, this.deps.intervalMs);
  }

  private async servedByDoorbell(repository: Repo): Promise<boolean> {
    if (!this.deps.doorbellServes || this.idleMs === this.deps.intervalMs) return false;
    return this.deps.doorbellServes(repository).catch(() => false);
  }

  /**
   * Reads the repository's log since its cursor and hands the new events to the outbox; the number of
   * new events and the cursor after them (null: nothing was read).
   */
  private async read(
    repository: Repo,
    subs: readonly Subscription[],
    kept: PollCursor | null,
  ): Promise<{ fresh: number; cursor: PollCursor | null }> {
    const { metrics, deliverer, personal, eventLog } = this.deps;
    const none = { fresh: 0, cursor: null };
    if (!eventLog) return none;
    if (subs.length === 0) return none;
    if (this.deps.readsLog && !(await this.deps.readsLog(repository))) return none;
    const now = this.now();
    const cursor: PollCursor = kept ?? {
      repository,
      // A new subscription starts at the moment it was made: no backfill.
      receivedFrom: new Date(Math.min(...subs.map((s) => s.createdAt.getTime()))),
      seenEventIds: [],
      updatedAt: now,
    };
    const groups = new Set(
      [...subs, { groups: (await personal?.wantedGroups()) ?? [] }].flatMap((s) => s.groups),
    );
    const after = takenUpTo(cursor);
    const events = await eventLog.events(repository, {
      since: cursor.receivedFrom,
      groups: [...groups] as EventGroup[],
      ...(after ? { after } : {}),
    });
    if (events.length === 0) {
      // A quiet repository: nothing to sort or hand over (the history still prunes itself when due).
      await this.deps.history?.record(repository, events);
      return { fresh: 0, cursor: advance(cursor, events, now) };
    }
    // A backlog's thousands of events are sorted, sifted and handed over in turns of the event loop
    // (event-loop.ts), not in one long task.
    const turns = new Turns();
    await turns.next();
    sortByTime(events);
    const seen = new Set(cursor.seenEventIds);
    const from = cursor.receivedFrom.getTime();
    let fresh = 0;
    const routed: QueueEvent[] = [];
    for (const event of events) {
      await turns.next();
      if (seen.has(event.id) || Date.parse(event.at) < from) continue;
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
    return { fresh, cursor: advance(cursor, events, now) };
  }
}

/** The repository a `poll` item reads (as subscribed; its key otherwise). */
function repositoryOf(item: WorkItem): Repo {
  return Repo.from((item.payload as Partial<PollPayload>).repository ?? item.key);
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
 * The cursor after a read: LATE_MS before the newest event read (an event the merge queue makes visible
 * a little late, with an earlier time, is still read), or OVERLAP_MS behind our clock for a quiet
 * repository; never backwards. The ids of the events from there on are kept, so that none is taken twice.
 */
export function advance(cursor: PollCursor, events: readonly QueueEvent[], now: Date): PollCursor {
  const times = events.map((e) => Date.parse(e.at));
  const newest = times.reduce((max, t) => Math.max(max, t), Number.NEGATIVE_INFINITY);
  const anchor = Math.max(newest - LATE_MS, now.getTime() - OVERLAP_MS);
  const from = Math.max(cursor.receivedFrom.getTime(), anchor);
  // The ids taken before are kept too: a read that stopped paging early did not see them again.
  const read = events.filter((_, i) => (times[i] ?? 0) >= from).map((e) => e.id);
  const seenEventIds = [...new Set([...cursor.seenEventIds, ...read])]
    .sort((a, b) => b - a)
    .slice(0, MOST_SEEN_IDS);
  return { repository: cursor.repository, receivedFrom: new Date(from), seenEventIds, updatedAt: now };
}

/**
 * Where the last read took the log up to, for a backend that can stop paging there: the cursor, with
 * the ids taken from it on (none before a first read: then every page since the cursor is read).
 */
function takenUpTo(cursor: PollCursor): LogPosition | undefined {
  return cursor.seenEventIds.length > 0 ? { at: cursor.receivedFrom, ids: cursor.seenEventIds } : undefined;
}
