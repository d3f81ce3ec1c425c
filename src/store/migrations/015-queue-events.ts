import type { Migration } from "./migration.js";

/**
 * The queue's history (src/store/history.ts): every queue event either backend brought, recorded once
 * whatever the replicas (its key is the repository and the event's id), kept 90 days. `stats` and the
 * weekly digest read it for GitHub's merge queue, which keeps no log of its own.
 */
export const queueEvents: Migration = {
  version: 15,
  name: "queue events",
  async up(db, t) {
    await db.schema
      .createTable("queue_events")
      .addColumn("event_key", "text", (c) => c.primaryKey())
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("branch", "text")
      .addColumn("pull_request", t.int8)
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("at", t.time, (c) => c.notNull())
      .addColumn("event", t.json, (c) => c.notNull())
      .addColumn("recorded_at", t.time, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("queue_events_repository_at")
      .on("queue_events")
      .columns(["repository_key", "at"])
      .execute();
  },
};
