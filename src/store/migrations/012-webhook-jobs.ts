import type { Migration } from "./migration.js";

/**
 * Webhooks answered before their work is done (docs/architecture.md, "A command's path"): each comment
 * command is recorded as a job when its webhook arrives, run after the answer by the replica that
 * received it, and by any replica once that one's claim lapses (it died before the job was done). A
 * job's `payload` is what running it needs of the webhook; `done_at` marks it run (pruned a day later).
 *
 * And GitHub's order for notices pushed by its merge queue: a row of the outbox may say where it stands
 * in its channel's order (`order_at`, `order_seq`: when its webhook was received, and the receiving
 * replica's count within that millisecond), instead of when it was claimed.
 */
export const webhookJobs: Migration = {
  version: 12,
  name: "webhook jobs",
  async up(db, t) {
    await db.schema
      .createTable("webhook_jobs")
      .addColumn("delivery_id", "text", (c) => c.primaryKey())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("installation_id", t.int8, (c) => c.notNull())
      .addColumn("payload", t.json, (c) => c.notNull())
      .addColumn("received_at", t.time, (c) => c.notNull())
      .addColumn("claimed_by", "text")
      .addColumn("claimed_until", t.time)
      .addColumn("done_at", t.time)
      .execute();
    await db.schema
      .createIndex("webhook_jobs_claimed_until")
      .on("webhook_jobs")
      .column("claimed_until")
      .execute();
    await db.schema.alterTable("notifications").addColumn("order_at", t.time).execute();
    await db.schema.alterTable("notifications").addColumn("order_seq", t.int8).execute();
  },
};
