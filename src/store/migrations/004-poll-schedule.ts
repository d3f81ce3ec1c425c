import { sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * When each subscribed repository's event log is read next (docs/notifications.md, "When a repository
 * is read"): one row per repository, claimed by one replica at a time, so that replicas share the reads
 * instead of repeating them. Three times can make a row due: its cadence (`next_poll_at`: the interval,
 * the idle period or a retry), a GitHub event on the repository (`doorbell_at`), and the read a few
 * seconds after that event (`recheck_at`). Rows for the repositories already subscribed are due at once.
 */
export const pollSchedule: Migration = {
  version: 4,
  name: "poll schedule",
  async up(db, t) {
    await db.schema
      .createTable("poll_schedule")
      .addColumn("repository_key", "text", (c) => c.primaryKey())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("next_poll_at", t.time, (c) => c.notNull())
      .addColumn("cadence", "text", (c) =>
        c.notNull().check(sql`cadence IN ('new', 'interval', 'idle', 'retry')`),
      )
      .addColumn("doorbell_at", t.time)
      .addColumn("recheck_at", t.time)
      .addColumn("active_until", t.time)
      .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("last_error", "text")
      .addColumn("claimed_by", "text")
      .addColumn("claimed_until", t.time)
      .addColumn("claim_reason", "text")
      .execute();
    await db.schema
      .createIndex("poll_schedule_next_poll_at")
      .on("poll_schedule")
      .column("next_poll_at")
      .execute();
    const epoch = t.dialect === "postgres" ? sql`CAST(${EPOCH} AS timestamptz)` : sql`${EPOCH}`;
    await sql`
      INSERT INTO poll_schedule (repository_key, repository, next_poll_at, cadence, failures)
      SELECT repository_key, min(repository), ${epoch}, 'new', 0 FROM subscriptions GROUP BY repository_key
    `.execute(db);
  },
};

/** Due whatever the clock says: a new repository is read at the next pass. */
export const EPOCH = new Date(0).toISOString();
