import { sql } from "kysely";
import type { Migration } from "./migration.js";

/**
 * Once-claims (`once_claims`, src/store/once-claims.ts): a thing done once by one replica, named by a
 * scope and a key, held by a lease until done (docs/architecture.md, "Durable work"). Slack's events
 * handled once by `event_id` (`slack_events`) are copied in as scope `slack-event`; `slack_events` is
 * kept, not dropped, for a rolling upgrade's older replicas (a later release may drop it).
 */
export const onceClaims: Migration = {
  version: 35,
  name: "once claims",
  async up(db, t) {
    await db.schema
      .createTable("once_claims")
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("first_at", t.time, (c) => c.notNull())
      .addColumn("claimed_by", "text")
      .addColumn("claimed_until", t.time)
      .addColumn("done_at", t.time)
      .addColumn("result", t.json)
      .addPrimaryKeyConstraint("once_claims_pk", ["scope", "key"])
      .execute();
    await db.schema
      .createIndex("once_claims_first_at")
      .on("once_claims")
      .columns(["scope", "first_at"])
      .execute();
    await sql`INSERT INTO once_claims (scope, key, first_at, claimed_by, claimed_until, done_at, result)
      SELECT 'slack-event', event_id, received_at, claimed_by, claimed_until, done_at, NULL FROM slack_events`.execute(
      db,
    );
  },
};
