import type { Migration } from "./migration.js";

/**
 * The flake shield (src/shield/, docs/notifications.md "The flake shield"): whether it is on for a
 * repository, who turned it on or off and when (`flake_shields`, one row per repository; no row: off);
 * and each of its re-queues, claimed once per pull request's queue entry by one replica and then marked
 * with what came of it (`shield_retries`), which `stats` and the weekly digest count.
 */
export const flakeShield: Migration = {
  version: 30,
  name: "flake shield",
  async up(db, t) {
    await db.schema
      .createTable("flake_shields")
      .addColumn("repository_key", "text", (c) => c.primaryKey())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("enabled", "integer", (c) => c.notNull())
      .addColumn("changed_by", "text", (c) => c.notNull())
      .addColumn("surface", "text", (c) => c.notNull())
      .addColumn("changed_at", t.time, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("shield_retries")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("pull_number", "integer", (c) => c.notNull())
      .addColumn("entry_key", "text", (c) => c.notNull())
      .addColumn("left_event_id", t.int8, (c) => c.notNull())
      .addColumn("left_at", t.time, (c) => c.notNull())
      .addColumn("check_name", "text", (c) => c.notNull())
      .addColumn("claimed_by", "text", (c) => c.notNull())
      .addColumn("claimed_at", t.time, (c) => c.notNull())
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("detail", "text")
      .addColumn("decided_at", t.time)
      .addPrimaryKeyConstraint("shield_retries_pkey", ["repository_key", "pull_number", "entry_key"])
      .execute();
    await db.schema
      .createIndex("shield_retries_claimed_at")
      .on("shield_retries")
      .columns(["repository_key", "claimed_at"])
      .execute();
  },
};
