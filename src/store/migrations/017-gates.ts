import type { Migration } from "./migration.js";

/**
 * The gate check of GitHub's merge queue (docs/backends.md, "The gate"): each branch's pause kept by
 * Yardmaster (`gate_pauses`), each gate check reported, claimed once per repository, commit and check
 * name before its check run is made (`gate_checks`), and the entries a pause held, with those GitHub
 * removed for its check timeout meanwhile (`gate_holds`).
 */
export const gates: Migration = {
  version: 17,
  name: "gates",
  async up(db, t) {
    await db.schema
      .createTable("gate_pauses")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("branch", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("pause_id", "text", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("paused_by", "text", (c) => c.notNull())
      .addColumn("paused_at", t.time, (c) => c.notNull())
      .addPrimaryKeyConstraint("gate_pauses_pkey", ["repository_key", "branch"])
      .execute();
    await db.schema
      .createTable("gate_checks")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("head_sha", "text", (c) => c.notNull())
      .addColumn("check_name", "text", (c) => c.notNull())
      .addColumn("repository", "text", (c) => c.notNull())
      .addColumn("branch", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("pull_number", "integer", (c) => c.notNull())
      .addColumn("position", "integer", (c) => c.notNull())
      .addColumn("check_run_id", t.int8)
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("claimed_by", "text", (c) => c.notNull())
      .addColumn("created_at", t.time, (c) => c.notNull())
      .addColumn("completed_at", t.time)
      .addPrimaryKeyConstraint("gate_checks_pkey", ["repository_key", "head_sha", "check_name"])
      .execute();
    await db.schema
      .createIndex("gate_checks_pending")
      .on("gate_checks")
      .columns(["repository_key", "branch", "state"])
      .execute();
    await db.schema
      .createTable("gate_holds")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("branch", "text", (c) => c.notNull())
      .addColumn("pause_id", "text", (c) => c.notNull())
      .addColumn("pull_number", "integer", (c) => c.notNull())
      .addColumn("pull_head_sha", "text", (c) => c.notNull())
      .addColumn("position", "integer", (c) => c.notNull())
      .addColumn("held_at", t.time, (c) => c.notNull())
      .addColumn("timed_out", "integer", (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("gate_holds_pkey", ["repository_key", "branch", "pause_id", "pull_number"])
      .execute();
  },
};
