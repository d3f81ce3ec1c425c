import type { Migration } from "./migration.js";

/**
 * The signatures of the Slack requests accepted lately (docs/operations.md): a signed request is run
 * once, whichever replica it reaches, and its signature is forgotten once its timestamp has left the
 * window in which it could be accepted again.
 */
export const slackSignatures: Migration = {
  version: 3,
  name: "slack signatures",
  async up(db, t) {
    await db.schema
      .createTable("slack_signatures")
      .addColumn("signature", "text", (c) => c.primaryKey())
      .addColumn("seen_at", t.time, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("slack_signatures_seen_at")
      .on("slack_signatures")
      .column("seen_at")
      .execute();
  },
};
