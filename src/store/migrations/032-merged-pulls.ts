import type { Migration } from "./migration.js";

/**
 * Pull requests merged into a subscribed repository, until judged (src/store/merged-pulls.ts,
 * src/outside-merges): one row per pull request (`merge_key`: its repository's key and number), made by
 * GitHub's `closed` webhook (a redelivery finds it) or by GitHub's merge queue saying it merged it
 * (`queue_merged_at`), whichever comes first; claimed by one replica when its judgement is due, and judged
 * once. And `github_queue_pulls.left_at`: GitHub's queue removed the pull request's latest entry other
 * than by merging it (its merge afterwards is not the queue's). A new table and a new column: an older
 * build ignores them.
 */
export const mergedPulls: Migration = {
  version: 32,
  name: "merged pulls",
  async up(db, t) {
    await db.schema
      .createTable("merged_pulls")
      .addColumn("merge_key", "text", (c) => c.primaryKey())
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("pull_number", "integer", (c) => c.notNull())
      .addColumn("noted_at", t.time, (c) => c.notNull())
      .addColumn("queue_merged_at", t.time)
      .addColumn("branch", "text")
      .addColumn("merged_at", t.time)
      .addColumn("merged_by", "text")
      .addColumn("merge_sha", "text")
      .addColumn("title", "text")
      .addColumn("delivery_id", "text")
      .addColumn("received_at", t.time)
      .addColumn("decide_at", t.time)
      .addColumn("give_up_at", t.time)
      .addColumn("claimed_by", "text")
      .addColumn("claimed_until", t.time)
      .addColumn("judged_at", t.time)
      .addColumn("verdict", "text")
      .execute();
    await db.schema
      .createIndex("merged_pulls_due")
      .on("merged_pulls")
      .columns(["judged_at", "decide_at"])
      .execute();
    await db.schema.alterTable("github_queue_pulls").addColumn("left_at", t.time).execute();
  },
};
