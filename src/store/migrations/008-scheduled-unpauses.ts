import type { Migration } from "./migration.js";

/**
 * Timed pauses (docs/commands.md, "Timed pauses"): when each repository's merge queue is to be unpaused
 * by itself, one row per repository (a new pause replaces it, a manual unpause removes it), claimed by
 * one replica at a time when it comes. A pause attribution says when its pause was to end
 * (`resumes_at`), and an unpause's whether it was that scheduled one (`scheduled`, 0 or 1). Versions 6
 * and 7 are other branches'.
 */
export const scheduledUnpauses: Migration = {
  version: 8,
  name: "scheduled unpauses",
  async up(db, t) {
    await db.schema
      .createTable("scheduled_unpauses")
      .addColumn("repository_key", "text", (c) => c.primaryKey())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("resumes_at", t.time, (c) => c.notNull())
      .addColumn("scheduled_by", "text", (c) => c.notNull())
      .addColumn("surface", "text", (c) => c.notNull())
      .addColumn("created_at", t.time, (c) => c.notNull())
      .addColumn("claimed_by", "text")
      .addColumn("claimed_until", t.time)
      .execute();
    await db.schema
      .createIndex("scheduled_unpauses_resumes_at")
      .on("scheduled_unpauses")
      .column("resumes_at")
      .execute();
    await db.schema.alterTable("pause_attributions").addColumn("resumes_at", t.time).execute();
    await db.schema
      .alterTable("pause_attributions")
      .addColumn("scheduled", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
