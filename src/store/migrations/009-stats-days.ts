import type { Migration } from "./migration.js";

/**
 * What `stats` keeps of each finished UTC day of a repository's event log ("2026-11-20" → facts as
 * JSON), so that a day is read from the log once. Versions 6 to 8 are other features' (relays, notice
 * preferences, scheduled unpauses).
 */
export const statsDays: Migration = {
  version: 9,
  name: "stats days",
  async up(db, t) {
    await db.schema
      .createTable("stats_days")
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("facts", t.json, (c) => c.notNull())
      .addColumn("computed_at", t.time, (c) => c.notNull())
      .addPrimaryKeyConstraint("stats_days_pkey", ["repository_key", "day"])
      .execute();
  },
};
