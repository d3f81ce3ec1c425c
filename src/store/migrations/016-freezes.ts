import type { Migration } from "./migration.js";

/**
 * Freeze windows (docs/commands.md, "Freeze windows"): each repository's freezes (`freezes`, numbered
 * per repository, names unique per repository case-insensitively), and each window's steps (the notice
 * before it, its pause, its resume) claimed by one replica at a time and marked done once
 * (`freeze_steps`).
 */
export const freezes: Migration = {
  version: 16,
  name: "freezes",
  async up(db, t) {
    await db.schema
      .createTable("freezes")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("number", "integer", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("name_key", "text", (c) => c.notNull())
      .addColumn("schedule", t.json, (c) => c.notNull())
      .addColumn("zone", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("surface", "text", (c) => c.notNull())
      .addColumn("created_at", t.time, (c) => c.notNull())
      .addUniqueConstraint("freezes_repository_number", ["repository_key", "number"])
      .addUniqueConstraint("freezes_repository_name", ["repository_key", "name_key"])
      .execute();
    await db.schema
      .createTable("freeze_steps")
      .addColumn("freeze_id", "text", (c) => c.notNull())
      .addColumn("starts_at", t.time, (c) => c.notNull())
      .addColumn("step", "text", (c) => c.notNull())
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("ends_at", t.time, (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("claimed_by", "text", (c) => c.notNull())
      .addColumn("claimed_until", t.time, (c) => c.notNull())
      .addColumn("done", "integer", (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("freeze_steps_pkey", ["freeze_id", "starts_at", "step"])
      .execute();
    await db.schema
      .createIndex("freeze_steps_ends_at")
      .on("freeze_steps")
      .columns(["step", "ends_at"])
      .execute();
  },
};
