import type { Migration } from "./migration.js";

/**
 * The gate's leases and sweep (docs/backends.md, "The gate"): when a gate check's claim was last taken
 * (`claimed_at`; absent: at its `created_at`), so a claim whose replica died before making the check run
 * may be taken over, and when a held gate's completion was claimed (`completing_at`), so a completion
 * GitHub did not hear is retried. Indexes for the next position of a repository's rows and the sweep.
 */
export const gateLeases: Migration = {
  version: 20,
  name: "gate leases",
  async up(db, t) {
    await db.schema.alterTable("gate_checks").addColumn("claimed_at", t.time).execute();
    await db.schema.alterTable("gate_checks").addColumn("completing_at", t.time).execute();
    await db.schema
      .createIndex("gate_checks_position")
      .on("gate_checks")
      .columns(["repository_key", "position"])
      .execute();
    await db.schema
      .createIndex("gate_holds_position")
      .on("gate_holds")
      .columns(["repository_key", "position"])
      .execute();
    await db.schema
      .createIndex("gate_checks_sweep")
      .on("gate_checks")
      .columns(["state", "created_at"])
      .execute();
  },
};
