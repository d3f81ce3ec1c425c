import type { Migration } from "./migration.js";

/**
 * More control of GitHub's merge queue through the gate (docs/backends.md, "The gate"): a branch's pause
 * may be a drain (`gate_pauses.drain_id`, and `drain`: who began it, when, and what was queued then, and `drained_at` once none of it is
 * left) and may let pull requests carrying some labels through (`gate_pauses.except_labels`, and a
 * freeze window's `freezes.except_labels`); an admin may let one pull request's merge group through
 * (`gate_passes`); and a held gate whose decision could not be read from GitHub is decided again by the
 * sweep (`gate_checks.reconsider`).
 */
export const gateControl: Migration = {
  version: 31,
  name: "gate control",
  async up(db, t) {
    await db.schema.alterTable("gate_pauses").addColumn("drain_id", "text").execute();
    await db.schema.alterTable("gate_pauses").addColumn("drain", t.json).execute();
    await db.schema.alterTable("gate_pauses").addColumn("drained_at", t.time).execute();
    await db.schema.alterTable("gate_pauses").addColumn("except_labels", t.json).execute();
    await db.schema.alterTable("freezes").addColumn("except_labels", t.json).execute();
    await db.schema
      .alterTable("gate_checks")
      .addColumn("reconsider", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable("gate_passes")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("branch", "text", (c) => c.notNull())
      .addColumn("pause_id", "text", (c) => c.notNull())
      .addColumn("pull_number", "integer", (c) => c.notNull())
      .addColumn("pass_id", "text", (c) => c.notNull())
      .addColumn("pulls", t.json, (c) => c.notNull())
      .addColumn("passed_by", "text", (c) => c.notNull())
      .addColumn("passed_at", t.time, (c) => c.notNull())
      .addPrimaryKeyConstraint("gate_passes_pkey", ["repository_key", "branch", "pause_id", "pull_number"])
      .execute();
  },
};
