import type { Migration } from "./migration.js";

/**
 * The queue's health episodes (src/store/health-episodes.ts, src/health): one row per open episode of a
 * repository (a stall, slow checks, a check failing for everyone, a long pause) and its key, claimed in
 * one statement so that two replicas post it once; the Slack messages that told it, to edit them when it
 * ends.
 */
export const healthEpisodes: Migration = {
  version: 18,
  name: "health episodes",
  async up(db, t) {
    await db.schema
      .createTable("health_episodes")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("since", t.time, (c) => c.notNull())
      .addColumn("opened_at", t.time, (c) => c.notNull())
      .addColumn("opened_by", "text", (c) => c.notNull())
      .addColumn("facts", t.json, (c) => c.notNull())
      .addColumn("posts", t.json, (c) => c.notNull())
      .addColumn("last_posted_at", t.time)
      .addPrimaryKeyConstraint("health_episodes_pkey", ["repository_key", "kind", "key"])
      .execute();
  },
};
