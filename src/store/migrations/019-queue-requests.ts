import type { Migration } from "./migration.js";

/**
 * Who last asked Yardmaster to queue each pull request (src/store/queue-requests.ts): the merge queue
 * records the app's bot as its queuer, Yardmaster knows the person. One row per pull request, kept a day.
 */
export const queueRequests: Migration = {
  version: 19,
  name: "queue requests",
  async up(db, t) {
    await db.schema
      .createTable("queue_requests")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("pull_number", "integer", (c) => c.notNull())
      .addColumn("login", "text", (c) => c.notNull())
      .addColumn("asked_at", t.time, (c) => c.notNull())
      .addPrimaryKeyConstraint("queue_requests_pk", ["repository_key", "pull_number"])
      .execute();
  },
};
