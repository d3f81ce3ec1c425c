import type { Migration } from "./migration.js";

/**
 * A thread whose parent message does not show its latest state yet (docs/notifications.md, "Threads"):
 * a reply was recorded and the parent's edit is still to do (coalesced to one edit per pass, or held by
 * Slack's `chat.update` rate limit, or failed). 0 or 1 in both dialects. Version 4 is the poll schedule's.
 */
export const threadParentStale: Migration = {
  version: 5,
  name: "thread parent stale",
  async up(db) {
    await db.schema
      .alterTable("threads")
      .addColumn("parent_stale", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
