import type { Migration } from "./migration.js";

/**
 * When each repository's log was last read (docs/notifications.md, "When a repository is read"): the
 * doorbell reads a repository at most once per DOORBELL_MIN_GAP_SECONDS after the last read, whatever the
 * webhook rate and whichever replica reads, so the time is kept with the schedule the replicas share.
 * Null until the next read. Versions 12 and 13 are other changes'.
 */
export const pollLastRead: Migration = {
  version: 14,
  name: "poll last read",
  async up(db, t) {
    await db.schema.alterTable("poll_schedule").addColumn("last_read_at", t.time).execute();
  },
};
