import type { Migration } from "./migration.js";

/**
 * The gate's retries (docs/backends.md, "The gate"): a gate check run or completion GitHub refused keeps
 * its claim, and the sweep makes it again no sooner than `retry_at`, each time later (`attempts` counts
 * the refusals, for the backoff).
 */
export const gateRetries: Migration = {
  version: 24,
  name: "gate retries",
  async up(db, t) {
    await db.schema
      .alterTable("gate_checks")
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable("gate_checks").addColumn("retry_at", t.time).execute();
  },
};
