import type { Migration } from "./migration.js";

/**
 * One pull request's recorded queue events (`readPullQueueEvents`: who queued it, for its direct
 * messages) without reading its repository's whole month.
 */
export const queueEventsByPull: Migration = {
  version: 22,
  name: "queue events by pull request",
  async up(db) {
    await db.schema
      .createIndex("queue_events_repository_pull_at")
      .on("queue_events")
      .columns(["repository_key", "pull_request", "at"])
      .execute();
  },
};
