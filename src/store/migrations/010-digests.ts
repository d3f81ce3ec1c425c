import { sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * Weekly digests: a subscription may ask for one (`digest`, since `digest_since`: the first digest is
 * the first Monday 09:00 after it), and `digests` records each one posted, per channel, repository and
 * week (the Monday's date in DIGEST_TIME_ZONE), so that it is posted once whatever the replicas and
 * restarts: claimed with a lease, then marked sent with its message.
 */
export const digests: Migration = {
  version: 10,
  name: "digests",
  async up(db, t) {
    await db.schema
      .alterTable("subscriptions")
      .addColumn("digest", "text", (c) => c.check(sql`digest IN ('weekly')`))
      .execute();
    await db.schema.alterTable("subscriptions").addColumn("digest_since", t.time).execute();
    await db.schema
      .createTable("digests")
      .addColumn("channel_id", "text", (c) => c.notNull())
      .addColumn("repository_key", "text", (c) => c.notNull())
      .addColumn("week", "text", (c) => c.notNull())
      .addColumn("claimed_by", "text", (c) => c.notNull())
      .addColumn("claimed_at", t.time, (c) => c.notNull())
      .addColumn("claimed_until", t.time, (c) => c.notNull())
      .addColumn("sent_at", t.time)
      .addColumn("message_ts", "text")
      .addPrimaryKeyConstraint("digests_pkey", ["channel_id", "repository_key", "week"])
      .execute();
  },
};
