import type { QueueEvent } from "../core/queue.js";
import { yieldToEventLoop } from "../event-loop.js";
import type { Repo } from "../repo.js";
import { type StoreContext, time } from "./query-helpers.js";

/**
 * The queue's history: every queue event (src/core/queue.ts) either backend brought, as the notifier
 * read it. Recorded once per repository and event id whatever the replicas and redeliveries, kept
 * QUEUE_EVENT_RETENTION_MS. `stats` and the weekly digest read it for GitHub's merge queue.
 */
export interface QueueHistory {
  /**
   * Records the events of a repository; an event recorded before (same id) is left as it was. Many events
   * are written in statements of at most HISTORY_ROWS_PER_STATEMENT rows, the event loop running between
   * two (a backlog's thousands of rows are not one long task on SQLite's synchronous driver); each
   * statement stands on its own, so after a failure part may be recorded, and recording them all again
   * completes it without writing any twice.
   */
  recordQueueEvents(repository: Repo, events: readonly QueueEvent[], now: Date): Promise<void>;
  /** The repository's events from `from` (included) to `to` (excluded), oldest first; of `kinds` only when given. */
  readQueueEvents(
    repository: Repo,
    range: { from: Date; to: Date },
    kinds?: readonly string[],
  ): Promise<QueueEvent[]>;
  /**
   * The repository's events from `from` (included) to `to` (excluded) that happened or were recorded at
   * or after `since`, oldest first, of `kinds`: what a reader that kept the older ones has not seen,
   * including an event recorded late (a poller catching up).
   */
  readRecentQueueEvents(
    repository: Repo,
    range: { from: Date; to: Date; since: Date },
    kinds: readonly string[],
  ): Promise<QueueEvent[]>;
  /** One pull request's events of `kinds` from `from` (included) to `to` (excluded), oldest first. */
  readPullQueueEvents(
    repository: Repo,
    pull: number,
    range: { from: Date; to: Date },
    kinds: readonly string[],
  ): Promise<QueueEvent[]>;
}

/** The most rows one statement of recordQueueEvents inserts. */
export const HISTORY_ROWS_PER_STATEMENT = 200;

/** How long the history keeps an event: the 30-day stats and their previous period, and some. */
export const QUEUE_EVENT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/** The history's queries (the store's facade spreads them into the Store). */
export function kyselyHistory(ctx: StoreContext): QueueHistory {
  const { db } = ctx;
  const prune = (now: Date) =>
    ctx.pruneIfDue("queue_events", now, () =>
      db
        .deleteFrom("queue_events")
        .where("at", "<", time(new Date(now.getTime() - QUEUE_EVENT_RETENTION_MS)))
        .execute(),
    );
  return {
    async recordQueueEvents(repository, events, now) {
      await prune(now);
      if (events.length === 0) return;
      const row = (event: QueueEvent) => ({
        event_key: `${repository.key}#${event.id}`,
        repository_key: repository.key,
        repository: repository.fullName,
        branch: event.branch,
        pull_request: event.pull,
        kind: event.kind,
        at: time(new Date(event.at)),
        event: JSON.stringify(event),
        recorded_at: time(now),
      });
      for (let from = 0; from < events.length; from += HISTORY_ROWS_PER_STATEMENT) {
        if (from > 0) await yieldToEventLoop();
        await db
          .insertInto("queue_events")
          .values(events.slice(from, from + HISTORY_ROWS_PER_STATEMENT).map(row))
          .onConflict((oc) => oc.column("event_key").doNothing())
          .execute();
      }
    },

    async readQueueEvents(repository, range, kinds) {
      let query = db
        .selectFrom("queue_events")
        .select(["event"])
        .where("repository_key", "=", repository.key)
        .where("at", ">=", time(range.from))
        .where("at", "<", time(range.to));
      if (kinds) {
        if (kinds.length === 0) return [];
        query = query.where("kind", "in", [...kinds]);
      }
      const rows = await query.orderBy("at").orderBy("event_key").execute();
      return rows.map((row) => ctx.v.readJson(row.event) as QueueEvent);
    },

    async readRecentQueueEvents(repository, range, kinds) {
      if (kinds.length === 0) return [];
      const since = time(range.since);
      const rows = await db
        .selectFrom("queue_events")
        .select(["event"])
        .where("repository_key", "=", repository.key)
        .where("at", ">=", time(range.from))
        .where("at", "<", time(range.to))
        .where((eb) => eb.or([eb("at", ">=", since), eb("recorded_at", ">=", since)]))
        .where("kind", "in", [...kinds])
        .orderBy("at")
        .orderBy("event_key")
        .execute();
      return rows.map((row) => ctx.v.readJson(row.event) as QueueEvent);
    },

    async readPullQueueEvents(repository, pull, range, kinds) {
      if (kinds.length === 0) return [];
      const rows = await db
        .selectFrom("queue_events")
        .select(["event"])
        .where("repository_key", "=", repository.key)
        .where("at", ">=", time(range.from))
        .where("at", "<", time(range.to))
        .where("pull_request", "=", pull)
        .where("kind", "in", [...kinds])
        .orderBy("at")
        .orderBy("event_key")
        .execute();
      return rows.map((row) => ctx.v.readJson(row.event) as QueueEvent);
    },
  };
}
