import type { Migration } from "./migration.js";

/**
 * Closed health episodes are kept a day (src/store/health-episodes.ts): `closed_at` and the words of how
 * each ended, so that a replica that has not yet seen what ended one (an event recorded late) does not
 * open the same episode (kind, key and start) again straight away, and a message posted as it closed is
 * edited to say how it ended. Only columns added: an older build ignores them.
 */
export const healthEpisodesClosed: Migration = {
  version: 21,
  name: "health episodes closed",
  async up(db, t) {
    await db.schema.alterTable("health_episodes").addColumn("closed_at", t.time).execute();
    await db.schema.alterTable("health_episodes").addColumn("ending", "text").execute();
  },
};
