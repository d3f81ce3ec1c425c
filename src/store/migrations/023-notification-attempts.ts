import type { Migration } from "./migration.js";

/**
 * Which replica began posting a pending notification (`attempted_by`, set just before its post): a row
 * nobody began is posted straight away by whichever replica holds its channel's lease, one a dead
 * replica began is looked up in the channel first (src/notifier/deliverer.ts). Only a column added: an
 * older build ignores it.
 */
export const notificationAttempts: Migration = {
  version: 23,
  name: "notification attempts",
  async up(db) {
    await db.schema.alterTable("notifications").addColumn("attempted_by", "text").execute();
  },
};
