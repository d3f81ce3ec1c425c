import { type Kysely, sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * Durable work (src/work, docs/architecture.md, "Durable work"): one row per piece of work, its `kind`
 * and its `key` (unique per kind), when it is due, which replica runs it until when (the one claim and
 * takeover rule of every kind), how many runs failed in a row and why the last did, and a small JSON
 * payload the kind keeps. The timed pauses' ends (scheduled_unpauses) are copied in as kind `unpause`.
 * scheduled_unpauses is kept, not dropped: during a rolling upgrade the older build still reads and
 * writes it (an end it schedules after this copy is ended by an older replica); a later release may
 * drop it.
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
    await copyUnpauses(db);
  },
};

type Row = Record<string, unknown>;
const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();

async function insert(db: Kysely<unknown>, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await (db as Kysely<{ work_items: Row }>)
      .insertInto("work_items")
      .values(rows.slice(i, i + 200))
      .execute();
  }
}

/** Each timed pause's end, as the `unpause` kind's payload (src/timed-pauses/runner.ts). */
async function copyUnpauses(db: Kysely<unknown>): Promise<void> {
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
