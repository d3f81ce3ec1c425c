import { type Kysely, sql } from "kysely";
import type { ColumnTypes, Migration } from "./migration.js";

/**
 * Durable work (src/work, docs/architecture.md, "Durable work"): one row per piece of work, its `kind`
 * and its `key` (unique per kind), when it is due, which replica runs it until when (the one claim and
 * takeover rule of every kind), how many runs failed in a row and why the last did, and a small JSON
 * payload the kind keeps. The repositories' reads (poll_schedule, poll_cursors) and the timed pauses'
 * ends (scheduled_unpauses) are copied in as kinds `poll` and `unpause`. The old tables are kept, not
 * dropped: during a rolling upgrade the older build still reads and writes them (a repository read by
 * both builds meanwhile is deduplicated by the outbox); a later release may drop them.
 */
export const workItems: Migration = {
  version: 33,
  name: "work items",
  async up(db, t) {
    await db.schema
      .createTable("work_items")
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("due_at", t.time, (c) => c.notNull())
      .addColumn("claimed_by", "text")
      .addColumn("claimed_until", t.time)
      .addColumn("started_at", t.time)
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("last_error", "text")
      .addColumn("payload", t.json, (c) => c.notNull())
      .addPrimaryKeyConstraint("work_items_pk", ["kind", "key"])
      .execute();
    await db.schema.createIndex("work_items_due").on("work_items").columns(["kind", "due_at"]).execute();
    await copyPolls(db, t);
    await copyUnpauses(db, t);
  },
};

type Row = Record<string, unknown>;
const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();
const parsed = (value: unknown, t: ColumnTypes): unknown =>
  t.dialect === "sqlite" && typeof value === "string" ? JSON.parse(value) : value;

async function insert(db: Kysely<unknown>, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await (db as Kysely<{ work_items: Row }>)
      .insertInto("work_items")
      .values(rows.slice(i, i + 200))
      .execute();
  }
}

/** Each repository's read schedule and cursor, as the `poll` kind's payload (src/notifier/poller.ts). */
async function copyPolls(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const { rows } = await sql<Row>`
    SELECT s.repository_key, s.repository, s.next_poll_at, s.doorbell_at, s.recheck_at, s.active_until,
           s.cadence, s.failures, s.last_error, s.last_read_at,
           c.received_from, c.seen_event_ids, c.updated_at
    FROM poll_schedule s LEFT JOIN poll_cursors c ON c.repository_key = s.repository_key`.execute(db);
  const dueAt = (row: Row) =>
    [row.next_poll_at, row.doorbell_at, row.recheck_at]
      .map(iso)
      .filter((at): at is string => at !== null)
      .sort()[0];
  await insert(
    db,
    rows.map((row) => ({
      kind: "poll",
      key: row.repository_key,
      due_at: dueAt(row),
      attempts: Number(row.failures),
      last_error: row.last_error,
      payload: JSON.stringify({
        repository: row.repository,
        cadence: row.cadence,
        activeUntil: iso(row.active_until),
        recheckAt: iso(row.recheck_at),
        rungAt: iso(row.doorbell_at),
        readAt: iso(row.last_read_at),
        ...(row.received_from
          ? {
              cursor: {
                receivedFrom: iso(row.received_from),
                seenEventIds: parsed(row.seen_event_ids, t),
                updatedAt: iso(row.updated_at),
              },
            }
          : {}),
      }),
    })),
  );
}

/** Each timed pause's end, as the `unpause` kind's payload (src/timed-pauses/runner.ts). */
async function copyUnpauses(db: Kysely<unknown>, _t: ColumnTypes): Promise<void> {
  const { rows } = await sql<Row>`SELECT * FROM scheduled_unpauses`.execute(db);
  await insert(
    db,
    rows.map((row) => ({
      kind: "unpause",
      key: row.repository_key,
      due_at: iso(row.resumes_at),
      attempts: 0,
      payload: JSON.stringify({
        repository: row.repository,
        reason: row.reason,
        scheduledBy: row.scheduled_by,
        surface: row.surface,
        createdAt: iso(row.created_at),
      }),
    })),
  );
}
