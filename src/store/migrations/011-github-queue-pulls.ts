import type { Migration } from "./migration.js";

/**
 * GitHub's own merge queue (docs/notifications.md, "GitHub's merge queue"): what its webhooks said of each
 * pull request in it, for the notices of later ones: that it entered through the queue (so its merge is
 * the queue's), and the commit of its latest merge group (whose failed checks a removal lists). The
 * entry's delivery id tells a redelivery of it (which changes nothing) from a new entry. Who removed it
 * through Yardmaster (GitHub names the app's bot) is kept for the removal's notice.
 */
export const githubQueuePulls: Migration = {
  version: 11,
  name: "github queue pulls",
  async up(db, t) {
    await db.schema
      .createTable("github_queue_pulls")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("pull_number", "integer", (c) => c.notNull())
      .addColumn("base_ref", "text", (c) => c.notNull())
      .addColumn("entered_at", t.time, (c) => c.notNull())
      .addColumn("entry_delivery", "text", (c) => c.notNull())
      .addColumn("group_sha", "text")
      .addColumn("removed_by", "text")
      .addColumn("removed_at", t.time)
      .addPrimaryKeyConstraint("github_queue_pulls_pkey", ["repository_key", "pull_number"])
      .execute();
    await db.schema
      .createIndex("github_queue_pulls_entered_at")
      .on("github_queue_pulls")
      .column("entered_at")
      .execute();
  },
};
