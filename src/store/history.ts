import type { ColumnType, Kysely } from "kysely";
import type { QueueEvent } from "../core/queue.js";
import type { Repo } from "../repo.js";

/**
 * The queue's history: every queue event (src/core/queue.ts) either backend brought, as the notifier
 * read it. Recorded once per repository and event id whatever the replicas and redeliveries, kept
 * QUEUE_EVENT_RETENTION_MS. `stats` and the weekly digest read it for GitHub's merge queue.
 */
export interface QueueHistory {
  /** Records the events of a repository; an event recorded before (same id) is left as it was. */
  recordQueueEvents(repository: Repo, events: readonly QueueEvent[], now: Date): Promise<void>;
  /** The repository's events from `from` (included) to `to` (excluded), oldest first; of `kinds` only when given. */
  readQueueEvents(
    repository: Repo,
    range: { from: Date; to: Date },
    kinds?: readonly string[],
  ): Promise<QueueEvent[]>;
}

/** How long the history keeps an event: the 30-day stats and their previous period, and some. */
export const QUEUE_EVENT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

const time = (date: Date): string => date.toISOString();

/** The table as the queries see it (database.ts's Tables has it): times and JSON as the store writes them. */
export interface QueueEventsTable {
  event_key: string;
  repository_key: string;
  repository: string;
  branch: string | null;
  pull_request: ColumnType<number | string | null, number | null, number | null>;
  kind: string;
  at: ColumnType<Date | string, string, string>;
  /** JSON text; PostgreSQL (jsonb) hands it back parsed, SQLite as the text. */
  event: ColumnType<unknown, string, string>;
  recorded_at: ColumnType<Date | string, string, string>;
}

/** What the history needs of the store's database. */
export interface HistoryDatabase {
  kind: "sqlite" | "postgres";
  db: Kysely<{ queue_events: QueueEventsTable }>;
}

/** The history in the store's database, either dialect. */
export class KyselyQueueHistory implements QueueHistory {
  #lastPrune: number | undefined;

  /** `pruneIntervalMs`: the store's PRUNE_INTERVAL_MS, least time between two prunes by one instance. */
  constructor(
    private readonly database: HistoryDatabase,
    private readonly pruneIntervalMs: number,
  ) {}

  async recordQueueEvents(repository: Repo, events: readonly QueueEvent[], now: Date): Promise<void> {
    await this.#pruneIfDue(now);
    if (events.length === 0) return;
    const rows = events.map((event) => ({
      event_key: `${repository.key}#${event.id}`,
      repository_key: repository.key,
      repository: repository.fullName,
      branch: event.branch,
      pull_request: event.pull,
      kind: event.kind,
      at: time(new Date(event.at)),
      event: JSON.stringify(event),
      recorded_at: time(now),
    }));
    await this.database.db
      .insertInto("queue_events")
      .values(rows)
      .onConflict((oc) => oc.column("event_key").doNothing())
      .execute();
  }

  async readQueueEvents(
    repository: Repo,
    range: { from: Date; to: Date },
    kinds?: readonly string[],
  ): Promise<QueueEvent[]> {
    let query = this.database.db
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
    const sqlite = this.database.kind === "sqlite";
    return rows.map((row) => (sqlite ? JSON.parse(row.event as string) : row.event) as QueueEvent);
  }

  /** Forgets events older than the retention, at most once an interval per instance. */
  async #pruneIfDue(now: Date): Promise<void> {
    if (this.#lastPrune !== undefined && now.getTime() - this.#lastPrune < this.pruneIntervalMs) return;
    this.#lastPrune = now.getTime();
    await this.database.db
      .deleteFrom("queue_events")
      .where("at", "<", time(new Date(now.getTime() - QUEUE_EVENT_RETENTION_MS)))
      .execute();
  }
}
