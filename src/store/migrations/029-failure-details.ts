import { sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * Why a removal's checks failed (src/store/failure-details.ts, src/notifier/failure-details.ts): one row
 * per removal event, its reading claimed by one replica (`claimed_by` until `claimed_until`), the notices
 * held for it until `due_at`, then what was read (`details`, or none). Each outbox row says whether its
 * message showed the details (`notifications.shows_details`: 1 yes, 0 no, null not a removal's): a
 * message sent without them is edited once they are read. Only a table and a column added: an older build
 * ignores them.
 */
export const failureDetails: Migration = {
  version: 29,
  name: "failure details",
  async up(db, t) {
    await db.schema
      .createTable("failure_details")
      .addColumn("event_id", t.int8, (c) => c.notNull().primaryKey())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('reading', 'read', 'none')`))
      .addColumn("due_at", t.time, (c) => c.notNull())
      .addColumn("claimed_by", "text", (c) => c.notNull())
      .addColumn("claimed_until", t.time, (c) => c.notNull())
      .addColumn("details", t.json)
      .addColumn("created_at", t.time, (c) => c.notNull())
      .execute();
    await db.schema.alterTable("notifications").addColumn("shows_details", "integer").execute();
    // Partial: the deliverer looks for messages sent without the details they are to show.
    await db.schema
      .createIndex("notifications_without_details")
      .on("notifications")
      .column("event_id")
      .where(sql.ref("shows_details"), "=", 0)
      .execute();
  },
};
