import pLimit from "p-limit";
import type { Logger } from "../logger.js";
import {
  compareLogEvents,
  type LogEvent,
  type MergeQueueClient,
  MergeQueueError,
} from "../merge-queue/index.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import type { PollCursor, Store, Subscription } from "../store/index.js";
import type { Backoffs } from "./backoff.js";
import type { Deliverer } from "./deliverer.js";
import { groupOf, route, wantedEventTypes } from "./routing.js";

export interface PollerDeps {
  store: Store;
  mergeQueue: MergeQueueClient;
  deliverer: Deliverer;
  backoffs: Backoffs;
  intervalMs: number;
  /** Which replica this is, for leases. */
  owner: string;
  /** Repositories polled at once. */
  concurrency?: number;
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

export interface TickReport {
  repositories: number;
  polled: number;
  failed: number;
  events: number;
  sent: number;
}

/**
 * The notifier's poller (docs/notifications.md, "Reading the log"): each tick reads every subscribed repository's event
 * log since its cursor (one request for an idle repository), routes new events to the subscribed
 * channels through the outbox, then delivers. Replicas share the work through leases.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;
  lastSuccessfulTick: Date | null = null;

  constructor(private readonly deps: PollerDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  start(): void {
    this.stopped = false;
    const loop = async () => {
      this.running = this.tick().catch((error: unknown) =>
        this.deps.logger.error({ err: error }, "poller tick failed"),
      );
      await this.running;
      if (!this.stopped) this.timer = setTimeout(loop, this.deps.intervalMs);
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  async tick(): Promise<TickReport> {
    const { store, logger } = this.deps;
    const subscriptions = await store.listSubscriptions();
    const byRepo = new Map<string, Subscription[]>();
    for (const s of subscriptions) {
      const key = s.repository.key;
      byRepo.set(key, [...(byRepo.get(key) ?? []), s]);
    }
    const report: TickReport = { repositories: byRepo.size, polled: 0, failed: 0, events: 0, sent: 0 };
    await pLimit(this.deps.concurrency ?? 16).map(byRepo.values(), async (subs) => {
      const result = await this.pollRepository(subs).catch((error: unknown) => {
        // Polling errors are handled inside; this is the store failing around them (backoff, lease).
        logger.warn({ repository: subs[0]?.repository, err: error }, "could not poll a repository");
        return "failed" as const;
      });
      if (result === "failed") report.failed += 1;
      else if (result !== "skipped") {
        report.polled += 1;
        report.events += result;
      }
    });
    report.sent = (await this.deps.deliverer.deliverPending()).sent;
    this.lastSuccessfulTick = this.now();
    this.deps.metrics?.pollerLastTick.set(this.lastSuccessfulTick.getTime() / 1000);
    if (report.events || report.failed) logger.debug(report, "poller tick");
    return report;
  }

  /** Polls one repository; returns the number of new events, "skipped" or "failed". */
  private async pollRepository(subs: Subscription[]): Promise<number | "skipped" | "failed"> {
    const { store, backoffs, logger, metrics } = this.deps;
    const repository = subs[0]?.repository as Repo;
    const backoffKey = `repo:${repository.key}`;
    const now = this.now();
    if (await backoffs.active(backoffKey, now)) return "skipped";
    const lease = `poll:${repository.key}`;
    if (
      !(await store.tryAcquireLease(lease, this.deps.owner, now, Math.max(60_000, this.deps.intervalMs * 2)))
    ) {
      return "skipped";
    }
    try {
      const cursor: PollCursor = (await store.getPollCursor(repository)) ?? {
        repository,
        // A new subscription starts at the moment it was made: no backfill.
        receivedFrom: new Date(Math.min(...subs.map((s) => s.createdAt.getTime()))),
        seenEventIds: [],
        updatedAt: now,
      };
      const events: LogEvent[] = [];
      for await (const event of this.deps.mergeQueue.iterateEvents(repository, {
        receivedFrom: cursor.receivedFrom,
        eventTypes: wantedEventTypes(subs),
        perPage: 100,
      })) {
        events.push(event);
      }
      events.sort(compareLogEvents);
      const seen = new Set(cursor.seenEventIds);
      let fresh = 0;
      for (const event of events) {
        if (seen.has(event.id)) continue;
        fresh += 1;
        metrics?.eventsPolled.inc({ type: event.type });
        if (!groupOf(event.type)) {
          metrics?.eventsSkipped.inc({ reason: "unknown_type" });
          continue;
        }
        for (const channel of route(event, subs))
          await this.deps.deliverer.enqueue(channel, repository, event);
      }
      await store.putPollCursor(advance(cursor, events, now));
      await backoffs.succeed(backoffKey);
      return fresh;
    } catch (error) {
      metrics?.notificationFailures.inc({
        stage: "poll",
        reason: error instanceof MergeQueueError ? error.code : "error",
      });
      const b = await backoffs.fail(backoffKey, (error as Error).message, this.now());
      logger.warn(
        { repository, err: error, retryAt: b.nextAttemptAt.toISOString() },
        `could not read the event log of ${repository}: retried with backoff`,
      );
      return "failed";
    } finally {
      await store.releaseLease(lease, this.deps.owner);
    }
  }
}

/**
 * The cursor after a poll: shortly before the newest event seen, or a few minutes behind our clock
 * for an idle repository (never backwards), with the ids that will be read again.
 */
export function advance(cursor: PollCursor, events: readonly LogEvent[], now: Date): PollCursor {
  const newest = events.reduce(
    (max, e) => Math.max(max, Date.parse(e.received_at)),
    Number.NEGATIVE_INFINITY,
  );
  const anchor = Math.max(newest - LATE_MS, now.getTime() - OVERLAP_MS);
  const receivedFrom = new Date(Math.max(cursor.receivedFrom.getTime(), anchor));
  // Every event from receivedFrom on is read again next time: remember which were handled.
  const seenEventIds = events
    .filter((e) => Date.parse(e.received_at) >= receivedFrom.getTime())
    .map((e) => e.id);
  return { repository: cursor.repository, receivedFrom, seenEventIds, updatedAt: now };
}
